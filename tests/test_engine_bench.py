"""A small sample of ``make bench``'s engine benchmark: it runs, and prints the two headline lines
exactly as labelled (the figures themselves are for the benchmark, not for tests)."""

from __future__ import annotations

import importlib.util
import re
import sys
from pathlib import Path

import pytest

BENCH = Path(__file__).parent.parent / "bench" / "engine_bench.py"


def test_the_engine_benchmark_prints_whole_register_figures_for_both_editions(
    capsys: pytest.CaptureFixture[str],
) -> None:
    spec = importlib.util.spec_from_file_location("engine_bench", BENCH)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules["engine_bench"] = module  # its dataclass looks its module up
    spec.loader.exec_module(module)
    args = ["--seconds", "0.2", "--games", "1", "--rounds", "3", "--apply-rounds", "3"]
    assert module.main(args) == 0
    out = capsys.readouterr().out
    for edition, robots in (("2023", 6), ("classic", 8)):
        line = (
            rf"^engine {edition}: [\d,]+ register activations/s"
            rf" \({robots} robots, whole register, Game\.apply\)$"
        )
        assert re.search(line, out, re.MULTILINE), out
