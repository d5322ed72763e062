"""Red team, issue 26 part 7: names that look alike, and the server's security headers.

* ``look-alike-names``: a second player takes a name that looks like the first one's (Cyrillic
  or Greek letters, fullwidth, case, spacing, a capital I for an l): refused as ``name_taken``
  when the game is created, on ``join`` and on a new name in ``hello``, the refusal naming the
  other player; names hiding invisible characters or towers of accents are refused as
  ``bad_name``; real names of other scripts (Ukrainian, Polish, Czech) side by side are taken.
* ``headers``: every kind of response (the page, its files, translations, rules pages, the API,
  its errors, a 304, a 405, a rate limit) carries the four security headers with their values:
  Content-Security-Policy (frame-ancestors 'none' among its rules), X-Frame-Options,
  X-Content-Type-Options and Referrer-Policy.

bench/redteam.py runs them (its ``ATTACKS`` takes this module's).
"""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable
from typing import Any

import httpx
from redteam_kit import HUMAN, Context, Outcome, address, create, hello_seat, http, ws_connect

BLOCK = 133  # this module's loopback source addresses (redteam_kit.address)

#: (the first player's name, a look-alike a second player tries)
LOOK_ALIKES = [
    ("Ada", "\u0410da"),  # Cyrillic capital A
    ("Ada", "Ad\u0430"),  # Cyrillic small a
    ("Ada", "\u0391DA"),  # Greek capital alpha, capitals
    ("Ada", "\uff21\uff44\uff41"),  # fullwidth
    ("Ada", "ADA"),
    ("Ada Lovelace", "Ada\u00a0 Lovelace"),  # a no-break space and a space
    ("Paul", "PauI"),  # a capital I for the l
    ("Olga", "\u041el\u0261a"),  # Cyrillic O, Latin script g
]
#: Names that hide something: refused outright, whoever else is in the game.
HIDING = [
    "Ada\u200b",  # zero-width space
    "A\u200dda",  # zero-width joiner
    "\u202eadA",  # right-to-left override
    "\u3164",  # Hangul filler, a letter that draws nothing
    "Ada" + "\u0301" * 6,  # a tower of accents
]
DISTINCT = ["Їжак", "Łukasz", "Štěpán", "Stepan"]


async def refused_create(base: str, index: int, first: str, second: str) -> dict[str, Any]:
    """The error of creating a game whose two seats are called ``first`` and ``second``."""
    seats = [{**HUMAN, "name": first}, {**HUMAN, "name": second}]
    async with http(base, address(BLOCK, index)) as client:
        response = await client.post("/api/games", json={"course": "tiny", "seats": seats})
    return error_of(response, 201)


async def refused_join(base: str, index: int, first: str, second: str) -> dict[str, Any]:
    """The error of joining ``first``'s open game as ``second``."""
    game = await create(base, address(BLOCK, index), seats=[{**HUMAN, "name": first}, HUMAN])
    async with http(base, address(BLOCK, index)) as client:
        response = await client.post(f"/api/games/{game['game_id']}/join", json={"name": second})
    return error_of(response, 200)


async def refused_rename(base: str, index: int, first: str, second: str) -> dict[str, Any]:
    """The error of seat 1's ``hello`` taking the name ``second`` next to ``first``."""
    seats = [{**HUMAN, "name": first}, {**HUMAN, "name": "Someone"}]
    game = await create(base, address(BLOCK, index), seats=seats)
    url = f"{base.replace('http', 'ws', 1)}/ws/{game['game_id']}"
    async with ws_connect(url, address(BLOCK, index)) as ws:
        reply: dict[str, Any] = await hello_seat(ws, game["seats"][1], name=second)
    return reply if reply["type"] == "error" else {}


def error_of(response: httpx.Response, success: int) -> dict[str, Any]:
    """The ``error`` object of a refusal; empty if the call succeeded."""
    if response.status_code == success:
        return {}
    error: dict[str, Any] = response.json().get("error", {})
    return error


