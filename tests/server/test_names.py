"""Player names (names.py): look-alikes clash, invisible characters and towers of accents are
refused with a reason, and real names of other scripts stay allowed and distinct."""

from __future__ import annotations

import pytest
from starlette.testclient import TestClient

from roborally.server.names import MAX_MARKS, skeleton
from roborally.server.protocol import ProtocolError, clean_name, same_name

from .conftest import connect, create, hello, room_of, seat_of

LOOK_ALIKES = [
    ("Ada", "\u0410da"),  # Cyrillic capital A
    ("Ada", "Ad\u0430"),  # Cyrillic small a
    ("Ada", "\u0391da"),  # Greek capital alpha
    ("ada", "\u0391DA"),  # Greek alpha and another case at once
    ("Ada", "\uff21\uff44\uff41"),  # fullwidth
    ("Ada", "\U0001d400\U0001d41d\U0001d41a"),  # mathematical bold
    ("Ada", "ADA"),
    ("Ada", "  ada "),
    ("Ada Lovelace", "Ada \u3000 Lovelace"),  # ideographic space
    ("Ada Lovelace", "Ada\u00a0Lovelace"),  # no-break space
    ("Olga", "\u041elga"),  # Cyrillic O
    ("Paul", "PauI"),  # capital I for small l
    ("Bill", "BiII"),
    ("Kira", "\u041aira"),  # mixed script: allowed, but it still looks like Kira
    ("\u0401\u043b\u043a\u0430", "\u00cb\u043b\u043a\u0430"),  # Cyrillic Yo, Latin E diaeresis
    ("Zo\u00eb", "Zoe\u0308"),  # composed and decomposed
    ("\u2764 Ada", "\u2764\ufe0f Ada"),  # an emoji with and without its emoji style
]
DISTINCT = [
    ("Їжак", "Ижак"),
    ("Łukasz", "Lukasz"),
    ("Štěpán", "Stepan"),
    ("Їжак", "Łukasz"),
    ("Łukasz", "Štěpán"),
    ("Jürgen", "Jurgen"),
    ("Ana", "Anna"),
    ("Ada Lovelace", "AdaLovelace"),
]
REFUSED = [
    ("Ada\u200b", "invisible"),  # zero-width space
    ("A\u200dda", "invisible"),  # zero-width joiner
    ("Ada\u202e", "invisible"),  # right-to-left override
    ("\u3164", "invisible"),  # Hangul filler: a letter that draws nothing
    ("Ada\u2800", "invisible"),  # Braille blank
    ("Ada\ufe00", "invisible"),  # a variation selector that is not an emoji style
    ("Ada\x07", "invisible"),
    ("a" + "\u0301" * (MAX_MARKS + 1), "accents"),
    ("Z\u0351\u0352\u0357\u035b\u0346a", "accents"),  # a tower of other marks
    ("Ada, Bob", "commas"),
    ("", "1 to 20"),
    ("   ", "1 to 20"),
    ("x" * 21, "1 to 20"),
]


@pytest.mark.parametrize(("a", "b"), LOOK_ALIKES)
def test_look_alike_names_clash(a: str, b: str) -> None:
    assert same_name(clean_name(a), clean_name(b)) and same_name(clean_name(b), clean_name(a))


@pytest.mark.parametrize(("a", "b"), DISTINCT)
def test_distinct_names_stay_distinct(a: str, b: str) -> None:
    assert not same_name(clean_name(a), clean_name(b))


@pytest.mark.parametrize(("name", "reason"), REFUSED)
def test_bad_names_are_refused_with_a_reason(name: str, reason: str) -> None:
    with pytest.raises(ProtocolError) as refused:
        clean_name(name)
    assert refused.value.code == "bad_name" and reason in refused.value.message


def test_a_name_is_kept_as_typed_in_nfc() -> None:
    assert clean_name("Zoe\u0308") == "Zo\u00eb"
    assert clean_name("\uff21\uff44\uff41") == "\uff21\uff44\uff41"  # shown as chosen
    assert clean_name("  Ada \t Lovelace ") == "Ada Lovelace"
    assert clean_name("a" + "\u0301" * MAX_MARKS) == "\u00e1" + "\u0301" * (MAX_MARKS - 1)
    for name in ["Nguyễn Thị", "ที่รัก", "王小明", "שָׁלוֹם"]:
        assert clean_name(name) == name  # Vietnamese, Thai tone marks, Chinese, pointed Hebrew
    assert clean_name("\u2764\ufe0f Ada") == "\u2764\ufe0f Ada"  # as an emoji keyboard types it


def test_skeleton_follows_uts39() -> None:
    assert skeleton("\u0440\u0430ypal") == skeleton("paypal")  # Cyrillic er and a
    assert skeleton("m") == "rn"  # the data's own example of a sequence prototype
    assert skeleton("\u0141") != skeleton("L")  # a stroke is not a look-alike


def test_create_refuses_look_alikes_and_says_so(client: TestClient) -> None:
    seats = [{"kind": "human", "name": "Ada"}, {"kind": "human", "name": "\u0410da"}]
    refused = client.post("/api/games", json={"course": "tiny", "seats": seats})
    error = refused.json()["error"]
    assert refused.status_code == 400 and error["code"] == "name_taken"
    assert "looks the same as 'Ada'" in error["message"]


def test_join_refuses_a_look_alike_and_names_the_other_player(client: TestClient) -> None:
    game = create(client, seats=[{"kind": "human", "name": "Ada"}, {"kind": "human"}])
    joined = client.post(f"/api/games/{game['game_id']}/join", json={"name": "\uff21\uff44\uff41"})
    assert joined.status_code == 409
    message = joined.json()["error"]["message"]
    assert message.startswith("another player in this game is called Ada (the names look the same)")
    assert room_of(client, game["game_id"]).seats[1].taken is False


def test_hello_rename_refuses_a_look_alike(client: TestClient) -> None:
    seats = [{"kind": "human", "name": "Ada"}, {"kind": "human", "name": "Bob"}]
    game = create(client, seats=seats)
    with connect(client, game["game_id"], **seat_of(game, 1)) as session:
        session.send_json({"type": "hello", "v": 1, **seat_of(game, 1), "name": "\u0391DA"})
        reply = session.receive_json()
    assert reply["type"] == "error" and reply["code"] == "name_taken"
    assert "called Ada (the names look the same)" in reply["message"]
    assert room_of(client, game["game_id"]).seats[1].name == "Bob"


def test_names_of_other_scripts_play_side_by_side(client: TestClient) -> None:
    names = ["Їжак", "Łukasz", "Štěpán", "Stepan"]
    game = create(client, seats=[{"kind": "human", "name": n} for n in names])
    assert [s.name for s in room_of(client, game["game_id"]).seats] == names
    with connect(client, game["game_id"], **seat_of(game, 1)) as session:
        hello(session, name="Łucja")  # a new name, in the waiting room
    assert room_of(client, game["game_id"]).seats[1].name == "Łucja"
