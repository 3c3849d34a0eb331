"""Idempotency-Key and concurrent commands (issue item 4): a retried command is answered once and
stored once; concurrent commands on one game never lose or duplicate an event."""

from __future__ import annotations

import threading
import time
import uuid
from collections import Counter
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from contextlib import contextmanager
from datetime import UTC, datetime, timedelta
from typing import Any

import pytest
from flask import Flask
from flask.testing import FlaskClient
from sqlalchemy import Engine, inspect, select, update

from api import security, tables
from api.security import FORGET_EVERY, Claim
from domain.rules.commands import parse_command
from domain.rules.errors import Conflict
from projections.engine import schema_of

from .conftest import web_app
from .support import CreatedGame, assert_envelope, command, create_game, version_of


@pytest.fixture
def web(database_url: str) -> Iterator[Flask]:
    """The web application on an empty store of each kind: the event store keeps request keys
    itself, with the events (domain/request_keys.py), on each."""
    with web_app(database_url) as app:
        yield app


def stored_events(web: Flask, game: CreatedGame) -> int:
    return len(web.extensions["bohnanza"].get().app.facts(uuid.UUID(game.id)))


def test_a_retry_with_the_same_key_and_body_gets_the_first_answer_and_stores_nothing(
    web: Flask, client: FlaskClient, game: CreatedGame
) -> None:
    headers = game.seat(0, Idempotency_Key="plant-1")
    first = command(client, game, headers, type="plant", field=0)
    events = stored_events(web, game)

    retry = command(client, game, headers, type="plant", field=0)

    assert retry.status_code == first.status_code == 200
    assert retry.get_json() == first.get_json()
    assert retry.headers["Idempotent-Replayed"] == "true"
    assert retry.headers["ETag"] == first.headers["ETag"] == '"3"'
    assert "Idempotent-Replayed" not in first.headers
    assert stored_events(web, game) == events == 3


@pytest.mark.parametrize("named_first", [False, True], ids=["named-on-retry", "named-first"])
def test_a_retry_naming_the_seat_the_first_request_left_out_is_the_same_command(
    web: Flask, client: FlaskClient, game: CreatedGame, named_first: bool
) -> None:
    headers = game.seat(0, Idempotency_Key="plant-1")
    seat = {"seat": 0}
    first = command(client, game, headers, type="plant", field=0, **(seat if named_first else {}))

    retry = command(client, game, headers, type="plant", field=0, **({} if named_first else seat))

    assert retry.status_code == first.status_code == 200
    assert retry.get_json() == first.get_json()
    assert retry.headers["Idempotent-Replayed"] == "true"
    assert stored_events(web, game) == 3


def test_a_refused_command_is_answered_the_same_way_on_retry(
    web: Flask, client: FlaskClient, game: CreatedGame
) -> None:
    headers = game.seat(1, Idempotency_Key="too-early")
    first = command(client, game, headers, type="plant", field=0)

    retry = command(client, game, headers, type="plant", field=0)

    assert_envelope(first, 409, "rule_violation")
    assert retry.get_json() == first.get_json()
    assert retry.headers["Idempotent-Replayed"] == "true"
    assert stored_events(web, game) == 2


def test_a_stale_version_is_answered_the_same_way_on_retry(
    client: FlaskClient, game: CreatedGame
) -> None:
    headers = game.seat(0, Idempotency_Key="stale", If_Match='"1"')
    first = command(client, game, headers, type="plant", field=0)

    retry = command(client, game, headers, type="plant", field=0)

    assert_envelope(first, 412, "precondition_failed")
    assert (retry.status_code, retry.get_json()) == (412, first.get_json())


def test_the_same_key_with_another_body_is_refused(
    web: Flask, client: FlaskClient, game: CreatedGame
) -> None:
    command(client, game, game.seat(0, Idempotency_Key="k"), type="plant", field=0)

    response = command(client, game, game.seat(0, Idempotency_Key="k"), type="plant", field=1)

    body = assert_envelope(response, 422, "idempotency_key_reused")
    assert "'k'" in body["message"]
    assert stored_events(web, game) == 3


