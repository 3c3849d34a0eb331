"""Recording a real table over the API: hands the recorder never sees, corrections as facts, and
card entry no seat can probe (docs/reference/modes.md, "Recording a real table")."""

from __future__ import annotations

import uuid
from typing import Any

import pytest
from flask import Flask
from flask.testing import FlaskClient

from domain.bots import simulate
from domain.rules import commands as cmd
from domain.rules import events as ev
from domain.rules.transcript import commands_from_facts, redecide
from projections.insights import insights
from projections.views import PUBLIC_VIEWER

from .support import CreatedGame, assert_envelope, command, create_game, version_of

BEANS_IN_PLAY = [
    "coffee", "wax", "blue", "chili", "stink", "green", "soy", "black-eyed", "red", "garden",
]  # fmt: skip
"""rio-grande with three players: every bean but Cocoa."""


@pytest.fixture
def unknown(client: FlaskClient) -> CreatedGame:
    """A new three-seat tabletop game whose hands the recorder does not see."""
    return create_game(client, mode="tabletop", hands="unknown")


def view(client: FlaskClient, game: CreatedGame, headers: dict[str, str]) -> dict[str, Any]:
    return client.get(f"{game.url}/view", headers=headers).get_json()


def play(client: FlaskClient, game: CreatedGame, commands: list[cmd.Command]) -> None:
    """Enter commands as the host, each one accepted."""
    for number, entry in enumerate(commands):
        response = command(client, game, game.host(), **entry.to_dict())
        assert response.status_code == 200, (number, entry, response.get_json())


def bot_game_unseen(players: int = 3, seed: int = 1) -> tuple[list[ev.Event], list[cmd.Command]]:
    """A complete bot game as a table with unknown hands records it: its facts and commands."""
    facts = redecide(simulate("rio-grande", players, seed=seed), tabletop=True, unknown_hands=True)
    return facts, commands_from_facts(facts, tabletop=True)


# --- unknown hands ----------------------------------------------------------------------------


def test_a_game_with_unknown_hands_starts_dealt_with_no_card_named(
    client: FlaskClient, unknown: CreatedGame
) -> None:
    host = view(client, unknown, unknown.host())

    assert host["phase"] == "plant"
    assert host["hands"] == "unknown"
    assert [seat["hand_size"] for seat in host["seats"]] == [5, 5, 5]
    assert [seat["hand"] for seat in host["seats"]] == [None, None, None]
    assert view(client, unknown, unknown.seat(1))["seats"][1]["hand"] == [None] * 5
    assert host["unseen"] == [
        {"pile": 0, "beans": host["unseen"][0]["beans"], "in_draw_pile": 135, "in_hands": 15}
    ]
    assert sum(host["unseen"][0]["beans"].values()) == 150


def test_only_a_tabletop_game_has_unknown_hands(client: FlaskClient) -> None:
    response = client.post("/api/games", json={"seats": ["A", "B", "C"], "hands": "unknown"})

    assert_envelope(response, 422, "invalid_setup")


def test_a_plant_names_the_bean_the_table_sees(client: FlaskClient, unknown: CreatedGame) -> None:
    missing = command(client, unknown, unknown.seat(0), type="plant", field=0)
    planted = command(client, unknown, unknown.seat(0), type="plant", field=0, bean="blue")

    assert_envelope(missing, 422, "malformed_command")
    assert planted.status_code == 200
    assert view(client, unknown, unknown.host())["seats"][0]["fields"][0] == {
        "bean": "blue",
        "count": 1,
    }


def test_a_seat_notes_its_own_hand_and_only_it_sees_the_note(
    client: FlaskClient, unknown: CreatedGame
) -> None:
    note = ["red", "?", "blue", "?", "?"]
    by_host = command(client, unknown, unknown.host(), type="note-hand", seat=1, cards=note)
    by_seat = command(client, unknown, unknown.seat(1), type="note-hand", cards=note)

    assert_envelope(by_host, 403, "forbidden")
    assert by_seat.status_code == 200
    assert view(client, unknown, unknown.seat(1))["seats"][1]["hand"] == [
        "red", None, "blue", None, None,
    ]  # fmt: skip
    for headers in (unknown.host(), unknown.seat(0), {}):
        assert view(client, unknown, headers)["seats"][1]["hand"] is None
    items = client.get(f"{unknown.url}/events?after=2", headers=unknown.seat(0)).get_json()
    assert items["items"][0]["event"] == {"seat": 1, "cards": ["?"] * 5}


