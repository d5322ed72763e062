"""Who is doing what, in plain words: each player's status (programming, locked in, offline,
away), the tab title on your turn, the sound toggle; plain words in the lobby and the log; the
lobby's list of your seats once a game is over; a name typed in the waiting room and "I'm ready"
clicked at once; two robots waiting on one reboot token."""

from __future__ import annotations

import re
from typing import Any

from playwright.sync_api import expect

from .conftest import Contexts, ServerProcess, SteadyPlayer, start_game, until_program


def test_the_panels_say_who_has_locked_in_and_the_title_says_your_turn(
    live_server: ServerProcess, contexts: Contexts, shots: Any, ui: Any
) -> None:
    game = live_server.create(
        seats=[{"kind": "human", "name": "Ada"}, {"kind": "human", "name": "Bo"}],
        variants=["lighter"],
        seed=6,
    )
    page = contexts.page()
    with SteadyPlayer(live_server, game, 1, delay=2.5):
        page.goto(live_server.seat_url(game, 0, speed=1))
        start_game(page)
        expect(page).to_have_title(re.compile(r"^● Your turn – "))
        # The sound is off until the player turns it on.
        toggle = page.get_by_test_id("notify-toggle")
        expect(toggle).to_have_attribute("aria-pressed", "false")
        toggle.click()
        expect(toggle).to_have_attribute("aria-pressed", "true")
        until_program(page)
        expect(page).to_have_title(re.compile(r"^● Your turn – Training Run"))
        expect(page.get_by_test_id("status-0")).to_have_text("programming")
        expect(page.get_by_test_id("status-1")).to_have_text("programming")
        # Bo locks in (after 2.5 s): his panel says so while Ada still programs.
        expect(page.get_by_test_id("status-1")).to_have_text("locked in", timeout=10_000)
        shots(page, "locked-in-desktop")
        ui.program_first_cards(page, 5)
        page.click("[data-testid=submit-program]")
        # Not Ada's turn while the registers play.
        expect(page).to_have_title("Training Run · RoboRally")
        page.select_option("[data-testid=speed]", "0")
        expect(page.get_by_test_id("program")).to_be_visible(timeout=20_000)
        expect(page).to_have_title(re.compile(r"^● Your turn"))
    # Bo's connection is gone: offline (the game waits out his grace period).
    expect(page.get_by_test_id("status-1")).to_have_text("offline", timeout=10_000)


def test_a_seat_nobody_plays_is_shown_as_away(
    live_server: ServerProcess, contexts: Contexts
) -> None:
    game = live_server.create(
        seats=[{"kind": "human", "name": "Ada"}, {"kind": "human", "name": "Bo"}],
        grace_seconds=2,
        seed=6,
    )
    page = contexts.page()
    page.goto(live_server.seat_url(game, 0, speed=0))
    start_game(page)
    expect(page.get_by_test_id("status-1")).to_have_text("away (played for them)", timeout=15_000)