def test_the_same_key_with_another_expected_version_is_refused(
    client: FlaskClient, game: CreatedGame
) -> None:
    command(client, game, game.seat(0, Idempotency_Key="k"), type="plant", field=0)

    response = command(
        client, game, game.seat(0, Idempotency_Key="k"), type="plant", field=0, expected_version=2
    )

    assert_envelope(response, 422, "idempotency_key_reused")


def test_the_same_key_from_another_seat_is_refused(client: FlaskClient, game: CreatedGame) -> None:
    command(client, game, game.seat(0, Idempotency_Key="shared"), type="plant", field=0)

    response = command(client, game, game.seat(1, Idempotency_Key="shared"), type="plant", field=0)

    assert_envelope(response, 422, "idempotency_key_reused")


PLANT = {"type": "plant", "seat": 0, "field": 0}


def claim_for_seat_0(web: Flask, game: CreatedGame, key: str) -> None:
    """Claim the key for seat 0's PLANT as a request that is still running would have."""
    services = web.extensions["bohnanza"].get()
    caller = services.tokens.resolve(uuid.UUID(game.id), game.seat_tokens[0])
    assert caller is not None
    services.idempotency.begin(
        uuid.UUID(game.id), key, caller, {"command": PLANT, "expected_version": None}
    )


def test_a_key_still_being_processed_is_a_409(
    web: Flask, client: FlaskClient, game: CreatedGame
) -> None:
    claim_for_seat_0(web, game, "busy")

    response = command(client, game, game.seat(0, Idempotency_Key="busy"), **PLANT)

    assert_envelope(response, 409, "idempotency_key_in_flight")
    assert stored_events(web, game) == 2


def as_if_its_server_stopped_long_ago(web: Flask) -> None:
    """Date every claim back beyond the in-flight limit, as if its request's server had stopped."""
    limit = web.extensions["bohnanza"].get().idempotency.in_flight_limit
    long_ago = datetime.now(UTC) - limit - timedelta(seconds=1)
    with web.extensions["bohnanza"].get().engine.begin() as connection:
        connection.execute(update(tables.idempotency).values(created_at=long_ago))


def test_a_retry_after_the_server_stopped_having_stored_the_command_gets_its_answer_rebuilt(
    web: Flask, client: FlaskClient, game: CreatedGame
) -> None:
    claim_for_seat_0(web, game, "stored-then-stopped")
    services = web.extensions["bohnanza"].get()
    game_id = uuid.UUID(game.id)
    stored = services.app.execute(game_id, parse_command(PLANT), request_key="stored-then-stopped")
    as_if_its_server_stopped_long_ago(web)
    headers = game.seat(0, Idempotency_Key="stored-then-stopped")

    retry = command(client, game, headers, **PLANT)

    answer = retry.get_json()
    assert retry.status_code == 200, answer
    assert retry.headers["Idempotent-Replayed"] == "true"
    assert answer["version"] == stored.version == 3
    assert [item["type"] for item in answer["events"]] == [fact.kind for fact in stored.facts]
    assert answer["view"] == client.get(f"{game.url}/view", headers=game.seat(0)).get_json()
    assert answer["position"] >= stored.position
    assert stored_events(web, game) == 3
    assert command(client, game, headers, **PLANT).get_json() == answer


def test_a_retry_after_the_server_stopped_before_storing_the_command_stores_it_once(
    web: Flask, client: FlaskClient, game: CreatedGame
) -> None:
    claim_for_seat_0(web, game, "stopped-before")
    as_if_its_server_stopped_long_ago(web)
    headers = game.seat(0, Idempotency_Key="stopped-before")

    retry = command(client, game, headers, **PLANT)
    again = command(client, game, headers, **PLANT)

    assert retry.status_code == 200, retry.get_json()
    assert "Idempotent-Replayed" not in retry.headers
    assert retry.get_json()["version"] == 3
    assert again.get_json() == retry.get_json()
    assert again.headers["Idempotent-Replayed"] == "true"
    assert stored_events(web, game) == 3


