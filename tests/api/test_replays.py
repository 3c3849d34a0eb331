"""Replays over HTTP: steps, the table at a step for each viewer, jumps, annotations and forks."""

from __future__ import annotations

import random
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any
from uuid import UUID

import pytest
from flask import Flask
from flask.testing import FlaskClient

from domain.bots import BOTS, Table, play_stored
from domain.rules import events as ev
from domain.rules.evolve import fold
from replays import annotations
from tests.marks import slow_beyond
from tests.played import finish_stored

from .conftest import web_app
from .support import CreatedGame, assert_envelope, bearer, create_game, documented_schema

AUDITOR_SECRET = "the-auditor-s-secret-for-tests"


def finish(web: Flask, game: CreatedGame) -> list[ev.Event]:
    """The game finished by greedy bots, stored through the application (tests/played.py)."""
    app = web.extensions["bohnanza"].get().app
    assert finish_stored(app, UUID(game.id), seed=7).is_over
    return app.facts(UUID(game.id))


@pytest.fixture
def finished(web: Flask, client: FlaskClient) -> tuple[CreatedGame, list[ev.Event]]:
    game = create_game(client)
    return game, finish(web, game)


def play_until_coins(web: Flask, game: CreatedGame, coins: int) -> list[int]:
    """Play the game with greedy bots until its seats hold `coins` coins between them (it still
    running); each seat's coins."""
    app = web.extensions["bohnanza"].get().app
    table = Table([BOTS["greedy"]() for _ in range(3)], random.Random(7))
    state = app.state(UUID(game.id))
    while sum(len(player.coins) for player in state.players) < coins:
        state = fold(app.execute(UUID(game.id), table.next_command(state)).facts, state)
    assert not state.is_over
    return [len(player.coins) for player in state.players]


def added_note(client: FlaskClient, game: CreatedGame, headers: dict[str, str], **note: Any) -> str:
    """Add a note through the API; its URL."""
    added = client.post(f"{game.url}/annotations", json=note, headers=headers)
    assert added.status_code == 201, added.get_json()
    return f"{game.url}/annotations/{added.get_json()['id']}"


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


def test_a_seats_step_list_says_what_its_headlines_say(client, finished):
    game, facts = finished
    position = first_step(facts, ev.CardDrawn, seat=1)

    bens = client.get(f"{game.url}/steps", headers=game.seat(1)).get_json()["steps"]
    detail = client.get(f"{game.url}/steps/{position}", headers=game.seat(1)).get_json()

    assert bens[position - 1]["summary"] == detail["summary"]
    assert "a card" not in detail["summary"]
    anas_draw = first_step(facts, ev.CardDrawn, seat=0)
    assert bens[anas_draw - 1]["summary"].endswith("Ana draws a card")


def test_the_auditors_step_list_names_every_card_once_the_game_is_over(client, finished):
    game, _ = finished

    steps = client.get(f"{game.url}/steps?perspective=auditor").get_json()["steps"]

    drawn = [step["summary"] for step in steps if step["kind"] == "CardDrawn"]
    assert drawn
    assert not [line for line in drawn if line.endswith("a card")]


def test_the_auditors_step_list_is_refused_while_the_game_runs(client, game):
    assert_envelope(client.get(f"{game.url}/steps?perspective=auditor"), 403, "forbidden")


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
        ("kind=Teleported", 422, "validation_error"),
        ("turn=999", 404, "not_found"),
        ("", 422, "validation_error"),
    ],
)
def test_a_jump_that_cannot_be_made_is_refused(client, finished, query, status, code):
    game, _ = finished

    assert_envelope(client.get(f"{game.url}/jump?{query}"), status, code)


def test_an_unknown_kind_to_jump_to_is_named_under_the_query(client, finished):
    game, _ = finished

    body = assert_envelope(client.get(f"{game.url}/jump?kind=Teleported"), 422, "validation_error")

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
    note = added_note(client, game, game.seat(0), step=3, text="first")

    assert_envelope(
        client.patch(note, json={"text": "mine"}, headers=game.seat(1)), 403, "forbidden"
    )
    edited = client.patch(note, json={"text": "second"}, headers=game.seat(0))
    assert edited.get_json()["history"][0]["text"] == "first"
    assert client.delete(note, headers=game.seat(0)).status_code == 204
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


