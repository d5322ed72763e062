"""Small samples of the server's benchmarks (``make bench`` and ``make load`` run the whole):
each runs to its report, so a change that breaks one is caught here, not at the next
measurement."""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

BENCH = Path(__file__).resolve().parents[2] / "bench"


def run_bench(script: str, *args: str) -> str:
    done = subprocess.run(
        [sys.executable, str(BENCH / script), *args],
        capture_output=True,
        text=True,
        timeout=300,
        cwd=BENCH,
        env={**os.environ, "PYTHONUNBUFFERED": "1"},
        check=False,
    )
    output = done.stdout + done.stderr
    assert done.returncode == 0, output
    assert "Traceback" not in output, output
    return done.stdout


def test_the_memory_benchmark_sample_reports_a_running_and_a_finished_game() -> None:
    out = run_bench("memory_bench.py", "--games", "1", "--rounds", "1")
    found = re.search(r"running game (\d+) KiB .* finished game ([\d.]+) KiB", out)
    assert found is not None, out
    assert int(found.group(1)) > float(found.group(2)) > 0, out


def test_the_load_test_sample_finishes_every_game_without_errors() -> None:
    out = run_bench("load_test.py", "--games", "3", "--rounds", "2")
    assert "3/3 games finished, 0 errors" in out and "records verified: 3" in out, out