def test_the_host_cannot_read_a_seat_s_note_through_that_seat_s_view(
    client: FlaskClient, unknown: CreatedGame
) -> None:
    command(client, unknown, unknown.seat(1), type="note-hand", cards=["red"] + ["?"] * 4)

    as_seat = client.get(f"{unknown.url}/view?seat=1", headers=unknown.host())

    body = assert_envelope(as_seat, 403, "forbidden")
    assert "noted" in body["message"]


def test_a_whole_game_with_unknown_hands_is_recorded_and_ends_as_played(
    web: Flask, client: FlaskClient
) -> None:
    facts, commands = bot_game_unseen()
    game = create_game(client, mode="tabletop", hands="unknown", start_seat=facts[0].start_seat)
    play(client, game, commands)

    summary = client.get(game.url).get_json()
    assert summary["status"] == "ended"
    assert summary["result"]["scores"] == list(facts[-1].scores)
    stored = web.extensions["bohnanza"].get().app.facts(uuid.UUID(game.id))
    assert stored == facts


# --- card entry no seat can probe ----------------------------------------------------------------


def test_a_seat_of_a_game_with_known_hands_cannot_name_the_cards_off_the_pile(
    client: FlaskClient,
) -> None:
    """The probe that learned the draw pile (min(count, 2) of every bean in 17 tries) now learns
    nothing: every entry is refused the same way before any card is checked, and stores nothing."""
    game = create_game(client, mode="tabletop")
    hands = [["chili"] * 5, ["blue"] * 5, ["garden"] * 5]  # all six Gardens but one are dealt
    assert command(client, game, game.host(), type="deal", hands=hands).status_code == 200
    assert command(client, game, game.host(), type="plant", seat=0, field=0).status_code == 200
    version = version_of(client, game)

    answers = {
        bean: command(client, game, game.seat(0), type="reveal", cards=[bean, bean]).get_json()
        for bean in BEANS_IN_PLAY
    }

    assert len({repr(answer) for answer in answers.values()}) == 1
    assert answers["garden"]["status"] == 403
    assert version_of(client, game) == version


def test_a_seat_of_a_game_with_unknown_hands_learns_nothing_from_trying_entries(
    client: FlaskClient,
) -> None:
    """Two tables whose public history is the same but whose other seats noted other cards:
    seat 0's tries are answered the same at both, so the answers carry nothing it did not see
    (with unknown hands the game knows only what the table was shown; notes name no card)."""
    tries = [["garden", "garden"], ["coffee", "cocoa"], ["red", "red"]]
    answers: dict[str, list[tuple[int, Any]]] = {}
    for notes in ("garden", "coffee"):
        answers[notes] = []
        for cards in tries:
            game = create_game(client, mode="tabletop", hands="unknown")
            for seat in (1, 2):
                command(client, game, game.seat(seat), type="note-hand", cards=[notes] * 5)
            command(client, game, game.seat(0), type="plant", field=0, bean="garden")
            answer = command(client, game, game.seat(0), type="reveal", cards=cards)
            body = answer.get_json()
            answers[notes].append((answer.status_code, body.get("message") or body["events"]))

    assert answers["garden"] == answers["coffee"]
    assert [status for status, _ in answers["garden"]] == [200, 409, 200]


# --- corrections ----------------------------------------------------------------------------------


def test_the_host_takes_back_the_last_entry(client: FlaskClient, unknown: CreatedGame) -> None:
    command(client, unknown, unknown.host(), type="plant", seat=0, field=0, bean="blue")
    before = view(client, unknown, unknown.host())
    command(client, unknown, unknown.host(), type="reveal", cards=["red", "soy"])

    undone = command(client, unknown, unknown.host(), type="undo")

    assert undone.status_code == 200
    assert undone.get_json()["events"][0]["type"] == "EntriesCorrected"
    after = view(client, unknown, unknown.host())
    assert {**after, "version": None} == {**before, "version": None}
    assert after["version"] == before["version"] + 2


def test_a_seat_cannot_correct_the_record(client: FlaskClient, unknown: CreatedGame) -> None:
    command(client, unknown, unknown.host(), type="plant", seat=0, field=0, bean="blue")

    assert_envelope(command(client, unknown, unknown.seat(0), type="undo"), 403, "forbidden")


def test_a_digital_game_takes_no_corrections(client: FlaskClient, game: CreatedGame) -> None:
    assert_envelope(command(client, game, game.host(), type="undo"), 403, "forbidden")


