"""The path preview for programming (``roborally.engine.preview``, issue 12 point 4).

The reference for every comparison is the engine itself: a copy of the game in which the other
robots are taken off the board, the seat's program applied through ``Game.apply`` and every
later question answered with ``timeout`` (its default), with the real decks and generator. The
robot's place after each register is read back from that game's events. The preview must give
the same place and facing after every register (and the same path), without drawing a card,
touching a generator or changing the game, while the other robots still stand on the board of
the game it is asked about.

Positions are set up by hand on shipped courses, the way scenarios do, and chosen so that each
case runs through the board elements it names (each case checks that the reference game's
events contain them, so a changed board cannot silently turn a case into a walk on plain floor).
"""

from __future__ import annotations

import random
from collections.abc import Sequence
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from roborally import api
from roborally.engine.core.cards import PROGRAMMING_CARDS
from roborally.engine.core.decisions import TIMEOUT, Action, Decision, DecisionKind
from roborally.engine.core.events import Event, EventKind
from roborally.engine.core.geometry import Direction, Pos
from roborally.engine.game import Game
from roborally.engine.preview import NoRandom, preview_program

Place = tuple[tuple[int, int] | None, str | None]


# --------------------------------------------------------------------------- set-up helpers
def at_programming(
    course: str,
    edition: str = "2023",
    players: int = 2,
    seed: int = 1,
    variants: Sequence[str] = (),
) -> Game:
    """A new game played to seat 0's first program decision (first option everywhere)."""
    game = api.new_game(course, players=players, seed=seed, edition=edition, variants=variants)
    while not any(d.kind is DecisionKind.PROGRAM for d in game.pending_decisions(0)):
        decision = game.pending_decisions()[0]
        choice = decision.options[0] if decision.options else TIMEOUT
        game.apply(Action(decision.id, decision.seat, choice))
    return game


def restage(game: Game) -> None:
    """After a test edited the state (as scenarios set positions directly), ask the rules
    again for the decisions the game waits for: the program decisions see the new hands."""
    game._pending = game._rules.advance()


def card(game: Game, name: str) -> Any:
    """A new card named ``name`` (classic names carry their priority: ``move1@490``)."""
    _, _, priority = name.partition("@")
    return game.state.new_card(name, int(priority or 0))


def put(
    game: Game,
    seat: int,
    pos: tuple[int, int] | None,
    facing: str = "N",
    hand: Sequence[str] | None = None,
    upgrades: Sequence[str] = (),
) -> None:
    """Place ``seat``'s robot (``None``: off the board), give it a hand and upgrades."""
    player = game.state.players[seat]
    player.pos = None if pos is None else Pos(*pos)
    player.facing = Direction.parse(facing)
    if hand is not None:
        player.hand = [card(game, name) for name in hand]
    if upgrades:
        player.installed = [card(game, name) for name in upgrades]
    restage(game)


def program_decision(game: Game, seat: int) -> Decision:
    return next(d for d in game.pending_decisions(seat) if d.kind is DecisionKind.PROGRAM)


# --------------------------------------------------------------------------- the reference
def lone_game(game: Game, seat: int, program: Sequence[str | None]) -> tuple[Game, list[Event]]:
    """The engine's own result: ``game`` with only ``seat``'s robot on the board, ``program``
    applied and every later question of the round answered with its default."""
    ref = game.copy()
    for player in ref.state.players:
        if player.seat != seat:
            player.pos = None
            player.reentry = None
    restage(ref)
    start = ref.state.round
    mark = len(ref.events)
    ref.apply(Action(program_decision(ref, seat).id, seat, tuple(program)))
    while not ref.is_over() and ref.state.round == start:
        decision = ref.pending_decisions()[0]
        ref.apply(Action(decision.id, decision.seat, TIMEOUT))
    return ref, [e for e in ref.events[mark:] if e.round == start]


