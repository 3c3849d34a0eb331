"""Replays over HTTP: steps, the table at a step for each viewer, jumps, annotations and forks."""

from __future__ import annotations

import random
from uuid import UUID

import pytest
from flask import Flask
from flask.testing import FlaskClient

from domain.bots import BOTS, Table, play_stored
from domain.rules import events as ev
from replays import annotations

from .support import CreatedGame, assert_envelope, create_game


def finish(web: Flask, game: CreatedGame) -> list[ev.Event]:
    """Play the game to its end with greedy bots, straight through the application."""
    app = web.extensions["bohnanza"].get().app
    table = Table([BOTS["greedy"]() for _ in range(3)], random.Random(7))
    assert play_stored(app, UUID(game.id), table).is_over
    return app.facts(UUID(game.id))


@pytest.fixture
def finished(web: Flask, client: FlaskClient) -> tuple[CreatedGame, list[ev.Event]]:
    game = create_game(client)
    return game, finish(web, game)


def first_step(facts: list[ev.Event], kind: type, **match: object) -> int:
    for position, fact in enumerate(facts, start=1):
        if isinstance(fact, kind) and all(getattr(fact, k) == v for k, v in match.items()):
            return position
    raise LookupError(kind)


# --- steps -----------------------------------------------------------------------------------


def test_the_step_list_has_one_public_line_per_fact(client, finished):
    game, facts = finished

    steps = client.get(f"{game.url}/steps").get_json()

    assert [step["position"] for step in steps["steps"]] == list(range(1, len(facts) + 1))
    assert steps["over"] is True
    drawn = [s["summary"] for s in steps["steps"] if s["kind"] == "CardDrawn"]
    assert all(line.endswith("draws a card") for line in drawn)


def test_a_seat_sees_its_own_hand_at_a_past_step_and_no_other(client, finished):
    game, facts = finished
    position = first_step(facts, ev.CardDrawn, seat=1)

    detail = client.get(f"{game.url}/steps/{position}", headers=game.seat(1)).get_json()

    assert detail["summary"].startswith(f"T{detail['step']['turn']} Ben draws ")
    assert "a card" not in detail["summary"]
    hands = [seat["hand"] for seat in detail["view"]["seats"]]
    assert hands[1] is not None
    assert hands[0] is None
    assert hands[2] is None
    assert detail["event"]["payload"]["bean"] != "?"


def test_the_public_sees_a_drawn_card_as_unknown(client, finished):
    game, facts = finished
    position = first_step(facts, ev.CardDrawn, seat=1)

    detail = client.get(f"{game.url}/steps/{position}").get_json()

    assert detail["event"]["payload"]["bean"] == "?"
    assert all(seat["hand"] is None for seat in detail["view"]["seats"])


def test_a_step_reports_what_changed_for_the_viewer(client, finished):
    game, facts = finished
    position = first_step(facts, ev.FieldHarvested, final=False)

    detail = client.get(f"{game.url}/steps/{position}").get_json()

    paths = {change["path"] for change in detail["changes"]}
    assert any(path.startswith("/seats/") and "/fields/" in path for path in paths)


def test_everyone_s_hands_are_shown_to_an_auditor_only_once_the_game_is_over(client, web):
    game = create_game(client)

    running = client.get(f"{game.url}/steps/2?perspective=auditor")
    assert_envelope(running, 403, "forbidden")
    finish(web, game)
    over = client.get(f"{game.url}/steps/2?perspective=auditor").get_json()
    assert all(seat["hand"] for seat in over["view"]["seats"])


def test_a_seat_may_replay_its_own_views_while_the_game_runs(client, game):
    detail = client.get(f"{game.url}/steps/2", headers=game.seat(0))

    assert detail.status_code == 200
    assert detail.get_json()["view"]["seats"][0]["hand"]


def test_a_step_outside_the_record_is_not_found(client, game):
    assert_envelope(client.get(f"{game.url}/steps/9999"), 404, "not_found")


@pytest.mark.parametrize(
    ("query", "expected"),
    [
        ("turn=3", lambda facts: first_step(facts, ev.TurnEnded, turn=2) + 1),
        ("kind=FieldHarvested", lambda facts: first_step(facts, ev.FieldHarvested)),
        ("kind=field-harvested&from=1", lambda facts: first_step(facts, ev.FieldHarvested)),
    ],
)
def test_jumps_find_a_turn_or_the_next_fact_of_a_kind(client, finished, query, expected):
    game, facts = finished

    answer = client.get(f"{game.url}/jump?{query}").get_json()

    assert answer["position"] == expected(facts)


def test_jumping_back_finds_the_previous_fact_of_a_kind(client, finished):
    game, facts = finished
    last = max(i for i, f in enumerate(facts, start=1) if isinstance(f, ev.TradeAccepted))

    answer = client.get(f"{game.url}/jump?kind=TradeAccepted&direction=previous").get_json()

    assert answer["position"] == last


