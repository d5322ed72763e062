"""``pip install roborally`` gives a working, typed package with no third-party dependency.

The wheel is built from this checkout (``uv build``) and installed with ``pip --no-index
--no-deps`` into a fresh virtual environment, where the command line plays, renders, replays and
runs a tournament without any extra, and names the extra to install when one is needed. The
project's mypy then type-checks a user's file against the installed package.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import tomllib
import venv
import zipfile
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
PROJECT = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["project"]
#: The packages a fresh virtual environment has before anything is installed.
VENV_OWN = {"pip", "setuptools", "wheel"}
#: Third-party packages only an extra may bring.
EXTRA_MODULES = ("starlette", "uvicorn", "websockets", "cairosvg", "numpy", "gymnasium")

#: What uv says when it cannot download the build backend (no registry access).
OFFLINE_SIGNS = ("Failed to fetch", "failed to download", "offline", "Could not connect", "dns")


@dataclass(frozen=True)
class Installed:
    wheel: Path
    python: Path
    scripts: Path
    work: Path  # an empty directory to run commands in, away from this checkout

    def run(self, *argv: str, check: bool = True) -> subprocess.CompletedProcess[str]:
        env = {k: v for k, v in os.environ.items() if k not in ("PYTHONPATH", "VIRTUAL_ENV")}
        return subprocess.run(
            argv, capture_output=True, text=True, cwd=self.work, env=env, timeout=120, check=check
        )

    def roborally(self, *args: str, check: bool = True) -> subprocess.CompletedProcess[str]:
        return self.run(str(self.scripts / "roborally"), *args, check=check)


def build_wheel(out: Path) -> Path:
    uv = shutil.which("uv")
    if uv is None:
        pytest.skip("uv is not on PATH: it builds the wheel")
    built = subprocess.run(
        [uv, "build", "--wheel", "--out-dir", str(out), str(ROOT)],
        capture_output=True,
        text=True,
        timeout=300,
    )
    if built.returncode != 0:
        if "hatchling" in built.stderr and any(s in built.stderr for s in OFFLINE_SIGNS):
            pytest.skip(f"the build backend (hatchling) cannot be fetched: {built.stderr[-300:]}")
        pytest.fail(f"uv build failed:\n{built.stderr}")
    (wheel,) = out.glob("roborally-*.whl")
    return wheel


@pytest.fixture(scope="module")
def installed(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Installed]:
    base = tmp_path_factory.mktemp("packaging")
    wheel = build_wheel(base / "dist")
    env_dir = base / "venv"
    venv.create(env_dir, with_pip=True)
    scripts = env_dir / ("Scripts" if os.name == "nt" else "bin")
    python = scripts / ("python.exe" if os.name == "nt" else "python")
    work = base / "work"
    work.mkdir()
    done = Installed(wheel, python, scripts, work)
    done.run(str(python), "-m", "pip", "install", "-q", "--no-index", "--no-deps", str(wheel))
    yield done


def test_the_wheel_has_py_typed_and_the_metadata(installed: Installed) -> None:
    with zipfile.ZipFile(installed.wheel) as wheel:
        names = wheel.namelist()
        (metadata_name,) = [n for n in names if n.endswith(".dist-info/METADATA")]
        metadata = wheel.read(metadata_name).decode()
    assert "roborally/py.typed" in names
    assert "roborally/content/data/courses/cl-first-shift.course" in names  # data files too
    assert f"Version: {PROJECT['version']}" in metadata
    assert "Classifier: Typing :: Typed" in metadata
    assert "Project-URL: Source, https://github.com/roborally-py/roborally" in metadata
    assert "Project-URL: Issues, https://github.com/roborally-py/roborally/issues" in metadata
    requires = [line for line in metadata.splitlines() if line.startswith("Requires-Dist:")]
    assert requires and all("extra ==" in line for line in requires), requires


def test_nothing_else_is_installed(installed: Installed) -> None:
    listed = installed.run(str(installed.python), "-m", "pip", "list", "--format=json").stdout
    names = {entry["name"].lower() for entry in json.loads(listed)}
    assert names - VENV_OWN == {"roborally"}
    check = installed.run(str(installed.python), "-m", "pip", "check")
    assert "No broken requirements" in check.stdout


def test_version(installed: Installed) -> None:
    assert installed.roborally("--version").stdout == f"roborally {PROJECT['version']}\n"
    code = "import roborally; print(roborally.__version__)"
    assert installed.run(str(installed.python), "-c", code).stdout.strip() == PROJECT["version"]


def test_the_command_line_works_without_extras(installed: Installed) -> None:
    record = installed.work / "game.rec"
    played = installed.roborally(
        "play",
        "--course",
        "tiny",
        "--bots",
        "random,random",
        "--seed",
        "1",
        "--max-rounds",
        "3",
        "--record",
        str(record),
    )
    assert "Result after" in played.stdout and played.stderr == ""
    replayed = installed.roborally("replay", str(record))
    assert "state digest:" in replayed.stdout
    assert "consistent with itself" in installed.roborally("verify", str(record)).stdout
    commitment = next(
        line.split()[-1] for line in record.read_text().splitlines() if "seed-commitment" in line
    )
    checked = installed.roborally("verify", str(record), "--commitment", commitment)
    assert "verified:" in checked.stdout
    tournament = installed.roborally("tournament", "--games", "2", "--max-rounds", "3", "-q")
    assert "2 game(s) on tiny" in tournament.stdout
    installed.roborally("render", "tiny", "-o", str(installed.work / "tiny.svg"))
    assert (installed.work / "tiny.svg").read_text(encoding="utf-8").startswith("<svg")
    assert "tiny" in installed.roborally("courses").stdout
    installed.roborally("cards", "--edition", "classic")
    assert "tournament" in installed.roborally("--help").stdout


def test_the_python_api_works_without_extras(installed: Installed) -> None:
    code = (
        "import sys, roborally\n"
        "assert [m for m in sys.modules if m.startswith('roborally.')] == []\n"
        "game = roborally.Game(roborally.GameConfig(roborally.find_course('tiny').course,"
        " ('A', 'B'), max_rounds=5))\n"
        "bots = [roborally.make_bot('planner', 1), roborally.RandomBot(2)]\n"
        "roborally.play(game, bots)\n"
        "import roborally.api, roborally.bots.tournament, roborally.render, roborally.gallery\n"
        "import roborally.cli, roborally.content.record, roborally.extras\n"
        "roborally.cli.build_parser().format_help()\n"
        f"print(sorted(m for m in {EXTRA_MODULES!r} if m in sys.modules))\n"
    )
    assert installed.run(str(installed.python), "-c", code).stdout == "[]\n"


def test_a_missing_extra_is_named(installed: Installed) -> None:
    served = installed.roborally("serve", "--data", str(installed.work / "data"), check=False)
    assert served.returncode != 0
    assert served.stderr.splitlines() == [
        "roborally serve: the game server needs the server extra:"
        " pip install 'roborally[server]' (missing: starlette)"
    ]
    png = installed.roborally("render", "tiny", "-o", str(installed.work / "x.png"), check=False)
    assert png.returncode != 0
    assert png.stderr.splitlines() == [
        "roborally render: PNG output needs the png extra: pip install 'roborally[png]'"
        " (missing: cairosvg)"
    ]


def test_mypy_sees_the_types_of_the_installed_package(installed: Installed) -> None:
    """A user's ``import roborally`` is typed (py.typed), not ``import-untyped``; without the
    marker the same check reports it (so the check can fail)."""
    user = installed.work / "user.py"
    user.write_text(
        "import roborally\n"
        "\n"
        "def first(game: roborally.Game) -> roborally.Decision:\n"
        "    return game.pending_decisions()[0]\n"
        "\n"
        "reveal_type(roborally.make_bot)\n",
        encoding="utf-8",
    )

    def mypy() -> subprocess.CompletedProcess[str]:
        return installed.run(
            sys.executable,
            "-m",
            "mypy",
            "--python-executable",
            str(installed.python),
            "--no-incremental",
            "--cache-dir",
            os.devnull,
            "--strict",
            str(user),
            check=False,
        )

    typed = mypy()
    assert typed.returncode == 0, typed.stdout
    assert "import-untyped" not in typed.stdout
    assert 'Revealed type is "def (kind: str, seed: int =) -> roborally.bots.base.Bot"' in (
        typed.stdout
    )
    purelib = installed.run(
        str(installed.python), "-c", "import sysconfig; print(sysconfig.get_path('purelib'))"
    ).stdout.strip()
    marker = Path(purelib) / "roborally" / "py.typed"
    marker.rename(marker.with_suffix(".off"))
    try:
        untyped = mypy()
    finally:
        marker.with_suffix(".off").rename(marker)
    assert "import-untyped" in untyped.stdout