def places(game: Game, seat: int, events: list[Event]) -> list[dict[str, Any]]:
    """Where the robot stood after each register, and the spaces it entered, from events."""
    player = game.state.players[seat]
    grid = game.state.grid
    pos, facing = player.pos, player.facing
    result = []
    for r in range(1, 6):
        path = [] if pos is None else [pos]
        for e in events:
            if e.register != r or e.seat != seat:
                continue
            if e.kind in (EventKind.MOVED, EventKind.PUSHED, EventKind.CONVEYED):
                pos = e.to if e.to is not None and grid.is_on_course(e.to) else None
                path += [pos] if pos is not None else []
            elif e.kind is EventKind.ROTATED and e.to_facing is not None:
                facing = e.to_facing
            elif e.kind in (EventKind.FELL, EventKind.DESTROYED):
                pos = None
            elif e.kind is EventKind.REENTERED and e.pos is not None:
                pos, facing = e.pos, e.to_facing or facing
                path.append(pos)
        result.append(
            {
                "pos": None if pos is None else [pos.x, pos.y],
                "facing": None if pos is None else facing.letter,
                "path": [[p.x, p.y] for p in path],
            }
        )
    return result


def compare(game: Game, seat: int, program: Sequence[str | None]) -> list[Event]:
    """Check the preview against the lone-robot game; returns the reference's events."""
    before = game.digest()
    preview = preview_program(game, seat, program)
    assert game.digest() == before
    ref, events = lone_game(game, seat, program)
    expected = places(game, seat, events)
    assert [
        {"pos": p["pos"], "facing": p["facing"], "path": p["path"]} for p in preview
    ] == expected
    assert [p["register"] for p in preview] == [1, 2, 3, 4, 5]
    left = (EventKind.FELL, EventKind.DESTROYED)
    fell = {e.register for e in events if e.seat == seat and e.kind in left}
    assert [p["rebooted"] for p in preview] == [r in fell for r in range(1, 6)]
    robot = ref.state.players[seat].pos
    if expected[-1]["pos"] is not None and not ref.is_over():  # the reading of the events
        assert robot is not None and [robot.x, robot.y] == expected[-1]["pos"]
    return events


def caused(events: list[Event], kind: EventKind, cause: str) -> bool:
    return any(e.kind is kind and (e.cause or "").startswith(cause) for e in events)


# ------------------------------------------------------------------------ 2023 positions
# (course, robot at, facing, program, where the other robot stands, what the robot meets)
CASES_2023 = [
    # Rides the express belt east from the river's mouth (2 spaces a register), turns on its
    # curved pieces south and east again, while its cards only turn it.
    (
        "y23-river-run",
        (0, 4),
        "N",
        ("rotate_left", "rotate_right", "u_turn", "rotate_left", "rotate_right"),
        (5, 12),
        [(EventKind.CONVEYED, "blue belt"), (EventKind.ROTATED, "belt")],
    ),
    # Steps onto the gear next to checkpoint 1 (turned right), then walks on; the other robot
    # stands in the way (the preview ignores it: the lone game has no robot there).
    (
        "y23-river-run",
        (4, 2),
        "W",
        ("move1", "move1", "rotate_left", "move2", "u_turn"),
        (3, 1),
        [(EventKind.ROTATED, "gear")],
    ),
    # Walks onto the push panel that fires in register 1, is pushed onto the express belt and
    # carried north to its turning top in register 2.
    (
        "y23-rush-hour",
        (9, 5),
        "N",
        ("move2", "rotate_left", "rotate_right", "move1", "move1"),
        (0, 12),
        [(EventKind.PUSHED, "push panel"), (EventKind.CONVEYED, "blue belt")],
    ),
    # Turns on a gear twice (card and gear), then walks into the pit south of it in register 3
    # and stays off the board for registers 4 and 5.
    (
        "y23-rush-hour",
        (2, 6),
        "E",
        ("rotate_right", "u_turn", "move2", "move1", "rotate_left"),
        (2, 7),
        [(EventKind.ROTATED, "gear"), (EventKind.FELL, "pit")],
    ),
    # The green staircase belts: carried west and south with a turn on every curved piece.
    (
        "y23-rush-hour",
        (9, 6),
        "N",
        ("rotate_right", "move_back", "rotate_left", "move1", "rotate_right"),
        (11, 11),
        [(EventKind.CONVEYED, "green belt"), (EventKind.ROTATED, "belt")],
    ),
    # A fixed Haywire (Move 1, Rotate Right, Move 1), then Again repeating it.
    (
        "y23-river-run",
        (7, 11),
        "N",
        ("move1", "hw_m1rm1", "again", "move_back", "rotate_left"),
        (6, 11),
        [(EventKind.MOVED, "haywire")],
    ),
]