def test_of_two_retries_after_the_server_stopped_one_runs_the_command(
    web: Flask, client: FlaskClient, game: CreatedGame
) -> None:
    claim_for_seat_0(web, game, "two-retries")
    as_if_its_server_stopped_long_ago(web)
    services = web.extensions["bohnanza"].get()
    caller = services.tokens.resolve(uuid.UUID(game.id), game.seat_tokens[0])
    request = {"command": PLANT, "expected_version": None}
    first = services.idempotency.begin(uuid.UUID(game.id), "two-retries", caller, request)

    second = command(client, game, game.seat(0, Idempotency_Key="two-retries"), **PLANT)

    assert first == Claim(fresh=False)  # the first retry took the key over; the second finds
    # it in flight
    assert_envelope(second, 409, "idempotency_key_in_flight")
    assert stored_events(web, game) == 2


def as_if_answered_long_ago(web: Flask) -> None:
    """Date every key's answer back beyond the time answers are kept."""
    kept = web.extensions["bohnanza"].get().idempotency.answers_kept
    long_ago = datetime.now(UTC) - kept - timedelta(seconds=1)
    with web.extensions["bohnanza"].get().engine.begin() as connection:
        connection.execute(update(tables.idempotency).values(created_at=long_ago))


def idempotency_rows(web: Flask) -> list[Any]:
    with web.extensions["bohnanza"].get().engine.connect() as connection:
        return list(connection.execute(select(tables.idempotency)))


def forget_old_answers(web: Flask, cleared: bool) -> None:
    """Answers older than the limit are forgotten whether or not they were cleared yet."""
    as_if_answered_long_ago(web)
    if cleared:
        web.extensions["bohnanza"].get().idempotency.forget_old_answers()
        assert [row.response for row in idempotency_rows(web)] == [None]


def as_if_answered_by_a_version_keeping_answers(
    web: Flask, game: CreatedGame, key: str, answer: Any
) -> None:
    """Keep the answer of the command stored under `key` with its claim, as versions did before
    the event store's key answered for a stored command."""
    idempotency = web.extensions["bohnanza"].get().idempotency
    idempotency.finish(uuid.UUID(game.id), key, 200, answer)


FORGOTTEN = pytest.mark.parametrize("cleared", [True, False], ids=["cleared", "not-cleared-yet"])


@FORGOTTEN
def test_a_retry_after_its_answer_was_forgotten_gets_it_rebuilt_and_stores_nothing(
    web: Flask, client: FlaskClient, game: CreatedGame, cleared: bool
) -> None:
    headers = game.seat(0, Idempotency_Key="plant-1")
    first = command(client, game, headers, **PLANT).get_json()
    forget_old_answers(web, cleared)

    retry = command(client, game, headers, **PLANT)

    answer = retry.get_json()
    assert retry.status_code == 200, answer
    assert retry.headers["Idempotent-Replayed"] == "true"
    assert {**answer, "position": None} == {**first, "position": None}
    assert answer["position"] >= first["position"]
    assert stored_events(web, game) == 3
    assert command(client, game, headers, **PLANT).get_json() == answer  # kept again


@FORGOTTEN
def test_the_same_key_with_another_body_is_refused_after_its_answer_was_forgotten(
    web: Flask, client: FlaskClient, game: CreatedGame, cleared: bool
) -> None:
    command(client, game, game.seat(0, Idempotency_Key="k"), **PLANT)
    forget_old_answers(web, cleared)

    response = command(client, game, game.seat(0, Idempotency_Key="k"), **{**PLANT, "field": 1})

    assert_envelope(response, 422, "idempotency_key_reused")
    assert stored_events(web, game) == 3


