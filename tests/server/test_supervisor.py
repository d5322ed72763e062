"""``roborally serve --workers N``: the supervisor starts N server processes, reports one that
exits and starts it again, and gives up on one that keeps failing."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

from roborally.cli import build_parser
from roborally.server.cluster import supervisor
from roborally.server.command import child_flags, options_from


def test_the_child_command_line_repeats_every_changed_option() -> None:
    argv = ["serve", "--port", "8123", "--workers", "3", "--redis", "redis://h:1/0"]
    argv += ["--database", "postgresql://u@db/rally", "--max-games", "50", "--engine-workers", "1"]
    args = build_parser().parse_args(argv)
    flags = child_flags(args, options_from(args))
    command = supervisor.child_command(flags, "/run/siblings")
    assert command[-5:] == ["--workers", "1", "--reuse-port", "--siblings", "/run/siblings"]
    joined = " ".join(command)
    wanted = ["--port 8123", "--redis redis://h:1/0", "--database postgresql://u@db/rally"]
    for part in [*wanted, "--max-games 50", "--engine-workers 1"]:
        assert part in joined
    assert "--workers 3" not in joined


def test_a_process_that_keeps_exiting_is_reported_restarted_then_given_up(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(supervisor, "RESTART_SECONDS", 0.05)
    monkeypatch.setattr(supervisor, "CRASHES", 3)
    not_a_dir = tmp_path / "file"
    not_a_dir.write_text("x")  # the data directory cannot be made: each process exits at once
    said: list[str] = []
    status = supervisor.supervise(["--data", str(not_a_dir / "data")], 2, said.append)
    assert status == 1
    assert said[0].startswith("roborally serve: 2 server processes")
    exits = [line for line in said if "exited with status" in line]
    assert len(exits) >= 3 and "starting it again" in exits[0]
    assert "3 exits within 60 s; stopping" in said[-1]


CHECK_SIBLINGS = """
import os, sys
from roborally.server.cluster.handoff import siblings_directory
siblings_directory(sys.argv[1])  # what a server process checks of --siblings
mode = os.stat(sys.argv[1]).st_mode & 0o777
open(sys.argv[2], "w").write(f"{mode:03o}")
"""


def test_the_siblings_directory_is_private_to_this_user(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The directory ``--workers`` makes for its processes' mailboxes is mode 700, so a
    server process accepts it; it is removed when the supervisor stops."""
    monkeypatch.setattr(supervisor, "CRASHES", 1)  # the checking child's exit stops it
    seen = tmp_path / "seen"
    made: list[str] = []

    def checking(flags: list[str], siblings: str) -> list[str]:
        made.append(siblings)
        return [sys.executable, "-c", CHECK_SIBLINGS, siblings, str(seen)]

    monkeypatch.setattr(supervisor, "child_command", checking)
    assert supervisor.supervise([], 1, lambda _: None) == 1
    assert seen.read_text() == "700"
    assert not Path(made[0]).exists()