@pytest.mark.parametrize(("course", "at", "facing", "program", "other", "meets"), CASES_2023)
def test_the_preview_is_the_lone_robot_game_2023(
    course: str,
    at: tuple[int, int],
    facing: str,
    program: tuple[str, ...],
    other: tuple[int, int],
    meets: list[tuple[EventKind, str]],
) -> None:
    game = at_programming(course)
    put(game, 1, other)
    put(game, 0, at, facing, hand=[*program, "power_up", "u_turn", "move3", "move3"])
    events = compare(game, 0, program)
    for kind, cause in meets:
        assert caused(events, kind, cause), (kind, cause)
    assert all(p["certain"] for p in preview_program(game, 0, program))


# ---------------------------------------------------------------------- classic positions
CASES_CLASSIC = [
    # Rides the green belt north and turns east on its curved corner; a gear on the way back.
    (
        "classic",
        "cl-first-shift",
        (3, 4),
        "N",
        ("rotate_left@70", "rotate_right@80", "move1@490", "u_turn@10", "move2@670"),
        [(EventKind.CONVEYED, "belt"), (EventKind.ROTATED, "belt")],
    ),
    # Carried east on the green belt into the crusher that acts in register 2.
    (
        "classic",
        "cl-press-gang",
        (5, 14),
        "N",
        ("rotate_left@70", "rotate_right@80", "u_turn@10", "rotate_left@90", "move1@490"),
        [(EventKind.FELL, "crusher")],
    ),
    # Walks into a pit in register 3 and is destroyed (off the board for the rest).
    (
        "classic",
        "cl-first-shift",
        (1, 10),
        "N",
        ("rotate_left@70", "rotate_right@80", "move2@670", "move1@490", "u_turn@10"),
        [(EventKind.FELL, "pit")],
    ),
    # The 1994 rules: register 1 holds the move card they ask for before programming (here a
    # Back Up onto the express belt); carried east, then turned south on its curved piece.
    (
        "classic-1994",
        "cl-meltdown",
        (2, 4),
        "S",
        ("back_up@430", "rotate_left@70", "rotate_right@80", "u_turn@10", "rotate_left@90"),
        [(EventKind.CONVEYED, "express belt"), (EventKind.ROTATED, "belt")],
    ),
]


@pytest.mark.parametrize(("edition", "course", "at", "facing", "program", "meets"), CASES_CLASSIC)
def test_the_preview_is_the_lone_robot_game_classic(
    edition: str,
    course: str,
    at: tuple[int, int],
    facing: str,
    program: tuple[str | None, ...],
    meets: list[tuple[EventKind, str]],
) -> None:
    game = at_programming(course, edition)
    if edition == "classic-1994":  # register 1 was filled before programming
        assert program_decision(game, 0).info["locked"] == [1]
        game.state.players[0].registers[0].cards = [card(game, program[0] or "")]
        program = (None, *program[1:])
    put(game, 1, (at[0], at[1] + 1))  # right behind: a back-up or a belt would meet it
    put(game, 0, at, facing, hand=[c for c in program if c] + ["move3@800", "move2@680"])
    events = compare(game, 0, program)
    for kind, cause in meets:
        assert caused(events, kind, cause), (kind, cause)
    assert all(p["certain"] for p in preview_program(game, 0, program))


# ----------------------------------------------------------------------- partial programs
@pytest.mark.parametrize(
    ("edition", "course", "at", "facing", "program"),
    [
        # Registers 1, 3 and 5 stay empty: the express belt still carries the robot.
        ("2023", "y23-river-run", (0, 4), "N", (None, "move1", None, "rotate_right", None)),
        ("2023", "y23-rush-hour", (2, 6), "E", ("move1", None, None, None, None)),
        ("classic", "cl-first-shift", (3, 6), "N", (None, None, "u_turn@10", None, None)),
    ],
)
def test_a_partial_program_previews_the_filled_registers(
    edition: str,
    course: str,
    at: tuple[int, int],
    facing: str,
    program: tuple[str | None, ...],
) -> None:
    # With a hand of exactly these cards the engine takes the partial program too, so the
    # lone-robot game is the reference here as well.
    game = at_programming(course, edition)
    put(game, 1, None if edition == "2023" else (11, 11))
    put(game, 0, at, facing, hand=[c for c in program if c])
    compare(game, 0, program)
    # A partial program from a full hand is previewed the same way (the engine would not
    # accept it yet: the page shows it while the player is still placing cards).
    put(game, 0, at, facing, hand=[*(c for c in program if c), "move2", "move3", "u_turn"])
    assert preview_program(game, 0, program) == preview_program(game, 0, program)
    empty = preview_program(game, 0, [None] * 5)
    assert all(p["certain"] for p in empty)


