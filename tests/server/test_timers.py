"""Timers and absent players: a game never waits for ever."""

from __future__ import annotations

import json
import time
from pathlib import Path
from typing import Any

import pytest
from starlette.testclient import TestClient

from roborally.bots.random_bot import RandomBot
from roborally.content.record import parse_record
from roborally.server.app import ServerOptions
from roborally.server.rulesets import edition_available

from .conftest import Ws, connect, create, final_game, hello, make_client, room_of, wait_for


def _lines(client: TestClient, gid: str) -> dict[str, list[str]]:
    record = parse_record(client.get(f"/api/games/{gid}/record").text)
    return {line.decision_id: line.tokens for line in record.lines}


def test_speed_timer_fills_registers_and_keeps_the_draft(client: TestClient) -> None:
    game = create(
        client, timer_seconds=0.3, decision_seconds=0.3, max_rounds=2, variants=["lighter"]
    )
    gid = game["game_id"]
    with connect(client, gid, game["seats"][0]["token"]) as session:
        ws = hello(session)
        ws.send(type="ready")
        state = ws.pending_state()
        start = state["pending"][0]
        assert start["kind"] == "start_space" and start["deadline"] is not None
        assert any(t["reason"] == "decision" and t["seat"] == 0 for t in state["timers"])
        ws.send(type="decide", decision_id=start["id"], choice=start["options"][-1])
        ws.answered.add(start["id"])
        state = ws.pending_state()
        program = state["pending"][0]
        assert program["kind"] == "program"
        remaining = program["deadline"] - state["server_time"]
        assert 0 < remaining <= 0.3
        first = program["info"]["hand"][0]
        ws.send(type="draft", decision_id=program["id"], program=[None, None, first, None, None])
        assert ws.until("ack")["for"] == "draft"
        # Nothing more from this seat: every later decision times out.
        over = ws.until("game_over")
        assert over["outcome"]["termination"] == "round_limit"
    lines = _lines(client, gid)
    drafted = lines["t1-p1-program"]
    assert drafted[2] == first and "-" not in drafted and len(drafted) == 5  # kept, rest filled
    assert lines["t2-p1-program"] == ["timeout"]  # no draft: the engine fills at random
    assert lines["t1-p1-shutdown"] == ["timeout"]
    final = final_game(client, gid)
    registers = [p.registers for p in final.state.players]
    assert all(len(r) == 5 for r in registers)


def test_no_timer_without_speed_mode_only_a_generous_deadline(client: TestClient) -> None:
    """Without speed mode there is no programming clock, but no decision waits for ever:
    programming has the game's ``program_seconds`` (an idle deadline), the rest
    ``decision_seconds``."""
    game = create(client, decision_seconds=100, program_seconds=900, variants=["lighter"])
    with connect(client, game["game_id"], game["seats"][0]["token"]) as session:
        ws = hello(session)
        ws.send(type="ready")
        state = ws.pending_state()
        start = state["pending"][0]
        assert start["kind"] == "start_space"
        assert [t["reason"] for t in state["timers"]] == ["decision"]
        assert 99 < start["deadline"] - state["server_time"] <= 100
        ws.send(type="decide", decision_id=start["id"], choice=start["options"][0])
        ws.answered.add(start["id"])
        state = ws.pending_state()
        program = state["pending"][0]
        assert program["kind"] == "program"
        assert [t["reason"] for t in state["timers"]] == ["idle"]
        assert 899 < program["deadline"] - state["server_time"] <= 900


@pytest.mark.skipif(not edition_available("classic"), reason="no classic engine")
def test_classic_sand_timer_starts_for_the_last_player(client: TestClient) -> None:
    """Classic: only the last player still programming is timed (30 s; shortened here)."""
    game = create(
        client,
        edition="classic",
        course="cl-tune-up",
        seats=[{"kind": "human"}, {"kind": "human"}],
        timer_seconds=0.3,
        decision_seconds=600,
        max_rounds=1,
    )
    gid = game["game_id"]
    room = room_of(client, gid)
    with (
        connect(client, gid, game["seats"][0]["token"]) as s0,
        connect(client, gid, invite=game["seats"][1]["invite"]) as s1,
    ):
        first, second = hello(s0), hello(s1)
        first.send(type="ready")
        second.send(type="ready")
        bot = RandomBot(3)
        # Answer everything until seat 0 has a program to write.
        while True:
            state = first.pending_state()
            pending = state["pending"][0]
            if pending["kind"] == "program":
                break
            first.answer(state, bot)
        # not yet the sand timer: only the generous idle deadline of untimed programming
        assert [t["reason"] for t in state["timers"] if t["decision_id"] == pending["id"]] == [
            "idle"
        ]
        assert not [t for t in state["timers"] if t["reason"] == "timer"]
        first.answer(state, bot)
        # Seat 1 is the last one programming: its decision now has the sand timer.
        timed = second.until("state", lambda m: any(t["reason"] == "timer" for t in m["timers"]))
        assert [p["kind"] for p in timed["pending"]] == ["program"]
        assert [t["seat"] for t in timed["timers"] if t["reason"] == "timer"] == [1]
        wait_for(
            lambda: room.status == "finished" or "t1-p2-program" not in {d.id for d in room.pending}
        )
    lines = _lines(client, gid) if room.status == "finished" else {}
    if lines:
        assert lines["t1-p2-program"] == ["timeout"]


