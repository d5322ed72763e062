"""The command line fails the expected ways without a traceback: one line on stderr that says
what is wrong (and what is valid, or what to install), and a non-zero exit status."""

from __future__ import annotations

import argparse
import os
import signal
import socket
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

import roborally
from roborally.cli import build_parser, main

ROOT = Path(__file__).resolve().parent.parent


def fails(argv: list[str], capsys: pytest.CaptureFixture[str]) -> str:
    """Run ``roborally ARGV`` in this process; it must fail with one line on stderr, which is
    returned."""
    try:
        code = main(argv)
    except SystemExit as stop:  # argparse's usage errors
        code = stop.code if isinstance(stop.code, int) else 1
    err = capsys.readouterr().err
    assert code != 0, f"roborally {' '.join(argv)} did not fail"
    assert "Traceback" not in err
    assert len(err.strip().splitlines()) == 1, err
    return err.strip()


# --------------------------------------------------------------------------- bad arguments
@pytest.mark.parametrize(
    ("argv", "words"),
    [
        (["tournament", "--games", "-3"], ["--games", "-3", "at least 1"]),
        (["tournament", "--games", "many"], ["--games", "not a whole number"]),
        (["tournament", "--jobs", "-1"], ["--jobs", "at least 0"]),
        (["play", "--max-rounds", "0"], ["--max-rounds", "at least 1"]),
        (["tournament", "--max-rounds", "-5"], ["--max-rounds", "at least 1"]),
        (["render", "tiny", "-o", "x.svg", "--cell", "0"], ["--cell", "at least 1"]),
        (["serve", "--port", "99999"], ["--port", "from 1 to 65535"]),
        (["serve", "--port", "0"], ["--port", "from 1 to 65535"]),
        (["serve", "--log-level", "loud"], ["--log-level", "debug", "error"]),
        (["play", "--edition", "1999"], ["1999", "2023", "classic", "classic-1994"]),
        (["cards", "--edition", "1999"], ["1999", "2023", "classic-1994"]),
        (["tournament", "--edition", "1999"], ["1999", "classic"]),
        (["play", "--seed", "-1"], ["--seed"]),
        (["no-such-command"], ["no-such-command", "play", "serve"]),
        (["play", "--no-such-option"], ["--no-such-option"]),
    ],
)
def test_bad_arguments_are_one_line(
    argv: list[str], words: list[str], capsys: pytest.CaptureFixture[str]
) -> None:
    err = fails(argv, capsys)
    assert err.startswith("roborally")
    for word in words:
        assert word in err


@pytest.mark.parametrize(
    ("argv", "words"),
    [
        (["play", "--course", "atlantis"], ["atlantis", "tiny", "cl-first-shift"]),
        (["tournament", "--course", "atlantis", "--games", "1"], ["atlantis", "tiny"]),
        (["play", "--bots", "random,genius"], ["genius", "random", "planner", "expert"]),
        (["tournament", "--bots", "genius", "--games", "1"], ["genius", "planner"]),
        (["play", "--variants", "turbo"], ["turbo", "less_deadly"]),
        (["render", "atlantis", "-o", "x.svg"], ["atlantis"]),
    ],
)
def test_unknown_names_list_the_valid_ones(
    argv: list[str], words: list[str], capsys: pytest.CaptureFixture[str]
) -> None:
    err = fails(argv, capsys)
    for word in words:
        assert word in err