def test_an_empty_register_leaves_the_robot_to_the_board() -> None:
    game = at_programming("y23-river-run")
    put(game, 0, (0, 4), "N", hand=["move1", "rotate_left", "move2"])
    belt = preview_program(game, 0, [None] * 5)
    assert [p["pos"] for p in belt[:2]] == [[2, 4], [3, 5]]  # the express belt, two a register
    assert belt[1]["facing"] == "E"  # turned by the curved piece
    put(game, 0, (7, 11), "N", hand=["move1"])
    floor = preview_program(game, 0, [None, "move1", None, None, None])
    assert [p["pos"] for p in floor] == [[7, 11], [7, 10], [7, 10], [7, 10], [7, 10]]
    assert [p["path"] for p in floor[:2]] == [[[7, 11]], [[7, 11], [7, 10]]]


# ------------------------------------------------------------------ unknown and uncertain
@pytest.mark.parametrize(
    ("program", "certain"),
    [
        # SPAM is replaced by the top card of the deck: unknown, so the robot stays put.
        (("move1", "spam", "move1", "rotate_left", "move1"), [True] + [False] * 4),
        # Again in register 1 is replaced from the deck as well.
        (("again", "move1", "move1", "rotate_left", "move1"), [False] * 5),
        # The Haywires that draw two cards or ask for a side.
        (("move1", "move1", "hw_two", "rotate_left", "move1"), [True, True] + [False] * 3),
        (("move1", "move1", "rotate_left", "hw_side2", "move1"), [True] * 3 + [False] * 2),
        # Fixed Haywires and Again after a known card are certain.
        (("hw_m3u", "again", "rotate_left", "move1", "hw_m1rm1"), [True] * 5),
    ],
)
def test_damage_cards_that_draw_or_ask_make_the_rest_uncertain(
    program: tuple[str, ...], certain: list[bool]
) -> None:
    game = at_programming("y23-rush-hour")
    put(game, 0, (5, 12), "N", hand=[*program, "move2"])
    preview = preview_program(game, 0, program)
    assert [p["certain"] for p in preview] == certain
    if program[1] == "spam":
        # The best honest guess for an unknown card: the robot stays where it is.
        assert preview[1]["pos"] == preview[0]["pos"] and preview[1]["path"] == [preview[0]["pos"]]
        assert preview[2]["pos"] == [5, 10]
    _, events = lone_game(game, 0, program)
    expected = places(game, 0, events)
    for mine, theirs, sure in zip(preview, expected, certain, strict=True):
        if sure:  # what the preview calls certain is what the engine does
            assert (mine["pos"], mine["facing"]) == (theirs["pos"], theirs["facing"])


def test_a_sidestep_takes_its_default_and_says_so() -> None:
    game = at_programming("y23-rush-hour")
    put(game, 0, (5, 12), "N", hand=["hw_side2", "move1"])
    preview = preview_program(game, 0, ["hw_side2", "move1", None, None, None])
    assert preview[0]["pos"] == [3, 12] and not preview[0]["certain"]  # Move 2 to the left
    compare(game, 0, ["hw_side2", "move1", None, None, None])  # the engine's default too


# ----------------------------------------------------------------------------- upgrades
def test_hover_unit_passes_over_a_pit_where_the_robot_without_it_falls() -> None:
    program = ("move2", "rotate_left", "move1", "u_turn", "move1")
    game = at_programming("y23-river-run")
    put(game, 0, (6, 10), "N", hand=list(program))
    falls = preview_program(game, 0, program)
    assert falls[0]["rebooted"] and falls[0]["pos"] is None
    assert falls[0]["path"] == [[6, 10], [6, 9]]  # into the pit
    compare(game, 0, program)
    put(game, 0, (6, 10), "N", hand=list(program), upgrades=["hover_unit"])
    hovers = preview_program(game, 0, program)
    assert hovers[0]["pos"] == [6, 8] and not hovers[0]["rebooted"]
    assert hovers[0]["path"] == [[6, 10], [6, 9], [6, 8]]  # over the pit
    assert all(p["certain"] for p in hovers)
    compare(game, 0, program)


