"""Hostile uploads: 10,000 requests to ``POST /api/custom-courses`` through the server's real
ASGI app (its middleware, its handler, its check and its store): mutated course files that
draw their boards (small ones and shipped courses with every board drawn), noise, TOML of the
wrong shapes (huge numbers, deep nesting, wrong types) and bodies that are not what the API
takes. Every answer is 201, 400 or 413 with an error that says what is wrong, never a 500 or
a crash; afterwards every course the store kept reads, is canonical and breaks no rule.

The inputs are the same on every run (``derandomize``); the whole file takes about 30 s."""

from __future__ import annotations

import asyncio
import dataclasses
import json
import random
import tempfile
import threading
from collections.abc import Coroutine, Iterator
from pathlib import Path
from typing import Any, TypeVar

import httpx
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from roborally.bots.random_bot import RandomBot
from roborally.bots.runner import run_bots
from roborally.content.cards import damage_deck
from roborally.content.courses import (
    canonical_course_text,
    find_course,
    is_custom_id,
    parse_course,
    write_course,
)
from roborally.content.validate import check_course
from roborally.engine.core.state import GameConfig
from roborally.engine.game import Game
from roborally.server.app import create_app
from roborally.server.settings import ServerOptions
from roborally.server.store import Store
from test_format_fuzz import ALPHABET, DRAWN, mutated

HERE = Path(__file__).parent
T = TypeVar("T")
GAMES = 40  # kept courses played on at the end
COUSIN = (HERE / "custom-courses" / "cousin.course").read_text(encoding="utf-8")


def _all_drawn(course_id: str) -> str:
    """A shipped course as one file with every board drawn in it (renamed, so not shipped)."""
    info = find_course(course_id)
    boards = tuple(
        dataclasses.replace(p, board=dataclasses.replace(p.board, name=p.board.name + "-x"))
        for p in info.course.boards
    )
    return write_course(
        dataclasses.replace(info, course=dataclasses.replace(info.course, boards=boards))
    )


SMALL = [COUSIN, DRAWN]
SHIPPED_DRAWN = [_all_drawn(c) for c in ("tiny", "y23-morning-warm-up", "cl-first-shift")]
KEYS = ["id", "title", "edition", "tier", "length", "players", "checkpoints", "blocked_starts"]
KEYS += ["reboot_damage", "inactive", "follows", "notes", "board", "reboot", "x", "drawing"]
BOARD_KEYS = ["name", "offset", "rotation", "drawing", "at", "arrow", "size"]


def fuzz(examples: int) -> Any:
    return settings(
        max_examples=examples,
        deadline=None,
        derandomize=True,
        database=None,
        suppress_health_check=list(HealthCheck),
    )


# ------------------------------------------------------------------------------ the server
class Poster:
    """The real app on one event loop of its own, in a thread of its own (a test before this
    one in the same process, a browser test's Playwright, may hold this thread's running loop);
    ``post`` sends one upload."""

    def __init__(self, data_dir: Path) -> None:
        options = ServerOptions(
            engine_workers=0,
            requests_per_second=1e9,
            request_burst=10**9,
            custom_uploads_per_minute=10**9,
            custom_courses_per_address=10**6,
            custom_courses_total=10**6,
            custom_course_bytes=64 * 1024,  # the same checks, smaller numbers
        )
        self.app = create_app(data_dir, options)
        self.server = self.app.state.server
        self.loop = asyncio.new_event_loop()
        self.thread = threading.Thread(target=self.loop.run_forever, daemon=True)
        self.thread.start()
        self.run(self.server.startup())
        transport = httpx.ASGITransport(app=self.app)
        self.client = httpx.AsyncClient(transport=transport, base_url="http://fuzz")
        self.count = 0
        self.statuses: dict[int, int] = {}

    def run(self, work: Coroutine[Any, Any, T]) -> T:
        """Run ``work`` on the app's loop and wait for its result."""
        return asyncio.run_coroutine_threadsafe(work, self.loop).result(timeout=120)

    def post(self, **kwargs: Any) -> httpx.Response:
        response = self.run(self.client.post("/api/custom-courses", **kwargs))
        self.count += 1
        self.statuses[response.status_code] = self.statuses.get(response.status_code, 0) + 1
        assert response.status_code in (201, 400, 413), response.text
        data = response.json()
        if response.status_code == 201:
            assert is_custom_id(data["id"]) and data["owner_token"]
        else:
            error = data["error"]
            assert error["code"] in (
                "format",
                "invalid_course",
                "too_large",
                "bad_request",
                "bad_json",
                "bad_name",
            ), error
            assert isinstance(error["message"], str) and error["message"]
            if error["code"] == "format":
                assert error["line"] >= 1 and error["column"] >= 1
        return response

    def upload(self, text: Any, author: Any = "Fuzz", listed: Any = True) -> httpx.Response:
        return self.post(json={"text": text, "author": author, "listed": listed})

    def close(self) -> None:
        self.run(self.client.aclose())
        self.run(self.server.shutdown())
        self.loop.call_soon_threadsafe(self.loop.stop)
        self.thread.join(timeout=30)
        self.loop.close()


