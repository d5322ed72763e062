// Entry point: ?game=ID[&token=T] plays or watches a game, ?replay=ID replays one, else the lobby.

import { GameScreen } from "./game.js";
import { Lobby } from "./lobby.js";
import { ReplayScreen } from "./replay.js";
import { params, store } from "./util.js";

// ?speed=N (0 = no animation) is remembered for the next pages too.
if (params.has("speed") && Number.isFinite(parseFloat(params.get("speed")))) {
  store.set("speed", parseFloat(params.get("speed")));
}

const root = document.getElementById("app");
const replay = params.get("replay");
const game = params.get("game");

if (replay) {
  new ReplayScreen(root, replay).start();
} else if (game) {
  new GameScreen(root, { gameId: game, token: params.get("token") }).start();
} else {
  new Lobby(root).start();
}