@pytest.mark.parametrize("method", ["PATCH", "DELETE"])
def test_another_seat_s_private_note_is_answered_as_a_note_that_does_not_exist(
    client, finished, method
):
    game, _ = finished
    change = {"method": method, "json": {"text": "mine"}, "headers": game.seat(1)}
    note = added_note(client, game, game.seat(0), step=3, text="bluff Ben", visibility="author")
    number = note.rsplit("/", 1)[1]

    hidden = client.open(note, **change)
    missing = client.open(f"{game.url}/annotations/1", **change)

    body = assert_envelope(hidden, 404, "not_found")
    missing_body = assert_envelope(missing, 404, "not_found")
    assert body == {**missing_body, "message": f"no note {number} on game {game.id}"}
    assert "Ana" not in body["message"]


@pytest.mark.parametrize("method", ["PATCH", "DELETE"])
def test_the_host_is_not_told_of_a_seat_s_private_note(client, finished, method):
    game, _ = finished
    note = added_note(
        client, game, game.seat(0), step=3, text="bluff the host", visibility="author"
    )

    answer = client.open(note, method=method, json={"text": "x"}, headers=game.host())

    assert "Ana" not in assert_envelope(answer, 404, "not_found")["message"]


@pytest.mark.parametrize("method", ["PATCH", "DELETE"])
def test_a_public_note_on_a_step_hidden_from_the_caller_is_answered_as_a_missing_one(
    client, finished, method
):
    game, facts = finished
    step = first_step(facts, ev.CardDrawn, seat=0)
    note = added_note(client, game, game.seat(0), step=step, text="lucky draw")
    assert client.get(f"{game.url}/annotations", headers=game.seat(1)).get_json()["notes"] == []

    answer = client.open(note, method=method, json={"text": "x"}, headers=game.seat(1))

    assert_envelope(answer, 404, "not_found")


@pytest.mark.parametrize("method", ["PATCH", "DELETE"])
def test_a_note_the_caller_may_read_but_did_not_write_is_still_forbidden(client, finished, method):
    game, _ = finished
    note = added_note(client, game, game.seat(0), step=3, text="for the table", visibility="table")

    answer = client.open(note, method=method, json={"text": "x"}, headers=game.seat(1))

    body = assert_envelope(answer, 403, "forbidden")
    number = note.rsplit("/", 1)[1]
    assert body["message"] == f"note {number} is Ana's; only its author may change it"


def test_a_private_note_stays_its_author_s_to_change(client, finished):
    game, _ = finished
    note = added_note(client, game, game.seat(0), step=3, text="bluff Ben", visibility="author")

    edited = client.patch(note, json={"text": "x"}, headers=game.seat(0))

    assert edited.status_code == 200
    assert client.delete(note, headers=game.seat(0)).status_code == 204


def test_asking_for_one_note_by_number_answers_alike_for_a_hidden_and_a_missing_note(
    client, finished
):
    game, _ = finished
    note = added_note(client, game, game.seat(0), step=3, text="bluff Ben", visibility="author")

    hidden = client.get(note, headers=game.seat(1))
    missing = client.get(f"{game.url}/annotations/1", headers=game.seat(1))

    assert_envelope(hidden, 405, "method_not_allowed")
    assert hidden.get_json() == missing.get_json()


def test_a_reader_s_note_number_tells_it_nothing_of_notes_it_cannot_read(client, finished):
    """The docs promise (docs/reference/replays-and-records.md) that a note the caller may not read does not exist to it."""
    game, _ = finished
    for _ in range(2):
        added_note(client, game, game.seat(0), step=3, text="bluff Ben", visibility="author")

    mine = client.post(
        f"{game.url}/annotations", json={"step": 3, "text": "hm"}, headers=game.seat(1)
    )

    assert mine.get_json()["id"] not in (1, 2, 3)
    assert client.get(f"/api/games/{game.id}/annotations", headers=game.seat(1)).get_json()[
        "notes"
    ] == [mine.get_json()]


