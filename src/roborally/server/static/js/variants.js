// The alternative rules in the rulebook's words: a title and one sentence for each id of
// GET /api/options (variant.ID.title, variant.ID.description; the server's own title is used
// for ids the translations do not know).

import { hasText, t } from "./i18n.js";

/** {title, description} of a variant id. */
export function variantInfo(options, id) {
  const key = `variant.${id}`;
  if (hasText(key + ".title")) return { title: t(key + ".title"), description: t(key + ".description") };
  const listed = options && (options.variants || []).find((v) => v.id === id);
  const title = listed ? listed.title : String(id).replace(/_/g, " ");
  return { title: title.replace(/^./, (c) => c.toUpperCase()), description: "" };
}

/** The programming timer of an edition, in words. */
export function timerWords(timer) {
  if (!timer || (timer.kind !== "speed" && timer.kind !== "sand")) return "";
  return t("variant.timer_" + timer.kind);
}
