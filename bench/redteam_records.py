"""Red team, issue 26 parts 5 and 6: records that say what they prove, and private files.

* ``forged-record``: a wholly forged record (another game, with a seed and commitment of its
  own, claiming the real game's id) passes a check against itself, which ``roborally verify``
  says is all it is; with the commitment the players saw it is NOT verified, while the real
  record is. A record cut short, or saved before the end, is reported unfinished.
* ``file-modes``: a server on a new data directory makes it 0700 and every file 0600; a data
  directory left open (0755, database 0644) makes the server warn with the ``chmod`` that
  closes it.

bench/redteam.py runs them (its ``ATTACKS`` takes this module's).
"""

from __future__ import annotations

import contextlib
import io
import stat
from collections.abc import Awaitable, Callable
from pathlib import Path

from redteam_kit import BOT, HUMAN, Context, Outcome, address, create, http, wait_finished
from serverproc import LocalServer

from roborally.bots.random_bot import RandomBot, seat_seed
from roborally.bots.runner import new_game
from roborally.cli import main as roborally
from roborally.content.fairness import new_seed
from roborally.content.record import parse_record, write_record
from roborally.engine.core.decisions import Action
from roborally.server.store import DB_NAME

BLOCK = 126  # this module's loopback source addresses (redteam_kit.address)


def verify(path: Path, *flags: str) -> tuple[int, str]:
    """``roborally verify PATH FLAGS...`` as a player runs it: its exit status and output."""
    out = io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(out):
        code = roborally(["verify", str(path), *flags])
    return code, out.getvalue()


def forged_game(game_id: str, players: int, rounds: int, stop_after: int | None = None) -> str:
    """The record of a game played here with a fresh seed of the forger's own, claiming to be
    game ``game_id``; ``stop_after``: that many actions only (a game saved before its end)."""
    seed = new_seed()
    game = new_game("tiny", players, seed, max_rounds=rounds)
    bots = [RandomBot(seat_seed(seed, seat)) for seat in range(players)]
    while not game.is_over() and (stop_after is None or len(game.actions) < stop_after):
        d = game.pending_decisions()[0]
        game.apply(Action(d.id, d.seat, bots[d.seat].choose(game.observation(d.seat), d)))
    return write_record(game, "tiny", game_id)


async def attack_forged_record(ctx: Context) -> Outcome:
    base = ctx.server.base
    game = await create(base, address(BLOCK, 0), seats=[BOT, BOT], max_rounds=2)
    game_id, seen = game["game_id"], game["seed_commitment"]  # what the lobby showed
    finished = await wait_finished(base, game_id, 60)
    async with http(base, address(BLOCK, 0)) as client:
        text = (await client.get(f"/api/games/{game_id}/record")).text
    folder = ctx.temp / "records"
    folder.mkdir(exist_ok=True)
    files = {
        "real": text,
        "forged": forged_game(game_id, 2, 2),
        "cut": "".join(text.splitlines(keepends=True)[:-5]),
        "saved": forged_game(game_id, 2, 2, stop_after=10),
    }
    for name, content in files.items():
        (folder / f"{name}.rec").write_text(content, encoding="utf-8")
    results = {
        "real": verify(folder / "real.rec", "--commitment", seen),
        "forged-alone": verify(folder / "forged.rec"),
        "forged": verify(folder / "forged.rec", "--commitment", seen),
        "cut": verify(folder / "cut.rec", "--commitment", seen),
        "saved": verify(folder / "saved.rec"),
    }
    codes = {name: code for name, (code, _) in results.items()}
    alone = results["forged-alone"][1]
    checks = {
        "names its game": parse_record(text).game_id == game_id,
        "real verified": codes["real"] == 0 and "\nverified: " in results["real"][1],
        "forged alone not called verified": codes["forged-alone"] == 0
        and "consistent with itself" in alone
        and "verified" not in alone,
        "forged NOT verified": codes["forged"] == 1
        and seen in results["forged"][1]
        and "is not the one your game showed" in results["forged"][1],
        "cut unfinished": codes["cut"] == 3 and "did not reach its end" in results["cut"][1],
        "saved unfinished": codes["saved"] == 3 and "did not reach its end" in results["saved"][1],
    }
    failed = [name for name, ok in checks.items() if not ok]
    return Outcome(
        "forged-record",
        finished and not failed,
        f"the real record (game-id {game_id}) with the players' commitment: exit"
        f" {codes['real']}, verified; a wholly forged one (its own seed and commitment): alone"
        f" exit {codes['forged-alone']}, 'consistent with itself' and never 'verified', with"
        f" the players' commitment exit {codes['forged']}, NOT verified, both values named;"
        f" cut short by 5 lines: exit {codes['cut']}, unfinished; saved after 10 actions:"
        f" exit {codes['saved']}, unfinished" + (f"; NOT: {', '.join(failed)}" if failed else ""),
    )


def modes(directory: Path) -> dict[str, int]:
    """The mode of the directory ('.') and of every file in it."""
    found = {".": stat.S_IMODE(directory.stat().st_mode)}
    found.update((p.name, stat.S_IMODE(p.stat().st_mode)) for p in sorted(directory.iterdir()))
    return found


async def attack_file_modes(ctx: Context) -> Outcome:
    data = ctx.temp / "modes"
    with LocalServer(data, log=ctx.temp / "modes.log") as server:
        await create(server.base, address(BLOCK, 1), seats=[HUMAN, BOT])  # the WAL is written
        seen = modes(data)
    files = {name: mode for name, mode in seen.items() if name != "."}
    private = seen["."] == 0o700 and all(mode == 0o600 for mode in files.values())
    wal = DB_NAME + "-wal" in files
    data.chmod(0o755)  # as an older version left it
    (data / DB_NAME).chmod(0o644)
    log = ctx.temp / "modes-open.log"
    with LocalServer(data, log=log):
        said = log.read_text(encoding="utf-8", errors="replace")
    fix = f"chmod 700 {data} && chmod 600 {data / DB_NAME}"
    warned = "other users of this machine can open" in said and fix in said
    data.chmod(0o700)
    shown = ", ".join(f"{name} {mode:04o}" for name, mode in seen.items())
    return Outcome(
        "file-modes",
        private and wal and warned,
        f"a new data directory after a game: {shown}; left open (0755, database 0644) the"
        f" server {'warns' if warned else 'does NOT warn'} at start with '{fix}'",
    )


ATTACKS: dict[str, tuple[Callable[[Context], Awaitable[Outcome]], bool]] = {
    # name: (attack, in the quick sample)
    "forged-record": (attack_forged_record, True),
    "file-modes": (attack_file_modes, True),
}