def test_a_refused_command_sent_again_after_its_answer_was_forgotten_is_decided_anew(
    web: Flask, client: FlaskClient, game: CreatedGame
) -> None:
    headers = game.seat(1, Idempotency_Key="too-early")
    first = command(client, game, headers, type="plant", field=0)
    forget_old_answers(web, cleared=True)

    retry = command(client, game, headers, type="plant", field=0)
    again = command(client, game, headers, type="plant", field=0)

    assert_envelope(retry, 409, "rule_violation")
    assert retry.get_json() == first.get_json()
    assert "Idempotent-Replayed" not in retry.headers
    assert again.headers["Idempotent-Replayed"] == "true"


def as_if_stored_by_a_version_keeping_keys_only_with_answers(web: Flask) -> None:
    """The event store does not hold the keys (versions before domain/request_keys.py)."""
    web.extensions["bohnanza"].get().idempotency.stored = lambda game_id, key: False


def test_the_store_says_which_keys_it_holds(
    web: Flask, client: FlaskClient, game: CreatedGame
) -> None:
    command(client, game, game.seat(0, Idempotency_Key="plant-1"), **PLANT)
    stored = web.extensions["bohnanza"].get().app.request_key_stored

    assert stored(uuid.UUID(game.id), "plant-1")
    assert not stored(uuid.UUID(game.id), "plant-2")


def test_an_old_answer_to_a_command_stored_under_a_key_the_store_lacks_is_given_not_rerun(
    web: Flask, client: FlaskClient, game: CreatedGame
) -> None:
    headers = game.seat(0, Idempotency_Key="plant-1")
    first = command(client, game, headers, **PLANT)
    as_if_answered_by_a_version_keeping_answers(web, game, "plant-1", first.get_json())
    as_if_stored_by_a_version_keeping_keys_only_with_answers(web)
    as_if_answered_long_ago(web)

    retry = command(client, game, headers, **PLANT)

    assert retry.status_code == 200
    assert retry.get_json() == first.get_json()
    assert retry.headers["Idempotent-Replayed"] == "true"
    assert stored_events(web, game) == 3


def test_a_command_stored_under_a_key_the_store_lacks_is_a_410_once_its_answer_is_cleared(
    web: Flask, client: FlaskClient, game: CreatedGame
) -> None:
    headers = game.seat(0, Idempotency_Key="plant-1")
    first = command(client, game, headers, **PLANT)
    as_if_answered_by_a_version_keeping_answers(web, game, "plant-1", first.get_json())
    as_if_stored_by_a_version_keeping_keys_only_with_answers(web)
    forget_old_answers(web, cleared=True)

    retry = command(client, game, headers, **PLANT)

    assert_envelope(retry, 410, "idempotency_answer_gone")
    assert "was stored on" in retry.get_json()["message"]
    assert stored_events(web, game) == 3


def test_clearing_old_answers_keeps_newer_answers_and_requests_still_running(
    web: Flask, client: FlaskClient, game: CreatedGame
) -> None:
    command(client, game, game.seat(1, Idempotency_Key="old"), type="plant", field=0)  # refused
    claim_for_seat_0(web, game, "running")
    as_if_answered_long_ago(web)
    command(client, game, game.seat(1, Idempotency_Key="new"), type="plant", field=1)

    cleared = web.extensions["bohnanza"].get().idempotency.forget_old_answers()

    rows = {row.key: row for row in idempotency_rows(web)}
    assert cleared == 1
    assert (rows["old"].status, rows["old"].response) == (409, None)
    assert rows["running"].status is None
    assert rows["new"].response["code"] == "rule_violation"


def test_a_command_stored_under_a_key_keeps_no_answer_beside_the_store(
    web: Flask, client: FlaskClient, game: CreatedGame
) -> None:
    first = command(client, game, game.seat(0, Idempotency_Key="plant-1"), **PLANT)

    (row,) = idempotency_rows(web)
    retry = command(client, game, game.seat(0, Idempotency_Key="plant-1"), **PLANT)

    assert (row.status, row.response) == (None, None)  # its claim: the store holds the rest
    assert retry.get_json() == first.get_json()
    assert retry.headers["Idempotent-Replayed"] == "true"
    assert [(r.status, r.response) for r in idempotency_rows(web)] == [(None, None)]