def test_hover_unit_still_falls_where_its_move_ends_on_a_pit() -> None:
    game = at_programming("y23-river-run")
    put(game, 0, (6, 10), "N", hand=["move1", "move2"], upgrades=["hover_unit"])
    preview = compare(game, 0, ["move1", "move2", None, None, None])
    assert caused(preview, EventKind.FELL, "pit")


def test_crab_legs_pairs_sidestep_as_in_the_engine() -> None:
    program = ("move1+rotate_left", "move1", "rotate_right+move1", "move2", "u_turn")
    game = at_programming("y23-rush-hour")
    hand = ["move1", "rotate_left", "move1", "rotate_right", "move1", "move2", "u_turn"]
    put(game, 0, (5, 12), "N", hand=hand, upgrades=["crab_legs"])
    preview = preview_program(game, 0, program)
    assert preview[0]["pos"] == [4, 12] and preview[0]["facing"] == "N"
    assert all(p["certain"] for p in preview)
    compare(game, 0, program)


@pytest.mark.parametrize(
    ("upgrade", "program", "certain"),
    [
        # Brakes asks whether this Move 1 moves: the default moves, but not surely.
        ("brakes", ("rotate_left", "move1", "move2", "u_turn", "move1"), [True] + [False] * 4),
        # Drifting asks after a Rotate Left whether to move 1: default stay.
        (
            "drifting",
            ("move1", "move1", "rotate_left", "u_turn", "move1"),
            [True, True] + [False] * 3,
        ),
        # Temporary upgrades used before or after a card are not used (and not a doubt).
        ("boink", ("move1", "move1", "rotate_left", "u_turn", "move1"), [True] * 5),
    ],
)
def test_upgrade_questions_take_their_default(
    upgrade: str, program: tuple[str, ...], certain: list[bool]
) -> None:
    game = at_programming("y23-rush-hour")
    put(game, 0, (5, 12), "N", hand=list(program), upgrades=[upgrade])
    assert [p["certain"] for p in preview_program(game, 0, program)] == certain
    compare(game, 0, program)


#: A program for the rebooting robot of :func:`rebooting`.
REBOOT_PROGRAM = ("move1", "rotate_left", "move1", "move2", "u_turn")


def rebooting() -> tuple[Game, Any, tuple[str, ...]]:
    """A game programming with robot 1 off the board, to re-enter on its board's reboot token;
    returns it, the token and a program from its hand."""
    game = at_programming("y23-rush-hour")
    player = game.state.players[0]
    token = game.state.grid.reboot_of_board[0]
    player.reentry, player.reentry_arrow = token.pos, token.arrow
    put(game, 0, None, hand=list(REBOOT_PROGRAM))
    return game, token, REBOOT_PROGRAM


def test_a_rebooted_robot_reenters_facing_the_arrow_but_not_surely() -> None:
    game, token, program = rebooting()
    preview = preview_program(game, 0, program)
    assert preview[0]["path"][0] == [token.pos.x, token.pos.y]
    assert not any(p["certain"] for p in preview)  # the player picks the facing
    compare(game, 0, program)


def test_a_reboot_facing_chosen_ahead_is_used_and_certain() -> None:
    game, token, program = rebooting()
    letter = next(d for d in "NESW" if d != token.arrow.letter)
    preview = preview_program(game, 0, program, {"reboot_facing": letter})
    assert all(p["certain"] for p in preview)
    # The lone robot's game where the player answers the question with that facing.
    ref = game.copy()
    for other in ref.state.players[1:]:
        other.pos = other.reentry = None
    restage(ref)
    start, mark = ref.state.round, len(ref.events)
    ref.apply(Action(program_decision(ref, 0).id, 0, program))
    while not ref.is_over() and ref.state.round == start:
        decision = ref.pending_decisions()[0]
        answer = letter if decision.kind is DecisionKind.REBOOT_FACING else TIMEOUT
        ref.apply(Action(decision.id, decision.seat, answer))
    events = [e for e in ref.events[mark:] if e.round == start]
    reentered = [e for e in events if e.kind is EventKind.REENTERED and e.seat == 0]
    assert reentered and reentered[0].to_facing is not None
    assert reentered[0].to_facing.letter == letter
    assert [{k: p[k] for k in ("pos", "facing", "path")} for p in preview] == places(
        game, 0, events
    )
    # An answer that is not one of the question's options is left out: the default, unsure.
    assert not any(p["certain"] for p in preview_program(game, 0, program, {"reboot_facing": "X"}))


