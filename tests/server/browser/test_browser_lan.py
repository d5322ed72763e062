"""The tabletop mode's shared screen on a server phones cannot reach, and on one they can.

``make play`` serves on 127.0.0.1 only, so the seats' QR codes hold 127.0.0.1 links, which a
phone opens as itself: the shared screen says so, and what to run instead, readable in both
themes (tabletop.py's ``X-Link-Reach``, js/table.js). ``make play-lan`` (``roborally serve
--host 0.0.0.0``) gives links on the machine's network address even to a screen opened at
127.0.0.1: the codes read back as such a link, a phone opens it, and nothing warns.
"""

from __future__ import annotations

import os
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest
from playwright.sync_api import Page, expect

from roborally.server.app import lan_address
from roborally.server.tabletop import is_loopback

from ..qrcodes import decode_png
from .conftest import DESKTOP, Contexts, ServerProcess, as_creator, free_port
from .test_browser_a11y import axe_script

TWO_PEOPLE = {"table": True, "seats": [{"kind": "human"}, {"kind": "human"}]}
WARNING = "[data-testid=table-link-warning]"


def code_drawn(page: Page, seat: int) -> None:
    """Wait until seat ``seat``'s QR code is on the shared screen (the server has answered)."""
    expect(page.get_by_test_id(f"table-qr-{seat}")).to_be_visible()
    page.wait_for_function(
        "(seat) => document.querySelector(`[data-testid=table-qr-${seat}]`).naturalWidth > 0",
        arg=seat,
    )


def contrast_problems(page: Page, selector: str) -> list[str]:
    """axe-core's colour-contrast violations inside ``selector`` (WCAG AA)."""
    page.evaluate(axe_script())
    found = page.evaluate(
        """(selector) => axe.run(selector, { runOnly: ["color-contrast"] })
            .then((r) => r.violations.flatMap((v) => v.nodes.map((n) => n.failureSummary)))""",
        selector,
    )
    return list(found)


@pytest.mark.parametrize("scheme", ["dark", "light"])
def test_a_loopback_server_shows_why_no_phone_can_open_the_codes(
    live_server: ServerProcess, contexts: Contexts, shots: Any, scheme: str
) -> None:
    """The test server listens on 127.0.0.1 only, like ``make play``."""
    page = contexts.custom(viewport=DESKTOP, device_scale_factor=1, color_scheme=scheme)
    open_table(page, live_server, "en")
    expect(page.locator("html")).to_have_attribute("data-theme", scheme)
    code_drawn(page, 0)

    warning = page.locator(WARNING)
    expect(warning).to_be_visible()
    expect(warning).to_have_attribute("data-reach", "loopback")
    expect(warning).to_contain_text("Phones cannot open these codes yet")
    expect(warning).to_contain_text("127.0.0.1")
    commands = warning.get_by_test_id("table-fix")
    expect(commands).to_have_text(
        ["make play-lan", f"roborally serve --host 0.0.0.0 --port {live_server.port}"]
    )
    # Read from across a table: on screen without scrolling, in large enough type, in colours
    # of enough contrast, above the codes it is about.
    box = warning.bounding_box()
    assert box is not None and box["y"] >= 0 and box["y"] + box["height"] <= DESKTOP["height"]
    size = warning.evaluate("(el) => parseFloat(getComputedStyle(el).fontSize)")
    assert size >= 16, size
    code = page.get_by_test_id("table-qr-0").bounding_box()
    assert code is not None and code["y"] > box["y"] + box["height"]
    assert contrast_problems(page, WARNING) == []
    shots(page, f"table-loopback-warning-{scheme}")

    # Started without phones: the codes stay, small, beside the board, and so does the warning,
    # in short (the title and the first command) to fit the narrow column.
    # No phone yet: the screen says the game will wait for the first player, and it does.
    expect(page.get_by_test_id("table-start-hint")).to_contain_text("No phone has joined yet")
    page.get_by_test_id("table-start").click()
    expect(page.locator("[data-testid=table-seats].small")).to_be_visible()
    expect(page.get_by_test_id("paused-banner")).to_be_visible()
    expect(warning).to_be_visible()
    expect(warning.get_by_test_id("table-fix")).to_have_text(["make play-lan"])
    assert contrast_problems(page, WARNING) == []
    shots(page, f"table-loopback-playing-{scheme}")


def open_table(page: Page, server: ServerProcess, lang: str) -> None:
    """A table game of two people, its shared screen open on ``page`` in ``lang``."""
    page.goto(f"{server.base}/?lang={lang}")
    game = server.create(**TWO_PEOPLE)
    as_creator(page, game)
    page.goto(f"{server.base}/?game={game['game_id']}&table=1&lang={lang}")


def test_the_loopback_warning_speaks_the_screen_language(
    live_server: ServerProcess, contexts: Contexts
) -> None:
    page = contexts.page()
    open_table(page, live_server, "uk")
    expect(page.locator(WARNING)).to_contain_text("Телефони поки не відкриють ці коди")
    expect(page.locator(WARNING)).to_contain_text("У теці проєкту:")