@pytest.fixture(scope="module")
def poster() -> Iterator[Poster]:
    with tempfile.TemporaryDirectory(prefix="roborally-fuzz-") as folder:
        made = Poster(Path(folder))
        try:
            yield made
        finally:
            made.close()


# ------------------------------------------------------------------------------ the inputs
def _toml_value(value: Any) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, float):
        return {"nan": "nan", "inf": "inf", "-inf": "-inf"}.get(str(value), repr(value))
    if isinstance(value, int):
        return str(value)
    if isinstance(value, str):
        return json.dumps(value)
    if isinstance(value, list):
        return "[" + ", ".join(_toml_value(v) for v in value) + "]"
    return "{" + ", ".join(f"{k} = {_toml_value(v)}" for k, v in value.items()) + "}"


SCALARS: list[Any] = [0, 1, 2, 7, 99, 100, 10**9, -1, -(2**63), 2**63 - 1, 0.5, -0.0, 1e308]
SCALARS += [float("nan"), float("inf"), True, False, "", "2023", "classic", "any", "tiny"]
SCALARS += ["training-bay", "N", "E", "c-aaaaaaaa", "x" * 300, "\u0416\u200b", 'a\\b"c']


def _value(rng: random.Random, depth: int = 0) -> Any:
    """A TOML value of any shape: scalars, arrays and inline tables, nested a few deep."""
    roll = rng.random()
    if depth < 4 and roll < 0.25:
        return [_value(rng, depth + 1) for _ in range(rng.randrange(4))]
    if depth < 4 and roll < 0.35:
        keys = rng.sample(BOARD_KEYS, rng.randrange(3))
        return {key: _value(rng, depth + 1) for key in keys}
    if roll < 0.5:
        return rng.randrange(-(2**63), 2**63)
    return rng.choice(SCALARS)


def shaped(seed: int) -> str:
    """A TOML document of the course's keys (some unknown) holding values of any shape."""
    rng = random.Random(seed)
    lines = [f"{key} = {_toml_value(_value(rng))}" for key in rng.sample(KEYS, rng.randrange(9))]
    for table in rng.choices(["board", "reboot"], k=rng.randrange(4)):
        lines.append(f"[[{table}]]")
        for key in rng.sample(BOARD_KEYS, rng.randrange(5)):
            lines.append(f"{key} = {_toml_value(_value(rng))}")
    return "\n".join(lines) + "\n"


DEEP = [
    "id = " + "[" * 100_000 + "]" * 100_000,
    'id = "x"\ntitle = "t"\ncheckpoints = ' + "[" * 3000 + "]" * 3000,
    "a = " + "{b = " * 2000 + "1" + "}" * 2000,
    'id = "a"\ntitle = "a"\nplayers = [2, 99999999999999999999]\n[[board]]\nname = "tiny"',
    'id = "a"\ntitle = "a"\n[[board]]\nname = "training-bay"\noffset = [99, 99]',
    'id = "a"\ntitle = "a"\n[[board]]\ndrawing = """\nboard: b\nsize: 100x100\n"""',
    'id = "a"\ntitle = "a"\n[[board]]\ndrawing = """\nboard: b\nsize: 1000002x12\n"""',
    "\ufeff" + COUSIN,
    COUSIN.replace("\n", "\r\n"),
    COUSIN + "\x00",
    COUSIN * 3,
]


# ------------------------------------------------------------------------------ the tests
@fuzz(3_000)
@given(mutated(SMALL))
def test_mutated_small_courses(poster: Poster, text: str) -> None:
    poster.upload(text)


@fuzz(600)
@given(mutated(SHIPPED_DRAWN))
def test_mutated_shipped_courses_with_their_boards_drawn(poster: Poster, text: str) -> None:
    poster.upload(text)


