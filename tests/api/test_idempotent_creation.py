"""Creating is as safe to retry as commanding (api/creation_keys.py): a new game, an imported
record or a fork sent with an Idempotency-Key is created once, and every attempt with the key
gets the same answer, the same game and tokens, even after a server stopped mid-request."""

from __future__ import annotations

import threading
import uuid
from collections.abc import Iterator
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from typing import Any

import pytest
from flask import Flask
from flask.testing import FlaskClient
from sqlalchemy import select, update

from api import tables
from api.creation_keys import CreationKeys
from domain.application import Bohnanza
from replays.games import export_game

from .conftest import web_app
from .support import CreatedGame, assert_envelope, bearer, command, create_game
from .test_replays import finish


@dataclass(frozen=True)
class Creating:
    """A request that creates a game: where it goes and what it sends."""

    path: str
    body: dict[str, Any]
    headers: dict[str, str]
    other: dict[str, Any]
    """What another request to the same place changes in the body."""

    def send(self, client: FlaskClient, key: str | None = "create-1", **body: Any) -> Any:
        headers = {**self.headers, **({} if key is None else {"Idempotency-Key": key})}
        return client.post(self.path, json={**self.body, **body}, headers=headers)


SEATS = ["Ana", "Ben", "Cleo"]
A_NOTE = {"step": 2, "text": "a fine deal", "author": "Kib", "glyph": None, "visibility": "public"}
OPERATIONS = ["new-game", "ended-record", "running-record", "fork"]
"""A running game's record is stored under a new id on every import, an ended game's under an
id its facts give (imported once), a new game and a fork under new ids."""


def creating(web: Flask, client: FlaskClient, operation: str) -> Creating:
    if operation == "new-game":
        return Creating("/api/games", {"seats": SEATS, "seed": 7}, {}, {"seed": 8})
    game = create_game(client)
    if operation == "running-record":
        command(client, game, game.seat(0), type="plant", field=0)
        record = export_game(services(web).app, uuid.UUID(game.id))
        return Creating("/api/records", record, {}, {"annotations": [A_NOTE]})
    finish(web, game)
    if operation == "ended-record":
        record = client.get(f"{game.url}/record").get_json()
        return Creating("/api/records", record, {}, {"annotations": [A_NOTE]})
    return Creating(f"{game.url}/forks", {"step": 20}, {}, {"step": 21})


@pytest.fixture(params=OPERATIONS)
def operation(request: pytest.FixtureRequest, web: Flask, client: FlaskClient) -> Creating:
    return creating(web, client, request.param)


def services(web: Flask) -> Any:
    return web.extensions["bohnanza"].get()


def stored_games(web: Flask) -> int:
    return len(services(web).app.games())


def assert_tokens_open(client: FlaskClient, answer: dict[str, Any]) -> None:
    """Every token of a creation's answer opens its game, as its seat or its host."""
    url = f"/api/games/{answer['game_id']}"
    for seat in answer["seats"]:
        view = client.get(f"{url}/view", headers=bearer(seat["token"]))
        assert view.status_code == 200, view.get_json()
    assert client.get(f"{url}/legal", headers=bearer(answer["host_token"])).status_code in (
        200,
        403,  # the host of a digital game has no commands: its token is good all the same
    )


def test_a_retried_creation_gets_the_first_answer_and_creates_one_game(
    web: Flask, client: FlaskClient, operation: Creating
) -> None:
    before = stored_games(web)
    first = operation.send(client)

    retry = operation.send(client)

    assert first.status_code == retry.status_code == 201, first.get_json()
    assert retry.get_json() == first.get_json()
    assert retry.headers["Idempotent-Replayed"] == "true"
    assert "Idempotent-Replayed" not in first.headers
    assert stored_games(web) == before + 1
    assert_tokens_open(client, retry.get_json())


def test_the_same_key_with_another_request_is_refused(
    web: Flask, client: FlaskClient, operation: Creating
) -> None:
    operation.send(client)
    before = stored_games(web)

    other = operation.send(client, **operation.other)

    assert_envelope(other, 422, "idempotency_key_reused")
    assert stored_games(web) == before


def claimed_tokens(web: Flask, key: str) -> dict[str, Any]:
    """The game and tokens the first request with `key` chose (kept with the key)."""
    with services(web).engine.connect() as connection:
        row = connection.execute(
            select(tables.creations).where(tables.creations.c.key == key)
        ).one()
    return {"game_id": str(row.game_id), **row.tokens}