def test_disconnected_seat_goes_auto_and_is_taken_back(tmp_path: Path) -> None:
    options = ServerOptions(
        grace_seconds=0.3, decision_seconds=600, min_seconds=0.01, engine_workers=0
    )
    with make_client(tmp_path, options) as client:
        game = create(
            client,
            seats=[{"kind": "human"}, {"kind": "human"}],
            max_rounds=5,
            variants=["lighter"],  # no upgrade phase: start space, then programs
        )
        gid = game["game_id"]
        room = room_of(client, gid)
        token0, invite1 = game["seats"][0]["token"], game["seats"][1]["invite"]
        with connect(client, gid, invite=invite1) as s1:
            stay = hello(s1)
            with connect(client, gid, token0) as s0:
                leave = hello(s0)
                leave.send(type="ready")
                stay.send(type="ready")
                leave.until("state", lambda m: m["status"] == "running")
            # Seat 0 left: after the grace period auto-play answers for it.
            away = stay.until("state", lambda m: m["seats"][0]["auto"])
            assert away["seats"][0]["connected"] is False
            assert away["seats"][0]["auto_reason"] == "away"
            assert room.seats[0].auto
            wait_for(lambda: not [d for d in room.pending if d.seat == 0])
            # Seat 1 plays on: the game does not stall.
            state = stay.pending_state()
            start = state["pending"][0]
            stay.send(type="decide", decision_id=start["id"], choice=start["options"][0])
            stay.answered.add(start["id"])
            state = stay.pending_state()
            assert state["pending"][0]["kind"] == "program"
            # The away seat's program is played for it after away_seconds, not at once.
            wait_for(lambda: "t1-p1-program" not in [d.id for d in room.pending])
            # Seat 0 comes back with its token and takes the seat back.
            with connect(client, gid, token0) as s0:
                back = hello(s0)
                state = back.until("state")
                assert state["seats"][0]["auto"] is False and not room.seats[0].auto
                program = stay.pending_state()["pending"][0]
                hand = program["info"]["hand"]
                stay.send(type="decide", decision_id=program["id"], choice=hand[:5])
                stay.answered.add(program["id"])
                # Round 1's shutdown question now waits for the returned player.
                mine = back.pending_state()
                assert mine["pending"][0]["seat"] == 0
                time.sleep(0.5)  # longer than the grace period: no auto-play now
                assert [d for d in room.pending if d.seat == 0]
                assert not room.seats[0].auto


def test_a_game_nobody_is_at_waits_paused_until_a_player_comes(tmp_path: Path) -> None:
    """Started with nobody at the table, the game is paused (its clocks stand still, no
    decision is played for anyone); the player's first socket resumes it, and a seat left
    for the grace period is then played for, at away_seconds a decision."""
    options = ServerOptions(
        grace_seconds=0.05,
        decision_seconds=600,
        min_seconds=0.01,
        engine_workers=0,
        away_seconds=0.05,
    )
    with make_client(tmp_path, options) as client:
        game = create(client, seats=[{"kind": "human"}, {"kind": "bot"}], max_rounds=3)
        gid = game["game_id"]
        client.post(f"/api/games/{gid}/start", json={"host_token": game["host_token"]})
        room = room_of(client, gid)
        wait_for(lambda: room.paused_at is not None)
        pending = [d.id for d in room.pending]
        time.sleep(0.3)  # many grace periods and away clocks: nothing is played meanwhile
        assert [d.id for d in room.pending] == pending and room.status == "running"
        assert not room.seats[0].auto
        with connect(client, gid, game["seats"][0]["token"]) as session:
            ws = hello(session)
            state = ws.until("state", lambda m: m["paused_since"] is None)
            assert state["pending"], state  # the same decision waits for its player
        # The player left again with a bot seat: the game is paused, not played on.
        wait_for(lambda: room.paused_at is not None)
        assert room.status == "running"
        with connect(client, gid, game["seats"][0]["token"]) as session:
            hello(session).play_to_end(RandomBot(2))
        wait_for(lambda: room.status == "finished")
        # Acting after the end is out of phase.
        with connect(client, gid, game["seats"][0]["token"]) as session:
            ws = hello(session)
            ws.until("game_over")
            ws.send(type="decide", decision_id="t1-p1-program", choice="timeout")
            assert ws.error()["code"] == "out_of_phase"


