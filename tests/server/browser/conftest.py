"""Browser tests of the web page: a live server in a subprocess and Debian's Chromium.

Playwright's own browser download is not used: the tests drive ``/usr/bin/chromium`` (Debian's
``chromium`` package, which ``make test`` installs). Without it the tests are skipped.

Screenshots go to a temporary folder; with ``ROBORALLY_SCREENSHOTS=docs/screenshots`` the ones
the docs show (``DOC_SCREENSHOTS``) are written there instead, in 256 colours.
"""

from __future__ import annotations

import json
import os
import socket
import subprocess
import sys
import threading
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest

from roborally.server.client import seat_key

from . import csp

CHROMIUM = Path("/usr/bin/chromium")
CHROMIUM_ARGS = [
    "--no-sandbox",
    "--disable-gpu",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--no-first-run",
]
DESKTOP = {"width": 1280, "height": 800}
#: The screenshots docs/web-client.md shows (the tests take a few more, kept in a temp folder).
DOC_SCREENSHOTS = {
    "lobby-desktop",
    "waiting-room-desktop",
    "program-desktop",
    "activation-desktop",
    "result-desktop",
    "replay-desktop",
    "program-phone",
    "activation-phone",
    "auto-play-desktop",
    "space-info-desktop",
    "space-info-phone",
    "card-view-phone",
    "locked-in-desktop",
    "time-up-desktop",
    "preview-desktop",
    "tutorial-desktop",
    "tutorial-phone",
    "big-course-zoomed-phone",
    "table-join-desktop",
    "table-playing-desktop",
    "lobby-uk",
    "lobby-pl",
    "program-uk",
    "program-pl",
}
PHONE = {"width": 390, "height": 844}
#: The shortest deadline the test servers take (ServerOptions.min_seconds).
MIN_SECONDS = 2.0

try:
    from playwright.sync_api import (
        Browser,
        BrowserContext,
        Locator,
        Page,
        Playwright,
        expect,
        sync_playwright,
    )
    from playwright.sync_api import Error as PlaywrightError
except ImportError:  # pragma: no cover - the dev dependency is missing
    sync_playwright = None  # type: ignore[assignment]

if sync_playwright is None:
    SKIP_REASON: str | None = "playwright is not installed (uv sync installs the dev dependencies)"
elif not CHROMIUM.exists():
    SKIP_REASON = "Debian's Chromium is missing: apt-get install chromium (make test does it)"
else:
    SKIP_REASON = None


def pytest_configure(config: pytest.Config) -> None:
    config.addinivalue_line("markers", "browser: drives the web page in Chromium (slow)")


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    here = Path(__file__).parent
    for item in items:
        if Path(str(item.fspath)).parent == here:
            item.add_marker(pytest.mark.browser)
            if SKIP_REASON:
                item.add_marker(pytest.mark.skip(reason=SKIP_REASON))


# ----------------------------------------------------------------- the server
SERVER_CODE = """
import json, sys, uvicorn
from roborally.server.app import ServerOptions, create_app
from roborally.server import web_extras
port, data_dir, options = int(sys.argv[1]), sys.argv[2], json.loads(sys.argv[3])
app = create_app(data_dir, ServerOptions(**options))
web_extras.install(app)
uvicorn.run(app, host="127.0.0.1", port=port, log_level="warning", ws="websockets",
            ws_max_size=1 << 20)
"""


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port: int = sock.getsockname()[1]
        return port


