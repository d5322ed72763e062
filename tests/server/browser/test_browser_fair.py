"""Fair shuffles in the page: the seed's commitment before the game, a warning when the host
chose the seed, and the revealed seed checked in the browser at the end (and in the replay)
against the commitment the page was shown while the game ran."""

from __future__ import annotations

import hashlib
import json
import re
from typing import Any

from playwright.sync_api import WebSocketRoute, expect

from .conftest import Contexts, ServerProcess


def commitment_of(seed: int) -> str:
    """The commitment the server publishes: SHA-256 of the seed's 32 big-endian bytes."""
    return hashlib.sha256(seed.to_bytes(32, "big")).hexdigest()


def test_the_commitment_is_shown_and_the_seed_checked_at_the_end(
    live_server: ServerProcess, contexts: Contexts, shots: Any, ui: Any
) -> None:
    game = live_server.create(
        seats=[{"kind": "human", "name": "Ada"}, {"kind": "bot"}], max_rounds=1
    )
    commitment = game["seed_commitment"]
    assert re.fullmatch("[0-9a-f]{64}", commitment) and game["seed"] is None
    page = contexts.page()
    frames = ui.capture_ws(page)
    page.goto(live_server.seat_url(game, 0, speed=0))
    # The waiting room: the commitment, shortened (the whole value on a tap), in plain words.
    info = page.locator("[data-testid=tray] [data-testid=fairness-info]")
    expect(info).to_contain_text("fixed before the game starts")
    shown = info.locator("[data-testid=seed-commitment]")
    expect(shown).to_have_attribute("data-value", commitment)
    expect(shown).to_have_text(commitment[:8] + "…" + commitment[-6:])
    shown.click()
    expect(shown).to_have_text(commitment)
    expect(page.locator("[data-testid=seed-warning]")).to_have_count(0)  # the server's own seed
    welcome = next(f for f in frames if f["type"] == "welcome")
    assert welcome["settings"]["seed"] is None
    assert welcome["settings"]["seed_commitment"] == commitment
    # "About this game" holds it too.
    page.click("[data-testid=game-info] summary")
    expect(page.locator("[data-testid=game-info] [data-testid=seed-commitment]")).to_have_attribute(
        "data-value", commitment
    )
    shots(page, "fair-waiting-room-desktop")

    page.click("[data-testid=start-game]")
    ui.play_until(page, lambda: ui.visible(page, "[data-testid=result]"), timeout=60)
    # At the end the seed is revealed and checked here against the commitment.
    over = next(f for f in frames if f["type"] == "game_over")
    seed = over["seed"]
    assert re.fullmatch("0x[0-9a-f]{64}", seed) and over["seed_commitment"] == commitment
    assert commitment_of(int(seed, 16)) == commitment
    fair = page.locator("[data-testid=result] [data-testid=fairness]")
    expect(fair).to_have_attribute("data-verified", "true")
    expect(fair.locator("[data-testid=revealed-seed]")).to_have_attribute("data-value", seed)
    expect(fair).to_contain_text("matches the commitment shown before the game")
    expect(fair).to_contain_text(f"roborally verify roborally-{game['game_id']}.rec")
    shots(page, "fair-result-desktop")

    # The replay viewer shows the same check.
    page.click("[data-testid=replay-link]")
    replay_fair = page.locator("[data-testid=replay] [data-testid=fairness]")
    expect(replay_fair).to_have_attribute("data-verified", "true")
    expect(replay_fair.locator("[data-testid=revealed-seed]")).to_have_attribute("data-value", seed)


def test_a_seed_that_does_not_match_is_shown_as_a_warning(
    live_server: ServerProcess, contexts: Contexts
) -> None:
    """The check itself: a wrong commitment gives a clear warning, and the page's own SHA-256
    (for plain-http pages, where browsers have no crypto.subtle) agrees with Python's."""
    page = contexts.page()
    page.goto(live_server.base + "/")
    seed = 12345
    good = commitment_of(seed)
    bad = commitment_of(seed + 1)
    verdicts = page.evaluate(
        """async ([seed, good, bad]) => {
            // The page loads its texts as it starts, maybe after these boxes are drawn:
            // load them first (into the same module the page uses), or keys would show.
            await (await import("/js/i18n.js")).loadLanguage("en");
            const fair = await import("/js/fair.js");
            const boxes = [good, bad].map((commitment) => fair.revealBox({seed, commitment}));
            boxes.forEach((box, i) => { box.id = "check-" + i; document.body.append(box); });
            return [await fair.seedMatches(seed, good), await fair.seedMatches(seed, bad)];
        }""",
        [hex(seed), good, bad],
    )
    assert verdicts == [True, False]
    expect(page.locator("#check-0")).to_have_attribute("data-verified", "true")
    wrong = page.locator("#check-1")
    expect(wrong).to_have_attribute("data-verified", "false")
    expect(wrong).to_contain_text("does not match the commitment")
    expect(wrong).to_contain_text("cannot be trusted")
    samples = [b"", b"abc", bytes(range(55)), bytes(range(56)), bytes(range(64)), bytes(200)]
    digests = page.evaluate(
        """async (samples) => {
            const fair = await import("/js/fair.js");
            return samples.map((s) => fair.sha256Js(new Uint8Array(s)));
        }""",
        [list(s) for s in samples],
    )
    assert digests == [hashlib.sha256(s).hexdigest() for s in samples]