def test_a_clock_starts_once_the_page_has_shown_what_came_before(tmp_path: Path) -> None:
    """Fair time: a decision's clock waits until the player's page reports (``shown``) that it
    has finished showing the events before the decision, or at the latest ``show_seconds``."""
    options = ServerOptions(min_seconds=0.01, show_seconds=0.6, engine_workers=0)
    with make_client(tmp_path, options) as client:
        game = create(
            client, variants=["lighter"], decision_seconds=30, program_seconds=30, max_rounds=3
        )
        token = game["seats"][0]["token"]
        with connect(client, game["game_id"], token) as session:
            ws = Ws(session, show=False)  # a page that animates and reports when it is done
            ws.send(type="hello", token=token)
            ws.send(type="ready")

            def next_decision() -> dict[str, Any]:
                state = ws.until(
                    "state", lambda m: any(p["id"] not in ws.answered for p in m["pending"])
                )
                return state

            def answer(state: dict[str, Any]) -> None:
                decision = state["pending"][0]
                ws.answered.add(decision["id"])
                choice = decision["options"][0] if decision["options"] else "timeout"
                ws.send(type="decide", decision_id=decision["id"], choice=choice)

            state = next_decision()
            answer(state)  # the start space (nothing happened before it)
            state = next_decision()  # after the robots were placed and the cards dealt
            decision = state["pending"][0]
            assert decision["deadline"] is None  # not yet: the page has not shown that
            waiting = [t for t in state["timers"] if t["decision_id"] == decision["id"]]
            assert [t["reason"] for t in waiting] == ["show"]
            assert waiting[0]["deadline"] - state["server_time"] <= 0.6 + 0.01
            ws.send(type="shown", event=state["event_count"])
            started = ws.until("state", lambda m: m["pending"][0]["deadline"] is not None)
            left = started["pending"][0]["deadline"] - started["server_time"]
            assert 29 < left <= 30  # the whole 30 s, from the report on
            answer(started)
            # The next one after a register's events: no report; its clock starts anyway,
            # show_seconds later.
            state = next_decision()
            while state["pending"][0]["deadline"] is not None:  # nothing shown before it
                answer(state)
                state = next_decision()
            began = time.monotonic()
            late = ws.until("state", lambda m: m["pending"][0]["deadline"] is not None)
            assert 0.3 < time.monotonic() - began < 5
            left = late["pending"][0]["deadline"] - late["server_time"]
            assert 28.5 < left <= 30


def test_the_show_wait_is_the_servers_estimate_and_only_for_pages_that_report(
    tmp_path: Path,
) -> None:
    """A clock waits for a page's ``shown`` at most the server's own estimate of the animation
    at the speed the page chose (showtime.py), and a page that has never reported gets only
    the base wait: a client that never says ``shown`` cannot stretch anyone's clock."""
    from roborally.server.room import SHOW_BASE_SECONDS
    from roborally.server.showtime import beats, seconds

    options = ServerOptions(min_seconds=0.01, engine_workers=0)  # show_seconds: 60
    with make_client(tmp_path, options) as client:
        game = create(
            client, variants=["lighter"], decision_seconds=30, program_seconds=30, max_rounds=3
        )
        token = game["seats"][0]["token"]
        with connect(client, game["game_id"], token) as session:
            ws = Ws(session, show=False)
            ws.send(type="hello", token=token, speed=0.5)
            ws.send(type="ready")

            def next_decision() -> dict[str, Any]:
                state: dict[str, Any] = ws.until(
                    "state", lambda m: any(p["id"] not in ws.answered for p in m["pending"])
                )
                return state

            def show_wait(state: dict[str, Any]) -> float:
                decision = state["pending"][0]
                waiting = [t for t in state["timers"] if t["decision_id"] == decision["id"]]
                assert [t["reason"] for t in waiting] == ["show"], waiting
                return float(waiting[0]["deadline"] - state["server_time"])

            state = next_decision()
            ws.answered.add(state["pending"][0]["id"])
            start = state["pending"][0]
            ws.send(type="decide", decision_id=start["id"], choice=start["options"][0])
            state = next_decision()  # after the robots were placed: this page never reported
            assert show_wait(state) <= SHOW_BASE_SECONDS + 0.01
            reported = state["event_count"]
            ws.send(type="shown", event=reported, speed=0.5)  # now it is a page that reports
            ws.until("state", lambda m: m["pending"][0]["deadline"] is not None)

            def answer(state: dict[str, Any]) -> None:
                decision = state["pending"][0]
                ws.answered.add(decision["id"])
                choice = decision["options"][0] if decision["options"] else "timeout"
                if decision["kind"] == "program":
                    choice = decision["info"]["hand"][:5]
                ws.send(type="decide", decision_id=decision["id"], choice=choice)

            def unseen_beats(state: dict[str, Any]) -> list[float]:
                kinds: dict[int, str] = {}
                for text in ws.raw:
                    if '"type":"events"' in text.replace(" ", ""):
                        kinds |= {e["i"]: e["kind"] for e in json.loads(text)["events"]}
                return [beats(kinds[i]) for i in range(reported, state["event_count"])]

            answer(state)
            state = next_decision()
            while seconds(unseen_beats(state), 0.5) < 1:  # little to show: report, go on
                reported = state["event_count"]
                ws.send(type="shown", event=reported, speed=0.5)
                answer(state)
                state = next_decision()
            # After a register's animation, shown by no page yet: the estimate at speed 0.5.
            expected = SHOW_BASE_SECONDS + seconds(unseen_beats(state), 0.5)
            assert expected - 0.2 <= show_wait(state) <= expected + 0.01