def test_classic_brakes_take_their_default() -> None:
    game = at_programming("cl-first-shift", "classic")
    program = ("move1@490", "rotate_left@70", "move2@670", "u_turn@10", "move1@500")
    put(game, 0, (6, 11), "N", hand=list(program))
    assert all(p["certain"] for p in preview_program(game, 0, program))
    game.state.players[0].options = [card(game, "brakes")]
    restage(game)
    assert [p["certain"] for p in preview_program(game, 0, program)] == [False] * 5
    compare(game, 0, program)


def test_reaching_the_last_checkpoint_ends_the_preview_there() -> None:
    game = at_programming("tiny")
    goal = game.state.grid.checkpoints[-1]
    game.state.players[0].checkpoint = len(game.state.grid.checkpoints) - 1
    put(game, 0, (goal.x, goal.y + 2), "N", hand=["move1", "move1", "move2", "u_turn", "move1"])
    program = ("move1", "move1", "move2", "u_turn", "move1")
    preview = preview_program(game, 0, program)
    assert [p["pos"] for p in preview] == [[goal.x, goal.y + 1]] + [[goal.x, goal.y]] * 4
    ref, _ = lone_game(game, 0, program)
    assert ref.is_over() and ref.outcome() is not None and ref.outcome().winner == 0
    compare(game, 0, program)


# ------------------------------------------------------------------- nothing is revealed
def test_the_preview_never_changes_the_game_nor_draws_a_number() -> None:
    for edition, course in (("2023", "y23-rush-hour"), ("classic", "cl-first-shift")):
        game = at_programming(course, edition)
        state = game.state
        before = (game.digest(), state.rng.state, state.upgrade_rng.state, len(game.events))
        decision = program_decision(game, 0)
        hand = decision.info["hand"]
        for size in range(6):
            preview_program(game, 0, [*hand[:size], *[None] * (5 - size)])
        after = (game.digest(), state.rng.state, state.upgrade_rng.state, len(game.events))
        assert after == before
        assert game.pending_decisions(0) == [decision]
    with pytest.raises(AssertionError, match="never use a random generator"):
        NoRandom().below(6)


def test_hidden_cards_do_not_change_the_preview() -> None:
    """Another deck order, damage deck or opponent's hand gives the same preview, even for a
    program whose SPAM the real game replaces from the deck."""
    program = ("move1", "spam", "again", "hw_two", "move2")
    for seed in (1, 2):
        game = at_programming("y23-rush-hour", seed=seed)
        put(game, 0, (5, 12), "N", hand=[*program, "u_turn"])
        first = preview_program(game, 0, program)
        state = game.state
        shuffler = random.Random(seed)
        shuffler.shuffle(state.players[0].deck)
        shuffler.shuffle(state.damage_deck)
        state.players[0].discard, state.players[0].deck = state.players[0].deck[:5], []
        state.players[1].hand = [card(game, "move3") for _ in range(9)]
        restage(game)
        assert preview_program(game, 0, program) == first


def test_a_classic_preview_ignores_the_program_deck() -> None:
    program = ("move1@490", "rotate_left@70", "move2@670", "u_turn@10", "move1@500")
    game = at_programming("cl-first-shift", "classic")
    put(game, 0, (6, 11), "N", hand=list(program))
    first = preview_program(game, 0, program)
    state = game.state
    random.Random(3).shuffle(state.program_deck)  # type: ignore[attr-defined]
    assert preview_program(game, 0, program) == first


# ------------------------------------------------------------------------------ errors
def test_a_program_the_seat_could_not_play_is_a_value_error() -> None:
    game = at_programming("y23-rush-hour")
    put(game, 0, (5, 12), "N", hand=["move1", "move2", "rotate_left"])
    before = game.digest()
    with pytest.raises(ValueError, match="move3 is used 1 time"):
        preview_program(game, 0, ["move3", None, None, None, None])
    with pytest.raises(ValueError, match="move1 is used 2 time"):
        preview_program(game, 0, ["move1", "move1", None, None, None])
    with pytest.raises(ValueError, match="Crab Legs"):
        preview_program(game, 0, ["move1+rotate_left", None, None, None, None])
    with pytest.raises(ValueError, match="5 registers"):
        preview_program(game, 0, ["move1"])
    with pytest.raises(ValueError, match="5 entries"):
        preview_program(game, 0, "move1")  # type: ignore[arg-type]
    game.state.players[0].registers[2].cards = [card(game, "hw_side2")]
    game.state.players[0].registers[2].locked = True
    restage(game)
    with pytest.raises(ValueError, match="register 3 holds a face-down Haywire"):
        preview_program(game, 0, [None, None, "move1", None, None])
    assert preview_program(game, 0, ["move1", None, None, None, None])[2]["certain"] is False
    assert game.digest() != before  # (the test's own change)


