"""Facts of ``docs/protocol.md`` that can drift from the code: the course board example of 1.2
is the real board of ``tiny``, every board example says its size, and section 4 names the
options ``roborally bot`` has. (Section 3's client plays a game in ``test_play.py``.)"""

from __future__ import annotations

import json
import re
from pathlib import Path

from roborally import api
from roborally.cli import build_parser

DOC = (Path(__file__).resolve().parents[2] / "docs" / "protocol.md").read_text("utf-8")


def test_the_course_board_example_is_tiny() -> None:
    section = DOC.split("### 1.2", 1)[1].split("### 1.3", 1)[0]
    block = re.search(r"```json\n(.*?)```", section, re.S)
    assert block is not None
    example = json.loads(block.group(1))["board"]
    board = api.board_json("tiny")
    assert (example["width"], example["height"]) == (board["width"], board["height"])
    for cell in example["cells"]:
        assert cell in board["cells"], cell
    assert example["boards"] == board["boards"]
    assert example["checkpoints"] == board["checkpoints"]
    for key in ("start_spaces", "lasers"):
        shown = [entry for entry in example[key] if entry != "..."]
        assert shown and all(entry in board[key] for entry in shown), key


def test_every_board_example_has_tinys_size() -> None:
    board = api.board_json("tiny")
    sizes = re.findall(r'"width": (\d+), "height": (\d+)', DOC)
    assert len(sizes) >= 3
    assert all((int(w), int(h)) == (board["width"], board["height"]) for w, h in sizes)


def test_section_4_names_the_bot_command_options() -> None:
    section = DOC.split("## 4. Bots over the network", 1)[1]
    parser = build_parser()
    sub = next(a for a in parser._actions if a.dest == "command")
    bot = sub.choices["bot"]  # type: ignore[index]
    for action in bot._actions:
        for flag in action.option_strings:
            if flag not in ("-h", "--help"):
                assert flag in section, flag