@fuzz(2_000)
@given(st.integers(0, 2**32))
def test_noise(poster: Poster, seed: int) -> None:
    rng = random.Random(seed)
    if rng.random() < 0.8:  # the formats' own characters
        text = "".join(rng.choices(ALPHABET, k=rng.randrange(1, 600)))
    else:  # anything Unicode has (no lone surrogates: JSON cannot carry them to the server)
        text = "".join(
            chr(rng.choice((rng.randrange(0xD800), rng.randrange(0xE000, 0x110000))))
            for _ in range(rng.randrange(1, 200))
        )
    poster.upload(text if text.strip() else text + "x")


@fuzz(2_000 - len(DEEP))
@given(st.integers(0, 2**32))
def test_toml_of_every_shape(poster: Poster, seed: int) -> None:
    poster.upload(shaped(seed))


def test_deep_and_huge_files(poster: Poster) -> None:
    for text in DEEP:
        poster.upload(text)


RAW_BODIES = [
    b"[" * 50_000,
    b"1e999999",
    b'{"text": "' + b"\\ud800" * 3 + b'"}',
    b"[]",
    b"null",
    b'{"text": ' + b"9" * 5000 + b"}",
    b"\xff\xfe",
    b"",
]


def _body_value(rng: random.Random) -> Any:
    return rng.choice(
        [
            None,
            True,
            rng.randrange(-(2**70), 2**70),
            rng.choice([0.5, float("nan"), float("inf")]),
            "".join(rng.choices(ALPHABET, k=rng.randrange(30))),
            [1, [2]],
            {"a": 1},
            rng.choice(SMALL),
            "Ada",
        ]
    )


def body_of(seed: int) -> bytes:
    """A request body: a JSON object whose fields have any type (NaN and Infinity too), raw
    bytes, or one of :data:`RAW_BODIES`."""
    rng = random.Random(seed)
    roll = rng.random()
    if roll < 0.7:
        keys = ["text", "author", "listed"] + (["extra"] if rng.random() < 0.2 else [])
        fields = {key: _body_value(rng) for key in keys if rng.random() < 0.9}
        return json.dumps(fields).encode()
    if roll < 0.95:
        return rng.randbytes(rng.randrange(200))
    return rng.choice(RAW_BODIES)


@fuzz(2_400)
@given(st.integers(0, 2**32))
def test_bodies_of_every_shape(poster: Poster, seed: int) -> None:
    poster.post(content=body_of(seed))


def test_the_store_kept_only_good_courses(poster: Poster) -> None:
    """Runs last: 10,000 requests were answered, and every kept course is a good one."""
    assert poster.count == 10_000, poster.statuses
    assert poster.statuses.get(201, 0) > 100 and poster.statuses.get(400, 0) > 5_000
    store: Store = poster.server.store.sync
    rows = store.db.execute("SELECT id, text, summary FROM custom_courses").fetchall()
    assert len(rows) == poster.statuses[201]
    for course_id, text, summary in rows:
        info = parse_course(text, f"{course_id}.course")
        assert info.id == course_id and is_custom_id(course_id)
        assert canonical_course_text(text) == text
        assert json.loads(summary)["title"] == info.title
    # The full rule check of every kept course (once per course: many differ in comments).
    checked: set[str] = set()
    for course_id, text, _ in rows:
        info = parse_course(text, f"{course_id}.course")
        bare = write_course(dataclasses.replace(info, id="c-aaaaaaaa"))
        if bare not in checked:
            checked.add(bare)
            report = check_course(info)
            assert not report.errors, (course_id, report.errors)
    # Games on them: a kept course never crashes the engine (a few rounds of random bots on
    # each, in every edition it is for, with as many robots as it takes).
    played = 0
    for bare in sorted(checked)[:GAMES]:
        info = parse_course(bare, "kept.course")
        for edition_id in ("2023", "classic"):
            if info.edition not in ("any", edition_id):
                continue
            seats = max(2, info.players[1])
            config = GameConfig(
                info.course,
                tuple(f"P{n}" for n in range(seats)),
                seed=played,
                edition=edition_id,
                max_rounds=2,
                damage_deck=damage_deck(),
            )
            game = Game(config)
            run_bots(game, [RandomBot(n) for n in range(seats)])
            assert game.is_over()
            played += 1
    assert played >= min(GAMES, len(checked)), played
