"""Idempotency-Key and concurrent commands (issue item 4): a retried command is answered once and
stored once; concurrent commands on one game never lose or duplicate an event."""

from __future__ import annotations

import json
import threading
import uuid
from collections import Counter
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from contextlib import contextmanager
from datetime import UTC, datetime
from typing import Any

import pytest
from flask import Flask
from flask.testing import FlaskClient
from sqlalchemy import insert, select

from api import tables
from api.security import Caller, OldCommandKeys, key_covers, request_digest
from domain.application import AlreadyAnswered, Outcome
from domain.request_keys import REFUSED
from domain.rules.commands import parse_command
from domain.rules.errors import Conflict

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


def test_a_retry_gets_the_first_answer_with_or_without_the_view_as_the_retry_prefers(
    web: Flask, client: FlaskClient, game: CreatedGame
) -> None:
    first = command(client, game, game.seat(0, Idempotency_Key="plant-1"), type="plant", field=0)
    minimal = game.seat(0, Idempotency_Key="plant-1", Prefer="return=minimal")

    retry = command(client, game, minimal, type="plant", field=0)

    full = first.get_json()
    assert retry.get_json() == {key: full[key] for key in full if key != "view"}
    assert retry.headers["Idempotent-Replayed"] == "true"
    assert retry.headers["Preference-Applied"] == "return=minimal"
    assert stored_events(web, game) == 3


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


def seat_0(web: Flask, game: CreatedGame) -> Caller:
    caller = (
        web.extensions["bohnanza"].get().tokens.resolve(uuid.UUID(game.id), game.seat_tokens[0])
    )
    assert caller is not None
    return caller


def store_as_a_stopped_server_did(web: Flask, game: CreatedGame, key: str) -> Outcome:
    """Store seat 0's PLANT under `key`, as a request whose server stopped before answering did:
    its events, and the key with what it covers, are in the store; no answer went out."""
    covers = key_covers(seat_0(web, game), {"command": PLANT, "expected_version": None})
    app = web.extensions["bohnanza"].get().app
    return app.execute(
        uuid.UUID(game.id), parse_command(PLANT), request_key=key, request_covers=covers
    )


def test_a_retry_after_the_server_stopped_having_stored_the_command_gets_its_answer_rebuilt(
    web: Flask, client: FlaskClient, game: CreatedGame
) -> None:
    stored = store_as_a_stopped_server_did(web, game, "stored-then-stopped")
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


def test_the_same_key_with_another_body_is_refused_after_the_server_stopped_having_stored_it(
    web: Flask, client: FlaskClient, game: CreatedGame
) -> None:
    store_as_a_stopped_server_did(web, game, "k")

    response = command(client, game, game.seat(0, Idempotency_Key="k"), **{**PLANT, "field": 1})

    assert_envelope(response, 422, "idempotency_key_reused")
    assert stored_events(web, game) == 3


def idempotency_rows(web: Flask) -> list[Any]:
    with web.extensions["bohnanza"].get().engine.connect() as connection:
        return list(connection.execute(select(tables.idempotency)))


def test_a_keyed_command_writes_nothing_beside_the_store_whatever_its_outcome(
    web: Flask, client: FlaskClient, game: CreatedGame
) -> None:
    stored = command(client, game, game.seat(0, Idempotency_Key="plant-1"), **PLANT)
    refused = command(client, game, game.seat(1, Idempotency_Key="too-early"), **PLANT)
    keys = web.extensions["bohnanza"].get().app.keys

    applied = keys.applied(uuid.UUID(game.id), "plant-1")
    answered = keys.applied(uuid.UUID(game.id), "too-early")

    assert (stored.status_code, refused.status_code) == (200, 403)
    assert idempotency_rows(web) == []
    assert applied is not None
    assert (applied.first_version, applied.last_version, applied.answer) == (3, 3, None)
    assert answered is not None
    assert (answered.first_version, answered.last_version) == (REFUSED, REFUSED)
    assert json.loads(answered.answer or "") == {"status": 403, "response": refused.get_json()}


def test_a_refused_command_sent_again_once_it_would_be_legal_gets_its_refusal_again(
    web: Flask, client: FlaskClient, game: CreatedGame
) -> None:
    """The key's first use decided it: a refusal is kept with the key as long as the game."""
    headers = game.seat(0, Idempotency_Key="early", If_Match='"3"')
    first = command(client, game, headers, type="plant", field=1)
    command(client, game, game.seat(0), **PLANT)  # the game reaches version 3

    retry = command(client, game, headers, type="plant", field=1)

    assert_envelope(first, 412, "precondition_failed")
    assert (retry.status_code, retry.get_json()) == (412, first.get_json())
    assert retry.headers["Idempotent-Replayed"] == "true"
    assert stored_events(web, game) == 3