def test_only_a_seat_that_is_programming_can_be_previewed() -> None:
    game = api.new_game("tiny", players=2, seed=1)
    with pytest.raises(ValueError, match="not programming"):
        preview_program(game, 0, [None] * 5)  # start spaces are being chosen
    game = at_programming("tiny")
    decision = program_decision(game, 0)
    game.apply(Action(decision.id, 0, TIMEOUT))
    with pytest.raises(ValueError, match="seat 0 is not programming"):
        preview_program(game, 0, [None] * 5)
    assert preview_program(game, 1, [None] * 5)[0]["register"] == 1


def test_the_result_is_json() -> None:
    import json

    game = at_programming("y23-river-run")
    put(game, 0, (0, 4), "N", hand=["move1", "rotate_left"])
    preview = preview_program(game, 0, ["move1", "rotate_left", None, None, None])
    assert json.loads(json.dumps(preview)) == preview
    assert set(preview[0]) == {"register", "pos", "facing", "path", "rebooted", "certain"}


# ------------------------------------------------------------------------------ property
DECK_2023 = [name for name, spec in PROGRAMMING_CARDS.items() for _ in range(spec.copies)]
_BASE: dict[str, Game] = {}


def base_game(course: str, edition: str) -> Game:
    if course not in _BASE:
        _BASE[course] = at_programming(course, edition)
    return _BASE[course].copy()


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    which=st.sampled_from(
        [("2023", "y23-rush-hour"), ("2023", "y23-river-run"), ("classic", "cl-first-shift")]
    ),
    spot=st.integers(min_value=0, max_value=10_000),
    facing=st.sampled_from("NESW"),
    draw=st.randoms(use_true_random=False),
)
def test_any_program_agrees_with_the_lone_robot_game(
    which: tuple[str, str], spot: int, facing: str, draw: random.Random
) -> None:
    """Any legal program on any standing space: every register the preview calls certain is
    the engine's result; without damage cards (and no Again in register 1) all are certain."""
    edition, course = which
    game = base_game(course, edition)
    grid = game.state.grid
    spaces = [
        grid.pos(i) for i, cell in enumerate(grid.cells) if cell is not None and not grid.pits[i]
    ]
    at = spaces[spot % len(spaces)]
    other = game.state.players[1].pos
    if other == at:
        put(game, 1, None if edition == "2023" else (spaces[0].x, spaces[0].y))
    if edition == "2023":
        hand = draw.sample(DECK_2023, 9)
    else:
        hand = draw.sample(program_decision(game, 0).info["hand"], 5)
    put(game, 0, (at.x, at.y), facing, hand=hand)
    program = draw.choice(list(game.legal_choices(program_decision(game, 0))))
    preview = preview_program(game, 0, program)
    _, events = lone_game(game, 0, program)
    expected = places(game, 0, events)
    for mine, theirs in zip(preview, expected, strict=True):
        if mine["certain"]:
            assert (mine["pos"], mine["facing"], mine["path"]) == (
                theirs["pos"],
                theirs["facing"],
                theirs["path"],
            )
    if program[0] != "again":
        assert all(p["certain"] for p in preview)


def test_spam_filter_shows_the_card_that_replaces_a_spam() -> None:
    """Spam Filter's face-up top card is public: the SPAM it replaces is known, the next
    draw is not."""
    program = ("move1", "spam", "rotate_left", "spam", "move1")
    game = at_programming("y23-rush-hour")
    put(game, 0, (5, 12), "N", hand=[*program, "u_turn"], upgrades=["spam_filter"])
    player = game.state.players[0]
    top = next(c for c in player.deck if c.name == "move2")
    player.deck.remove(top)
    player.deck.append(top)
    player.top_visible = True
    restage(game)
    preview = preview_program(game, 0, program)
    assert [p["certain"] for p in preview] == [True, True, True, False, False]
    # The SPAM became the visible Move 2 (to 5,9), then the green belt there carried it west.
    assert preview[1]["path"] == [[5, 11], [5, 10], [5, 9], [4, 9]]
    _, events = lone_game(game, 0, program)
    assert [(p["pos"], p["facing"]) for p in preview[:3]] == [
        (p["pos"], p["facing"]) for p in places(game, 0, events)[:3]
    ]


