// Entry point: ?game=ID[#token=T] plays or watches a game (&table=1: the shared screen of the
// tabletop mode), ?replay=ID replays one, else the lobby.

import { applyTheme, announce, installGameA11y, installTools, themeButton } from "./a11y.js";
import { installCardViewer } from "./cardview.js";
import { loadLanguage } from "./i18n.js";
import { GameScreen } from "./game.js";
import { helpButton, installKeys } from "./keys.js";
import { Lobby } from "./lobby.js";
import { ReplayScreen } from "./replay.js";
import { params, seatInvite, seatToken, store } from "./util.js";

// ?speed=N (0 = no animation) is remembered for the next pages too.
if (params.has("speed") && Number.isFinite(parseFloat(params.get("speed")))) {
  store.set("speed", parseFloat(params.get("speed")));
}

applyTheme(); // the light or dark theme (remembered, else the system's), before anything is drawn

// Every text comes from the language's translation file: load it before drawing anything.
const lang = await loadLanguage();
// The server writes the first words of the next page (index.html's "Loading…") in it too.
document.cookie = `rr_lang=${lang}; path=/; max-age=31536000; SameSite=Lax`;
installCardViewer();

const root = document.getElementById("app");
const replay = params.get("replay");
const game = params.get("game");

installTools(root, themeButton, helpButton);
if (replay) {
  installKeys(null, { announce });
  new ReplayScreen(root, replay).start();
} else if (game && params.has("table")) {
  // Tabletop mode: this screen shows the board to the table; the players use their phones.
  const { TableScreen } = await import("./table.js");
  new TableScreen(root, { gameId: game }).start();
} else if (game) {
  const token = seatToken();
  const invite = token ? null : seatInvite(); // used once: the welcome brings the seat's token
  const screen = new GameScreen(root, { gameId: game, token, invite });
  // Another seat link for this game opened in this tab changes only the fragment: the browser
  // does not load the page again by itself, so do it (the page plays the seat it was opened with).
  window.addEventListener("hashchange", () => {
    if (seatToken() !== screen.token || (!seatToken() && seatInvite() !== screen.invite)) location.reload();
  });
  installKeys(screen, { announce }); // keyboard play (keys.js)
  installGameA11y(screen); // register summaries for screen readers, the board described
  screen.start();
  // ?tutorial=1 (or the guided race's own game, e.g. from "Your seats"): its coach (js/tutorial.js).
  const guided = (store.get("tutorial.progress", null) || {}).game === game;
  if (params.has("tutorial") || guided) import("./tutorial.js").then((m) => m.startCoach(screen));
} else {
  installKeys(null, { announce });
  new Lobby(root).start();
}
