// Test drive: a robot placed on a space with a facing, five cards chosen, the engine runs them
// on the course (POST /api/build/drive: every board element active) and the page shows the
// robot's path register by register, each step in turn.

import { cardCatalogue } from "../api.js";
import { cardTitle, setCatalogue } from "../cards.js";
import { t } from "../i18n.js";
import { h, fill, DIR_ARROWS } from "../util.js";
import { DIRS } from "./model.js";
import { buildApi } from "./buildapi.js";

const STEP_MS = 300;
const FALLBACK_CARDS = ["move1", "move2", "move3", "move_back", "rotate_right", "rotate_left", "u_turn", "power_up", "again"];

export class Driver {
  /** app: main.js's Builder (view, courseForDrive(), edition()). */
  constructor(app) {
    this.app = app;
    this.robot = null; // {x, y, facing}
    this.placing = false;
    this.cards = FALLBACK_CARDS;
    this.program = [null, null, null, null, null];
    this.result = null;
    this.el = h("section.panel.drive-panel", { "aria-labelledby": "drive-title", "data-testid": "drive" });
    this.status = h("p.drive-status", { role: "status", "aria-live": "polite", "data-testid": "drive-status" });
    this.log = h("ol.drive-log", { "data-testid": "drive-log" });
    cardCatalogue("2023").then((cards) => {
      setCatalogue(cards);
      this.render();
    });
    this.render();
  }

  render() {
    const facing = h("select", { id: "drive-facing", "data-testid": "drive-facing", onchange: (e) => { if (this.robot) this.robot.facing = e.target.value; this.show(); } },
      DIRS.map((d) => h("option", { value: d, selected: (this.robot ? this.robot.facing : "N") === d }, `${DIR_ARROWS[d]} ${t("build.dir." + d)}`)));
    const registers = this.program.map((card, i) => h("div.field", null,
      h("label", { for: "drive-reg-" + i }, t("build.drive.register", { n: i + 1 })),
      h("select", { id: "drive-reg-" + i, "data-testid": "drive-reg", onchange: (e) => (this.program[i] = e.target.value || null) },
        h("option", { value: "" }, "—"),
        this.cards.map((id) => h("option", { value: id, selected: card === id }, cardTitle(id))))));
    this.placeBtn = h("button.small", { type: "button", "data-testid": "drive-place", "aria-pressed": String(this.placing), onclick: () => this.setPlacing(!this.placing) },
      this.placing ? t("build.drive.placing") : t("build.drive.place"));
    fill(this.el,
      h("h2", { id: "drive-title" }, t("build.drive.title")),
      h("p.hint", null, t("build.drive.intro")),
      h("div.inline", null, this.placeBtn, h("label.sr-only", { for: "drive-facing" }, t("build.drive.facing")), facing),
      h("p.dim", { "data-testid": "drive-robot-at" }, this.robot ? t("build.drive.robot_at", { x: this.robot.x, y: this.robot.y, dir: t("build.dir." + this.robot.facing) }) : t("build.drive.no_robot")),
      h("div.drive-regs", null, registers),
      h("div.button-row", null,
        h("button.primary.small", { type: "button", "data-testid": "drive-run", onclick: () => this.run() }, t("build.drive.run")),
        h("button.small.ghost", { type: "button", "data-testid": "drive-clear", onclick: () => this.clear() }, t("build.drive.clear"))),
      this.status, this.log);
  }

  setPlacing(on) {
    this.placing = on;
    this.render();
    this.app.say(on ? t("build.drive.placing_hint") : "");
  }

  /** The robot put on x,y (the page's "place" mode, or the cursor with the keyboard). */
  place(x, y) {
    this.robot = { x, y, facing: this.robot ? this.robot.facing : "N" };
    this.placing = false;
    this.result = null;
    this.app.say("");
    this.render();
    this.show();
  }

  clear() {
    this.result = null;
    fill(this.log);
    this.status.textContent = "";
    this.show();
  }

  show(paths = [], at = this.robot) {
    this.app.view.showPath(paths, at);
  }

  async run() {
    if (!this.robot) {
      this.status.textContent = t("build.drive.no_robot");
      return;
    }
    this.status.textContent = t("build.drive.running");
    this.el.dataset.state = "running";
    let result;
    try {
      result = await buildApi.drive({ course: this.app.courseForDrive(), edition: this.app.driveEdition(), robot: { ...this.robot }, program: [...this.program] });
    } catch (error) {
      if (error.status === 429 && !this.retried) {
        this.retried = true; // a burst of test drives: once more when the server says
        setTimeout(() => this.run().finally(() => (this.retried = false)), Math.max(1, error.retryAfter || 1) * 1000);
        return;
      }
      this.status.textContent = t("build.drive.failed", { message: error.message });
      this.el.dataset.state = "failed";
      return;
    }
    if (Array.isArray(result.cards) && result.cards.length) {
      const old = this.cards.join();
      this.cards = result.cards;
      if (old !== this.cards.join()) this.render();
    }
    this.result = result;
    await this.animate(result);
    this.el.dataset.state = "done";
  }

  async animate(result) {
    const paths = [];
    let at = { ...this.robot };
    fill(this.log);
    for (const reg of result.registers || []) {
      const path = [[at.x, at.y]];
      paths.push(path);
      const line = h("li", { "data-testid": "drive-register" }, h("strong", null, t("build.drive.register", { n: reg.register }) + ": " + (reg.card ? cardTitle(reg.card) : "—")));
      this.log.append(line);
      for (const stepAt of reg.steps || []) {
        // Only the steps that move, turn or drop the robot are shown (and take time).
        const moved = stepAt.x !== at.x || stepAt.y !== at.y || stepAt.facing !== at.facing || stepAt.fell;
        if (!moved) continue;
        at = { x: stepAt.x, y: stepAt.y, facing: stepAt.facing };
        path.push([at.x, at.y]);
        this.show(paths, at);
        if (stepAt.fell) line.append(h("div.dim", null, `${stepAt.what || ""} ✕`));
        await new Promise((r) => setTimeout(r, STEP_MS));
      }
      this.show(paths, at);
      // The events in words (the first, "Register N", is the line's own title already).
      const events = (reg.events || []).filter((ev, i) => !(i === 0 && String(ev).includes(String(reg.register)) && String(ev).split(/\s+/).length <= 3));
      for (const ev of events) line.append(h("div", null, ev));
    }
    this.status.textContent = t("build.drive.done", { x: at.x, y: at.y, dir: t("build.dir." + (at.facing || "N")) });
  }
}