def test_the_auditors_perspective_reads_the_public_notes_only(client, finished):
    game, _ = finished
    for visibility in ("author", "table", "public"):
        note = {"step": 3, "text": visibility, "visibility": visibility}
        client.post(f"{game.url}/annotations", json=note, headers=game.seat(0))

    audited = client.get(f"{game.url}/annotations?perspective=auditor").get_json()["notes"]

    assert [n["text"] for n in audited] == ["public"]


def test_the_document_says_an_edit_names_something_to_change(client):
    document = client.get("/openapi.json").get_json()

    assert document["components"]["schemas"]["NoteEdit"]["minProperties"] == 1


def test_an_edit_that_changes_nothing_is_refused(client, finished):
    game, _ = finished
    note = added_note(client, game, game.seat(0), step=3, text="first")

    answer = client.patch(note, json={}, headers=game.seat(0))

    body = assert_envelope(answer, 422, "validation_error")
    assert "names what to change" in body["errors"]["json"]["_schema"][0]
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
    assert [n["text"] for n in notes] == ["one", "two"]
    assert notes[1]["id"] == added.get_json()["id"] != notes[0]["id"]


def test_a_guest_may_leave_a_public_note_on_a_finished_game_but_not_a_running_one(client, web):
    game = create_game(client)
    note = {"step": 2, "text": "nice deal", "author": "Kibitzer"}

    assert_envelope(client.post(f"{game.url}/annotations", json=note), 403, "forbidden")
    finish(web, game)
    added = client.post(f"{game.url}/annotations", json=note)
    assert added.get_json()["author"]["role"] == "guest"


@pytest.mark.parametrize("path", ["view", "steps/3", "steps", "comparison"])
def test_a_seat_s_perspective_asked_by_name_is_a_422_pointing_to_its_token(client, finished, path):
    game, _ = finished

    answer = client.get(f"{game.url}/{path}", query_string={"perspective": "seat-1"})

    body = assert_envelope(answer, 422, "validation_error")
    assert body["errors"]["query"] == {
        "perspective": [
            "Must be 'auditor' (every card). A seat's view is the one its token opens: send "
            "'Authorization: Bearer <the seat's token>' without a perspective."
        ]
    }


@pytest.mark.parametrize("path", ["annotations/0", "annotations/00", "steps/0", "steps/007"])
@pytest.mark.parametrize("method", ["GET", "PATCH", "DELETE"])
def test_a_step_or_note_number_below_1_or_with_leading_zeros_is_a_404_whatever_the_method(
    client, finished, path, method
):
    game, _ = finished

    answer = client.open(f"{game.url}/{path}", method=method, json={"text": "x"})

    body = assert_envelope(answer, 404, "not_found")
    number = path.split("/")[1]
    assert body["message"] == (
        f"no step {number!r}: steps are counted from 1 (step 1 is the game's start), written "
        "in the digits 0-9 without leading zeros"
        if path.startswith("steps")
        else f"no note {number!r}: a game's notes are counted from 1, written in the digits 0-9 "
        "without leading zeros"
    )


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
    note = added_note(client, game, {}, step=3, text="nice", author="Kib")

    answer = client.patch(note, json={"text": "mine"})

    body = assert_envelope(answer, 401, "unauthorized")
    assert "guest" not in body["message"]


def test_a_game_that_is_not_a_fork_has_no_comparison_a_404(client, finished):
    game, _ = finished

    body = assert_envelope(client.get(f"{game.url}/comparison"), 404, "not_found")
    assert "not a fork" in body["message"]


@dataclass(frozen=True)
class SecretFork:
    """A running game whose ruleset keeps treasuries secret, forked (with the auditor's secret)
    at its last step: both hold `coins`."""

    web: Flask
    client: FlaskClient
    parent: CreatedGame
    fork: dict[str, Any]
    coins: list[int]

    @property
    def url(self) -> str:
        return f"/api/games/{self.fork['game_id']}/comparison"

    def fork_seat(self, seat: int) -> dict[str, str]:
        return bearer(self.fork["seats"][seat]["token"])

    def fork_host(self) -> dict[str, str]:
        return bearer(self.fork["host_token"])


