"""The red team's quick sample (bench/redteam.py --quick): real servers on loopback, each
attack bounded; ``make redteam`` runs them all at full size."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

BENCH = Path(__file__).resolve().parents[2] / "bench"


def test_the_quick_red_team_is_held() -> None:
    result = subprocess.run(
        [sys.executable, str(BENCH / "redteam.py"), "--quick"],
        capture_output=True,
        text=True,
        timeout=600,
        cwd=BENCH,
    )
    lines = result.stdout.splitlines()
    print(result.stdout, result.stderr[-3000:])
    attacks = [line for line in lines if line.startswith(("held", "FAILED"))]
    assert len(attacks) >= 10, result.stdout + result.stderr[-3000:]
    assert all(line.startswith("held") for line in attacks), "\n".join(attacks)
    assert result.returncode == 0
