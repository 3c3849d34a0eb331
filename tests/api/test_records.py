"""Records over HTTP: export, import (an import is an audit), verification and audit."""

from __future__ import annotations

import copy
import random
from uuid import UUID

import pytest
from flask import Flask
from flask.testing import FlaskClient

from domain.bots import BOTS, Table, play_stored, simulate_under
from replays.record import export_record
from tests.builders import house_rules
from tests.played import finish_stored

from .support import assert_envelope, create_game, documented_schema


def finished_game(web: Flask, client: FlaskClient, **body: object) -> str:
    game = create_game(client, seats=["Ana", "Ben", "Cleo", "Dan"], **body)
    app = web.extensions["bohnanza"].get().app
    finish_stored(app, UUID(game.id), seed=3)
    return game.id


@pytest.fixture
def record(web: Flask, client: FlaskClient) -> dict:
    game_id = finished_game(web, client, ruleset="amigo")
    return client.get(f"/api/games/{game_id}/record").get_json()


def test_a_finished_game_exports_as_a_versioned_record(record):
    assert record["format"] == "bohnanza-record/1"
    assert record["header"]["ruleset"]["preset"] == "amigo"
    assert record["commands"][0]["type"] == "deal"
    assert record["result"]["winners"]


@pytest.mark.parametrize("query", [{"place": "Bar\x07"}, {"tags": ["ok", "x\u202e"]}])
def test_an_export_s_place_and_tags_are_printable_text(web, client, query):
    game_id = finished_game(web, client)

    response = client.get(f"/api/games/{game_id}/record", query_string=query)

    body = assert_envelope(response, 422, "validation_error")
    assert list(body["errors"]["query"]) == list(query)


def test_an_exported_record_is_what_the_document_says_the_record_body_is(client, record):
    documented = documented_schema(client, "RecordDocument")

    assert documented.is_valid(record)
    assert not documented.is_valid({**record, "format": "bohnanza-record/9"})
    assert not documented.is_valid({**record, "commands": [{"type": "draw", "hands": []}]})
    assert not documented.is_valid({**record, "header": {**record["header"], "seats": ["A\x07"]}})
    assert not documented.is_valid({**record, "chance": None})  # a digital game's record


def test_a_running_game_cannot_be_exported(client):
    game = create_game(client)

    assert_envelope(client.get(f"{game.url}/record"), 403, "forbidden")


def test_importing_a_legal_record_makes_a_new_game_with_the_same_events(client, web, record):
    imported = client.post("/api/records", json=record)

    assert imported.status_code == 201
    body = imported.get_json()
    again = client.get(f"/api/games/{body['game_id']}/record").get_json()
    assert again["commands"] == record["commands"]
    assert again["result"] == record["result"]
    assert len(body["seats"]) == 4


@pytest.mark.parametrize("lookalike", ["ANA", "\u0410na"], ids=["case", "cyrillic-a"])
def test_a_record_whose_seats_people_cannot_tell_apart_is_not_imported(client, record, lookalike):
    record["header"]["seats"][2] = lookalike

    response = client.post("/api/records", json=record)

    body = assert_envelope(response, 422, "invalid_record")
    (message,) = body["errors"]["json"]["$.header.seats[2]"]
    assert message.startswith(f"seat 2's name {lookalike!r}")
    assert "seat 0's 'Ana'" in message


def test_a_record_whose_seats_look_alike_is_still_verified(client, record):
    record["header"]["seats"][2] = "\u0410na"

    response = client.post("/api/records/verification", json={"record": record})

    assert response.status_code == 200, response.get_json()
    assert response.get_json()["verdict"] == "legal"


def test_a_record_imported_again_is_a_409_naming_its_game_and_the_first_tokens_still_work(
    client, record
):
    first = client.post("/api/records", json=record).get_json()
    listed = client.get("/api/games").get_json()["total"]

    again = client.post("/api/records", json=record)

    body = assert_envelope(again, 409, "already_imported")
    assert body["game_id"] == first["game_id"]
    assert client.get("/api/games").get_json()["total"] == listed
    host = {"Authorization": f"Bearer {first['host_token']}"}
    view = client.get(f"/api/games/{first['game_id']}/view", headers=host)
    assert view.get_json()["viewer"]["kind"] == "host"