def as_if_claimed_long_ago(web: Flask, by: timedelta) -> None:
    long_ago = datetime.now(UTC) - by - timedelta(seconds=1)
    with services(web).engine.begin() as connection:
        connection.execute(update(tables.creations).values(created_at=long_ago))


class ServerStopped(BaseException):
    """The process running the first request dies (no cleanup runs)."""


@pytest.fixture
def shared_web(shared_database_url: str) -> Iterator[Flask]:
    """The web application on a SQLite file or a PostgreSQL store."""
    with web_app(shared_database_url) as app:
        yield app


@pytest.mark.parametrize("operation_name", OPERATIONS)
@pytest.mark.parametrize("stopped", ["after-storing", "before-storing"])
def test_a_retry_after_the_server_stopped_gets_the_game_the_first_request_chose(
    shared_web: Flask, operation_name: str, stopped: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    """No second game, none without an answer: the retry creates the game the first request
    chose, or gives the answer of the one it stored, with the tokens it chose."""
    web, client = shared_web, shared_web.test_client()
    operation = creating(web, client, operation_name)
    before = stored_games(web)
    app: Bohnanza = services(web).app
    save_new = app.save_new

    def stop(*args: Any, **kwargs: Any) -> Any:
        if stopped == "after-storing":
            save_new(*args, **kwargs)
        raise ServerStopped

    monkeypatch.setattr(app, "save_new", stop)
    monkeypatch.setattr(services(web).creations, "release", lambda *args: None)
    with pytest.raises(ServerStopped):
        operation.send(client)
    monkeypatch.undo()
    chosen = claimed_tokens(web, "create-1")
    as_if_claimed_long_ago(web, services(web).creations.in_flight_limit)

    retry = operation.send(client)
    again = operation.send(client)

    answer = retry.get_json()
    assert retry.status_code == 201, answer
    assert ("Idempotent-Replayed" in retry.headers) == (stopped == "after-storing")
    assert answer["game_id"] == chosen["game_id"]
    assert [seat["token"] for seat in answer["seats"]] == chosen["seats"]
    assert answer["host_token"] == chosen["host"]
    assert again.get_json() == answer
    assert stored_games(web) == before + 1
    assert_tokens_open(client, answer)


def test_two_attempts_at_once_create_one_game_and_answer_alike(
    shared_web: Flask, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The first attempt is slower than the in-flight limit: a retry takes the key over, and
    both store the same game, once."""
    web, client = shared_web, shared_web.test_client()
    operation = creating(web, client, "new-game")
    app: Bohnanza = services(web).app
    save_new = app.save_new
    retried = threading.Event()
    first = threading.current_thread()

    def slow_first(*args: Any, **kwargs: Any) -> Any:
        if threading.current_thread() is first:
            as_if_claimed_long_ago(web, services(web).creations.in_flight_limit)
            worker = threading.Thread(target=lambda: answers.append(operation.send(client)))
            worker.start()
            worker.join(30)
            retried.set()
        return save_new(*args, **kwargs)

    answers: list[Any] = []
    monkeypatch.setattr(app, "save_new", slow_first)
    before = stored_games(web)

    answers.insert(0, operation.send(client))

    assert retried.is_set()
    assert [answer.status_code for answer in answers] == [201, 201]
    assert answers[0].get_json() == answers[1].get_json()
    assert [answer.headers.get("Idempotent-Replayed") for answer in answers] == ["true", None]
    assert stored_games(web) == before + 1


def test_a_refused_creation_is_answered_the_same_on_retry_and_its_tokens_open_nothing(
    web: Flask, client: FlaskClient
) -> None:
    operation = Creating("/api/games", {"seats": ["Ana", "Ben"], "ruleset": "amigo"}, {}, {})

    first = operation.send(client)
    retry = operation.send(client)

    assert_envelope(first, 422, "invalid_ruleset")
    assert retry.get_json() == first.get_json()
    assert retry.headers["Idempotent-Replayed"] == "true"
    with services(web).engine.connect() as connection:
        row = connection.execute(select(tables.creations)).one()
        tokens = connection.execute(
            select(tables.tokens).where(tables.tokens.c.game_id == row.game_id)
        ).all()
    assert row.tokens is None
    assert tokens == []


def test_importing_a_record_another_import_stored_is_a_409_for_the_key_too(
    web: Flask, client: FlaskClient
) -> None:
    operation = creating(web, client, "ended-record")
    stored = operation.send(client, key=None).get_json()

    again = operation.send(client)

    body = assert_envelope(again, 409, "already_imported")
    assert body["game_id"] == stored["game_id"]
    with services(web).engine.connect() as connection:
        tokens = connection.execute(
            select(tables.tokens).where(tables.tokens.c.game_id == uuid.UUID(stored["game_id"]))
        ).all()
    assert len(tokens) == len(stored["seats"]) + 1  # the first import's, and only those


def test_a_game_created_with_a_key_takes_commands_with_the_same_key(
    web: Flask, client: FlaskClient
) -> None:
    """The event store keeps the creation's key with the game's events, apart from the keys
    of its commands."""
    created = Creating("/api/games", {"seats": SEATS, "seed": 7}, {}, {})
    answer = created.send(client, key="same").get_json()
    game = CreatedGame(
        answer["game_id"], [s["token"] for s in answer["seats"]], answer["host_token"], answer
    )

    played = command(client, game, game.seat(0, Idempotency_Key="same"), type="plant", field=0)

    assert played.status_code == 200, played.get_json()
    assert "Idempotent-Replayed" not in played.headers


def test_keys_belong_to_one_operation(web: Flask, client: FlaskClient) -> None:
    game = creating(web, client, "new-game").send(client, key="k")
    record = creating(web, client, "ended-record")

    imported = record.send(client, key="k")

    assert game.status_code == imported.status_code == 201
    assert "Idempotent-Replayed" not in imported.headers


def test_a_fork_s_key_covers_the_caller_s_token(web: Flask, client: FlaskClient) -> None:
    game = create_game(client)
    finish(web, game)
    fork = Creating(f"{game.url}/forks", {"step": 20}, {}, {})
    fork.send(client)

    as_a_seat = Creating(fork.path, fork.body, game.seat(0), {}).send(client)

    assert_envelope(as_a_seat, 422, "idempotency_key_reused")


def forget_old_answers(web: Flask) -> None:
    keys: CreationKeys = services(web).creations
    as_if_claimed_long_ago(web, keys.answers_kept)
    assert keys.forget_old_answers() == 1


def test_the_tokens_are_kept_in_clear_as_long_as_the_answer_and_then_cleared(
    web: Flask, client: FlaskClient, operation: Creating
) -> None:
    created = operation.send(client).get_json()
    forget_old_answers(web)

    retry = operation.send(client)
    another = operation.send(client, **operation.other)

    body = assert_envelope(retry, 410, "idempotency_answer_gone")
    assert created["game_id"] in body["message"]
    with services(web).engine.connect() as connection:
        row = connection.execute(
            select(tables.creations).where(tables.creations.c.key == "create-1")
        ).one()
    assert (row.tokens, row.response) == (None, None)
    assert_envelope(another, 422, "idempotency_key_reused")
    assert_tokens_open(client, created)  # the game keeps its tokens: only the copy is gone


def test_a_refusal_forgotten_is_decided_anew(web: Flask, client: FlaskClient) -> None:
    operation = creating(web, client, "fork")
    tomorrow = {"step": 10_000}
    refused = operation.send(client, **tomorrow)
    forget_old_answers(web)

    again = operation.send(client, **tomorrow)

    assert_envelope(refused, 422, "invalid_input")
    assert_envelope(again, 422, "invalid_input")
    assert "Idempotent-Replayed" not in again.headers


@pytest.mark.parametrize(
    ("path", "method"),
    [("/api/games", "post"), ("/api/records", "post"), ("/api/games/{game_id}/forks", "post")],
)
def test_the_document_says_which_creations_take_an_idempotency_key(
    client: FlaskClient, path: str, method: str
) -> None:
    operation = client.get("/openapi.json").get_json()["paths"][path][method]

    [key] = [p for p in operation["parameters"] if p["name"] == "Idempotency-Key"]
    assert key["in"] == "header"
    assert "same tokens" in key["description"]
    assert "Idempotent-Replayed" in operation["responses"]["201"]["headers"]
    assert {"409", "410", "422"} <= set(operation["responses"])