def test_plain_words_in_the_form_the_log_and_the_questions(
    live_server: ServerProcess, contexts: Contexts
) -> None:
    page = contexts.page()
    page.goto(live_server.base + "/")
    expect(page.get_by_role("heading", name="New game")).to_be_visible()
    ids = page.evaluate("async () => (await (await fetch('/api/options')).json()).variants")
    ids = {v["id"] for v in ids}
    for edition in ("2023", "classic"):
        page.select_option("[data-testid=edition]", edition)
        labels = page.locator("[data-testid=variants] label")
        assert labels.count() > 3
        for i in range(labels.count()):
            label = labels.nth(i)
            text = label.inner_text()
            assert "_" not in text and text[0].isupper(), text
            assert (label.get_attribute("title") or "") not in ids
            assert len(label.get_attribute("title") or "") > 20, text
        timer = page.get_by_test_id("timer-select").get_attribute("title") or ""
        assert "variant" not in timer and not re.search(r"\d+\.\d+\.\d+", timer), timer
    # Bots by what they are, not by their algorithm.
    kinds = page.locator("[data-testid=seat-kind]").first.locator("option")
    for i in range(kinds.count()):
        text = kinds.nth(i).inner_text()
        assert not re.search(r"planner|random\b|expert\b", text), text
    expect(page.get_by_test_id("bot-about").first).not_to_be_empty()
    # The log and the questions in the rulebook's words.
    words = page.evaluate(
        """async () => {
            const { describe } = await import('/js/words.js');
            const { decisionControls } = await import('/js/decisions.js');
            const name = (s) => ['Ada', 'Bo'][s];
            const log = (e) => describe(e, name).text;
            const question = decisionControls(
                { id: 'x', kind: 'upgrade', options: ['yes', 'no'],
                  prompt: 'Magnetic: move 1 space(s) north along with P2?' },
                { decide() {}, name }).el.textContent;
            return [
                log({ kind: 'card_replaced', seat: 0, card: 'spam', cause: 'spam' }),
                log({ kind: 'card_replaced', seat: 0, card: 'again', cause: 'move2' }),
                log({ kind: 'card_replaced', seat: 1, card: 'move1', cause: 'scrambler' }),
                log({ kind: 'deck_shuffled', cause: 'damage' }),
                question,
            ];
        }"""
    )
    assert words[0] == (
        "Ada plays SPAM: it goes to the damage pile, and the top card of the deck,"
        " another SPAM, takes its place"
    ), words[0]
    assert "cannot use Again in register 1" in words[1] and "Move 2" in words[1], words[1]
    assert words[2] == "A Scrambler swaps Bo's Move 1 for the top card of the deck", words[2]
    assert words[3].startswith("The damage cards are shuffled"), words[3]
    assert "along with Bo" in words[4] and "P2" not in words[4], words[4]
    assert "space(s)" not in words[4] and "1 space north" in words[4], words[4]


def test_a_finished_game_offers_its_result_not_continue(
    live_server: ServerProcess, contexts: Contexts, ui: Any
) -> None:
    game = live_server.create(
        seats=[{"kind": "human", "name": "Ada"}, {"kind": "bot", "bot": "random"}],
        variants=["lighter"],
        max_rounds=1,
        seed=2,
    )
    page = contexts.page()
    page.goto(live_server.seat_url(game, 0, speed=0))
    start_game(page)
    ui.play_until(page, lambda: ui.visible(page, "[data-testid=result]"), timeout=60)
    live_server_game = game["game_id"]
    page.goto(live_server.base + "/")
    row = page.locator(f'[data-testid=your-seats] [data-seat-game="{live_server_game}"]')
    expect(row).to_have_attribute("data-status", "finished")
    expect(row.get_by_role("link", name="Continue")).to_have_count(0)
    expect(row.get_by_role("link", name="Result")).to_have_attribute(
        "href", re.compile(r"^/\?game=[\w-]+#token=[\w-]+$")
    )
    expect(row.get_by_role("link", name="Replay")).to_have_attribute(
        "href", f"/?replay={live_server_game}"
    )


def test_a_name_typed_in_the_waiting_room_and_a_quick_ready_both_count(
    live_server: ServerProcess, contexts: Contexts
) -> None:
    game = live_server.create(
        seats=[{"kind": "human", "name": "Ada"}, {"kind": "human"}, {"kind": "bot"}]
    )
    host = contexts.page()
    host.goto(live_server.seat_url(game, 0, speed=0))
    expect(host.get_by_test_id("phase")).to_have_text("Waiting room")
    guest = contexts.page()
    guest.goto(live_server.seat_url(game, 1, speed=0))
    expect(guest.get_by_test_id("phase")).to_have_text("Waiting room")
    guest.get_by_test_id("name-input").fill("Zed")
    guest.get_by_test_id("ready").click()  # the name field still has the focus
    player = host.get_by_test_id("player-1")
    expect(player).to_contain_text("Zed")
    expect(player).to_contain_text("ready ✓")
    expect(guest.get_by_test_id("ready")).to_have_text("Not ready")