def test_a_game_s_own_record_imported_is_listed_as_a_copy_and_counted_once(client, web):
    game_id = finished_game(web, client)
    standings = client.get("/api/leaderboard").get_json()["standings"]
    record = client.get(f"/api/games/{game_id}/record").get_json()

    copy = client.post("/api/records", json=record).get_json()

    position = client.get("/api/health").get_json()["position"]
    listed = client.get("/api/games", query_string={"after_position": position})
    by_id = {game["game_id"]: game for game in listed.get_json()["games"]}
    assert by_id[copy["game_id"]]["duplicate_of"] == game_id
    assert by_id[game_id]["duplicate_of"] is None
    assert client.get("/api/leaderboard").get_json()["standings"] == standings


def test_an_illegal_record_is_refused_at_its_first_illegal_step_and_nothing_is_stored(
    client, record
):
    broken = copy.deepcopy(record)
    broken["commands"][5] = {"type": "harvest", "seat": 2, "field": 0}
    before = client.get("/api/games").get_json()["games"]

    refused = client.post("/api/records", json=broken)

    body = assert_envelope(refused, 422, "illegal_record")
    assert body["first_illegal_step"]["position"] == 5
    assert body["first_illegal_step"]["rule"] == "RULES §8.2"
    assert "harvest" in body["first_illegal_step"]["sentence"]
    assert client.get("/api/games").get_json()["games"] == before


def test_a_document_that_is_not_a_record_is_refused_with_its_path(client):
    refused = client.post("/api/records", json={"format": "pgn", "header": {}, "commands": []})

    body = assert_envelope(refused, 422, "invalid_record")
    assert "$.format" in body["errors"]["json"]


def test_a_record_verified_under_another_ruleset_reports_the_outcome_it_gives(client, record):
    report = client.post(
        "/api/records/verification", json={"record": record, "ruleset": "amigo-1997"}
    ).get_json()

    assert report["verdict"] == "legal"
    assert report["ruleset"]["preset"] == "amigo-1997"
    assert report["result"]["scores"] == record["result"]["scores"]


def test_a_stored_game_verified_under_a_ruleset_with_another_deck_names_the_first_illegal_step(
    client, web
):
    game_id = finished_game(web, client, ruleset="amigo")

    report = client.post(
        f"/api/games/{game_id}/verification", json={"ruleset": "rio-grande"}
    ).get_json()

    assert report["verdict"] == "illegal"
    assert report["first_illegal_step"]["rule"].startswith("RULES §")
    assert report["first_illegal_step"]["table"]


def test_a_stored_game_passes_its_audit(client, web):
    game_id = finished_game(web, client)

    assert client.get(f"/api/games/{game_id}/audit").get_json() == {"sound": True, "problems": []}


def test_exported_notes_come_back_with_an_import(client, web):
    game_id = finished_game(web, client)
    game_url = f"/api/games/{game_id}"
    client.post(
        f"{game_url}/annotations", json={"step": 4, "text": "bold", "glyph": "!", "author": "Kib"}
    )
    record = client.get(f"{game_url}/record").get_json()

    imported = client.post("/api/records", json=record).get_json()

    notes = client.get(f"/api/games/{imported['game_id']}/annotations").get_json()["notes"]
    assert [(n["step"], n["text"], n["glyph"]) for n in notes] == [(4, "bold", "!")]


@pytest.mark.parametrize(
    "author",
    [
        {"role": "seat", "name": "Ana", "seat": 5},
        {"role": "seat", "name": "Ana"},
        {"role": "host", "name": "Hal", "seat": 0},
        {"role": "guest", "name": "Kib\u0000"},
    ],
    ids=["seat-not-in-the-game", "seat-without-a-seat", "host-with-a-seat", "control-character"],
)
def test_a_record_with_a_note_no_one_could_have_written_is_refused_and_nothing_is_stored(
    client, record, author
):
    broken = {
        **record,
        "annotations": [
            {"step": 3, "author": author, "text": "hm", "glyph": None, "visibility": "public"}
        ],
    }
    before = client.get("/api/games").get_json()["games"]

    response = client.post("/api/records", json=broken)

    body = assert_envelope(response, 422, "invalid_record")
    [path] = body["errors"]["json"]
    assert path.startswith("$.annotations[0]")
    assert client.get("/api/games").get_json()["games"] == before


