"""The path preview while programming, and the reboot facing chosen while programming.

The page asks the server for a preview whenever the program changes and draws it: a faint path
and a numbered ghost robot per register (``preview-end``). The expectations come from the engine
itself: the test rebuilds the server's game in-process from its stored settings and actions
(the server's own SQLite file, read only) and calls
:func:`roborally.engine.preview.preview_program` on it; the game has a single robot, so that is
also what really happens to it.
"""

from __future__ import annotations

import itertools
import json
import sqlite3
import time
from typing import Any

from playwright.sync_api import Page, expect

from roborally.engine.core.decisions import Decision, DecisionKind
from roborally.engine.core.geometry import Pos
from roborally.engine.game import Game
from roborally.engine.preview import preview_program
from roborally.server.host import replay_actions
from roborally.server.settings import GameSettings
from roborally.server.store import DB_NAME

from .conftest import Contexts, ServerProcess, start_game, until_program


# ------------------------------------------------------------------ the engine's side
def engine_game(server: ServerProcess, game_id: str) -> Game:
    """The server's game, rebuilt in-process from what the server stored."""
    db = sqlite3.connect(f"file:{server.data_dir / DB_NAME}?mode=ro", uri=True)
    try:
        settings, seats = db.execute(
            "SELECT settings, seats FROM games WHERE id = ?", (game_id,)
        ).fetchone()
        actions = db.execute(
            "SELECT decision_id, seat, choice FROM actions WHERE game_id = ? ORDER BY n",
            (game_id,),
        ).fetchall()
    finally:
        db.close()
    names = tuple(str(s["name"]) for s in json.loads(seats))
    game = Game(GameSettings.from_json(json.loads(settings)).config(names))
    replay_actions(game, [(a, int(b), c) for a, b, c in actions], game_id)
    return game


def programming(server: ServerProcess, game_id: str, page: Page) -> tuple[Game, Decision]:
    """The in-process game at the program decision the page shows (the server saves the
    actions before it sends the state, so this is at most a moment away)."""
    shown = page.evaluate("() => window.rrGame.editor && window.rrGame.editor.decision.id")
    deadline = time.monotonic() + 10
    while True:
        game = engine_game(server, game_id)
        decision = next(
            (d for d in game.pending_decisions(0) if d.kind is DecisionKind.PROGRAM), None
        )
        if decision is not None and decision.id == shown:
            return game, decision
        assert time.monotonic() < deadline, f"the stored game is not at {shown}"
        time.sleep(0.2)


def movable(hand: list[str]) -> list[int]:
    """The hand's cards that are program cards (no damage card: it would draw a card)."""
    return [
        i for i, name in enumerate(hand) if name not in ("spam", "trojan_horse", "worm", "virus")
    ]


def spread(cards: list[str], locked: list[int]) -> list[str | None]:
    """A program of 5 registers with ``cards`` in the registers not locked, from register 1 on
    (as tapping them on the page fills them)."""
    free = iter(cards)
    return [None if r in locked else next(free, None) for r in range(1, 6)]


def features(game: Game, preview: list[dict[str, Any]]) -> set[str]:
    """What the previewed paths cross: "belt", "gear", and "pit" when the robot falls in one."""
    grid = game.state.grid
    seen: set[str] = set()
    for register in preview:
        cells = [grid.cell(Pos(x, y)) for x, y in register["path"]]
        if any(c.belt for c in cells):
            seen.add("belt")
        if any(c.gear for c in cells):
            seen.add("gear")
        if register["rebooted"] and cells and cells[-1].pit:
            seen.add("pit")
    return seen