@pytest.fixture
def audited() -> Iterator[Flask]:
    """The web application on an empty store, with an auditor's secret."""
    with web_app("memory://", AUDITOR_TOKEN=AUDITOR_SECRET) as app:
        yield app


@pytest.fixture
def secret_fork(audited: Flask) -> SecretFork:
    client = audited.test_client()
    parent = create_game(client, options={"coin_counts_visible": False})
    coins = play_until_coins(audited, parent, 5)
    step = client.get(parent.url).get_json()["version"]
    fork = client.post(
        f"{parent.url}/forks", json={"step": step}, headers={"X-Auditor-Token": AUDITOR_SECRET}
    )
    assert fork.status_code == 201, fork.get_json()
    return SecretFork(audited, client, parent, fork.get_json(), coins)


def test_a_comparison_without_a_token_hides_the_coins_of_secret_treasuries(secret_fork):
    answer = secret_fork.client.get(secret_fork.url).get_json()

    assert answer["fork"]["scores"] == [None, None, None]
    assert answer["parent"]["scores"] == [None, None, None]
    documented_schema(secret_fork.client, "Comparison").validate(answer)


def test_a_comparison_of_running_games_names_no_winner_and_no_outcome(secret_fork):
    answer = secret_fork.client.get(secret_fork.url).get_json()

    assert (answer["fork"]["winners"], answer["parent"]["winners"]) == (None, None)
    assert (answer["fork"]["decided_by"], answer["parent"]["decided_by"]) == (None, None)
    assert answer["same_outcome"] is None


def test_a_fork_s_seat_sees_its_own_coins_in_the_fork_and_none_in_the_parent(secret_fork):
    answer = secret_fork.client.get(secret_fork.url, headers=secret_fork.fork_seat(1)).get_json()

    assert answer["fork"]["scores"] == [None, secret_fork.coins[1], None]
    assert answer["parent"]["scores"] == [None, None, None]


def test_a_fork_s_host_sees_the_fork_s_coins_as_its_view_shows_them_and_none_of_the_parent(
    secret_fork,
):
    client, headers = secret_fork.client, secret_fork.fork_host()
    view = client.get(f"/api/games/{secret_fork.fork['game_id']}/view", headers=headers)

    answer = client.get(secret_fork.url, headers=headers).get_json()

    assert answer["fork"]["scores"] == [seat["coins"] for seat in view.get_json()["seats"]]
    assert answer["fork"]["scores"] == secret_fork.coins  # a tabletop game's host sees every coin
    assert answer["parent"]["scores"] == [None, None, None]


def test_the_auditor_s_perspective_shows_every_coin_of_both_running_games(secret_fork):
    answer = secret_fork.client.get(
        f"{secret_fork.url}?perspective=auditor", headers={"X-Auditor-Token": AUDITOR_SECRET}
    ).get_json()

    assert answer["fork"]["scores"] == secret_fork.coins
    assert answer["parent"]["scores"] == secret_fork.coins


def test_the_auditor_s_perspective_on_running_games_needs_the_auditor_s_secret(secret_fork):
    answer = secret_fork.client.get(f"{secret_fork.url}?perspective=auditor")

    assert_envelope(answer, 403, "forbidden")


def test_the_auditor_s_secret_alone_shows_what_the_caller_s_view_shows(secret_fork):
    answer = secret_fork.client.get(
        secret_fork.url, headers={"X-Auditor-Token": AUDITOR_SECRET}
    ).get_json()

    assert answer["parent"]["scores"] == [None, None, None]


def test_once_the_parent_has_ended_its_scores_are_everyone_s_as_on_its_scoreboard(secret_fork):
    client = secret_fork.client
    facts = finish(secret_fork.web, secret_fork.parent)
    board = client.get(f"{secret_fork.parent.url}/scoreboard").get_json()

    answer = client.get(secret_fork.url).get_json()

    assert answer["parent"]["scores"] == facts[-1].scores
    assert answer["parent"]["scores"] == [seat["coins"] for seat in board["seats"]]
    assert answer["fork"]["scores"] == [None, None, None]  # the fork still runs
    assert answer["same_outcome"] is None