def test_verifying_a_record_whose_ruleset_counts_a_billion_beans_is_a_422(client, record):
    ruleset = {**record["header"]["ruleset"], "counts": {**record["header"]["ruleset"]["counts"]}}
    ruleset["counts"]["red"] = 1_000_000_000
    huge = {**record, "header": {**record["header"], "ruleset": ruleset}}

    response = client.post("/api/records/verification", json={"record": huge})

    body = assert_envelope(response, 422, "invalid_record")
    assert list(body["errors"]["json"]) == ["$.header.ruleset.counts.red"]


def _a_deck_of_one_coffee(record: dict) -> dict:
    """The record with a resolved ruleset whose deck is a single Coffee, and that deck order."""
    doctored = copy.deepcopy(record)
    doctored["header"]["ruleset"].update(
        beans=["coffee"], counts={"coffee": 1}, meters={"coffee": [4, 7, 10, 12]}
    )
    doctored["chance"]["deck"] = ["coffee"]
    return doctored


@pytest.mark.parametrize(
    ("url", "body"),
    [
        pytest.param("/api/records", lambda record: record, id="import"),
        pytest.param(
            "/api/records/verification", lambda record: {"record": record}, id="verification"
        ),
    ],
)
def test_a_record_whose_deal_needs_more_cards_than_its_deck_is_a_422_naming_the_deal(
    client, record, url, body
):
    response = client.post(url, json=body(_a_deck_of_one_coffee(record)))

    envelope = assert_envelope(response, 422, "invalid_record")
    assert envelope["errors"]["json"] == {
        "$.header.ruleset.deal": [
            "the deal needs 20 cards (5 + 5 + 5 + 5), but the deck holds only 1 (RULES §3.4)"
        ]
    }
    assert client.get("/api/games").get_json()["total"] == 1  # the exported game alone


def _house_rules_record() -> dict:
    """A game played under rio-grande with every beanometer 1-2-3-4, still named rio-grande."""
    ruleset = house_rules(lambda r: {"meters": dict.fromkeys(r.beans, (1, 2, 3, 4))})
    return export_record(simulate_under(ruleset, seed=5))


def test_a_game_of_rules_of_its_own_under_a_preset_s_name_is_refused_and_counted_nowhere(client):
    standings = client.get("/api/leaderboard").get_json()["standings"]

    response = client.post("/api/records", json=_house_rules_record())

    envelope = assert_envelope(response, 422, "invalid_record")
    [message] = envelope["errors"]["json"]["$.header.ruleset"]
    assert "differs from what rio-grande for 4 players resolves to in: meters;" in message
    assert client.get("/api/games").get_json()["total"] == 0
    assert client.get("/api/leaderboard").get_json()["standings"] == standings


def test_a_game_of_rules_of_its_own_under_a_preset_s_name_verifies_under_them_with_a_note(
    client,
):
    response = client.post("/api/records/verification", json={"record": _house_rules_record()})

    report = response.get_json()
    assert response.status_code == 200
    assert report["verdict"] == "legal"
    assert report["notes"] == [
        "the record's ruleset differs from today's rio-grande preset in: meters; the record's "
        "is used, an import refuses it"
    ]


def test_a_what_if_changes_the_options_it_names_and_keeps_the_game_s_others(web, client):
    game = create_game(client, seats=["Ana", "Ben"], seed=5, options={"duel_start_fields": 3})
    app = web.extensions["bohnanza"].get().app
    play_stored(app, UUID(game.id), Table([BOTS["greedy"]() for _ in range(2)], random.Random(5)))

    asked = client.post(f"{game.url}/verification", json={"options": {"tie_break": ["shared"]}})

    report = asked.get_json()
    assert asked.status_code == 200, report
    assert report["verdict"] == "legal"
    assert report["ruleset"]["options"] == {"duel_start_fields": 3, "tie_break": ["shared"]}