REVEAL_GREEN = {"type": "reveal", "seat": 0, "cards": ["green", "soy"]}
"""The reveal as it really was, where Red, Soy was entered."""


def red_planted_then_corrected(
    client: FlaskClient, unknown: CreatedGame, changes: list[dict[str, Any]]
) -> Any:
    """Ana plants Blue, reveals Red and Soy, ends trading and plants the Red (entries 0–3); then
    the host sends a correction with these changes. The correction's response."""
    host = unknown.host()
    command(client, unknown, host, type="plant", seat=0, field=0, bean="blue")
    command(client, unknown, host, type="reveal", cards=["red", "soy"])
    command(client, unknown, host, type="end-trading", seat=0)
    command(client, unknown, host, type="plant", seat=0, field=1, bean="red")
    return command(client, unknown, host, type="correct", changes=changes)


def test_a_correction_is_refused_with_the_entry_it_makes_illegal(
    client: FlaskClient, unknown: CreatedGame
) -> None:
    changes = [{"entry": 1, "action": "replace", "command": REVEAL_GREEN}]
    answer = red_planted_then_corrected(client, unknown, changes)

    body = assert_envelope(answer, 409, "rule_violation")
    assert (
        "after this correction, entry 3 (Ana plants Red in field 2) is illegal" in body["message"]
    )
    assert body["illegal_entry"] == 3


def test_a_correction_that_also_changes_the_entry_it_made_illegal_is_taken(
    client: FlaskClient, unknown: CreatedGame
) -> None:
    answer = red_planted_then_corrected(
        client,
        unknown,
        [
            {"entry": 1, "action": "replace", "command": REVEAL_GREEN},
            {"entry": 3, "action": "replace", "command": {"type": "plant", "seat": 0, "field": 1, "bean": "green"}},
        ],
    )  # fmt: skip

    assert answer.status_code == 200, answer.get_json()
    fields = answer.get_json()["view"]["seats"][0]["fields"]
    assert [field["bean"] for field in fields[:2]] == ["blue", "green"]


def test_a_correction_refused_after_an_insert_names_the_illegal_entry_as_recorded(
    client: FlaskClient, unknown: CreatedGame
) -> None:
    answer = red_planted_then_corrected(
        client,
        unknown,
        [
            {"entry": 1, "action": "insert", "command": {"type": "harvest", "seat": 0, "field": 0}},
            {"entry": 1, "action": "replace", "command": REVEAL_GREEN},
        ],
    )  # fmt: skip

    body = assert_envelope(answer, 409, "rule_violation")
    assert "entry 4 (Ana plants Red in field 2)" in body["message"]
    assert body["illegal_entry"] == 3


def test_a_corrected_reveal_changes_the_game_and_keeps_what_was_entered(
    client: FlaskClient, unknown: CreatedGame
) -> None:
    command(client, unknown, unknown.host(), type="plant", seat=0, field=0, bean="blue")
    command(client, unknown, unknown.host(), type="reveal", cards=["coffee", "soy"])
    fixed = {"type": "reveal", "seat": 0, "cards": ["green", "soy"]}

    answer = command(
        client,
        unknown,
        unknown.host(),
        type="correct",
        changes=[{"entry": 1, "action": "replace", "command": fixed}],
    )

    assert answer.status_code == 200
    assert view(client, unknown, unknown.host())["revealed"] == ["green", "soy"]
    steps = client.get(f"{unknown.url}/steps").get_json()
    assert steps["corrections"] == 1
    assert [(s["kind"], s["corrected"]) for s in steps["steps"]][-1] == ("CardsRevealed", 1)
    recorded = client.get(f"{unknown.url}/steps?as=recorded").get_json()["steps"]
    assert [s["kind"] for s in recorded][-2:] == ["CardsRevealed", "EntriesCorrected"]
    last = client.get(f"{unknown.url}/steps/{len(recorded)}?as=recorded", headers=unknown.seat(1))
    assert last.get_json()["view"]["revealed"] == ["green", "soy"]
    entries = client.get(f"{unknown.url}/entries", headers=unknown.host()).get_json()["entries"]
    assert [entry["command"] for entry in entries][-1] == fixed


