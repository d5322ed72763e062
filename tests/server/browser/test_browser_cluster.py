"""The page in scale-out mode: ``roborally serve --workers 2`` on one port with a real Redis
and PostgreSQL; the process that owns the game is killed (SIGKILL) in the middle of a round,
and the page goes on with the same seat, round and half-made program (docs/scaling.md)."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import httpx
import redis
from playwright.sync_api import expect

from .conftest import MIN_SECONDS, Contexts, ServerProcess
from .test_browser_resilience import _drafting_in_round_two, _registers


class WorkersService(ServerProcess):
    """``roborally serve --workers 2 --redis --database`` (two processes on one port)."""

    def __init__(self, data_dir: Path, redis_url: str, database_url: str) -> None:
        super().__init__(data_dir)
        self.flags = ["--redis", redis_url, "--database", database_url]
        self.flags += ["--min-seconds", str(MIN_SECONDS), "--games-per-minute", "10000"]
        self.flags += ["--lobbies-per-address", "10000", "--engine-workers", "1"]
        self.flags += ["--bot-workers", "1", "--log-level", "info"]

    def start(self) -> None:
        self.data_dir.mkdir(parents=True, exist_ok=True)
        command = [sys.executable, "-m", "roborally.server", "--port", str(self.port)]
        command += ["--data", str(self.data_dir), "--workers", "2", *self.flags]
        with self.log.open("ab") as log:
            self.proc = subprocess.Popen(command, stdout=log, stderr=subprocess.STDOUT)
        seen: set[str] = set()
        deadline = time.monotonic() + 30
        while len(seen) < 2 and time.monotonic() < deadline:  # both processes answer
            assert self.proc.poll() is None, self.log.read_text()
            try:
                health = httpx.get(self.base + "/api/health", timeout=1).json()
                seen.add(health["cluster"]["process"])
            except httpx.HTTPError:
                time.sleep(0.1)
        assert len(seen) == 2, self.log.read_text()


def owner_pid(redis_url: str, game_id: str) -> int:
    client = redis.Redis.from_url(redis_url)
    try:
        value = client.get("roborally:lease:" + game_id)
    finally:
        client.close()
    assert isinstance(value, bytes), "nobody owns the game"
    return int(value.decode().split("-")[-2])  # host-pid-random (cluster/node.py)


def test_the_page_goes_on_when_the_games_owner_is_killed(
    tmp_path: Path, contexts: Contexts, ui: Any, redis_url: str, postgres_url: str
) -> None:
    service = WorkersService(tmp_path / "data", redis_url, postgres_url)
    service.start()
    try:
        game, page, drafted = _drafting_in_round_two(service, contexts, ui)

        os.kill(owner_pid(redis_url, game["game_id"]), signal.SIGKILL)
        # Locked in at once: before another process has taken the game (its lease lasts 3 s),
        # so the answer goes nowhere and the page must send it again once it is welcomed.
        assert _registers(page)[:2] == drafted
        ui.program_first_cards(page, 3)
        page.click("[data-testid=submit-program]")
        # Another process takes the game; the page (moved, or reconnected) goes on.
        expect(page.locator("[data-testid=conn-banner]")).to_be_hidden(timeout=20_000)
        expect(page.locator("[data-testid=player-0] .badge.you")).to_be_visible()
        ui.play_until(
            page,
            lambda: "Round 3" in (page.locator("[data-testid=phase]").text_content() or ""),
            timeout=40,
        )
        assert "taken over" in service.log.read_text()
    finally:
        service.stop()
