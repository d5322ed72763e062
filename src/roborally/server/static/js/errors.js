// What the page says when the server refuses something: plain words, never a raw error code.
// The server's own message is shown where it says something a person can use (when to try
// again, what the limit is); otherwise the page says it in its own words.

const cap = (text) => String(text || "").replace(/^./, (c) => c.toUpperCase());
const sentence = (text) => {
  const t = cap(String(text || "").trim());
  return t && !/[.!?]$/.test(t) ? t + "." : t;
};

/** The name a "name_taken" message is about (the server quotes it), or null. */
function quotedName(message) {
  const m = /'([^']+)'|"([^"]+)"|called (.+?)(?:;|$)/.exec(String(message || ""));
  return m ? (m[1] || m[2] || m[3]).trim() : null;
}

/**
 * Words for a refusal. code and message come from the server (an HTTP error body or a WebSocket
 * error); doing says what was tried: "create", "join", "hello", "decide", "ready", "start", ...
 */
export function refusalText(code, message, doing = "") {
  switch (code) {
    case "name_taken": {
      const name = quotedName(message);
      if (doing === "create") {
        return `Two players have the same name${name ? ` (${name})` : ""}. Every player needs a name of their own.`;
      }
      return `Another player in this game is already called ${name || "that"}. Please pick another name.`;
    }
    case "bad_name":
      return `That name does not work: ${String(message || "").replace(/^seats\[\d+\]: /, "")}.`;
    case "rate_limited":
      if (doing === "create") return `Too many new games at once. ${sentence(message)}`;
      return "You are clicking faster than the server takes it. Wait a moment, then try again.";
    case "too_many_games":
      return `Too many games at once. ${sentence(message)}`;
    case "server_full":
      return doing === "watch"
        ? "This game has as many spectators as it can take. Try again later."
        : `The server is busy. ${sentence(message)}`;
    case "too_many_connections":
      return "Too many tabs or windows from your address are connected. Close some of them.";
    case "storage_failed":
      return doing === "decide"
        ? "The server could not save your move, so nothing changed. Please send it again."
        : "The server could not save this, so nothing changed. Please try again in a moment.";
    case "auto_play":
      return "The game is playing for you right now. Press \u201cI'm back\u201d to play yourself again.";
    case "replaced":
      return "This seat was opened in another tab or window, so this one stopped.";
    case "no_free_seat":
      return "There is no free seat in this game any more.";
    case "not_open":
      return "This game has already started.";
    case "private_game":
      return "This game takes players by invitation only.";
    case "unknown_game":
      return sentence(message) || "There is no such game.";
    case "bad_token":
    case "token_in_url":
      return "This link is not valid for this game.";
    case "offline":
      return "The server cannot be reached. Is it running?";
    case "illegal_action":
    case "invalid_action":
      return `The server did not accept that: ${String(message || "").replace(/^[\w-]+: /, "")}.`;
    case "out_of_phase":
    case "not_pending":
      return "That is not possible right now; the game has moved on.";
    case "bad_request":
    case "bad_json":
    case "too_large":
      return `The server did not accept the request: ${String(message || "").replace(/'/g, "")}.`;
    default:
      return sentence(message) || "Something went wrong. Please try again.";
  }
}