@pytest.mark.parametrize(
    ("query", "status", "code"),
    [
        ("kind=Teleported", 422, "invalid_input"),
        ("turn=999", 404, "not_found"),
        ("", 422, "validation_error"),
    ],
)
def test_a_jump_that_cannot_be_made_is_refused(client, finished, query, status, code):
    game, _ = finished

    assert_envelope(client.get(f"{game.url}/jump?{query}"), status, code)


def test_an_unknown_kind_to_jump_to_is_named_under_the_query(client, finished):
    game, _ = finished

    body = assert_envelope(client.get(f"{game.url}/jump?kind=Teleported"), 422, "invalid_input")

    assert list(body["errors"]) == ["query"]
    assert "no kind of fact is called 'Teleported'" in body["errors"]["query"]["kind"][0]


def test_the_coin_timeline_ends_with_the_final_scores(client, finished):
    game, facts = finished

    timeline = client.get(f"{game.url}/timeline").get_json()

    assert timeline["seats"] == ["Ana", "Ben", "Cleo"]
    assert timeline["points"][-1]["coins"] == facts[-1].scores


# --- annotations -------------------------------------------------------------------------------


def test_a_seat_s_table_note_is_read_by_the_seats_but_not_the_public(client, finished):
    game, facts = finished
    step = first_step(facts, ev.TradingEnded)
    note = {"step": step, "text": "should have kept it", "glyph": "?", "visibility": "table"}

    added = client.post(f"{game.url}/annotations", json=note, headers=game.seat(0))

    assert added.status_code == 201
    assert added.get_json()["author"] == {"role": "seat", "name": "Ana", "seat": 0}
    assert client.get(f"{game.url}/annotations", headers=game.seat(2)).get_json()["notes"]
    assert client.get(f"{game.url}/annotations").get_json()["notes"] == []
    detail = client.get(f"{game.url}/steps/{step}", headers=game.seat(1)).get_json()
    assert [n["text"] for n in detail["notes"]] == ["should have kept it"]


def test_only_its_author_edits_or_deletes_a_note_and_edits_keep_history(client, finished):
    game, _ = finished
    client.post(f"{game.url}/annotations", json={"step": 3, "text": "first"}, headers=game.seat(0))

    assert_envelope(
        client.patch(f"{game.url}/annotations/1", json={"text": "mine"}, headers=game.seat(1)),
        403,
        "forbidden",
    )
    edited = client.patch(
        f"{game.url}/annotations/1", json={"text": "second"}, headers=game.seat(0)
    )
    assert edited.get_json()["history"][0]["text"] == "first"
    assert client.delete(f"{game.url}/annotations/1", headers=game.seat(0)).status_code == 204
    assert client.get(f"{game.url}/annotations").get_json()["notes"] == []


def test_a_public_note_on_a_seat_s_own_draw_is_in_everyone_s_export_but_not_their_list(
    client, finished
):
    game, facts = finished
    step = first_step(facts, ev.CardDrawn, seat=0)
    for visibility in ("public", "table"):
        note = {"step": step, "text": visibility, "visibility": visibility}
        client.post(f"{game.url}/annotations", json=note, headers=game.seat(0))

    exported = client.get(f"{game.url}/record").get_json()["annotations"]

    assert [n["text"] for n in exported] == ["public"]
    assert client.get(f"{game.url}/annotations").get_json()["notes"] == []
    by_a_seat = client.get(f"{game.url}/record", headers=game.seat(1)).get_json()
    assert [n["text"] for n in by_a_seat["annotations"]] == ["public", "table"]


def test_the_auditors_perspective_reads_the_public_notes_only(client, finished):
    game, _ = finished
    for visibility in ("author", "table", "public"):
        note = {"step": 3, "text": visibility, "visibility": visibility}
        client.post(f"{game.url}/annotations", json=note, headers=game.seat(0))

    audited = client.get(f"{game.url}/annotations?perspective=auditor").get_json()["notes"]

    assert [n["text"] for n in audited] == ["public"]


def test_an_edit_that_changes_nothing_is_refused(client, finished):
    game, _ = finished
    client.post(f"{game.url}/annotations", json={"step": 3, "text": "first"}, headers=game.seat(0))

    answer = client.patch(f"{game.url}/annotations/1", json={}, headers=game.seat(0))

    assert_envelope(answer, 422, "invalid_input")
    notes = client.get(f"{game.url}/annotations", headers=game.seat(0)).get_json()["notes"]
    assert notes[0]["history"] == []


def test_a_note_saved_while_another_was_being_added_is_added_after_it(
    client, web, finished, monkeypatch
):
    game, _ = finished
    app = web.extensions["bohnanza"].get().app
    before_the_other = annotations._load(app, UUID(game.id))
    client.post(f"{game.url}/annotations", json={"step": 3, "text": "one"}, headers=game.seat(0))
    assert before_the_other is None  # no note yet: the next add opens the game's notes again
    stale = [before_the_other]
    real_load = annotations._load
    monkeypatch.setattr(annotations, "_load", lambda *a: stale.pop() if stale else real_load(*a))

    added = client.post(
        f"{game.url}/annotations", json={"step": 4, "text": "two"}, headers=game.seat(1)
    )

    assert added.status_code == 201, added.get_json()
    notes = client.get(f"{game.url}/annotations?perspective=auditor").get_json()["notes"]
    assert [(n["id"], n["text"]) for n in notes] == [(1, "one"), (2, "two")]


