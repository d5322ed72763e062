"""``roborally bot SEAT_LINK --bot ...``: a bot class written outside the repository plays a seat
of a real server (a child process) through the command, to the end of the game, against a
built-in bot seat; it comes back when its connection is cut; bad links, bots and servers get
one-line errors."""

from __future__ import annotations

import asyncio
import contextlib
import os
import socket
import subprocess
import sys
import textwrap
import threading
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

import httpx
import pytest

from roborally.cli import main
from roborally.server.bot_command import parse_seat_link

from .browser import conftest as browser
from .browser.conftest import ServerProcess

#: The browser tests' server process (one a session), without a browser.
shared_server = browser.live_server

OUTSIDE_BOT = '''
"""A bot that lives outside the roborally repository (only the decision's fields are used)."""
import os
import random


class OutsideBot:
    name = "outside"

    def __init__(self, seed):
        self.rng = random.Random(seed)
        self.log = os.environ["OUTSIDE_BOT_LOG"]

    def choose(self, observation, decision):
        with open(self.log, "a") as log:
            log.write(decision.id + "\\n")
        if decision.kind == "program":
            hand = list(decision.info["hand"])
            self.rng.shuffle(hand)
            locked = decision.info["locked"]
            return [
                None if r + 1 in locked or not hand else hand.pop()
                for r in range(decision.info["registers"])
            ]
        return decision.options[0] if decision.options else "timeout"


class NoSeed:
    name = "noseed"

    def __init__(self):
        pass

    def choose(self, observation, decision):
        return "timeout"
'''


@pytest.fixture
def outside(tmp_path: Path) -> Path:
    """A folder outside the repository holding ``outsidebot.py``."""
    folder = tmp_path / "elsewhere"
    folder.mkdir()
    (folder / "outsidebot.py").write_text(textwrap.dedent(OUTSIDE_BOT), encoding="utf-8")
    return folder


def bot_process(link: str, folder: Path, *extra: str) -> subprocess.Popen[str]:
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join(p for p in (str(folder), env.get("PYTHONPATH")) if p)
    env["OUTSIDE_BOT_LOG"] = str(folder / "decisions.log")
    command = [sys.executable, "-m", "roborally.cli", "bot", link]
    command += ["--bot", "outsidebot:OutsideBot", "--seed", "3", *extra]
    return subprocess.Popen(
        command, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True
    )


def new_game(server: ServerProcess) -> dict[str, Any]:
    return server.create(
        seats=[{"kind": "human", "name": "Outside"}, {"kind": "bot", "bot": "planner"}],
        max_rounds=6,
        seed=5,
    )


def finish(process: subprocess.Popen[str], timeout: float = 120) -> tuple[str, str]:
    try:
        out, err = process.communicate(timeout=timeout)
    except subprocess.TimeoutExpired:
        process.kill()
        out, err = process.communicate()
        raise AssertionError(f"the bot did not finish:\n{out}\n{err}") from None
    assert process.returncode == 0, (out, err)
    return out, err


def game_summary(server: ServerProcess, game_id: str) -> dict[str, Any]:
    data: dict[str, Any] = httpx.get(f"{server.base}/api/games/{game_id}", timeout=10).json()
    return data


def test_an_outside_bot_plays_a_seat_to_the_end(
    shared_server: ServerProcess, outside: Path
) -> None:
    game = new_game(shared_server)
    link = game["seats"][0]["url"]
    assert "#token=" in link
    out, err = finish(bot_process(link, outside))
    assert f"game {game['game_id']} over:" in out, out
    assert "placed" in out and "Traceback" not in err
    decisions = (outside / "decisions.log").read_text().split()
    assert any(d.endswith("program") for d in decisions) and len(decisions) >= 6
    summary = game_summary(shared_server, game["game_id"])
    assert summary["status"] == "finished"
    assert summary["seats"][0]["auto"] is False  # it answered everything itself


class CuttingProxy:
    """A TCP relay to the server on a port of its own; :meth:`cut` drops every connection
    through it at once (no closing handshake), as a broken network would."""

    def __init__(self, target: int) -> None:
        self.target = target
        self.listener = socket.create_server(("127.0.0.1", 0))
        self.port: int = self.listener.getsockname()[1]
        self.open: list[socket.socket] = []
        self.lock = threading.Lock()
        threading.Thread(target=self._accept, daemon=True).start()

    def _accept(self) -> None:
        while True:
            try:
                client, _ = self.listener.accept()
            except OSError:
                return
            upstream = socket.create_connection(("127.0.0.1", self.target))
            with self.lock:
                self.open += [client, upstream]
            for a, b in ((client, upstream), (upstream, client)):
                threading.Thread(target=self._pump, args=(a, b), daemon=True).start()

    @staticmethod
    def _pump(source: socket.socket, sink: socket.socket) -> None:
        try:
            while data := source.recv(65536):
                sink.sendall(data)
        except OSError:
            pass
        for sock in (source, sink):
            with contextlib.suppress(OSError):
                sock.shutdown(socket.SHUT_RDWR)

    def cut(self) -> int:
        with self.lock:
            dropped, self.open = self.open, []
        for sock in dropped:
            with contextlib.suppress(OSError):
                sock.shutdown(socket.SHUT_RDWR)
            sock.close()
        return len(dropped) // 2

    def close(self) -> None:
        self.listener.close()
        self.cut()