def test_a_command_given_under_a_key_its_refusal_took_is_not_stored(
    web: Flask, client: FlaskClient, game: CreatedGame
) -> None:
    """A retry refused on a state before its first attempt's (a command of another seat came in
    between) kept its refusal with the key; the first attempt, slower still, comes to store the
    command after: the key's row refuses it, so the key has one answer."""
    headers = game.seat(0, Idempotency_Key="late", If_Match='"3"')
    refused = command(client, game, headers, type="plant", field=1)
    command(client, game, game.seat(0), **PLANT)
    covers = key_covers(
        seat_0(web, game),
        {"command": {"type": "plant", "seat": 0, "field": 1}, "expected_version": 3},
    )
    app = web.extensions["bohnanza"].get().app
    plant = parse_command({"type": "plant", "seat": 0, "field": 1})

    with pytest.raises(AlreadyAnswered):
        app.execute(
            uuid.UUID(game.id), plant, expected_version=3, request_key="late", request_covers=covers
        )

    retry = command(client, game, headers, type="plant", field=1)
    assert_envelope(refused, 412, "precondition_failed")
    assert (retry.status_code, retry.get_json()) == (412, refused.get_json())
    assert stored_events(web, game) == 3


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


def test_a_key_whose_request_stored_its_command_then_failed_still_refuses_another_request(
    web: Flask, client: FlaskClient, game: CreatedGame, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The failed request stored its command under the key before failing: another request
    with the key must not be answered as that command, and the request itself must still get
    its answer."""
    headers = game.seat(0, Idempotency_Key="k")
    services = web.extensions["bohnanza"].get()
    record = services.views.record

    def fail(*args: object, **kwargs: object) -> None:
        raise RuntimeError("the process fell over")

    monkeypatch.setattr(services.views, "record", fail)
    failed = command(client, game, headers, **PLANT)
    monkeypatch.setattr(services.views, "record", record)

    another = command(client, game, headers, **{**PLANT, "field": 1})
    retry = command(client, game, headers, **PLANT)

    assert failed.status_code == 500
    assert_envelope(another, 422, "idempotency_key_reused")
    assert retry.status_code == 200, retry.get_json()
    assert retry.headers["Idempotent-Replayed"] == "true"
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
    assert set(answers) <= {(200, False), (200, True)}  # never a 409: the key's row decides
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


class StalledFirstAttempt:
    """A first request whose store stalls: it saves its command only once the retry has started,
    and before the retry loads the game (as its process holds it, or as stored); after its save
    it stops, as a server killed then would (a 500, no answer)."""

    LOADS = ("game", "_held")

    def __init__(self, web: Flask) -> None:
        self.app = web.extensions["bohnanza"].get().app
        self.retry_started = threading.Event()
        self.stored = threading.Event()
        self.retry_answered = threading.Event()
        self.first: threading.Thread | None = None

    def save(self, *args: Any, save: Any, **kwargs: Any) -> Any:
        if threading.current_thread() is not self.first:
            return save(*args, **kwargs)
        assert self.retry_started.wait(10)
        save(*args, **kwargs)
        self.stored.set()
        assert self.retry_answered.wait(10)
        raise RuntimeError("the server stopped after storing the command")

    def load(self, *args: Any, load: Any, **kwargs: Any) -> Any:
        if threading.current_thread() is not self.first:
            self.retry_started.set()
            assert self.stored.wait(10)
        return load(*args, **kwargs)

    @contextmanager
    def running(self, send: Any) -> Iterator[None]:
        save = self.app.save
        self.app.save = lambda *a, **k: self.save(*a, save=save, **k)  # type: ignore[method-assign]
        for name in self.LOADS:
            load = getattr(self.app, name)
            setattr(self.app, name, lambda *a, load=load, **k: self.load(*a, load=load, **k))
        failed: list[int] = []
        self.first = threading.Thread(target=lambda: failed.append(send().status_code))
        self.first.start()
        try:
            yield
        finally:
            self.retry_answered.set()
            self.first.join(10)
            for name in ("save", *self.LOADS):
                vars(self.app).pop(name, None)
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
    with web_app(database_url) as web:
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


# --- rows kept beside the store by versions before 5 Dec 2026, handed over to it ----------------


def as_an_old_version_kept_it(
    web: Flask,
    game: CreatedGame,
    key: str,
    *,
    request: dict[str, Any] | None = None,
    status: int | None = None,
    response: dict[str, Any] | None = None,
) -> None:
    """Keep a row for seat 0's `key` beside the store, as versions before 5 Dec 2026 did for
    every keyed command: its claim (status None), then the answer of a refusal (or, before the
    store kept keys, of a stored command)."""
    request = request or {"command": PLANT, "expected_version": None}
    caller = seat_0(web, game)
    with web.extensions["bohnanza"].get().engine.begin() as connection:
        connection.execute(
            insert(tables.idempotency).values(
                game_id=uuid.UUID(game.id),
                key=key,
                caller=caller.token_digest,
                request=request_digest(request),
                status=status,
                response=response,
                created_at=datetime.now(UTC),
            )
        )


def hand_over(web: Flask) -> int:
    services = web.extensions["bohnanza"].get()
    return OldCommandKeys(services.engine).hand_over(services.app.keys)


def test_a_key_an_old_version_claimed_for_its_stored_command_still_refuses_another_request(
    web: Flask, client: FlaskClient, game: CreatedGame
) -> None:
    app = web.extensions["bohnanza"].get().app
    app.execute(uuid.UUID(game.id), parse_command(PLANT), request_key="k")  # what it covers: unsaid
    as_an_old_version_kept_it(web, game, "k")

    handed = hand_over(web)
    another = command(client, game, game.seat(0, Idempotency_Key="k"), **{**PLANT, "field": 1})
    retry = command(client, game, game.seat(0, Idempotency_Key="k"), **PLANT)

    assert handed == 1
    assert idempotency_rows(web) == []
    assert_envelope(another, 422, "idempotency_key_reused")
    assert (retry.status_code, retry.headers["Idempotent-Replayed"]) == (200, "true")
    assert stored_events(web, game) == 3


def test_a_refusal_an_old_version_kept_is_given_again_once_handed_over(
    web: Flask, client: FlaskClient, game: CreatedGame
) -> None:
    late = {"type": "plant", "seat": 0, "field": 1}
    refused = command(client, game, game.seat(0, If_Match='"3"'), **late)
    as_an_old_version_kept_it(
        web,
        game,
        "late",
        request={"command": late, "expected_version": 3},
        status=412,
        response=refused.get_json(),
    )
    command(client, game, game.seat(0), **PLANT)  # the command would be legal now

    hand_over(web)
    retry = command(client, game, game.seat(0, Idempotency_Key="late", If_Match='"3"'), **late)

    assert (retry.status_code, retry.get_json()) == (412, refused.get_json())
    assert retry.headers["Idempotent-Replayed"] == "true"
    assert stored_events(web, game) == 3


@pytest.mark.parametrize("answer_kept", [True, False], ids=["answer-kept", "answer-cleared"])
def test_a_command_an_old_version_stored_without_its_key_in_the_store_is_never_run_again(
    web: Flask, client: FlaskClient, game: CreatedGame, answer_kept: bool
) -> None:
    """Before the store kept keys (1 Dec 2026), the answer beside it was all a key had; once
    cleared, nothing says which versions the command stored: the key is answered 410."""
    first = command(client, game, game.seat(0), **PLANT)
    kept = first.get_json() if answer_kept else None
    as_an_old_version_kept_it(web, game, "plant-1", status=200, response=kept)

    hand_over(web)
    retry = command(client, game, game.seat(0, Idempotency_Key="plant-1"), **PLANT)

    if answer_kept:
        assert retry.status_code == 200, retry.get_json()
        assert retry.headers["Idempotent-Replayed"] == "true"
        assert retry.get_json()["version"] == 3
        assert retry.get_json()["events"] == first.get_json()["events"]
    else:
        assert_envelope(retry, 410, "idempotency_answer_gone")
    assert stored_events(web, game) == 3


def test_a_claim_an_old_version_never_stored_is_dropped_and_its_retry_runs(
    web: Flask, client: FlaskClient, game: CreatedGame
) -> None:
    as_an_old_version_kept_it(web, game, "stopped-before")

    hand_over(web)
    retry = command(client, game, game.seat(0, Idempotency_Key="stopped-before"), **PLANT)

    assert retry.status_code == 200, retry.get_json()
    assert "Idempotent-Replayed" not in retry.headers
    assert idempotency_rows(web) == []
    assert stored_events(web, game) == 3


def test_a_process_starting_hands_the_old_rows_over(shared_database_url: str) -> None:
    with web_app(shared_database_url) as first:
        client = first.test_client()
        game = create_game(client)
        as_an_old_version_kept_it(first, game, "k")

    with web_app(shared_database_url) as again:
        another = command(
            again.test_client(), game, game.seat(0, Idempotency_Key="k"), **{**PLANT, "field": 1}
        )
        assert idempotency_rows(again) == []
        assert another.status_code == 200  # its claim was never stored: dropped