# ----------------------------------------------------------------------------- bad files
def test_replay_of_a_missing_file(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    missing = tmp_path / "nowhere.rec"
    err = fails(["replay", str(missing)], capsys)
    assert str(missing) in err and "No such file" in err


def test_replay_of_a_directory(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert "roborally replay" in fails(["replay", str(tmp_path)], capsys)


@pytest.mark.parametrize(
    "text", ["not a record at all\n", "roborally-record: 99\n---\n", "\x00\x01garbage"]
)
def test_replay_of_a_malformed_record(
    text: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = tmp_path / "bad.rec"
    path.write_text(text, encoding="utf-8")
    assert "roborally replay" in fails(["replay", str(path)], capsys)


def test_replay_of_a_record_that_is_not_text(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = tmp_path / "bad.rec"
    path.write_bytes(b"\xff\xfe\x00 binary")
    assert "roborally replay" in fails(["replay", str(path)], capsys)


def test_writing_into_a_missing_directory(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    out = tmp_path / "no" / "such" / "dir" / "tiny.svg"
    err = fails(["render", "tiny", "-o", str(out)], capsys)
    assert str(out) in err


# -------------------------------------------------------------------------- the server
@pytest.fixture
def busy_port() -> Iterator[int]:
    with socket.create_server(("127.0.0.1", 0)) as taken:
        yield taken.getsockname()[1]


def test_serve_on_a_port_in_use(
    busy_port: int, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    err = fails(["serve", "--port", str(busy_port), "--data", str(tmp_path)], capsys)
    assert f"port {busy_port}" in err and "cannot listen" in err


@pytest.mark.parametrize(
    ("flags", "words"),
    [
        (["--workers", "2"], ["--workers above 1", "--redis", "--engine-workers"]),
        (["--workers", "0"], ["--workers", "from 1 to 256"]),
        (["--redis", "localhost:6379"], ["--redis must start with redis://"]),
        (["--redis", "redis://127.0.0.1:1/0"], ["--redis needs a PostgreSQL --database"]),
        (
            ["--redis", "redis://127.0.0.1:1/0", "--database", "sqlite:///x"],
            ["--database takes a postgresql:// URL"],
        ),
        (["--siblings", "/tmp"], ["--siblings is for scale-out mode", "--redis"]),
        (
            [
                "--siblings",
                "/no/such/dir",
                "--redis",
                "redis://h:1/0",
                "--database",
                "postgresql://h/r",
            ],
            ["--siblings /no/such/dir: no such directory"],
        ),
        (
            ["--siblings", "/tmp", "--redis", "redis://h:1/0", "--database", "postgresql://h/r"],
            ["--siblings /tmp: mode", "lets other users in", "chmod 700 /tmp"],
        ),
    ],
)
def test_serve_scale_out_settings(
    flags: list[str], words: list[str], tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    err = fails(["serve", "--data", str(tmp_path), *flags], capsys)
    assert all(word in err for word in words), err


@pytest.mark.parametrize("module", ["starlette", "uvicorn", "websockets"])
def test_serve_without_the_server_extra(
    module: str, monkeypatch: pytest.MonkeyPatch, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setitem(sys.modules, module, None)  # "import starlette" now fails
    err = fails(["serve", "--port", "1", "--data", str(tmp_path)], capsys)
    assert "pip install 'roborally[server]'" in err and module in err


def test_bot_without_the_server_extra(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setitem(sys.modules, "websockets", None)
    err = fails(["bot", "http://127.0.0.1:1/?game=g#token=t", "--bot", "random"], capsys)
    assert "pip install 'roborally[server]'" in err and "websockets" in err


# ---------------------------------------------------------------------------- pictures
def test_png_without_cairosvg(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setitem(sys.modules, "cairosvg", None)
    err = fails(["render", "tiny", "-o", str(tmp_path / "tiny.png")], capsys)
    assert "pip install 'roborally[png]'" in err
    assert not (tmp_path / "tiny.png").exists()


def test_png_without_the_cairo_library(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """cairosvg is installed but cairocffi cannot load libcairo: importing it raises OSError."""
    fake = tmp_path / "fake"
    fake.mkdir()
    (fake / "cairosvg.py").write_text(
        "raise OSError(\"no library called 'cairo-2' was found\")\n", encoding="utf-8"
    )
    monkeypatch.delitem(sys.modules, "cairosvg", raising=False)
    monkeypatch.syspath_prepend(str(fake))
    err = fails(["render", "tiny", "-o", str(tmp_path / "tiny.png")], capsys)
    assert "cairo graphics library" in err and "apt-get install libcairo2" in err


# -------------------------------------------------------------------------------- bots
@pytest.fixture
def bot_module(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> str:
    (tmp_path / "my_test_bots.py").write_text(
        "class NoSeed:\n"
        "    def choose(self, observation, decision):\n"
        "        return decision.default\n"
        "\n"
        "class NotABot:\n"
        "    def __init__(self, seed):\n"
        "        self.seed = seed\n",
        encoding="utf-8",
    )
    (tmp_path / "my_broken_bots.py").write_text("import a_package_nobody_has\n", encoding="utf-8")
    monkeypatch.syspath_prepend(str(tmp_path))
    return "my_test_bots"


@pytest.mark.parametrize("command", ["play", "tournament"])
def test_a_bot_class_without_a_seed(
    command: str, bot_module: str, capsys: pytest.CaptureFixture[str]
) -> None:
    err = fails([command, "--bots", f"{bot_module}:NoSeed,random", "--max-rounds", "1"], capsys)
    assert "NoSeed must take a seed" in err


def test_a_bot_class_that_is_not_a_bot(bot_module: str, capsys: pytest.CaptureFixture[str]) -> None:
    err = fails(["play", "--bots", f"{bot_module}:NotABot,random"], capsys)
    assert "no choose method" in err


def test_a_bot_class_that_is_missing(bot_module: str, capsys: pytest.CaptureFixture[str]) -> None:
    err = fails(["play", "--bots", f"{bot_module}:Nobody,random"], capsys)
    assert "has no class 'Nobody'" in err


def test_a_bot_module_that_cannot_be_imported(capsys: pytest.CaptureFixture[str]) -> None:
    err = fails(["tournament", "--bots", "not_a_module_here:Bot,random", "--games", "1"], capsys)
    assert "no module named 'not_a_module_here'" in err
    assert "must be importable" in err and "PYTHONPATH" in err


def test_a_bot_module_whose_own_import_fails(
    bot_module: str, capsys: pytest.CaptureFixture[str]
) -> None:
    err = fails(["play", "--bots", "my_broken_bots:Bot,random"], capsys)
    assert "importing my_broken_bots failed" in err and "a_package_nobody_has" in err


# ----------------------------------------------------------- interrupted or cut short
def test_ctrl_c_exits_130_quietly(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    def interrupted() -> None:
        raise KeyboardInterrupt

    monkeypatch.setattr("roborally.content.courses.list_courses", interrupted)
    assert main(["courses"]) == 130
    assert capsys.readouterr().err == ""


SLOW_GAMES = ("--bots", "planner,expert", "--games", "300")  # a minute's work, stopped early


@pytest.mark.skipif(not hasattr(os, "killpg"), reason="needs process groups")
def test_ctrl_c_stops_a_tournament_with_workers_quietly() -> None:
    """Ctrl-C in a terminal interrupts every process of the group: the parent and its workers."""
    process = subprocess.Popen(
        [sys.executable, "-m", "roborally", "tournament", "-q", "--jobs", "2", *SLOW_GAMES],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        cwd=ROOT,
        start_new_session=True,
    )
    try:
        time.sleep(2.5)  # the pool is playing by now
        os.killpg(process.pid, signal.SIGINT)
        out, err = process.communicate(timeout=30)
    finally:
        if process.poll() is None:
            os.killpg(process.pid, signal.SIGKILL)
            process.communicate()
    assert process.returncode == 130
    assert err.decode() == "" and out.decode() == ""


def test_output_into_a_closed_pipe_exits_quietly() -> None:
    """``roborally courses | head -0``: the reader is gone before anything is written."""
    process = subprocess.Popen(
        [sys.executable, "-m", "roborally", "courses"],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        cwd=ROOT,
    )
    assert process.stdout is not None and process.stderr is not None
    process.stdout.close()  # long before the command has imported anything and printed
    err = process.stderr.read().decode()
    process.stderr.close()
    assert process.wait(timeout=60) != 0
    assert err == ""


# ------------------------------------------------------------------------------- help
def subcommands() -> dict[str, argparse.ArgumentParser]:
    parser = build_parser()
    found = next(a for a in parser._actions if isinstance(a, argparse._SubParsersAction))
    return dict(found.choices)


def test_every_option_has_help() -> None:
    missing = [
        f"{name} {action.option_strings or action.dest}"
        for name, parser in subcommands().items()
        for action in parser._actions
        if not action.help
    ]
    assert not missing, missing


def test_help_shows_defaults_and_allowed_values(capsys: pytest.CaptureFixture[str]) -> None:
    for command in ("play", "tournament"):
        with pytest.raises(SystemExit) as stop:
            main([command, "--help"])
        assert stop.value.code == 0
        out = " ".join(capsys.readouterr().out.split())
        assert "{2023,classic,classic-1994}" in out  # the editions
        kinds = out.split("kinds: ", 1)[1].split("module:Class", 1)[0]
        for kind in ("beginner", "casual", "expert", "planner", "random", "strong"):
            assert f"{kind}," in kinds  # (other tests may have registered more kinds)
        assert "less_deadly" in out and "four_lives" in out  # the variants
        assert "(default: 50)" in out  # --max-rounds
    assert "(default: tiny for 2023, cl-first-shift for classic" in out  # tournament --course
    with pytest.raises(SystemExit):
        main(["serve", "--help"])
    out = " ".join(capsys.readouterr().out.split())
    assert "(default: 8000)" in out and "roborally[server]" in out
    assert "(default: 8000) (default" not in out  # said once


def test_version(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as stop:
        main(["--version"])
    assert stop.value.code == 0
    assert capsys.readouterr().out == f"roborally {roborally.__version__}\n"