def test_energy_conversion_after_a_board_laser_is_a_question() -> None:
    """A board laser (rush hour's 3,0 firing south) deals damage, which takes no card in the
    preview; Energy Conversion then asks whether to move: default stay, not surely."""
    program = ("rotate_left", "rotate_right", "u_turn", "rotate_left", "rotate_right")
    game = at_programming("y23-rush-hour")
    put(game, 0, (3, 1), "N", hand=list(program))
    assert all(p["certain"] for p in preview_program(game, 0, program))
    put(game, 0, (3, 1), "N", hand=list(program), upgrades=["energy_conversion"])
    assert not any(p["certain"] for p in preview_program(game, 0, program))
    events = compare(game, 0, program)
    hit = [e for e in events if e.kind is EventKind.SHOT and e.cause == "board laser"]
    assert {e.register for e in hit if e.seat == 0} == {1, 2, 3, 4, 5}


def test_classic_gyroscopic_stabilizer_matters_from_the_first_gear() -> None:
    """The stabilizer is asked in register 1 (default off); the answer changes the robot only
    once a gear turns it (first shift's gear at 5,5, reached in register 3)."""
    program = ("rotate_left@70", "rotate_right@80", "move2@670", "u_turn@10", "move1@490")
    game = at_programming("cl-first-shift", "classic")
    put(game, 0, (5, 7), "N", hand=list(program))
    game.state.players[0].options = [card(game, "gyroscopic_stabilizer")]  # type: ignore[attr-defined]
    restage(game)
    preview = preview_program(game, 0, program)
    assert [p["certain"] for p in preview] == [True, True, False, False, False]
    events = compare(game, 0, program)
    assert caused(events, EventKind.ROTATED, "gear")


def test_classic_laser_damage_destroys_and_an_option_card_could_have_saved_it() -> None:
    """A classic robot at 9 damage (every register locked with its card) in a board laser
    is destroyed in register 1: certain without option cards; with one, giving it up would
    prevent the 10th damage, so the default (keep it) is not sure."""
    game = at_programming("cl-first-shift", "classic")
    player = game.state.players[0]
    player.damage = 9  # type: ignore[attr-defined]
    for index, name in enumerate(
        ("rotate_left@70", "u_turn@10", "move1@490", "u_turn@20", "move1@500")
    ):
        player.registers[index].cards = [card(game, name)]
        player.registers[index].locked = True
    put(game, 0, (10, 6), "E", hand=[])
    assert program_decision(game, 0).info["locked"] == [1, 2, 3, 4, 5]
    preview = preview_program(game, 0, [None] * 5)
    assert preview[0]["rebooted"] and preview[0]["pos"] is None
    assert all(p["certain"] for p in preview)
    compare(game, 0, [None] * 5)
    # (the classic stages run on snapshots: the player object is a new one after put)
    game.state.players[0].options = [card(game, "rear_firing_laser")]  # type: ignore[attr-defined]
    restage(game)
    assert not any(p["certain"] for p in preview_program(game, 0, [None] * 5))
    compare(game, 0, [None] * 5)


def test_a_glitch_install_of_the_one_permanent_upgrade_in_the_reserve_is_certain() -> None:
    """HW-INSTALL installs the reserve's only permanent upgrade (here Hover Unit) without a
    question; the Move 2 over the river-run pit at 6,9 then passes over it."""
    program = ("hw_install", "move2", "rotate_left", "u_turn", "move1")
    game = at_programming("y23-river-run")
    player = game.state.players[0]
    player.reserve = [card(game, "hover_unit"), card(game, "boink")]
    put(game, 0, (6, 10), "N", hand=list(program))
    preview = preview_program(game, 0, program)
    assert preview[1]["pos"] == [6, 8] and all(p["certain"] for p in preview)
    compare(game, 0, program)
    game.state.players[0].reserve.append(card(game, "brakes"))  # two permanents: a choice
    restage(game)
    preview = preview_program(game, 0, program)
    assert not any(p["certain"] for p in preview)
    assert preview[1]["rebooted"]  # the default installs the first by name: Brakes
    compare(game, 0, program)