def test_the_bot_comes_back_when_the_connection_drops(
    shared_server: ServerProcess, outside: Path
) -> None:
    game = new_game(shared_server)
    proxy = CuttingProxy(shared_server.port)
    try:
        token = game["seats"][0]["token"]
        link = f"http://127.0.0.1:{proxy.port}/?game={game['game_id']}#token={token}"
        process = bot_process(link, outside)
        log = outside / "decisions.log"
        deadline = time.monotonic() + 60
        while not (log.exists() and len(log.read_text().split()) >= 3):
            assert time.monotonic() < deadline and process.poll() is None, "no decisions"
            time.sleep(0.05)
        assert proxy.cut() == 1
        out, err = finish(process)
    finally:
        proxy.close()
    assert "connection lost" in err and "connected" in err, err
    assert f"game {game['game_id']} over:" in out
    assert game_summary(shared_server, game["game_id"])["status"] == "finished"


def one_line_error(capsys: pytest.CaptureFixture[str], argv: list[str], code: int) -> str:
    assert main(argv) == code
    captured = capsys.readouterr()
    lines = captured.err.strip().splitlines()
    assert lines and lines[-1].startswith("roborally bot: ") and "Traceback" not in captured.err
    return lines[-1]


def test_one_line_errors(
    shared_server: ServerProcess,
    outside: Path,
    capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.syspath_prepend(str(outside))
    game = new_game(shared_server)
    link = game["seats"][0]["url"]
    assert "no seat token" in one_line_error(capsys, ["bot", link.split("#")[0]], 2)
    assert "not a seat link" in one_line_error(capsys, ["bot", "ftp://x/y"], 2)
    assert "unknown bot" in one_line_error(capsys, ["bot", link, "--bot", "nobody"], 2)
    message = one_line_error(capsys, ["bot", link, "--bot", "outsidebot:NoSeed"], 2)
    assert "must take a seed" in message
    message = one_line_error(capsys, ["bot", link, "--bot", "outsidebot:Missing"], 2)
    assert "cannot load bot" in message
    with socket.socket() as sock:  # a port nobody listens on
        sock.bind(("127.0.0.1", 0))
        closed = sock.getsockname()[1]
    dead = f"http://127.0.0.1:{closed}/?game=x#token=y"
    message = one_line_error(capsys, ["bot", dead, "--bot", "random", "--retries", "1"], 1)
    assert "cannot reach the server" in message
    wrong_token = link.split("#")[0] + "#token=not-a-token"
    assert "not a seat" in one_line_error(capsys, ["bot", wrong_token, "-q"], 1)
    no_game = f"{shared_server.base}/?game=nosuchgame#token=abc"
    assert "has no game" in one_line_error(capsys, ["bot", no_game, "-q"], 1)


def test_the_command_works_where_an_event_loop_already_runs(
    capsys: pytest.CaptureFixture[str],
) -> None:
    """As from a notebook, or from tests that drive a browser in the same thread."""
    with socket.socket() as sock:  # a port nobody listens on
        sock.bind(("127.0.0.1", 0))
        closed = sock.getsockname()[1]
    dead = f"http://127.0.0.1:{closed}/?game=x#token=y"

    async def inside_a_loop() -> str:
        return one_line_error(capsys, ["bot", dead, "--bot", "random", "--retries", "1"], 1)

    # On a thread of its own, whose loop this test starts (the test's own thread may already
    # run one, e.g. Playwright's after the browser tests).
    with ThreadPoolExecutor(max_workers=1) as pool:
        message = pool.submit(asyncio.run, inside_a_loop()).result()
    assert "cannot reach the server" in message


def test_seat_links() -> None:
    link = parse_seat_link("http://127.0.0.1:8000/?game=k3JX9a2Q#token=Qm9i")
    assert (link.ws_url, link.game_id, link.token) == (
        "ws://127.0.0.1:8000/ws/k3JX9a2Q",
        "k3JX9a2Q",
        "Qm9i",
    )
    legacy = parse_seat_link("https://rally.example.org/?game=abc&token=T")
    assert legacy.ws_url == "wss://rally.example.org/ws/abc" and legacy.token == "T"
    direct = parse_seat_link("ws://host:1/ws/abc#token=T")
    assert direct.game_id == "abc" and direct.ws_url == "ws://host:1/ws/abc"
    for bad in ("", "nonsense", "http://host/?token=T", "mailto:x@y"):
        with pytest.raises(ValueError):
            parse_seat_link(bad)
