// Files: download the board (.board) or the course (.course, one file holding its drawn boards)
// in the standard text the last check gave, and open a board or course file from the device
// (read by POST /api/build/read: a file's error is shown with its line and column).

import { t } from "../i18n.js";
import { h, fill } from "../util.js";
import { buildApi } from "./buildapi.js";

/** The biggest file the page sends to be read (the server has its own limit too). */
export const MAX_FILE_BYTES = 256 * 1024;

/** Save ``text`` as a file called ``filename`` (a Blob and a download link). */
export function download(text, filename) {
  const url = URL.createObjectURL(new Blob([text], { type: "text/plain;charset=utf-8" }));
  const a = h("a", { href: url, download: filename, hidden: true });
  document.body.append(a);
  a.click();
  a.remove();
  setTimeout(() => URL.revokeObjectURL(url), 10_000);
}

export class FilesPanel {
  /** app: main.js's Builder (lastText(), openFile(result)). */
  constructor(app) {
    this.app = app;
    this.el = h("section.panel.files-panel", { "aria-labelledby": "files-title", "data-testid": "files" });
    this.input = h("input", { type: "file", accept: ".board,.course,.txt,.toml", id: "open-file", "data-testid": "open-file", onchange: () => this.open() });
    this.message = h("p.file-message", { role: "alert", "data-testid": "file-message", hidden: true });
    this.downloadBtn = h("button.small", { type: "button", "data-testid": "download", onclick: () => this.save() }, t("build.files.download"));
    fill(this.el,
      h("h2", { id: "files-title" }, t("build.files.title")),
      h("div.button-row", null, this.downloadBtn),
      h("div.field", null, h("label", { for: "open-file" }, t("build.files.open")), this.input,
        h("span.hint", null, t("build.files.open_hint", { size: Math.round(MAX_FILE_BYTES / 1024) }))),
      this.message);
  }

  say(text, bad = false) {
    this.message.hidden = !text;
    this.message.textContent = text || "";
    this.message.classList.toggle("error", bad);
  }

  async save() {
    await this.app.whenChecked();
    const result = this.app.checked();
    if (!result || !result.text) {
      this.say(t("build.files.not_ready"), true);
      return;
    }
    download(result.text, result.filename || "board.txt");
    this.say(t("build.files.saved", { name: result.filename }));
  }

  async open() {
    const file = this.input.files && this.input.files[0];
    if (!file) return;
    this.input.value = "";
    if (file.size > MAX_FILE_BYTES) {
      this.say(t("build.files.too_large", { name: file.name, size: Math.round(MAX_FILE_BYTES / 1024) }), true);
      return;
    }
    const text = await file.text();
    await this.read(text, file.name);
  }

  /** Read a file's text (also used by the tests and the trace of a shipped file). */
  async read(text, filename) {
    try {
      const result = await buildApi.read(text, filename);
      this.app.openFile(result);
      this.say(t("build.files.opened", { name: filename }));
      return result;
    } catch (error) {
      const d = error.detail || {};
      if (error.code === "too_large" || error.status === 413) {
        this.say(t("build.files.too_large", { name: filename, size: Math.round(MAX_FILE_BYTES / 1024) }), true);
      } else if (d.line) {
        this.say(t("build.files.error_at", { name: d.filename || filename, line: d.line, column: d.column || 1, message: error.message }), true);
      } else {
        this.say(t("build.files.error", { name: filename, message: error.message }), true);
      }
      return null;
    }
  }
}
