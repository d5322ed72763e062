// A card opened large, with its whole text and a link to the rules: a click (or tap) on any card
// outside the programming tray, a long press (or right click) on a card in it.

import { cardEl, cardText, cardTitle, cardTypeLine } from "./cards.js";
import { t } from "./i18n.js";
import { rulesUrl } from "./spaceinfo.js";
import { h } from "./util.js";

let edition = "2023";

/** The edition whose rules the card links go to. */
export function setCardEdition(value) {
  edition = value || "2023";
}

export function openCard(name) {
  if (!name) return;
  const open = document.querySelector(".card-view-back");
  if (open) {
    if (open.dataset.card === name) return;
    open.remove();
  }
  const opened = performance.now();
  const onKey = (e) => {
    if (e.key === "Escape") close();
  };
  const close = () => {
    back.remove();
    document.removeEventListener("keydown", onKey);
  };
  const closeBtn = h("button.primary", { type: "button", onclick: close, "data-testid": "card-view-close" }, t("card.view.close"));
  const back = h("div.modal-back.card-view-back", {
    dataset: { card: name },
    // The end of the press that opened it must not close it again.
    onclick: (e) => e.target === back && performance.now() - opened > 400 && close(),
  },
  h("div.modal.card-view", { role: "dialog", "aria-modal": "true", "aria-label": cardTitle(name), "data-testid": "card-view", "data-card": name },
    cardEl(name, { large: true, title: "" }),
    h("div.card-view-words", null,
      h("h2", null, cardTitle(name)),
      h("p.card-type", null, cardTypeLine(name)),
      h("p.card-text", { "data-testid": "card-text" }, cardText(name) || t("card.view.no_text")),
      h("div.card-view-actions", null,
        h("a.button.ghost", { href: rulesUrl(edition, "card-" + name), target: "_blank", rel: "noopener", "data-testid": "card-rules" }, t("card.view.rules")),
        closeBtn))));
  document.body.append(back);
  document.addEventListener("keydown", onKey);
  closeBtn.focus({ preventScroll: true });
}

/** Any card on the page opens large on a click, except in the programming tray (see program.js). */
export function installCardViewer() {
  const target = (ev) => {
    const el = ev.target.closest && ev.target.closest("[data-card]");
    // A card the tray has just placed (and drawn anew) is no longer on the page: not that one.
    if (!el || !el.isConnected || el.closest(".program, [data-testid=choice], .card-view, .drag-ghost")) return null;
    return el;
  };
  document.addEventListener("click", (ev) => {
    const el = target(ev);
    if (el) openCard(el.dataset.card);
  });
  document.addEventListener("keydown", (ev) => {
    const el = (ev.key === "Enter" || ev.key === " ") && target(ev);
    if (!el) return;
    ev.preventDefault();
    openCard(el.dataset.card);
  });
}