def ends(preview: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """The ghost robots the page should draw: one per register that ends on the board."""
    return [
        {
            "register": r["register"],
            "x": r["pos"][0],
            "y": r["pos"][1],
            "facing": r["facing"],
            "certain": r["certain"],
        }
        for r in preview
        if r["pos"] is not None
    ]


# ------------------------------------------------------------------ the page's side
def shown_ends(page: Page) -> list[dict[str, Any]]:
    result: list[dict[str, Any]] = page.evaluate(
        """() => [...document.querySelectorAll("[data-testid=preview-end]")].map((g) => ({
            register: Number(g.dataset.register), x: Number(g.dataset.x),
            y: Number(g.dataset.y), facing: g.dataset.facing,
            certain: g.dataset.certain === "true"}))"""
    )
    return sorted(result, key=lambda e: e["register"])


def enter(page: Page, program: list[str | None]) -> None:
    """Clear the registers, then tap the program's cards in order (a partial program fills
    the first registers)."""
    clear = page.get_by_test_id("clear-program")
    if clear.is_enabled():
        clear.click()
    for name in program:
        if name is not None:
            page.locator(f"[data-testid=hand-card][data-card='{name}']").first.click()


def wait_for_ends(page: Page, expected: list[dict[str, Any]], timeout: float = 10.0) -> None:
    deadline = time.monotonic() + timeout
    while shown_ends(page) != expected:
        if time.monotonic() > deadline:
            assert shown_ends(page) == expected  # shows the difference
        page.wait_for_timeout(100)


def lock_in(page: Page, program: list[str | None]) -> None:
    """Lock in ``program``; returns once the page has left that program's editor."""
    enter(page, program)
    shown = page.evaluate("() => window.rrGame.editor.decision.id")
    page.get_by_test_id("submit-program").click()
    # The preview goes with the editor.
    expect(page.get_by_test_id("preview-end")).to_have_count(0)
    page.wait_for_function(
        "(id) => !window.rrGame.editor || window.rrGame.editor.decision.id !== id", arg=shown
    )


# ------------------------------------------------------------------------- the tests
def test_the_path_preview_shows_where_the_engine_puts_the_lone_robot(
    live_server: ServerProcess, contexts: Contexts, shots: Any
) -> None:
    """At least five programs from different places on Training Run (belts, gears, pits): the
    ghost robots stand where the engine's preview puts the robot, with its facing, and the
    uncertain registers are marked; the previewed paths cross a belt, a gear and a pit."""
    game_info = live_server.create(
        seats=[{"kind": "human", "name": "Ada"}, {"kind": "bot", "bot": "random"}], seed=11
    )
    game_id = game_info["game_id"]
    page = contexts.page()
    page.goto(live_server.seat_url(game_info, 0, speed=0))
    start_game(page)
    checked: list[tuple[tuple[int, int] | None, tuple[str | None, ...]]] = []
    covered: set[str] = set()
    screenshot = False
    for _round in range(8):
        until_program(page, timeout=40)
        game, decision = programming(live_server, game_id, page)
        hand = list(decision.info["hand"])
        locked = list(decision.info["locked"])
        start = game.state.players[0].pos
        cards = movable(hand)
        # Every partial program of up to three cards, by what its path crosses.
        options: list[tuple[list[str | None], list[dict[str, Any]]]] = []
        for length in (1, 2, 3):
            for picks in itertools.permutations(cards, length):
                program = spread([hand[i] for i in picks], locked)
                options.append((program, preview_program(game, 0, program)))
        new = [o for o in options if features(game, o[1]) - covered]
        chosen = (new[:1] or []) + [o for o in options if o not in new[:1]][-1:]
        for program, preview in chosen:
            enter(page, program)
            wait_for_ends(page, ends(preview))
            falls = page.get_by_test_id("preview-fall")
            expect(falls).to_have_count(sum(1 for r in preview if r["rebooted"] and r["path"]))
            if not all(r["certain"] for r in preview):
                expect(page.get_by_test_id("preview-unsure")).to_be_visible()
            covered |= features(game, preview)
            checked.append(((start.x, start.y) if start else None, tuple(program)))
            places = {tuple(r["pos"]) for r in preview if r["pos"]}
            if not screenshot and features(game, preview) and len(places) >= 3:
                expect(page.get_by_test_id("preview-caption")).to_contain_text(
                    "other robots are not simulated", ignore_case=True
                )
                shots(page, "preview-desktop")
                screenshot = True
        if len(checked) >= 5 and covered >= {"belt", "gear", "pit"}:
            break
        # Lock in a whole program that keeps the robot on the board and takes it somewhere
        # new (five cards, no damage card if it can be helped).
        best: tuple[int, list[str | None]] | None = None
        size = min(5 - len(locked), len(cards))
        for picks in itertools.islice(itertools.permutations(cards, size), 1500):
            program = spread([hand[i] for i in picks], locked)
            preview = preview_program(game, 0, program)
            if preview[-1]["pos"] is None:
                continue
            score = len({tuple(c) for r in preview for c in r["path"]}) + 10 * len(
                features(game, preview) - covered
            )
            if best is None or score > best[0]:
                best = (score, program)
        full = best[1] if best else spread(hand, locked)
        if None in [n for r, n in enumerate(full, 1) if r not in locked]:  # fill with the rest
            rest = [n for i, n in enumerate(hand) if i not in cards]
            full = [
                n if n is not None or r in locked else rest.pop(0) for r, n in enumerate(full, 1)
            ]
        lock_in(page, full)
    assert len(set(checked)) >= 5, checked
    assert len({start for start, _ in checked}) >= 2, checked
    assert covered >= {"belt", "gear", "pit"}, covered
    assert screenshot


def test_the_reboot_facing_chosen_while_programming_is_used(
    live_server: ServerProcess, contexts: Contexts, shots: Any
) -> None:
    """On a phone: the robot falls; while programming the next round the player picks the way
    it faces when it comes back; it comes back facing that way and no question pops up."""
    game_info = live_server.create(
        seats=[{"kind": "human", "name": "Ada"}, {"kind": "bot", "bot": "random"}], seed=12
    )
    game_id = game_info["game_id"]
    page = contexts.page(phone=True)
    frames: list[dict[str, Any]] = []
    page.on(
        "websocket",
        lambda ws: ws.on(
            "framereceived", lambda p: frames.append(json.loads(p)) if isinstance(p, str) else None
        ),
    )
    page.goto(live_server.seat_url(game_info, 0, speed=0))
    start_game(page)
    until_program(page)
    game, decision = programming(live_server, game_id, page)
    hand = list(decision.info["hand"])
    # A program that makes the robot fall (off the edge or into a pit): it stays off the
    # board until the next round.
    falling = next(
        [hand[i] for i in picks]
        for picks in itertools.permutations(range(len(hand)), 5)
        if any(r["rebooted"] for r in preview_program(game, 0, [hand[i] for i in picks]))
    )
    lock_in(page, falling)
    until_program(page, timeout=40)
    game, decision = programming(live_server, game_id, page)
    player = game.state.players[0]
    assert player.pos is None and player.reentry is not None
    box = page.get_by_test_id("reboot-facing")
    expect(box).to_be_visible()
    facing = next(d for d in "NESW" if d != player.reentry_arrow.letter)
    page.get_by_test_id(f"facing-{facing}").click()
    expect(page.get_by_test_id(f"facing-{facing}")).to_have_attribute("aria-pressed", "true")
    hand = list(decision.info["hand"])
    cards = movable(hand)
    program: list[str | None] = [hand[i] for i in cards[:5]]
    rest = [n for i, n in enumerate(hand) if i not in cards]
    program += rest[: 5 - len(program)]
    enter(page, program)
    expected = preview_program(game, 0, program, {"reboot_facing": facing})
    assert expected[0]["path"][0] == [player.reentry.x, player.reentry.y]
    wait_for_ends(page, ends(expected))
    shots(page, "reboot-facing-phone")
    page.get_by_test_id("submit-program").click()
    expect(page.get_by_test_id("preview-end")).to_have_count(0)
    deadline = time.monotonic() + 30

    def reentries() -> list[dict[str, Any]]:
        return [
            e
            for m in list(frames)
            if m.get("type") == "events"
            for e in m["events"]
            if e["kind"] == "reentered" and e.get("seat") == 0
        ]

    while not reentries():
        assert time.monotonic() < deadline, "the robot did not come back"
        page.wait_for_timeout(100)
    assert reentries()[-1]["to_facing"] == facing
    # The server answered the question with the choice: the page never asked it.
    asked = [
        d
        for m in list(frames)
        if m.get("type") == "state"
        for d in m.get("pending", [])
        if d["kind"] == "reboot_facing"
    ]
    assert asked == []
    expect(page.locator("[data-testid=decision][data-kind=reboot_facing]")).to_have_count(0)