def test_keyed_commands_clear_old_answers_every_ten_minutes(
    web: Flask, client: FlaskClient, game: CreatedGame, monkeypatch: pytest.MonkeyPatch
) -> None:
    command(client, game, game.seat(1, Idempotency_Key="old"), type="plant", field=0)  # refused
    as_if_answered_long_ago(web)
    command(client, game, game.seat(1, Idempotency_Key="soon"), type="plant", field=1)
    kept_within_ten_minutes = {row.key: row.response for row in idempotency_rows(web)}
    later = time.monotonic() + FORGET_EVERY.total_seconds()
    monkeypatch.setattr(security, "monotonic", lambda: later)

    command(client, game, game.seat(0, Idempotency_Key="later"), **PLANT)  # stored: clears too

    answers = {row.key: row.response for row in idempotency_rows(web)}
    assert kept_within_ten_minutes["old"] is not None
    assert answers["old"] is None
    assert answers["soon"] is not None


def test_keys_belong_to_one_game(web: Flask, client: FlaskClient, game: CreatedGame) -> None:
    other = create_game(client)

    first = command(client, game, game.seat(0, Idempotency_Key="k"), type="plant", field=0)
    second = command(client, other, other.seat(0, Idempotency_Key="k"), type="plant", field=0)

    assert first.status_code == second.status_code == 200
    assert "Idempotent-Replayed" not in second.headers
    assert stored_events(web, other) == 3


@pytest.mark.parametrize(
    ("failure", "status"),
    [
        (Conflict("the game kept changing; 3 attempts failed", current_version=2), 409),
        (RuntimeError("the process fell over"), 500),
    ],
    ids=["lost-every-race", "failed-unexpectedly"],
)
def test_a_request_that_decided_nothing_releases_its_key_for_a_retry(
    web: Flask,
    client: FlaskClient,
    game: CreatedGame,
    monkeypatch: pytest.MonkeyPatch,
    failure: Exception,
    status: int,
) -> None:
    services = web.extensions["bohnanza"].get()
    execute = services.app.execute

    def fail(*args: object, **kwargs: object) -> None:
        raise failure

    monkeypatch.setattr(services.app, "execute", fail)
    headers = game.seat(0, Idempotency_Key="retry-me")
    failed = command(client, game, headers, type="plant", field=0)
    monkeypatch.setattr(services.app, "execute", execute)

    retry = command(client, game, headers, type="plant", field=0)

    assert failed.status_code == status
    assert retry.status_code == 200
    assert "Idempotent-Replayed" not in retry.headers
    assert stored_events(web, game) == 3


@pytest.mark.parametrize("forgotten", [False, True], ids=["fresh-key", "forgotten-answer"])
def test_a_key_whose_request_failed_still_refuses_another_request(
    web: Flask,
    client: FlaskClient,
    game: CreatedGame,
    monkeypatch: pytest.MonkeyPatch,
    forgotten: bool,
) -> None:
    """The failed request may have stored its command under the key before failing (here, a
    forgotten answer's first run did): another request with the key must not be answered as
    that command, and the request itself must still get its answer."""
    headers = game.seat(0, Idempotency_Key="k")
    if forgotten:
        command(client, game, headers, **PLANT)
        forget_old_answers(web, cleared=True)
    services = web.extensions["bohnanza"].get()
    execute = services.app.execute

    def fail(*args: object, **kwargs: object) -> None:
        raise RuntimeError("the process fell over")

    monkeypatch.setattr(services.app, "execute", fail)
    failed = command(client, game, headers, **PLANT)
    monkeypatch.setattr(services.app, "execute", execute)

    another = command(client, game, headers, **{**PLANT, "field": 1})
    retry = command(client, game, headers, **PLANT)

    assert failed.status_code == 500
    assert_envelope(another, 422, "idempotency_key_reused")
    assert retry.status_code == 200, retry.get_json()
    assert retry.get_json()["version"] == 3
    assert stored_events(web, game) == 3


