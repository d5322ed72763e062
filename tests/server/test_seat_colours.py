"""The seats' colours stay apart for the common colour-vision deficiencies, and their shapes
differ as well (the page's js/seats.js).

Each colour is seen as a person with protanopia, deuteranopia or tritanopia sees it (the
full-severity matrices of Machado, Oliveira and Fernandes, 2009, applied to linear RGB), and
every two seats must stay at least a minimum CIEDE2000 distance apart in CIELAB (D65).
"""

from __future__ import annotations

import itertools
import json
import math
import re
from pathlib import Path
from typing import Any

import pytest

SEATS_JS = Path(__file__).parents[2] / "src/roborally/server/static/js/seats.js"
SERVER_COLOUR_NAMES = ("Red", "Blue", "Green", "Yellow", "Purple", "Orange", "White", "Black")

#: Colour vision as a linear-RGB matrix (None: typical colour vision).
VISION: dict[str, list[list[float]] | None] = {
    "typical": None,
    "protanopia": [
        [0.152286, 1.052583, -0.204868],
        [0.114503, 0.786281, 0.099216],
        [-0.003882, -0.048116, 1.051998],
    ],
    "deuteranopia": [
        [0.367322, 0.860646, -0.227968],
        [0.280085, 0.672501, 0.047413],
        [-0.011820, 0.042940, 0.968881],
    ],
    "tritanopia": [
        [1.255528, -0.076749, -0.178779],
        [-0.078411, 0.930809, 0.147602],
        [0.004733, 0.691367, 0.303900],
    ],
}
#: The six colours of the 2023 edition's seats stay this far apart (CIEDE2000) in every vision;
#: the classic edition's White and Black (seats 7 and 8) at least MIN_ALL from every other.
MIN_SIX = 15.0
MIN_ALL = 10.0

Lab = tuple[float, float, float]


def seats() -> list[dict[str, Any]]:
    text = SEATS_JS.read_text(encoding="utf-8")
    found = re.search(r"/\* seats \*/(.*?)/\* end seats \*/", text, re.S)
    assert found, "js/seats.js: the list between /* seats */ and /* end seats */"
    data: list[dict[str, Any]] = json.loads(found.group(1))
    return data


def linear(channel: float) -> float:
    return channel / 12.92 if channel <= 0.04045 else ((channel + 0.055) / 1.055) ** 2.4


def rgb(colour: str) -> list[float]:
    assert re.fullmatch(r"#[0-9a-f]{6}", colour), colour
    return [int(colour[i : i + 2], 16) / 255 for i in (1, 3, 5)]


def lab_of_linear(rgb_linear: list[float]) -> Lab:
    r, g, b = rgb_linear
    x = (0.4124564 * r + 0.3575761 * g + 0.1804375 * b) / 0.95047
    y = 0.2126729 * r + 0.7151522 * g + 0.0721750 * b
    z = (0.0193339 * r + 0.1191920 * g + 0.9503041 * b) / 1.08883

    def f(t: float) -> float:
        return t ** (1 / 3) if t > 216 / 24389 else (24389 / 27 * t + 16) / 116

    return 116 * f(y) - 16, 500 * (f(x) - f(y)), 200 * (f(y) - f(z))


def seen(colour: str, vision: str) -> Lab:
    values = [linear(c) for c in rgb(colour)]
    matrix = VISION[vision]
    if matrix is not None:
        values = [
            min(1.0, max(0.0, sum(m * v for m, v in zip(row, values, strict=True))))
            for row in matrix
        ]
    return lab_of_linear(values)


def ciede2000(one: Lab, two: Lab) -> float:
    l1, a1, b1 = one
    l2, a2, b2 = two
    c_mean = (math.hypot(a1, b1) + math.hypot(a2, b2)) / 2
    g = 0.5 * (1 - math.sqrt(c_mean**7 / (c_mean**7 + 25**7)))
    a1, a2 = (1 + g) * a1, (1 + g) * a2
    c1, c2 = math.hypot(a1, b1), math.hypot(a2, b2)
    h1 = math.degrees(math.atan2(b1, a1)) % 360 if c1 else 0.0
    h2 = math.degrees(math.atan2(b2, a2)) % 360 if c2 else 0.0
    dh = 0.0
    if c1 * c2:
        dh = h2 - h1
        dh += -360 if dh > 180 else 360 if dh < -180 else 0
    d_hue = 2 * math.sqrt(c1 * c2) * math.sin(math.radians(dh / 2))
    l_mean, c_mean = (l1 + l2) / 2, (c1 + c2) / 2
    h_mean = h1 + h2
    if c1 * c2:
        turn = 0 if abs(h1 - h2) <= 180 else 360 if h1 + h2 < 360 else -360
        h_mean = (h1 + h2 + turn) / 2
    t = (
        1
        - 0.17 * math.cos(math.radians(h_mean - 30))
        + 0.24 * math.cos(math.radians(2 * h_mean))
        + 0.32 * math.cos(math.radians(3 * h_mean + 6))
        - 0.20 * math.cos(math.radians(4 * h_mean - 63))
    )
    rotation = 30 * math.exp(-(((h_mean - 275) / 25) ** 2))
    rc = 2 * math.sqrt(c_mean**7 / (c_mean**7 + 25**7))
    sl = 1 + 0.015 * (l_mean - 50) ** 2 / math.sqrt(20 + (l_mean - 50) ** 2)
    sc = 1 + 0.045 * c_mean
    sh = 1 + 0.015 * c_mean * t
    rt = -math.sin(math.radians(2 * rotation)) * rc
    dl, dc, dhh = (l2 - l1) / sl, (c2 - c1) / sc, d_hue / sh
    return math.sqrt(dl**2 + dc**2 + dhh**2 + rt * dc * dhh)


