"""Memory: a finished game nobody watches keeps its summary and record, not its events."""

from __future__ import annotations

from starlette.testclient import TestClient

from .conftest import connect, create, hello, wait_finished, wait_for


def test_a_finished_game_keeps_only_its_record_until_someone_looks(client: TestClient) -> None:
    game = create(client, seats=[{"kind": "bot"}, {"kind": "bot"}], max_rounds=2)
    gid = game["game_id"]
    room = wait_finished(client, gid)
    assert room is not None and room.status == "finished"
    assert room.slim and room.events == [] and room.views == {}
    assert room.replay_text is None and room.record and room.outcome is not None
    summary = client.get(f"/api/games/{gid}").json()
    assert summary["status"] == "finished" and summary["result"] == room.outcome["result"]

    with connect(client, gid) as session:  # a spectator: the events are built again
        ws = hello(session)
        over = ws.until("game_over")
        ws.send(type="sync", since=0)
        events = ws.until("events")
        assert events["first"] == 0 and events["next"] == len(room.events) > 0
        assert over["outcome"] == room.outcome and not room.slim
    wait_for(lambda: room.slim)  # the last page left
    assert room.events == [] and room.views == {}

    frames = client.get(f"/api/games/{gid}/replay").json()["frames"]
    assert len(frames) > 1
    assert room.slim and room.replay_text is None  # built for the answer, not kept
