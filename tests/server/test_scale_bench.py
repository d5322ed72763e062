"""The scale benchmark's small sample (``make scale`` runs the whole): 1 and 2 server processes
on one Redis and one PostgreSQL hold a few games with no error, and the report ends with the
one line the issue names."""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

BENCH = Path(__file__).resolve().parents[2] / "bench" / "scale.py"


def test_the_scale_sample_runs_without_errors(redis_url: str, postgres_url: str) -> None:
    # The fixtures make sure both programs exist (skip or fail as every service test does);
    # the benchmark starts its own fresh ones, as `make scale` does.
    del redis_url, postgres_url
    done = subprocess.run(
        [sys.executable, str(BENCH), "--quick"],
        capture_output=True,
        text=True,
        timeout=600,
        cwd=BENCH.parent,
        env={**os.environ, "PYTHONUNBUFFERED": "1"},
        check=False,
    )
    output = done.stdout + done.stderr
    assert done.returncode == 0, output
    assert " 0 errors: holds" in output, output
    lines = done.stdout.strip().splitlines()
    assert re.fullmatch(
        r"scaling: 2 processes hold \d+\.\d times the games of 1 at p99 <= 200 ms", lines[-1]
    ), output
    assert "Traceback" not in output, output