class ServerProcess:
    """``roborally``'s app under uvicorn in a child process; ``restart`` keeps port and data."""

    def __init__(self, data_dir: Path, **options: Any) -> None:
        self.data_dir = data_dir
        self.options = {
            "grace_seconds": 30.0,
            "decision_seconds": 60.0,
            # Deadlines down to 2 s, so a test sees one pass (auto-play) without waiting long.
            "min_seconds": MIN_SECONDS,
            # A seat that is away is played a decision a second (5 s by default: a person's
            # pace; tests need not watch it).
            "away_seconds": 1.0,
            # Every test creates games from 127.0.0.1: no per-address limit in the way (a test
            # of the limits starts its own server with them).
            "games_per_minute": 10_000,
            "lobbies_per_address": 10_000,
            "bot_games_per_address": 10_000,
            "custom_uploads_per_minute": 10_000,
            "custom_courses_per_address": 10_000,
            **options,
        }
        self.port = free_port()
        self.proc: subprocess.Popen[bytes] | None = None
        self.log = data_dir / "server.log"

    @property
    def base(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    def start(self) -> None:
        self.data_dir.mkdir(parents=True, exist_ok=True)
        with self.log.open("ab") as log:
            self.proc = subprocess.Popen(
                [
                    sys.executable,
                    "-c",
                    SERVER_CODE,
                    str(self.port),
                    str(self.data_dir),
                    json.dumps(self.options),
                ],
                stdout=log,
                stderr=subprocess.STDOUT,
            )
        deadline = time.monotonic() + 20
        while time.monotonic() < deadline:
            if self.proc.poll() is not None:
                raise RuntimeError("the server stopped:\n" + self.log.read_text())
            try:
                if httpx.get(self.base + "/api/health", timeout=1).status_code == 200:
                    return
            except httpx.HTTPError:
                pass
            time.sleep(0.1)
        raise RuntimeError("the server did not start:\n" + self.log.read_text())

    def stop(self) -> None:
        if self.proc is not None and self.proc.poll() is None:
            self.proc.terminate()
            try:
                self.proc.wait(timeout=10)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait()
        self.proc = None

    def restart(self) -> None:
        self.stop()
        self.start()

    # A few API calls for setting up games without clicking.
    def create(self, **body: Any) -> dict[str, Any]:
        body.setdefault("course", "tiny")
        response = httpx.post(self.base + "/api/games", json=body, timeout=10)
        assert response.status_code == 201, response.text
        data: dict[str, Any] = response.json()
        return data

    def seat_url(self, game: dict[str, Any], seat: int, legacy: bool = False, **query: Any) -> str:
        """A seat's link as the server hands it out (the creator's seat: its token in the
        fragment; any other seat: its one-time invite), with ``query`` added; ``legacy``: an
        old link with ``?token=`` in the query (a token seat only)."""
        entry = game["seats"][seat]
        extra = "".join(f"&{k}={v}" for k, v in query.items())
        if "token" not in entry:
            return f"{self.base}/?game={game['game_id']}{extra}#invite={entry['invite']}"
        token = entry["token"]
        if legacy:
            return f"{self.base}/?game={game['game_id']}&token={token}{extra}"
        return f"{self.base}/?game={game['game_id']}{extra}#token={token}"


class SteadyPlayer:
    """Plays one seat over the WebSocket protocol in a thread, as a person who answers every
    question with its default after ``delay`` seconds (shorter than any deadline), so the game
    goes at that pace and the seat never goes to auto-play."""

    def __init__(self, server: ServerProcess, game: dict[str, Any], seat: int, delay: float):
        self.url = f"ws://127.0.0.1:{server.port}/ws/{game['game_id']}"
        self.key = seat_key(game["seats"][seat])  # its token, or its invite
        self.delay = delay
        self.stopping = threading.Event()
        self.errors: list[dict[str, Any]] = []
        self.thread = threading.Thread(target=self._run, daemon=True)

    def __enter__(self) -> SteadyPlayer:
        self.thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self.stopping.set()
        self.thread.join(timeout=10)

    def _run(self) -> None:
        from websockets.sync.client import connect

        answered: set[str] = set()
        with connect(self.url) as ws:
            ws.send(json.dumps({"type": "hello", "v": 1, **self.key}))
            while not self.stopping.is_set():
                try:
                    msg = json.loads(ws.recv(timeout=0.2))
                except TimeoutError:
                    continue
                if msg["type"] == "game_over":
                    return
                if msg["type"] == "error":
                    self.errors.append(msg)
                if msg["type"] != "state":
                    continue
                if msg["status"] == "open" and not any(
                    s["ready"] for s in msg["seats"] if s["seat"] == msg["seat"]
                ):
                    ws.send(json.dumps({"type": "ready", "v": 1}))
                for decision in msg["pending"]:
                    if decision["id"] in answered:
                        continue
                    answered.add(decision["id"])
                    if self.stopping.wait(self.delay):
                        return
                    choice = {"type": "decide", "v": 1, "decision_id": decision["id"]}
                    ws.send(json.dumps(choice | {"choice": "timeout"}))


@pytest.fixture(scope="session")
def live_server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[ServerProcess]:
    server = ServerProcess(tmp_path_factory.mktemp("rr-web-data"))
    server.start()
    yield server
    server.stop()


# ---------------------------------------------------------------- the browser
@pytest.fixture(scope="session")
def playwright_instance() -> Iterator[Playwright]:
    with sync_playwright() as p:
        yield p


@pytest.fixture(scope="session")
def chromium(playwright_instance: Playwright) -> Iterator[Browser]:
    browser = playwright_instance.chromium.launch(executable_path=str(CHROMIUM), args=CHROMIUM_ARGS)
    yield browser
    browser.close()


class Contexts:
    """Browser contexts (separate storage, like separate people) closed after the test."""

    def __init__(self, browser: Browser) -> None:
        self.browser = browser
        self.opened: list[BrowserContext] = []

    def new(self, phone: bool = False) -> BrowserContext:
        # An English-speaking browser (en-US): the page picks its language from it.
        if phone:
            context = self.browser.new_context(
                viewport=PHONE,
                device_scale_factor=1,
                is_mobile=True,
                has_touch=True,
                locale="en-US",
            )
        else:
            context = self.browser.new_context(
                viewport=DESKTOP, device_scale_factor=1, locale="en-US"
            )
        context.set_default_timeout(15_000)
        self.opened.append(context)
        return context

    def page(self, phone: bool = False) -> Page:
        return self.watched(self.new(phone).new_page())

    def custom(self, **options: Any) -> Page:
        """A page in a context of its own with Playwright's context ``options`` (a colour
        scheme, reduced motion, a phone of another size...); English unless told."""
        options.setdefault("locale", "en-US")
        context = self.browser.new_context(**options)
        context.set_default_timeout(15_000)
        self.opened.append(context)
        return self.watched(context.new_page())

    @staticmethod
    def watched(page: Page) -> Page:
        """``page``, its script errors collected in ``page.js_errors`` and its breaches of the
        Content-Security-Policy in ``page.csp_violations`` (csp.py)."""
        errors: list[str] = []
        page.on("pageerror", lambda error: errors.append(str(error)))
        page.js_errors = errors  # type: ignore[attr-defined]
        return csp.watch(page)

    def close(self) -> None:
        for context in self.opened:
            context.close()


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_makereport(item: pytest.Item, call: pytest.CallInfo[None]) -> Iterator[None]:
    outcome = yield
    report = outcome.get_result()  # type: ignore[attr-defined]
    if report.when == "call":
        item.rr_failed = report.failed  # type: ignore[attr-defined]


@pytest.fixture
def contexts(
    chromium: Browser, request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory
) -> Iterator[Contexts]:
    c = Contexts(chromium)
    yield c
    if getattr(request.node, "rr_failed", False):
        # Pictures of every page at the moment of the failure, named in the report.
        folder = tmp_path_factory.mktemp("failure")
        for n, context in enumerate(c.opened):
            for m, page in enumerate(context.pages):
                path = folder / f"{request.node.name}-{n}-{m}.png"
                try:
                    page.screenshot(path=str(path))
                    print(f"screenshot of {page.url}: {path}")
                except Exception as error:  # the page may be gone
                    print(f"no screenshot of page {n}-{m}: {error}")
    for context in c.opened:
        for page in context.pages:
            errors = getattr(page, "js_errors", [])
            assert not errors, f"JavaScript errors on {page.url}: {errors}"
            refused = getattr(page, "csp_violations", [])
            assert not refused, f"Content-Security-Policy violations on {page.url}: {refused}"
    c.close()


@pytest.fixture(scope="session")
def shots(tmp_path_factory: pytest.TempPathFactory) -> Callable[[Page, str], Path]:
    """shots(page, name): save a screenshot (see the module docstring for where)."""
    folder = os.environ.get("ROBORALLY_SCREENSHOTS")
    scratch = tmp_path_factory.mktemp("screenshots")

    def take(page: Page, name: str) -> Path:
        keep = folder is not None and name in DOC_SCREENSHOTS
        path = (Path(folder) if keep else scratch) / f"{name}.png"  # type: ignore[arg-type]
        path.parent.mkdir(parents=True, exist_ok=True)
        page.screenshot(path=str(path), animations="disabled")
        if keep:
            _shrink(path)
        return path

    return take


def _shrink(path: Path) -> None:
    """Pictures kept in the docs: 256 colours (a third of the size, no visible change)."""
    try:
        from PIL import Image
    except ImportError:
        return
    with Image.open(path) as image:
        small = image.convert("RGB").quantize(
            colors=256, method=Image.Quantize.MEDIANCUT, dither=Image.Dither.NONE
        )
    small.save(path, optimize=True)


# ------------------------------------------------------------- page helpers
def capture_ws(page: Page) -> list[dict[str, Any]]:
    """Every JSON message the page receives on its WebSockets, in order."""
    frames: list[dict[str, Any]] = []

    def on_socket(ws: Any) -> None:
        def on_frame(payload: str | bytes) -> None:
            if isinstance(payload, str):
                frames.append(json.loads(payload))

        ws.on("framereceived", on_frame)

    page.on("websocket", on_socket)
    return frames


def program_first_cards(page: Page, count: int = 5) -> list[str]:
    """Tap the first hand card ``count`` times; returns the card names put in the registers."""
    chosen: list[str] = []
    for _ in range(count):
        card = page.locator("[data-testid=hand-card]").first
        if not card.count():
            break
        chosen.append(card.get_attribute("data-card") or "")
        card.click()
    return chosen


def choice_button(page: Page) -> Locator:
    """The button a player would press for the question on screen: before or after a register
    card, an upgrade that may be used then (e.g. "Use Recharge"); else the first option (in
    the upgrade phase: buy the first upgrade offered, or be done)."""
    use = page.locator(
        ":is([data-window=pre], [data-window=post])"
        " [data-testid=choice][data-value^='\"use ']:enabled"
    )
    if use.count():
        return use.first
    return page.locator("[data-testid=decision] [data-testid=choice]:enabled").first


def act(page: Page) -> str | None:
    """Answer whatever the page asks now (a program, or a question the way ``choice_button``
    does); returns the kind.

    The page may change under the clicks (a new state arrives): then nothing is answered and
    the caller simply tries again.
    """
    try:
        program = page.locator("[data-testid=program]")
        if program.count() and program.is_visible():
            submit = page.locator("[data-testid=submit-program]")
            while submit.is_disabled(timeout=1000):
                card = page.locator("[data-testid=hand-card]").first
                if not card.count():
                    return None
                card.click(timeout=2000)
            submit.click(timeout=2000)
            return "program"
        decision = page.locator("[data-testid=decision]")
        if decision.count() and decision.is_visible():
            kind = decision.get_attribute("data-kind", timeout=1000)
            button = choice_button(page)
            if button.count():
                button.click(timeout=2000)
                return kind
    except PlaywrightError:
        return None
    return None


def until_program(*pages: Page, timeout: float = 30.0) -> list[str]:
    """Answer other decisions (upgrade phase, shutdown, ...) as ``choice_button`` does until
    every page asks for a program; returns the kinds answered."""
    answered: list[str] = []
    deadline = time.monotonic() + timeout
    while not all(visible(page, "[data-testid=program]") for page in pages):
        if time.monotonic() > deadline:
            raise AssertionError(f"no program asked for after {timeout}s; answered {answered}")
        for page in pages:
            decision = page.locator("[data-testid=decision]")
            try:
                button = choice_button(page)
                if decision.count() and button.count():
                    kind = decision.get_attribute("data-kind", timeout=1000) or "?"
                    button.click(timeout=2000)
                    answered.append(kind)
            except PlaywrightError:
                pass  # the page changed under the click: look again
        pages[0].wait_for_timeout(60)
    return answered


def play_until(page: Page, done: Callable[[], bool], timeout: float = 60.0) -> list[str]:
    """Keep answering decisions until ``done()``; returns the kinds answered."""
    answered: list[str] = []
    deadline = time.monotonic() + timeout
    while not done():
        if time.monotonic() > deadline:
            raise AssertionError(f"not done after {timeout}s; answered {answered}")
        kind = act(page)
        if kind:
            answered.append(kind)
            page.wait_for_timeout(50)
        else:
            page.wait_for_timeout(60)
    return answered


def until_register_plays(page: Page, timeout: float = 20.0) -> list[str]:
    """After a program is locked in: answer the questions of the activation (an upgrade to
    use before or after a register card) until a register's cards are on the board and no
    such question is waiting behind the animation; returns the kinds answered."""

    def playing() -> bool:
        return bool(
            page.evaluate(
                """() => {
                    const game = window.rrGame, latest = game && game.latest;
                    const cards = "#app.animating [data-testid=register-strip] .reg-card";
                    const inWindow = (d) => ["pre", "post"].includes((d.info || {}).window);
                    return !!latest && !latest.pending.some(inWindow)
                        && document.querySelector(cards) !== null
                        && document.querySelector("[data-testid=decision]") === null;
                }"""
            )
        )

    return play_until(page, playing, timeout)


def preview_drawn(page: Page) -> None:
    """Wait until the path preview of the program now in the editor is drawn."""
    page.wait_for_function(
        "() => { const p = window.rrGame && window.rrGame.preview;"
        " return !!p && !!p.registers && !p.waiting; }",
        timeout=10_000,
    )


def start_game(page: Page) -> None:
    """Start a game of one person from its waiting room (if it shows one) and wait for the first
    question (the start space)."""
    start = page.locator("[data-testid=start-game]")
    decision = page.locator("[data-testid=decision]")
    expect(start.or_(decision).first).to_be_visible()
    if start.count():
        start.click()
    expect(decision).to_be_visible()


def as_creator(page: Page, game: dict[str, Any]) -> None:
    """Make ``page``'s browser the creator of ``game`` (a create response), as the lobby does:
    it keeps the response, with every seat's link (the invite links, the tabletop codes)."""
    page.evaluate("(c) => localStorage.setItem('rr.created.' + c.game_id, JSON.stringify(c))", game)


def visible(page: Page, selector: str) -> bool:
    loc = page.locator(selector)
    return bool(loc.count()) and loc.first.is_visible()


@pytest.fixture
def ui() -> Any:
    """The page helpers, for the test modules."""

    class Ui:
        capture_ws = staticmethod(capture_ws)
        program_first_cards = staticmethod(program_first_cards)
        act = staticmethod(act)
        choice_button = staticmethod(choice_button)
        play_until = staticmethod(play_until)
        until_program = staticmethod(until_program)
        until_register_plays = staticmethod(until_register_plays)
        visible = staticmethod(visible)
        preview_drawn = staticmethod(preview_drawn)

    return Ui