@pytest.mark.parametrize("key", ["", "x" * 129, "with space", "caf\u00e9", "a,b"])
def test_an_idempotency_key_that_is_not_1_to_128_visible_ascii_characters_but_the_comma_is_a_400(
    client: FlaskClient, game: CreatedGame, key: str
) -> None:
    headers = {**game.seat(0), "Idempotency-Key": key.encode().decode("latin-1")}

    response = command(client, game, headers, type="plant", field=0)

    assert_envelope(response, 400, "bad_request")


def test_two_idempotency_keys_on_one_command_are_a_400_and_store_nothing(
    client: FlaskClient, web: Flask, game: CreatedGame
) -> None:
    headers = [*game.seat(0).items(), ("Idempotency-Key", "first"), ("Idempotency-Key", "second")]

    response = client.post(
        f"{game.url}/commands", json={"type": "plant", "field": 0}, headers=headers
    )

    body = assert_envelope(response, 400, "bad_request")
    assert list(body["errors"]["headers"]) == ["Idempotency-Key"]
    assert stored_events(web, game) == 2


def test_concurrent_retries_with_one_key_store_one_command(
    sqlite_web: Flask,
) -> None:
    client = sqlite_web.test_client()
    game = create_game(client)
    headers = game.seat(0, Idempotency_Key="burst")
    start = threading.Barrier(8)

    def send(_: int) -> tuple[int, bool]:
        start.wait()
        response = sqlite_web.test_client().post(
            f"{game.url}/commands", json={"type": "plant", "field": 0}, headers=headers
        )
        return response.status_code, "Idempotent-Replayed" in response.headers

    with ThreadPoolExecutor(8) as pool:
        answers = Counter(pool.map(send, range(8)))

    assert answers[(200, False)] == 1
    assert set(answers) <= {(200, False), (200, True), (409, False)}
    assert len(sqlite_web.extensions["bohnanza"].get().app.facts(uuid.UUID(game.id))) == 3


def test_concurrent_commands_based_on_one_version_apply_exactly_once(sqlite_web: Flask) -> None:
    client = sqlite_web.test_client()
    game = create_game(client)
    start = threading.Barrier(6)

    def send(_: int) -> int:
        start.wait()
        response = sqlite_web.test_client().post(
            f"{game.url}/commands",
            json={"type": "plant", "field": 0},
            headers=game.seat(0, If_Match='"2"'),
        )
        return response.status_code

    with ThreadPoolExecutor(6) as pool:
        statuses = Counter(pool.map(send, range(6)))

    assert statuses[200] == 1
    assert statuses[200] + statuses[412] == 6
    assert version_of(client, game) == 3


def test_a_database_made_before_answers_were_cleared_gets_their_index(
    shared_database_url: str,
) -> None:
    with web_app(shared_database_url) as first:
        engine = first.extensions["bohnanza"].get().engine
        tables.answers_by_age.drop(engine)
        assert not has_answers_index(engine)

    with web_app(shared_database_url) as again:
        assert has_answers_index(again.extensions["bohnanza"].get().engine)


def has_answers_index(engine: Engine) -> bool:
    indexes = inspect(engine).get_indexes(tables.idempotency.name, schema=schema_of(engine))
    return tables.answers_by_age.name in {index["name"] for index in indexes}