def test_two_robots_waiting_on_one_reboot_token_do_not_overlap(
    live_server: ServerProcess, contexts: Contexts, shots: Any
) -> None:
    game = live_server.create(
        seats=[{"kind": "human", "name": "Ada"}, {"kind": "bot", "bot": "random"}], seed=3
    )
    page = contexts.page()
    page.goto(live_server.seat_url(game, 0, speed=0))
    start_game(page)
    page.locator("[data-testid=choice]").first.click()
    until_program(page)
    # Both robots fell off the training ground: a state where both wait on its reboot token.
    # The server's later states are held back, so the made-up one stays on screen (on a busy
    # machine one came after it, the bot's program or a clock, and put both robots back).
    page.evaluate(
        """() => {
            const game = window.rrGame;
            const st = structuredClone(game.latest);
            for (const p of st.observation.players) {
                Object.assign(p, { on_board: false, pos: null, reentry: [3, 5], facing: 'E' });
            }
            st.pending = [];
            const real = game.onMessage.bind(game);
            game.onMessage = (m) => { if (m.type !== 'state') real(m); };
            real(st);
        }"""
    )
    robots = [page.get_by_test_id(f"robot-{seat}") for seat in (0, 1)]
    expect(robots[1]).to_have_class(re.compile("crowded"))
    boxes = [robot.locator(".robot-body").bounding_box() for robot in robots]
    assert boxes[0] is not None and boxes[1] is not None
    a, b = boxes[0], boxes[1]
    overlap_x = min(a["x"] + a["width"], b["x"] + b["width"]) - max(a["x"], b["x"])
    overlap_y = min(a["y"] + a["height"], b["y"] + b["height"]) - max(a["y"], b["y"])
    assert overlap_x <= 1 or overlap_y <= 1, (a, b)
    for seat, robot in enumerate(robots):
        expect(robot.locator(".robot-label text")).to_have_text(str(seat + 1))
        expect(robot.locator("title")).to_contain_text("rebooting")
    # The space says which robot is which.
    cx, cy = page.evaluate(
        """() => { const r = window.rrGame.board.cellRect(3, 5);
                   return [(r.left + r.right) / 2, (r.top + r.bottom) / 2]; }"""
    )
    page.mouse.move(cx, cy)
    info = page.get_by_test_id("space-info")
    expect(info.locator("[data-kind=robot]")).to_have_count(2)
    expect(info).to_contain_text("Robot 1: Ada (you)")
    expect(info).to_contain_text("Robot 2: Blue")
    expect(info).to_contain_text("Rebooting")
    shots(page, "reboot-token-desktop")


def test_the_statuses_follow_the_newest_state_while_a_round_plays(
    live_server: ServerProcess, contexts: Contexts, ui: Any
) -> None:
    """Ada locks in; Bo does not, and the sand timer runs out on him: the game fills in his
    program, plays the last round and is over at once, while Ada's page still animates the
    round. Meanwhile the panels and the tray already say that nobody is deciding: neither
    "programming" for Bo nor "Waiting for Bo" (the board follows the animation)."""
    game = live_server.create(
        edition="classic",
        course="cl-first-shift",
        seats=[{"kind": "human", "name": "Ada"}, {"kind": "human", "name": "Bo"}],
        timer_seconds=3,
        max_rounds=1,
        seed=6,
    )
    page = contexts.page()
    with SteadyPlayer(live_server, game, 1, delay=60):  # ready, then never in time
        page.goto(live_server.seat_url(game, 0, speed=1))
        start, program = page.get_by_test_id("start-game"), page.get_by_test_id("program")
        expect(start.or_(program).first).to_be_visible()
        if start.is_visible():
            start.click()
        expect(program).to_be_visible(timeout=20_000)
        expect(page.get_by_test_id("status-1")).to_have_text("programming")
        ui.program_first_cards(page, 5)
        page.click("[data-testid=submit-program]")
        expect(page.get_by_test_id("waiting")).to_have_text(re.compile("^Waiting for Bo"))
        # The game is over (its newest state) while the round's registers still play.
        seen = page.wait_for_function(
            """() => {
                const game = window.rrGame, app = document.getElementById('app');
                if (!app.classList.contains('animating') || game.latest.status !== 'finished') {
                    return false;
                }
                const text = (id) => {
                    const el = document.querySelector(`[data-testid=${id}]`);
                    return el && el.offsetParent !== null ? el.textContent : null;
                };
                return { shown: game.state.status, bo: text('status-1'), waiting: text('waiting') };
            }""",
            timeout=30_000,
        ).json_value()
    assert seen["shown"] == "running", seen  # the animation lags behind the game
    assert seen["bo"] != "programming" and seen["waiting"] is None, seen