def test_a_corrections_cards_are_the_hosts_and_a_seat_sees_which_entry_changed(
    client: FlaskClient, unknown: CreatedGame
) -> None:
    command(client, unknown, unknown.host(), type="plant", seat=0, field=0, bean="blue")
    command(client, unknown, unknown.host(), type="undo")

    seat = client.get(f"{unknown.url}/events?after=3", headers=unknown.seat(2)).get_json()
    host = client.get(f"{unknown.url}/events?after=3", headers=unknown.host()).get_json()

    assert seat["items"][0]["event"]["replaced"] == [{"type": "plant", "seat": 0}]
    assert host["items"][0]["event"]["replaced"] == [
        {"type": "plant", "seat": 0, "field": 0, "bean": "blue"}
    ]
    assert "table" not in {
        key for item in host["items"] for key in item["event"] if item["event"][key]
    }


def test_the_entries_are_the_hosts_while_the_game_runs(
    client: FlaskClient, unknown: CreatedGame
) -> None:
    command(client, unknown, unknown.seat(1), type="note-hand", cards=["red"] + ["?"] * 4)

    by_seat = client.get(f"{unknown.url}/entries", headers=unknown.seat(1))
    by_host = client.get(f"{unknown.url}/entries", headers=unknown.host()).get_json()

    assert_envelope(by_seat, 403, "forbidden")
    assert by_host["entries"] == [
        {
            "entry": 0,
            "command": {"type": "note-hand", "seat": 1, "cards": ["?"] * 5},
            "text": "Ben notes their hand",
            "first_step": 3,
            "last_step": 3,
            "corrected": None,
        }
    ]


def test_a_correction_after_the_end_changes_the_winner_in_the_scoreboard_and_leaderboard(
    web: Flask, client: FlaskClient
) -> None:
    facts = redecide(simulate("rio-grande", 3, seed=1), tabletop=True)
    game = create_game(client, mode="tabletop", start_seat=facts[0].start_seat)
    play(client, game, commands_from_facts(facts, tabletop=True))
    position = client.get(game.url).get_json()["version"]
    board = client.get(f"{game.url}/scoreboard").get_json()
    assert [seat["winner"] for seat in board["seats"]] == [False, True, False]

    harvest = {"type": "harvest", "seat": 1, "field": 2}  # a harvest the table forgot
    answer = command(
        client,
        game,
        game.host(),
        type="correct",
        changes=[{"entry": 625, "action": "insert", "command": harvest}],
    )
    assert answer.status_code == 200, answer.get_json()

    after = client.get(
        f"{game.url}/scoreboard", query_string={"after_position": answer.get_json()["position"]}
    ).get_json()
    assert [seat["winner"] for seat in after["seats"]] == [False, False, True]
    assert [seat["coins"] for seat in after["seats"]] == [12, 21, 22]
    standings = {
        (row["name"], row["wins"]) for row in client.get("/api/leaderboard").get_json()["standings"]
    }
    assert {("Ben", 0), ("Cleo", 1)} <= standings
    assert position < answer.get_json()["version"]
    numbers = client.get(f"{game.url}/stats").get_json()
    app = web.extensions["bohnanza"].get().app
    assert numbers == insights(app.facts(uuid.UUID(game.id)), PUBLIC_VIEWER).to_dict()
    assert [seat["harvests"] for seat in numbers["seats"]] == [
        before["harvests"] + (seat == 1) for seat, before in enumerate(board["seats"])
    ]


# --- records --------------------------------------------------------------------------------------


def test_a_corrected_game_with_unknown_hands_round_trips_through_its_record(
    web: Flask, client: FlaskClient
) -> None:
    facts, commands = bot_game_unseen(seed=2)
    game = create_game(client, mode="tabletop", hands="unknown", start_seat=facts[0].start_seat)
    play(client, game, commands[:40])
    assert command(client, game, game.host(), type="undo").status_code == 200
    play(client, game, commands[39:])
    record = client.get(f"{game.url}/record").get_json()

    assert record["format"] == "bohnanza-record/2"
    assert record["header"]["hands"] == "unknown"
    assert any(c["type"] == "correct" for c in record["commands"])
    imported = client.post("/api/records", json=record)
    assert imported.status_code == 201, imported.get_json()
    app = web.extensions["bohnanza"].get().app
    assert app.facts(uuid.UUID(imported.get_json()["game_id"])) == app.facts(uuid.UUID(game.id))
    report = client.post("/api/records/verification", json={"record": record}).get_json()
    assert report["verdict"] == "legal"
    assert report["unseen_cards"] > 0
    assert any(
        "nobody saw" in note and "an assignment of beans to them exists and was checked" in note
        for note in report["notes"]
    )