class StalledFirstAttempt:
    """A first request whose store stalls: it saves its command only once the retry (sent after
    the in-flight limit) has checked the key, and before the retry loads the game; after its
    save it stops, as a server killed then would (a 500, no answer kept)."""

    def __init__(self, web: Flask) -> None:
        self.app = web.extensions["bohnanza"].get().app
        self.retry_checked_the_key = threading.Event()
        self.stored = threading.Event()
        self.retry_answered = threading.Event()
        self.first: threading.Thread | None = None

    def save(self, *args: Any, save: Any, **kwargs: Any) -> Any:
        if threading.current_thread() is not self.first:
            return save(*args, **kwargs)
        assert self.retry_checked_the_key.wait(10)
        save(*args, **kwargs)
        self.stored.set()
        assert self.retry_answered.wait(10)
        raise RuntimeError("the server stopped after storing the command")

    def game(self, *args: Any, game: Any, **kwargs: Any) -> Any:
        if threading.current_thread() is not self.first:
            self.retry_checked_the_key.set()
            assert self.stored.wait(10)
        return game(*args, **kwargs)

    @contextmanager
    def running(self, send: Any) -> Iterator[None]:
        save, game = self.app.save, self.app.game
        self.app.save = lambda *a, **k: self.save(*a, save=save, **k)  # type: ignore[method-assign]
        self.app.game = lambda *a, **k: self.game(*a, game=game, **k)  # type: ignore[method-assign]
        failed: list[int] = []
        self.first = threading.Thread(target=lambda: failed.append(send().status_code))
        self.first.start()
        try:
            yield
        finally:
            self.retry_answered.set()
            self.first.join(10)
            vars(self.app).pop("save", None)
            vars(self.app).pop("game", None)
        assert failed == [500]


@pytest.mark.parametrize(
    ("if_match", "body"),
    [(None, {"type": "harvest", "field": 0}), ('"3"', {"type": "plant", "field": 1})],
    ids=["refused-by-the-rules", "refused-by-if-match"],
)
def test_a_retry_racing_its_stalled_first_attempt_gets_the_stored_command_not_a_refusal(
    database_url: str, if_match: str | None, body: dict[str, Any]
) -> None:
    """Decided on the game that holds its own command, the retry would be refused (the field is
    harvested already; the game is past the version it names), and that refusal kept for the
    key, though the first attempt stored the command."""
    with web_app(database_url, IDEMPOTENCY_IN_FLIGHT_SECONDS=0) as web:
        client = web.test_client()
        game = create_game(client)
        command(client, game, game.seat(0), type="plant", field=0)
        headers = game.seat(0, Idempotency_Key="stalled")
        if if_match is not None:
            headers["If-Match"] = if_match
        stalled = StalledFirstAttempt(web)

        with stalled.running(lambda: command(web.test_client(), game, headers, **body)):
            retry = command(client, game, headers, **body)

        again = command(client, game, headers, **body)
        assert retry.status_code == 200, retry.get_json()
        assert retry.headers["Idempotent-Replayed"] == "true"
        assert retry.get_json()["version"] == 4
        assert again.get_json() == retry.get_json()
        assert stored_events(web, game) == 4


def test_a_refusal_kept_for_a_key_whose_command_was_stored_since_is_not_given_again(
    web: Flask, client: FlaskClient, game: CreatedGame
) -> None:
    """A retry refused on a state before its first attempt's (a command of another seat came
    in between) kept its refusal; the first attempt, slower still, stored the command after."""
    headers = game.seat(0, Idempotency_Key="late", If_Match='"3"')
    refused = command(client, game, headers, type="plant", field=1)
    command(client, game, game.seat(0), type="plant", field=0)
    services = web.extensions["bohnanza"].get()
    plant = parse_command({"type": "plant", "seat": 0, "field": 1})
    stored = services.app.execute(uuid.UUID(game.id), plant, expected_version=3, request_key="late")

    retry = command(client, game, headers, type="plant", field=1)

    assert_envelope(refused, 412, "precondition_failed")
    assert retry.status_code == 200, retry.get_json()
    assert retry.headers["Idempotent-Replayed"] == "true"
    assert retry.get_json()["version"] == stored.version == 4
    assert command(client, game, headers, type="plant", field=1).get_json() == retry.get_json()
