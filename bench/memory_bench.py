"""Memory of one game in the server: a running game, and a finished game (docs/server.md
"Memory").

The server runs in this process with the engine in it too (``engine_workers=0``), so tracemalloc
sees everything a game costs: its room (seats, timers, the mirror of events and views the
server answers pages from) and its engine game. A first game is played to the end before
measuring, so that what every game shares (modules, courses, cards) is not counted.

    uv run python bench/memory_bench.py [--games 8] [--rounds 3]

prints ``memory: running game N KiB (6 seats, round R), finished game M KiB`` and the memory
of a finished game while a page watches it (its events and views built again).
"""

from __future__ import annotations

import argparse
import gc
import json
import tempfile
import time
import tracemalloc
import warnings
from collections.abc import Callable
from pathlib import Path
from typing import Any

with warnings.catch_warnings():
    warnings.simplefilter("ignore")
    from starlette.testclient import TestClient

from roborally.bots.random_bot import RandomBot
from roborally.server.app import create_app
from roborally.server.client import decision_from_json, json_choice
from roborally.server.room import GameRoom
from roborally.server.settings import ServerOptions

SEATS = [{"kind": "human"}] + [{"kind": "bot", "bot": "random"}] * 5
OPTIONS = ServerOptions(engine_workers=0, min_seconds=0.5, grace_seconds=3600, keep_finished=1000)


def rooms(client: TestClient) -> dict[str, GameRoom]:
    found: dict[str, GameRoom] = client.app.state.server.rooms  # type: ignore[attr-defined]
    return found


def wait(test: Callable[[], bool], timeout: float = 120.0) -> None:
    deadline = time.monotonic() + timeout
    while not test():
        if time.monotonic() > deadline:
            raise RuntimeError("the game did not get there in time")
        time.sleep(0.02)


def play_to_round(client: TestClient, rounds: int, seed: int) -> tuple[str, Any, Any]:
    """A 6-seat game whose one person (a random bot over the WebSocket) plays until round
    ``rounds`` waits for its program; the game id and its open socket (to close later)."""
    body = {"course": "tiny", "seats": SEATS, "seed": seed, "first_player": 0}
    body |= {"max_rounds": rounds + 2, "grace_seconds": 0.5}
    game = client.post("/api/games", json=body).json()
    gid, token = game["game_id"], game["seats"][0]["token"]
    context = client.websocket_connect(f"/ws/{gid}")
    ws = context.__enter__()
    ws.send_text(json.dumps({"v": 1, "type": "hello", "token": token}))
    ws.send_text(json.dumps({"v": 1, "type": "start"}))
    bot, answered, room = RandomBot(seed), set[str](), rooms(client)[gid]
    while True:
        msg = json.loads(ws.receive_text())
        if msg["type"] != "state" or msg["status"] != "running":
            continue
        fresh = [p for p in msg["pending"] if p["id"] not in answered]
        if room.round >= rounds and any(p["kind"] == "program" for p in fresh):
            return gid, context, ws
        for pending in fresh:
            answered.add(pending["id"])
            choice = bot.choose(msg["observation"], decision_from_json(pending))
            data = {"decision_id": pending["id"], "choice": json_choice(choice)}
            ws.send_text(json.dumps({"v": 1, "type": "decide", **data}))


def play_out(context: Any, ws: Any, seed: int) -> None:
    """The person answers every question to the game's end, then leaves (a game nobody is
    connected to waits for its players: it would not end by itself)."""
    bot, answered = RandomBot(seed), set[str]()
    ws.send_text(json.dumps({"v": 1, "type": "sync"}))  # the state it stopped at, again
    while True:
        msg = json.loads(ws.receive_text())
        if msg["type"] == "game_over":
            break
        if msg["type"] != "state" or msg["status"] != "running":
            continue
        for pending in msg["pending"]:
            if pending["id"] in answered:
                continue
            answered.add(pending["id"])
            choice = bot.choose(msg["observation"], decision_from_json(pending))
            data = {"decision_id": pending["id"], "choice": json_choice(choice)}
            ws.send_text(json.dumps({"v": 1, "type": "decide", **data}))
    context.__exit__(None, None, None)


def traced() -> int:
    gc.collect()
    return tracemalloc.get_traced_memory()[0]


def measure(games: int, rounds: int) -> dict[str, float]:
    with (
        tempfile.TemporaryDirectory() as folder,
        TestClient(create_app(Path(folder), OPTIONS)) as client,
    ):
        warm, context, ws = play_to_round(client, rounds, 1)  # shared things loaded
        play_out(context, ws, 1)
        wait(lambda: rooms(client)[warm].status == "finished")
        tracemalloc.start()
        base = traced()
        played = [play_to_round(client, rounds, 2 + i) for i in range(games)]
        running = traced() - base
        for number, (_, context, ws) in enumerate(played):  # the game is played out, left
            play_out(context, ws, 2 + number)
        ids = [gid for gid, _, _ in played]
        wait(
            lambda: all(
                rooms(client)[g].status == "finished" and rooms(client)[g].slim for g in ids
            )
        )
        finished = traced() - base
        watching = []
        for gid in ids:  # a spectator's page: the events and views are built again
            context = client.websocket_connect(f"/ws/{gid}")
            ws = context.__enter__()
            ws.send_text(json.dumps({"v": 1, "type": "hello"}))
            while json.loads(ws.receive_text())["type"] != "game_over":
                pass
            watching.append(context)
        watched = traced() - base
        for context in watching:
            context.__exit__(None, None, None)
        tracemalloc.stop()
        record = sum(len((rooms(client)[g].record or "").encode()) for g in ids) / games
    return {
        "running": running / games / 1024,
        "finished": finished / games / 1024,
        "watched": watched / games / 1024,
        "record": record / 1024,
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--games", type=int, default=8, help="games measured (default: 8)")
    parser.add_argument("--rounds", type=int, default=3, help="rounds played (default: 3)")
    args = parser.parse_args()
    figures = measure(args.games, args.rounds)
    print(
        f"memory: finished game while a page watches it {figures['watched']:.0f} KiB"
        f" (events and views built again); its record text {figures['record']:.1f} KiB"
    )
    print(
        f"memory: running game {figures['running']:.0f} KiB (6 seats, round {args.rounds}),"
        f" finished game {figures['finished']:.1f} KiB"
    )


if __name__ == "__main__":
    main()