def test_a_guest_may_leave_a_public_note_on_a_finished_game_but_not_a_running_one(client, web):
    game = create_game(client)
    note = {"step": 2, "text": "nice deal", "author": "Kibitzer"}

    assert_envelope(client.post(f"{game.url}/annotations", json=note), 403, "forbidden")
    finish(web, game)
    added = client.post(f"{game.url}/annotations", json=note)
    assert added.get_json()["author"]["role"] == "guest"


@pytest.mark.parametrize("path", ["annotations/0", "annotations/00", "steps/0", "steps/007"])
@pytest.mark.parametrize("method", ["GET", "PATCH", "DELETE"])
def test_a_step_or_note_number_below_1_or_with_leading_zeros_is_a_404_whatever_the_method(
    client, finished, path, method
):
    game, _ = finished

    answer = client.open(f"{game.url}/{path}", method=method, json={"text": "x"})

    assert_envelope(answer, 404, "not_found")


def test_a_note_without_a_token_or_a_guest_name_is_unauthorized(client, finished):
    game, _ = finished

    answer = client.post(f"{game.url}/annotations", json={"step": 2, "text": "who am I"})

    assert_envelope(answer, 401, "unauthorized")


def test_a_note_on_a_step_that_does_not_exist_is_refused(client, finished):
    game, facts = finished

    answer = client.post(
        f"{game.url}/annotations", json={"step": len(facts) + 1, "text": "x"}, headers=game.seat(0)
    )

    assert_envelope(answer, 422, "invalid_input")


# --- forks ------------------------------------------------------------------------------------


def test_a_game_still_being_played_cannot_be_forked(client, game):
    assert_envelope(client.post(f"{game.url}/forks", json={"step": 2}), 403, "forbidden")


def test_a_finished_game_forks_into_a_tabletop_sandbox_with_its_own_tokens(client, finished):
    game, _ = finished

    fork = client.post(f"{game.url}/forks", json={"step": 100}).get_json()

    assert fork["parent"] == game.id
    assert fork["step"] <= 100
    view = client.get(
        f"/api/games/{fork['game_id']}/view",
        headers={"Authorization": f"Bearer {fork['host_token']}"},
    ).get_json()
    assert view["mode"] == "tabletop"
    assert all(seat["hand"] is not None for seat in view["seats"])
    lineage = client.get(f"{game.url}/forks").get_json()
    assert lineage == {
        "parent": None,
        "forks": [{"game_id": fork["game_id"], "step": fork["step"]}],
    }
    comparison = client.get(f"/api/games/{fork['game_id']}/comparison").get_json()
    assert comparison["parent"]["status"] == "ended"
    assert comparison["same_outcome"] is None  # the fork has not ended yet


def test_a_fork_is_listed_as_a_sandbox_and_the_leaderboard_does_not_count_it(client, finished):
    game, facts = finished
    standings = client.get("/api/leaderboard").get_json()["standings"]

    fork = client.post(f"{game.url}/forks", json={"step": len(facts)}).get_json()

    position = client.get("/api/health").get_json()["position"]
    listed = client.get("/api/games", query_string={"after_position": position}).get_json()
    sandbox = {item["game_id"]: item["sandbox"] for item in listed["games"]}
    assert sandbox == {game.id: False, fork["game_id"]: True}
    assert client.get(f"/api/games/{fork['game_id']}").get_json()["status"] == "ended"
    assert client.get(f"/api/games/{fork['game_id']}").get_json()["sandbox"] is True
    assert client.get("/api/leaderboard").get_json()["standings"] == standings


def test_forking_with_a_token_that_is_not_the_games_is_a_401(client, finished):
    game, _ = finished

    answer = client.post(
        f"{game.url}/forks", json={"step": 5}, headers={"Authorization": "Bearer bzt_not-a-token"}
    )

    assert_envelope(answer, 401, "unauthorized")


def test_changing_a_note_without_a_token_is_a_401_asking_for_the_authors(client, finished):
    game, _ = finished
    client.post(f"{game.url}/annotations", json={"step": 3, "text": "nice", "author": "Kib"})

    answer = client.patch(f"{game.url}/annotations/1", json={"text": "mine"})

    body = assert_envelope(answer, 401, "unauthorized")
    assert "guest" not in body["message"]


def test_a_game_that_is_not_a_fork_has_nothing_to_compare(client, finished):
    game, _ = finished

    assert_envelope(client.get(f"{game.url}/comparison"), 422, "invalid_input")