async def attack_look_alike_names(ctx: Context) -> Outcome:
    base = ctx.server.base
    ways = {"create": refused_create, "join": refused_join, "hello": refused_rename}
    refused: dict[str, int] = {}
    named = 0  # refusals that tell the player whose name it looks like
    index = 0
    for way, attempt in ways.items():
        refused[way] = 0
        for first, second in LOOK_ALIKES:
            index += 1
            error = await attempt(base, index, first, second)
            refused[way] += error.get("code") == "name_taken"
            named += first in error.get("message", "")  # the name as the other player has it
    hiding = 0
    for name in HIDING:
        index += 1
        error = await refused_create(base, index, "Bob", name)
        hiding += error.get("code") == "bad_name"
    index += 1
    seats = [{**HUMAN, "name": name} for name in DISTINCT]
    game = await create(base, address(BLOCK, index), seats=seats)
    taken = [seat.get("name") for seat in game.get("seats", [])]
    total = len(LOOK_ALIKES) * len(ways)
    held = (
        sum(refused.values()) == total
        and named == total
        and hiding == len(HIDING)
        and taken == DISTINCT
    )
    ways_text = ", ".join(f"{way} {n}/{len(LOOK_ALIKES)}" for way, n in refused.items())
    return Outcome(
        "look-alike-names",
        held,
        f"{sum(refused.values())} of {total} look-alike names refused ({ways_text}), {named}"
        f" naming the other player; {hiding} of {len(HIDING)} hiding names (zero-width, bidi,"
        f" filler, accent tower) refused as bad_name; {len(DISTINCT)} distinct names"
        f" ({', '.join(DISTINCT)}) {'all taken' if taken == DISTINCT else f'NOT taken: {taken}'}",
    )


CSP = "content-security-policy"
EXPECTED = {
    CSP: "default-src 'self'; script-src 'self'; style-src 'self'",
    "x-content-type-options": "nosniff",
    "x-frame-options": "DENY",
    "referrer-policy": "no-referrer",
}
FRAGMENTS = ("frame-ancestors 'none'", "object-src 'none'", "base-uri 'none'", "connect-src")
PATHS = [
    "/",
    "/index.html",
    "/?game=abc",
    "/style.css",
    "/js/main.js",
    "/favicon.svg",
    "/i18n/uk.json",
    "/rules",
    "/rules/classic",
    "/rules/nope",
    "/nope.txt",
    "/api/options",
    "/api/health",
    "/api/games",
    "/api/games/nope",
    "/api/courses/tiny",
    "/api/web/cards?edition=2023",
    "/api/web/board.svg?course=tiny",
]


def carries_all(response: httpx.Response) -> bool:
    """The four headers, once each, with the server's values."""
    headers = response.headers
    if any(len(headers.get_list(name)) != 1 for name in EXPECTED):
        return False
    csp = headers[CSP]
    fixed = all(headers[name] == value for name, value in EXPECTED.items() if name != CSP)
    return (
        fixed and csp.startswith(EXPECTED[CSP]) and all(fragment in csp for fragment in FRAGMENTS)
    )


async def every_kind(client: httpx.AsyncClient) -> list[httpx.Response]:
    """One response of each kind the server gives, the rate limit aside."""
    responses = [await client.get(path) for path in PATHS]
    game = await client.post("/api/games", json={"course": "tiny", "seats": [HUMAN, HUMAN]})
    gid = game.json().get("game_id", "nope")
    etag = responses[3].headers.get("etag", "")
    responses += [
        game,
        await client.post("/api/games", content=b"{not json"),
        await client.post("/api/games", json={"course": "tiny", "seats": [{"kind": "alien"}]}),
        await client.delete("/api/options"),
        await client.head("/"),
        await client.get("/style.css", headers={"If-None-Match": etag}),
        await client.get(f"/api/games/{gid}"),
        await client.get(f"/api/games/{gid}/record"),
        await client.post(f"/api/games/{gid}/join", json={"name": "Ada\u200b"}),
    ]
    return responses


async def rate_limited(base: str) -> httpx.Response | None:
    """A 429: API calls at once from an address of its own until the bucket is empty."""
    async with http(base, address(BLOCK, 250)) as client:
        for _ in range(5):
            burst = await asyncio.gather(*(client.get("/api/health") for _ in range(60)))
            limited = [r for r in burst if r.status_code == 429]
            if limited:
                return limited[0]
    return None


async def attack_headers(ctx: Context) -> Outcome:
    async with http(ctx.server.base, address(BLOCK, 200)) as client:
        responses = await every_kind(client)
    limited = await rate_limited(ctx.server.base)
    if limited is not None:
        responses.append(limited)
    statuses = sorted({r.status_code for r in responses})
    bare = [f"{r.request.method} {r.request.url.path} {r.status_code}" for r in responses]
    bare = [line for line, r in zip(bare, responses, strict=True) if not carries_all(r)]
    return Outcome(
        "headers",
        not bare and limited is not None,
        f"{len(responses)} responses (statuses {', '.join(map(str, statuses))}: pages, files,"
        f" rules pages, API, its errors, a 304, a 405, a 429),"
        + (
            " all with the 4 headers (CSP with frame-ancestors 'none', X-Frame-Options DENY,"
            " nosniff, no-referrer)"
            if not bare
            else f" WITHOUT them: {'; '.join(bare)}"
        ),
    )


ATTACKS: dict[str, tuple[Callable[[Context], Awaitable[Outcome]], bool]] = {
    # name: (attack, in the quick sample)
    "look-alike-names": (attack_look_alike_names, True),
    "headers": (attack_headers, True),
}
