// The log in words, shared by the game and the replay screens.

import { cardTitle, isCard } from "./cards.js";
import { t } from "./i18n.js";
import { seatDot } from "./seats.js";
import { h } from "./util.js";
import { describe } from "./words.js";

export class LogView {
  constructor(name) {
    this.name = name; // seat -> player name
    this.classic = false; // the classic editions' words (flags, destruction, repairs)
    this.el = h("ol.log", { "data-testid": "log", "aria-live": "off" });
  }

  clear() {
    this.el.replaceChildren();
  }

  /** Add the sentence for event ``e`` (if it has one); consecutive steps merge into one line. */
  event(e) {
    const line = describe(e, this.name, this.classic);
    if (line) this.add(line, e);
  }

  add(line, e) {
    const last = this.el.lastElementChild;
    if (line.merge === "move" && last && last.dataset.merge === "move" &&
        last.dataset.seat === String(e.seat) && last.dataset.text === line.text) {
      const n = Number(last.dataset.n) + 1;
      last.dataset.n = String(n);
      last.querySelector(".ltext").textContent = line.more ? line.more(n) : line.text;
      return;
    }
    const li = h("li.l-" + (line.kind || "plain"), {
      dataset: { i: e.i ?? "", seat: e.seat ?? "", merge: line.merge || "", text: line.text, n: 1 },
    });
    if (e.seat !== undefined && e.seat !== null && !["round", "register", "head"].includes(line.kind)) {
      li.append(seatDot(e.seat));
    }
    li.append(h("span.ltext", null, withCard(line.text, e.hidden ? null : e.card)));
    this.el.append(li);
    while (this.el.childElementCount > 600) this.el.firstElementChild.remove();
    this.el.scrollTop = this.el.scrollHeight;
  }
}

/** The sentence with the card's name as a button that opens the card. */
function withCard(text, card) {
  const title = isCard(card) ? cardTitle(card) : "";
  const at = title ? text.indexOf(title) : -1;
  if (at < 0) return text;
  return [text.slice(0, at), h("button.card-link", { type: "button", "data-card": card, title: t("log.show_card") }, title), text.slice(at + title.length)];
}