# ------------------------------------------------------------------ make play-lan
#: ``roborally serve`` on a machine without a network address: lan_address() finds none.
WITHOUT_LAN = """
import sys
import roborally.server.app as app
from roborally.cli import main
app.lan_address = lambda: None
sys.exit(main(sys.argv[1:]))
"""


class LanServer:
    """``roborally serve --host 0.0.0.0``, as ``make play-lan`` starts it (its own port and
    data folder), with what it printed; ``lan=False``: on a machine with no network address."""

    def __init__(self, data_dir: Path, lan: bool = True) -> None:
        self.port = free_port()
        self.out = data_dir / "serve.out"
        data_dir.mkdir(parents=True, exist_ok=True)
        command = [sys.executable, *(["-m", "roborally"] if lan else ["-c", WITHOUT_LAN])]
        command += ["serve", "--host", "0.0.0.0", "--port", str(self.port)]
        command += ["--data", str(data_dir / "games")]
        with self.out.open("wb") as out:
            env = {**os.environ, "PYTHONUNBUFFERED": "1"}
            self.proc = subprocess.Popen(command, stdout=out, stderr=subprocess.STDOUT, env=env)
        self.local = f"http://127.0.0.1:{self.port}"  # where the host opens the page
        self.wait_until_up()

    def wait_until_up(self) -> None:
        deadline = time.monotonic() + 30
        while time.monotonic() < deadline:
            if self.proc.poll() is not None:
                raise RuntimeError("the server stopped:\n" + self.out.read_text())
            try:
                if httpx.get(self.local + "/api/health", timeout=1).status_code == 200:
                    return
            except httpx.HTTPError:
                pass
            time.sleep(0.1)  # polling for the condition, not a fixed wait
        raise RuntimeError("the server did not start:\n" + self.out.read_text())

    def printed(self) -> str:
        return self.out.read_text()

    def stop(self) -> None:
        self.proc.terminate()
        try:
            self.proc.wait(timeout=15)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            self.proc.wait()


@pytest.fixture
def lan_server(tmp_path: Path) -> Iterator[LanServer]:
    if lan_address() is None:
        pytest.skip(
            "this machine has no network address besides the loopback (no network interface"
            " with a route): there is no address a phone could reach to test with"
        )
    server = LanServer(tmp_path / "lan")
    yield server
    server.stop()


def test_a_lan_server_gives_codes_a_phone_opens_and_no_warning(
    lan_server: LanServer, contexts: Contexts, shots: Any
) -> None:
    lan = lan_address()
    network = f"http://{lan}:{lan_server.port}"
    assert f"Players on your network open {network}/" in lan_server.printed()

    # The host opens the page at 127.0.0.1, as the README says, and creates a table game.
    table = contexts.page()
    table.goto(lan_server.local + "/?lang=en")
    table.fill("[data-testid=player-name]", "Ada")
    table.locator("[data-testid=seat-kind]").nth(0).select_option("human")
    table.get_by_test_id("table-mode").check()
    table.click("[data-testid=create-game]")
    table.wait_for_url("**/?game=*&table=1")
    assert table.url.startswith(lan_server.local)
    code_drawn(table, 0)

    # What a phone's camera reads: a link on the network address, not the loopback.
    [link] = decode_png(table.get_by_test_id("table-qr-0").screenshot())
    assert link.startswith(network + "/?game=") and not is_loopback(link), link
    expect(table.locator(WARNING)).to_be_hidden()
    expect(table.locator(WARNING)).to_have_attribute("data-reach", "network")
    shots(table, "table-lan-desktop")

    # A phone on the network opens it and takes the seat.
    phone = contexts.page(phone=True)
    phone.goto(link.replace("#", "&lang=en#"))
    expect(phone.get_by_test_id("ready")).to_be_visible()
    expect(table.get_by_test_id("table-seat-0")).to_have_attribute("data-joined", "true")


def test_a_lan_server_on_a_machine_without_a_network_address_says_so(
    tmp_path: Path, contexts: Contexts
) -> None:
    """No Wi-Fi, no cable: the server says so when it starts, its links stay on 127.0.0.1,
    and the shared screen gives the reason and ``--public-url`` rather than ``make play-lan``."""
    server = LanServer(tmp_path / "no-lan", lan=False)
    try:
        printed = server.printed()
        assert "This machine has no network address" in printed, printed
        assert "Players on your network" not in printed
        page = contexts.page()
        page.goto(server.local + "/?lang=en")
        response = httpx.post(server.local + "/api/games", json={"course": "tiny", **TWO_PEOPLE})
        game = response.json()
        assert game["seats"][0]["url"].startswith(server.local + "/?game=")
        as_creator(page, game)
        page.goto(f"{server.local}/?game={game['game_id']}&table=1&lang=en")
        warning = page.locator(WARNING)
        expect(warning).to_have_attribute("data-reach", "no-lan")
        expect(warning).to_contain_text("this computer has no network address right now")
        port = server.port
        expect(warning.get_by_test_id("table-fix")).to_have_text(
            [f"roborally serve --host 0.0.0.0 --port {port} --public-url http://ADDRESS:{port}"]
        )
    finally:
        server.stop()
