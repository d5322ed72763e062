"""Run docs/rl.md's training example and draw its learning curve.

``uv run python bench/rl_curve.py [--episodes 400]`` runs the last Python block of docs/rl.md
(REINFORCE on the ``tiny`` course against the random bot), writes what it printed to
docs/rl-curve.txt and draws docs/rl-curve.svg: the mean return per block of episodes, and the
moving average over 25 episodes.
"""

from __future__ import annotations

import argparse
import contextlib
import io
import os
import re
import sys
import time
from pathlib import Path
from typing import Any

DOCS = Path(__file__).resolve().parent.parent / "docs"


def example_code() -> str:
    """The last Python block of docs/rl.md: the training example."""
    blocks = re.findall(r"```python\n(.*?)```", (DOCS / "rl.md").read_text(encoding="utf-8"), re.S)
    return str(blocks[-1])


def run(episodes: int) -> tuple[dict[str, Any], str]:
    """Run the example with ``episodes``; returns its variables and what it printed."""
    os.environ["RL_EXAMPLE_EPISODES"] = str(episodes)
    namespace: dict[str, Any] = {"__name__": "rl_example"}
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        exec(compile(example_code(), "docs/rl.md", "exec"), namespace)
    return namespace, out.getvalue()


def svg(returns: list[float], block: int, title: str) -> str:
    """A small line chart: block means (dots and line) and a 25-episode moving average."""
    width, height, pad = 560, 260, 40
    low = min(-1.0, min(returns))
    high = max(2.0, max(returns))

    def x(i: float) -> float:
        return pad + (width - 2 * pad) * i / max(1, len(returns) - 1)

    def y(v: float) -> float:
        return height - pad - (height - 2 * pad) * (v - low) / (high - low)

    window = 25
    moving = [
        sum(returns[max(0, i - window + 1) : i + 1]) / (i + 1 - max(0, i - window + 1))
        for i in range(len(returns))
    ]
    means = [
        (start + block / 2, sum(returns[start : start + block]) / block)
        for start in range(0, len(returns) - block + 1, block)
    ]
    parts = [
        f'<svg xmlns="http://www.w3.org/2000/svg" width="{width}" height="{height}"'
        f' viewBox="0 0 {width} {height}" font-family="sans-serif" font-size="12">',
        f'<rect width="{width}" height="{height}" fill="white"/>',
        f'<text x="{width / 2}" y="20" text-anchor="middle">{title}</text>',
    ]
    for value in range(int(low), int(high) + 1):
        parts.append(
            f'<line x1="{pad}" y1="{y(value):.1f}" x2="{width - pad}" y2="{y(value):.1f}"'
            ' stroke="#ddd"/>'
            f'<text x="{pad - 6}" y="{y(value) + 4:.1f}" text-anchor="end">{value}</text>'
        )
    parts.append(
        f'<text x="{width / 2}" y="{height - 8}" text-anchor="middle">episode'
        f" (1-{len(returns)})</text>"
    )
    line = " ".join(f"{x(i):.1f},{y(v):.1f}" for i, v in enumerate(moving))
    parts.append(f'<polyline points="{line}" fill="none" stroke="#9ab" stroke-width="1.5"/>')
    dots = " ".join(f"{x(i):.1f},{y(v):.1f}" for i, v in means)
    parts.append(f'<polyline points="{dots}" fill="none" stroke="#c33" stroke-width="2"/>')
    for i, v in means:
        parts.append(f'<circle cx="{x(i):.1f}" cy="{y(v):.1f}" r="3" fill="#c33"/>')
    parts.append(
        f'<text x="{width - pad}" y="{pad}" text-anchor="end" fill="#c33">mean return per'
        f" {block} episodes</text>"
        f'<text x="{width - pad}" y="{pad + 16}" text-anchor="end" fill="#9ab">moving average'
        f" ({window})</text>"
    )
    parts.append("</svg>")
    return "\n".join(parts) + "\n"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--episodes", type=int, default=400)
    parser.add_argument("--out", type=Path, default=DOCS)
    args = parser.parse_args(argv)
    started = time.perf_counter()
    namespace, printed = run(args.episodes)
    took = time.perf_counter() - started
    returns = [float(r) for r in namespace["returns"]]
    block = max(1, args.episodes // 8)
    header = f"# docs/rl.md's example, {args.episodes} episodes, {took:.0f} s\n"
    (args.out / "rl-curve.txt").write_text(header + printed, encoding="utf-8")
    title = "REINFORCE, linear policy vs the random bot (tiny, 2023 lighter)"
    (args.out / "rl-curve.svg").write_text(svg(returns, block, title), encoding="utf-8")
    sys.stdout.write(header + printed)
    return 0


if __name__ == "__main__":
    sys.exit(main())
