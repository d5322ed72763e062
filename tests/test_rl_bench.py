"""A small sample of ``make bench``'s RL benchmark (about a second of measuring): it runs and
prints its lines as labelled; the figures themselves are for the benchmark, not for tests."""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

import pytest

pytest.importorskip("pettingzoo")

BENCH = Path(__file__).parent.parent / "bench" / "rl_bench.py"


def test_the_rl_benchmark_prints_env_steps_and_engine_decisions() -> None:
    command = [sys.executable, str(BENCH), "--seconds", "0.25"]
    out = subprocess.run(command, capture_output=True, text=True, check=True).stdout
    for label in ("", " classic"):
        assert re.search(rf"^rl{label}: [\d,]+ env steps/s \(", out, re.MULTILINE), out
        assert re.search(rf"^engine{label}: [\d,]+ decisions/s \(", out, re.MULTILINE), out