def test_every_player_is_warned_when_the_host_chose_the_seed(
    live_server: ServerProcess, contexts: Contexts, shots: Any
) -> None:
    game = live_server.create(
        seats=[{"kind": "human", "name": "Ada"}, {"kind": "human"}, {"kind": "bot"}], seed=12345
    )
    assert game["seed_commitment"] == commitment_of(12345)
    host = contexts.page()
    host.goto(live_server.seat_url(game, 0, speed=0))
    expect(host.locator("[data-testid=phase]")).to_have_text("Waiting room")
    # The lobby says so before anyone joins.
    guest = contexts.page()
    guest.goto(live_server.base + "/")
    row = guest.locator(f"[data-game='{game['game_id']}']")
    expect(row.locator("[data-testid=seed-chosen]")).to_be_visible()
    guest.fill("[data-testid=player-name]", "Bo")
    guest.click(f"[data-testid='join-{game['game_id']}']")
    for page in (host, guest):
        warning = page.locator("[data-testid=tray] [data-testid=seed-warning]")
        expect(warning).to_contain_text("The host chose the seed 12345.")
        expect(warning).to_contain_text("Whoever knows the seed can work out every hand.")
        commitment = page.locator("[data-testid=tray] [data-testid=seed-commitment]")
        expect(commitment).to_have_attribute("data-value", commitment_of(12345))
    shots(guest, "seed-warning-desktop")


def test_the_page_checks_the_seed_against_the_commitment_it_was_shown(
    live_server: ServerProcess, contexts: Contexts, ui: Any
) -> None:
    """A server that reveals another seed at the end, with that seed's own commitment in
    game_over (and, after a reload, in the welcome too) is caught: the page compares the seed
    with the commitment it was shown while the game ran, which it keeps across reloads."""
    game = live_server.create(
        seats=[{"kind": "human", "name": "Ada"}, {"kind": "bot"}], max_rounds=1
    )
    shown = game["seed_commitment"]
    forged_seed = f"0x{0xF0F6ED << 200 | 0x5EED:064x}"
    forged = commitment_of(int(forged_seed, 16))
    lying = {"welcome": False}

    def lie(ws: WebSocketRoute) -> None:
        """Pass the server's messages on, with the forged seed and commitment in game_over
        (and in the welcome's settings once ``lying["welcome"]``)."""
        server = ws.connect_to_server()

        def from_server(message: str | bytes) -> None:
            if isinstance(message, str):
                msg = json.loads(message)
                if msg["type"] == "game_over":
                    msg.update(seed=forged_seed, seed_commitment=forged)
                elif msg["type"] == "welcome" and lying["welcome"]:
                    settings = msg["settings"]
                    settings["seed_commitment"] = forged
                    settings["seed"] = forged_seed if settings["seed"] else None
                message = json.dumps(msg)
            ws.send(message)

        server.on_message(from_server)

    page = contexts.page()
    page.route_web_socket(re.compile(r"/ws/"), lie)
    page.goto(live_server.seat_url(game, 0, speed=0))
    waiting = page.locator("[data-testid=tray] [data-testid=seed-commitment]")
    expect(waiting).to_have_attribute("data-value", shown)
    page.click("[data-testid=start-game]")
    ui.play_until(page, lambda: ui.visible(page, "[data-testid=result]"), timeout=60)
    for where in ("result", "tray"):  # the result and, after it, the Game over tray
        fair = page.locator(f"[data-testid={where}] [data-testid=fairness]")
        expect(fair).to_have_attribute("data-verified", "false")
        expect(fair.locator("[data-testid=revealed-seed]")).to_have_attribute(
            "data-value", forged_seed
        )
        expect(fair).to_contain_text("does not match the commitment shown before the game")
        expect(fair.locator("[data-testid=commitment-shown]")).to_have_attribute(
            "data-value", shown
        )
        # The command checks the record against the commitment the page was shown.
        expect(fair.locator("[data-testid=verify-command]")).to_have_text(
            f"roborally verify roborally-{game['game_id']}.rec --commitment {shown}"
        )
        if where == "result":
            page.keyboard.press("Escape")
    # A reload, and now the server shows the forged commitment from its first message on: the
    # page kept the commitment it was shown while the game ran.
    lying["welcome"] = True
    page.reload()
    fair = page.locator("[data-testid=tray] [data-testid=fairness]")
    expect(fair).to_have_attribute("data-verified", "false")
    expect(fair.locator("[data-testid=commitment-shown]")).to_have_attribute("data-value", shown)
    # A browser that never saw the game running can only compare with the server's word at
    # the end, and says so.
    late = contexts.page()
    late.goto(live_server.base + f"/?game={game['game_id']}&speed=0")
    late_fair = late.locator("[data-testid=tray] [data-testid=fairness]")
    expect(late_fair).to_have_attribute("data-verified", "true")
    expect(late_fair).to_contain_text("This browser did not see the game before it ended")
    expect(late_fair.locator("[data-testid=commitment-shown]")).to_have_attribute(
        "data-value", shown
    )
