// What the page says when the server refuses something: plain words, never a raw error code.
// The server's own message is shown where it says something a person can use (when to try
// again, what the limit is; its messages are in English, so only an English page shows them);
// otherwise the page says it in its own words (error.*).

import { language, t } from "./i18n.js";

const cap = (text) => String(text || "").replace(/^./, (c) => c.toUpperCase());
const sentence = (text) => {
  const said = cap(String(text || "").trim());
  return said && !/[.!?]$/.test(said) ? said + "." : said;
};

/** The name a "name_taken" message is about (the server quotes it), or null. */
function quotedName(message) {
  const m = /'([^']+)'|"([^"]+)"|called (.+?)(?: \(the names look the same\))?(?:;|$)/.exec(String(message || ""));
  return m ? (m[1] || m[2] || m[3]).trim() : null;
}

/** The server's own words, where they help (in English: the server speaks English). */
const detail = (message, fallback) => (language() === "en" && sentence(message)) || t(fallback);

/**
 * Words for a refusal. code and message come from the server (an HTTP error body or a WebSocket
 * error); doing says what was tried: "create", "join", "hello", "decide", "ready", "start", ...
 */
/** Codes whose words are always the same: the text's key. */
const PLAIN = {
  too_many_connections: "error.too_many_connections", auto_play: "error.auto_play",
  replaced: "error.replaced", no_free_seat: "error.no_free_seat", not_open: "error.not_open",
  private_game: "error.private_game", offline: "error.offline",
  invite_used: "error.invite_used", bad_invite: "error.bad_invite", signed_out: "error.signed_out",
  too_many_spectators: "error.too_many_spectators",
};

export function refusalText(code, message, doing = "") {
  const english = language() === "en";
  // The server's message after its code's own words (English pages only), e.g. a bad name.
  const after = (key, clean) => {
    const said = english ? clean(String(message || "")) : "";
    return said ? t(key + "_detail", { detail: said }) : t(key);
  };
  if (Object.hasOwn(PLAIN, code)) return t(PLAIN[code]);
  switch (code) {
    case "name_taken": {
      const name = quotedName(message);
      if (doing === "create") return name ? t("error.name_taken_create_named", { name }) : t("error.name_taken_create");
      return name ? t("error.name_taken_named", { name }) : t("error.name_taken");
    }
    case "bad_name":
      return after("error.bad_name", (m) => m.replace(/^seats\[\d+\]: /, ""));
    case "rate_limited":
      if (doing === "create") return `${t("error.rate_limited_create")} ${detail(message, "error.try_later")}`;
      return t("error.rate_limited");
    case "too_many_games":
      return `${t("error.too_many_games")} ${detail(message, "error.try_later")}`;
    case "server_full":
      return doing === "watch" ? t("error.spectators_full") : `${t("error.server_busy")} ${detail(message, "error.try_later")}`;
    case "storage_failed":
      return doing === "decide" ? t("error.storage_failed_move") : t("error.storage_failed");
    case "unknown_game":
      return (english && sentence(message)) || t("error.unknown_game");
    case "bad_token":
    case "token_in_url":
      return t("error.bad_token");
    case "illegal_action":
    case "invalid_action":
      return after("error.not_accepted", (m) => m.replace(/^[\w-]+: /, ""));
    case "out_of_phase":
    case "not_pending":
      return t("error.moved_on");
    case "bad_request":
    case "bad_json":
    case "too_large":
      return after("error.bad_request", (m) => m.replace(/'/g, ""));
    default:
      return (english && sentence(message)) || t("error.unknown");
  }
}