def test_ciede2000_matches_the_published_examples() -> None:
    # Sharma, Wu and Dalal's test data for CIEDE2000 (pairs 1, 7 and 17).
    assert ciede2000((50, 2.6772, -79.7751), (50, 0, -82.7485)) == pytest.approx(2.0425, abs=1e-4)
    assert ciede2000((50, 0, 0), (50, -1, 2)) == pytest.approx(2.3669, abs=1e-4)
    assert ciede2000((50, 2.5, 0), (73, 25, -18)) == pytest.approx(27.1492, abs=1e-4)


def test_there_is_a_colour_and_a_shape_for_every_seat_the_server_names() -> None:
    listed = seats()
    assert len(listed) == len(SERVER_COLOUR_NAMES)
    assert len({s["colour"] for s in listed}) == len(listed)
    assert len({s["shape"] for s in listed}) == len(listed)


@pytest.mark.parametrize("vision", list(VISION))
def test_seat_colours_stay_apart(vision: str) -> None:
    colours = [s["colour"] for s in seats()]
    labs = [seen(c, vision) for c in colours]
    for i, j in itertools.combinations(range(len(colours)), 2):
        distance = ciede2000(labs[i], labs[j])
        least = MIN_SIX if j < 6 else MIN_ALL
        names = f"{SERVER_COLOUR_NAMES[i]} and {SERVER_COLOUR_NAMES[j]}"
        assert distance >= least, f"{vision}: {names} are only {distance:.1f} apart"


def hue(colour: str) -> float:
    r, g, b = rgb(colour)
    high, low = max(r, g, b), min(r, g, b)
    if high == low:
        return -1.0
    if high == r:
        return (60 * (g - b) / (high - low)) % 360
    if high == g:
        return 60 * (b - r) / (high - low) + 120
    return 60 * (r - g) / (high - low) + 240


def test_the_colours_still_look_like_their_names() -> None:
    # The hue of each colour (0 red, 60 yellow, 120 green, 240 blue) in its name's range.
    wanted = {
        "Red": (345, 375),
        "Blue": (195, 235),
        "Green": (100, 170),
        "Yellow": (45, 65),
        "Purple": (260, 300),
        "Orange": (20, 40),
    }
    for seat, (name, (low, high)) in zip(seats(), wanted.items(), strict=False):
        h = hue(seat["colour"])
        h = h + 360 if h < low else h
        assert low <= h <= high, f"{name} has the hue {h:.0f}"
    light = [sum(rgb(s["colour"])) / 3 for s in seats()[6:]]
    assert light[0] > 0.85 and light[1] < 0.25, "White is light and Black is dark"


def contrast(one: str, two: str) -> float:
    def luminance(colour: str) -> float:
        r, g, b = (linear(c) for c in rgb(colour))
        return 0.2126 * r + 0.7152 * g + 0.0722 * b

    high, low = sorted((luminance(one), luminance(two)), reverse=True)
    return (high + 0.05) / (low + 0.05)


def test_seat_numbers_are_readable_on_their_colour() -> None:
    for name, seat in zip(SERVER_COLOUR_NAMES, seats(), strict=True):
        assert contrast(seat["colour"], seat["ink"]) >= 4.5, name


def outline(points: list[list[float]], steps: int = 240) -> list[tuple[float, float]]:
    """Points along a shape's outline (the circle's radius is the one js/seats.js draws)."""
    if not points:
        turns = (k * math.tau / steps for k in range(steps))
        return [(0.92 * math.cos(a), 0.92 * math.sin(a)) for a in turns]
    along: list[tuple[float, float]] = []
    per = max(1, steps // len(points))
    for (x1, y1), (x2, y2) in zip(points, points[1:] + points[:1], strict=True):
        along += [(x1 + (x2 - x1) * k / per, y1 + (y2 - y1) * k / per) for k in range(per)]
    return along


def hausdorff(one: list[tuple[float, float]], two: list[tuple[float, float]]) -> float:
    def farthest(a: list[tuple[float, float]], b: list[tuple[float, float]]) -> float:
        return max(min(math.dist(p, q) for q in b) for p in a)

    return max(farthest(one, two), farthest(two, one))


def test_the_shapes_differ() -> None:
    # Every outline has a part at least a fifth of the shape's radius away from every other
    # outline (the largest distance from a point of one to the nearest point of the other).
    outlines = [outline(s["points"]) for s in seats()]
    for (a, one), (b, two) in itertools.combinations(enumerate(outlines), 2):
        apart = hausdorff(one, two)
        assert apart >= 0.2, f"the shapes of seats {a + 1} and {b + 1} differ by {apart:.2f}"