def test_a_token_of_the_parent_is_no_token_for_its_fork_s_comparison(secret_fork):
    answer = secret_fork.client.get(secret_fork.url, headers=secret_fork.parent.seat(0))

    assert_envelope(answer, 401, "unauthorized")


# --- a fork of a running game holds its parent's hidden cards -----------------------------------


@dataclass(frozen=True)
class EndedFork:
    """A fork, made with the auditor's secret from a game still running, played to its end."""

    web: Flask
    client: FlaskClient
    parent: CreatedGame
    fork: dict[str, Any]

    @property
    def url(self) -> str:
        return f"/api/games/{self.fork['game_id']}"


@pytest.fixture
def ended_fork(audited: Flask) -> EndedFork:
    client = audited.test_client()
    parent = create_game(client)
    play_until_coins(audited, parent, 1)
    step = client.get(parent.url).get_json()["version"]
    made = client.post(
        f"{parent.url}/forks", json={"step": step}, headers={"X-Auditor-Token": AUDITOR_SECRET}
    )
    assert made.status_code == 201, made.get_json()
    fork = made.get_json()
    app = audited.extensions["bohnanza"].get().app
    table = Table([BOTS["greedy"]() for _ in range(3)], random.Random(3))
    assert play_stored(app, UUID(fork["game_id"]), table).is_over  # the host names the cards
    return EndedFork(audited, client, parent, fork)


EVERY_CARD = [
    ("GET", "/steps/{step}?perspective=auditor"),
    ("GET", "/view?perspective=auditor"),
    ("GET", "/timeline?perspective=auditor"),
    ("GET", "/annotations?perspective=auditor"),
    ("GET", "/comparison?perspective=auditor"),
    ("GET", "/record"),
    ("GET", "/audit"),
    ("POST", "/verification"),
    ("POST", "/forks"),
]
"""Every request that shows every card of a game once it is over (or forks it, which does)."""


def _every_card(ended: EndedFork, method: str, path: str, **headers: str) -> Any:
    url = ended.url + path.format(step=ended.fork["step"])
    body = {"step": ended.fork["step"]} if path == "/forks" else {} if method == "POST" else None
    return ended.client.open(url, method=method, json=body, headers=headers)


@pytest.mark.parametrize(("method", "path"), slow_beyond(EVERY_CARD, keep=2))
def test_an_ended_fork_of_a_running_game_shows_no_one_every_card_while_the_parent_runs(
    ended_fork: EndedFork, method: str, path: str
) -> None:
    answer = _every_card(ended_fork, method, path)

    body = assert_envelope(answer, 403, "forbidden")
    assert "forked from" in body["message"]


@pytest.mark.parametrize(("method", "path"), slow_beyond(EVERY_CARD, keep=2))
def test_an_ended_fork_opens_to_everyone_once_its_parent_has_ended_too(
    ended_fork: EndedFork, method: str, path: str
) -> None:
    finish(ended_fork.web, ended_fork.parent)

    answer = _every_card(ended_fork, method, path)

    assert answer.status_code in (200, 201), answer.get_json()


def test_the_auditor_s_secret_opens_an_ended_fork_of_a_running_game(ended_fork: EndedFork) -> None:
    secret = {"X-Auditor-Token": AUDITOR_SECRET}

    answer = _every_card(ended_fork, "GET", "/steps/{step}?perspective=auditor", **secret)

    assert answer.status_code == 200
    assert all(seat["hand"] is not None for seat in answer.get_json()["view"]["seats"])


def test_the_step_list_says_an_ended_fork_opens_to_all_only_once_its_parent_has_ended(
    ended_fork: EndedFork,
) -> None:
    before = ended_fork.client.get(f"{ended_fork.url}/steps").get_json()
    finish(ended_fork.web, ended_fork.parent)
    after = ended_fork.client.get(f"{ended_fork.url}/steps").get_json()

    assert (before["over"], before["open_to_all"]) == (True, False)
    assert (after["over"], after["open_to_all"]) == (True, True)
