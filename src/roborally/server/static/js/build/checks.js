// Live checks: POST /api/build/check a moment after each change (the latest answer wins), the
// findings listed (errors, warnings, advice, in the page's language) and marked on their
// spaces; a finding clicked moves the cursor to its first space.

import { t } from "../i18n.js";
import { h, fill } from "../util.js";
import { buildApi } from "./buildapi.js";

export const DEBOUNCE_MS = 250;
const ORDER = { error: 0, warning: 1, advice: 2 };

export class Checker {
  /** onResult(result, body): a fresh answer for the body sent; onGoto(x, y). */
  constructor({ onResult, onGoto }) {
    this.onResult = onResult;
    this.onGoto = onGoto;
    this.sent = 0;
    this.shown = 0;
    this.timer = null;
    this.result = null;
    this.busy = false;
    this.el = h("section.panel.findings-panel", { "aria-labelledby": "findings-title", "data-testid": "findings" });
    this.summary = h("p.findings-summary", { role: "status", "aria-live": "polite", "data-testid": "findings-summary" }, t("build.check.waiting"));
    this.list = h("ul.findings-list", { "data-testid": "findings-list" });
    fill(this.el, h("h2", { id: "findings-title" }, t("build.check.title")), this.summary, this.list);
  }

  /** Check ``makeBody()`` (called when the time comes) in DEBOUNCE_MS, or ``now``. */
  schedule(makeBody, now = false) {
    clearTimeout(this.timer);
    this.el.dataset.state = "pending";
    this.pending = true; // a change waits for its check: older answers do not settle it
    this.timer = setTimeout(() => {
      this.pending = false;
      this.run(makeBody());
    }, now ? 0 : DEBOUNCE_MS);
  }

  async run(body) {
    const n = ++this.sent;
    this.busy = true;
    let result;
    try {
      result = await buildApi.check(body);
    } catch (error) {
      if (n !== this.sent) return;
      if (error.status === 429 || error.status === 503) {
        // Too many checks at once: the same check again when the server says.
        this.timer = setTimeout(() => this.run(body), Math.max(1, error.retryAfter || 1) * 1000);
        return;
      }
      this.busy = false;
      this.el.dataset.state = "failed";
      this.summary.textContent = t("build.check.failed", { message: error.message });
      return;
    }
    if (n !== this.sent) return; // a newer change is on its way
    this.busy = false;
    this.shown = n;
    this.result = result;
    if (!this.pending) this.el.dataset.state = "done";
    this.show(result);
    this.onResult(result, body);
  }

  /** Whether the last change has been checked. */
  settled() {
    return !this.busy && !this.pending && this.shown === this.sent && this.el.dataset.state === "done";
  }

  show(result) {
    const findings = [...(result.findings || [])].sort((a, b) => (ORDER[a.severity] ?? 3) - (ORDER[b.severity] ?? 3));
    const count = (sev) => findings.filter((f) => f.severity === sev).length;
    this.summary.textContent = findings.length
      ? t("build.check.summary", { errors: count("error"), warnings: count("warning"), advice: count("advice") })
      : t("build.check.clean");
    this.summary.dataset.ok = String(!!result.ok);
    fill(this.list, ...findings.map((f) => {
      const spaces = f.spaces || [];
      const where = spaces.length ? spaces.slice(0, 3).map(([x, y]) => `${x},${y}`).join("; ") + (spaces.length > 3 ? "…" : "") : "";
      const body = [h("span.sev-badge." + f.severity, null, t("build.check." + f.severity)), " ", h("span.finding-text", null, f.message || f.code), where ? h("span.dim", null, ` (${where})`) : null];
      return h("li.finding." + f.severity, { "data-testid": "finding", "data-code": f.code, "data-severity": f.severity },
        spaces.length
          ? h("button.finding-go", { type: "button", onclick: () => this.onGoto(spaces[0][0], spaces[0][1]), title: t("build.check.goto") }, body)
          : h("div.finding-go", null, body));
    }));
  }

  /** The marks for the view: [{x, y, severity, index}]. */
  marks() {
    const worst = new Map(); // one mark a space: its most serious finding
    ((this.result && this.result.findings) || []).forEach((f, index) => {
      for (const [x, y] of f.spaces || []) {
        const key = `${x},${y}`;
        const had = worst.get(key);
        if (!had || (ORDER[f.severity] ?? 3) < (ORDER[had.severity] ?? 3)) worst.set(key, { x, y, severity: f.severity, index });
      }
    });
    return [...worst.values()];
  }
}
