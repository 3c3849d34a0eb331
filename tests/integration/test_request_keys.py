"""Request keys (domain/request_keys.py): a command given with a key is stored at most once, on
every store, because the key is stored in the same transaction as the command's events."""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable, Iterator
from concurrent.futures import ThreadPoolExecutor
from contextlib import contextmanager
from typing import Any
from urllib.parse import urlsplit, urlunsplit
from uuid import UUID, uuid4

import pytest
from eventsourcing.persistence import IntegrityError, StoredEvent

from domain.application import AlreadyAnswered, AlreadyApplied, Bohnanza, Outcome
from domain.bots import simulate
from domain.request_keys import (
    ADDED_COLUMNS,
    REFUSED,
    REQUEST_KEYS_TABLE,
    AppliedRequest,
    SQLiteRecorder,
)
from domain.rules import events as ev
from domain.rules.commands import Command, Plant
from domain.rules.errors import Conflict, RuleViolation
from replays.annotations import Annotations
from tests.conftest import PostgresTestDatabase
from tests.e2e.proxy import proxy_to

from .test_store import (
    SEATS,
    game_where_two_seats_can_harvest,
    loads_held_together,
    stored_versions,
)


def test_a_command_given_again_with_its_key_is_not_stored_again_and_names_its_versions(
    app: Bohnanza,
) -> None:
    game_id, harvest, _ = game_where_two_seats_can_harvest(app)
    stored = app.execute(game_id, harvest, request_key="retry-1")

    with pytest.raises(AlreadyApplied) as again:
        app.execute(game_id, harvest, request_key="retry-1")

    first = stored.version - len(stored.facts) + 1
    assert again.value.applied == AppliedRequest(first, stored.version)
    assert stored_versions(app, game_id) == list(range(1, stored.version + 1))


def test_the_key_is_honoured_even_when_the_game_has_moved_on_since(app: Bohnanza) -> None:
    game_id, first, second = game_where_two_seats_can_harvest(app)
    stored = app.execute(game_id, first, request_key="first")
    later = app.execute(game_id, second)

    with pytest.raises(AlreadyApplied):
        app.execute(game_id, first, expected_version=stored.version, request_key="first")

    assert app.game(game_id).version == later.version


def test_one_key_may_be_used_once_in_each_game(app: Bohnanza) -> None:
    game_id, harvest, _ = game_where_two_seats_can_harvest(app)
    other = app.start_game(SEATS, seed=1)
    first = other.facts[0]
    assert isinstance(first, ev.GameStarted)

    app.execute(game_id, harvest, request_key="same")
    stored = app.execute(other.game_id, Plant(first.start_seat, 0), request_key="same")

    assert app.recorder.applied(other.game_id, "same") == AppliedRequest(
        stored.version, stored.version
    )
    assert app.recorder.applied(game_id, "same") != app.recorder.applied(other.game_id, "same")


def test_of_two_threads_racing_with_one_key_exactly_one_stores_the_command(
    app: Bohnanza,
) -> None:
    game_id, harvest, _ = game_where_two_seats_can_harvest(app)
    version = app.game(game_id).version

    def attempt() -> Outcome | AlreadyApplied:
        try:
            return app.execute(game_id, harvest, request_key="twice")
        except AlreadyApplied as already:
            return already

    with loads_held_together(app), ThreadPoolExecutor(2) as pool:
        results = list(pool.map(lambda _: attempt(), range(2)))

    [stored] = [r for r in results if isinstance(r, Outcome)]
    [refused] = [r for r in results if isinstance(r, AlreadyApplied)]
    assert refused.applied == AppliedRequest(version + 1, stored.version)
    assert stored_versions(app, game_id) == list(range(1, stored.version + 1))


def test_a_key_and_its_events_are_stored_together_or_not_at_all(app: Bohnanza) -> None:
    game_id, harvest, _ = game_where_two_seats_can_harvest(app)
    stored = app.execute(game_id, harvest, request_key="kept")
    [last] = [e for e in app.recorder.select_events(game_id) if e.originator_version == 1]
    taken = StoredEvent(game_id, stored.version, last.topic, last.state)  # version in use
    fresh = StoredEvent(game_id, stored.version + 1, last.topic, last.state)

    with pytest.raises(IntegrityError):
        app.recorder.insert_events([taken], request_key="new")
    with pytest.raises(IntegrityError):
        app.recorder.insert_events([fresh], request_key="kept")

    assert app.recorder.applied(game_id, "new") is None
    assert stored_versions(app, game_id) == list(range(1, stored.version + 1))


def test_another_application_on_the_same_store_knows_the_key(shared_database_url: str) -> None:
    with Bohnanza.from_url(shared_database_url) as first:
        game_id, harvest, _ = game_where_two_seats_can_harvest(first)
        stored = first.execute(game_id, harvest, request_key="before-a-crash")

    with Bohnanza.from_url(shared_database_url) as second, pytest.raises(AlreadyApplied) as again:
        second.execute(game_id, harvest, request_key="before-a-crash")

    assert again.value.applied.last_version == stored.version


@pytest.mark.postgres
def test_each_call_of_the_keys_takes_a_new_connection_when_the_database_dropped_the_pooled_one(
    postgres_database: PostgresTestDatabase,
) -> None:
    """The pool hands out connections unchecked (domain/storage.py): every call of the store is
    tried again on another connection when the one it got is dead, the keys' own calls too."""
    store = urlsplit(postgres_database.new_store_url())
    with proxy_to((store.hostname or "127.0.0.1", store.port or 5432)) as proxy:
        url = urlunsplit(store._replace(netloc=f"{store.username}@127.0.0.1:{proxy.port}"))
        with Bohnanza.from_url(url) as app:
            game_id, harvest, _ = game_where_two_seats_can_harvest(app)

            def after_a_drop(call: Callable[[], Any]) -> Any:
                proxy.cut()  # every connection the pool holds is reset
                proxy.restore()
                return call()

            stored = after_a_drop(lambda: app.execute(game_id, harvest, request_key="stored"))
            after_a_drop(lambda: app.answered(game_id, "refused", "covers", "its answer"))
            refused = after_a_drop(lambda: app.keys.applied(game_id, "refused"))
            covered = after_a_drop(lambda: app.keys.cover(game_id, "stored", "covers"))
            kept = after_a_drop(lambda: app.keys.keep(game_id, "stored", refused))

    first = stored.version - len(stored.facts) + 1
    assert refused == AppliedRequest(REFUSED, REFUSED, "covers", "its answer")
    assert covered
    assert kept == AppliedRequest(first, stored.version, "covers")


def as_a_store_made_before_keys_said_what_they_cover(app: Bohnanza) -> None:
    """Drop the columns added on 5 Dec 2026 (ADDED_COLUMNS) from the store's key table."""
    recorder: Any = app.recorder
    if isinstance(recorder, SQLiteRecorder):
        table = REQUEST_KEYS_TABLE
    else:
        table = f'"{recorder.datastore.schema}"."{recorder.request_keys_table_name}"'
    with recorder.datastore.transaction(commit=True) as cursor:
        for column in ADDED_COLUMNS:
            cursor.execute(f"ALTER TABLE {table} DROP COLUMN {column}")


def test_a_store_made_before_keys_said_what_they_cover_gets_the_columns_and_keeps_its_keys(
    shared_database_url: str,
) -> None:
    with Bohnanza.from_url(shared_database_url) as first:
        game_id, harvest, _ = game_where_two_seats_can_harvest(first)
        stored = first.execute(game_id, harvest, request_key="old")
        as_a_store_made_before_keys_said_what_they_cover(first)

    with Bohnanza.from_url(shared_database_url) as again:
        with pytest.raises(AlreadyApplied) as used:
            again.execute(game_id, harvest, request_key="old", request_covers="its digest")
        later = again.game(game_id).version
        again.answered(game_id, "refused", "a digest", '{"status": 409}')

        first_version = stored.version - len(stored.facts) + 1
        assert used.value.applied == AppliedRequest(first_version, stored.version, covers=None)
        assert again.keys.applied(game_id, "refused") == AppliedRequest(
            REFUSED, REFUSED, "a digest", '{"status": 409}'
        )
        assert again.game(game_id).version == later == stored.version


def test_a_key_is_decided_by_its_first_use_a_refusal_or_a_stored_command(app: Bohnanza) -> None:
    game_id, first, second = game_where_two_seats_can_harvest(app)
    app.answered(game_id, "refused-first", "covers", "its answer")
    stored = app.execute(game_id, first, request_key="stored-first", request_covers="covers")

    with pytest.raises(AlreadyAnswered) as refused:
        app.execute(game_id, second, request_key="refused-first", request_covers="covers")
    with pytest.raises(AlreadyApplied) as applied:
        app.answered(game_id, "stored-first", "covers", "a later refusal")

    assert refused.value.applied.answer == "its answer"
    assert applied.value.applied.last_version == stored.version
    assert app.game(game_id).version == stored.version


@pytest.mark.postgres
def test_postgres_functions_that_would_bypass_the_keys_are_refused(
    postgres_database: PostgresTestDatabase,
) -> None:
    url = postgres_database.new_store_url()

    with pytest.raises(ValueError, match="POSTGRES_ENABLE_DB_FUNCTIONS"):
        Bohnanza.from_url(url, POSTGRES_ENABLE_DB_FUNCTIONS="y")


def test_a_used_key_or_version_is_refused_as_such_every_time(app: Bohnanza) -> None:
    """On PostgreSQL the inserts are pipelined; a failure reported only as "pipeline aborted"
    (it happened a few times in a hundred before the key's insert waited for the events')
    would be retried as a connection problem and answered 503, not recognised as a retry."""
    refused: Counter[str] = Counter()
    for seed in range(100):
        started = app.start_game(SEATS, seed=seed)
        first = started.facts[0]
        assert isinstance(first, ev.GameStarted)
        plant = Plant(first.start_seat, 0)
        stored = app.execute(started.game_id, plant, request_key="once")
        [event] = app.recorder.select_events(started.game_id, lte=1)
        for version, key in ((stored.version, "other"), (stored.version + 1, "once")):
            again = StoredEvent(started.game_id, version, event.topic, event.state)
            with pytest.raises(IntegrityError):
                app.recorder.insert_events([again], request_key=key)
            refused[key] += 1

    assert refused == {"other": 100, "once": 100}


@contextmanager
def stored_by_the_first_attempt_before_the_load(
    retrying: Bohnanza, first: Bohnanza, game_id: UUID, command: Command, key: str
) -> Iterator[list[Outcome]]:
    """The first attempt (another application on the store: another process) stores `command`
    under `key` just after the retry has checked the key and before it loads the game (as its
    application holds it, or as stored), as a first attempt held up by a stalled database
    may."""
    stored: list[Outcome] = []

    def after_the_first_attempt(load: Callable[..., Any]) -> Callable[..., Any]:
        def loaded(*args: Any, **kwargs: Any) -> Any:
            if not stored:
                stored.append(first.execute(game_id, command, request_key=key))
            return load(*args, **kwargs)

        return loaded

    retrying.game = after_the_first_attempt(retrying.game)  # type: ignore[method-assign]
    retrying._held = after_the_first_attempt(retrying._held)  # type: ignore[method-assign]
    try:
        yield stored
    finally:
        vars(retrying).pop("game", None)
        vars(retrying).pop("_held", None)


@pytest.mark.parametrize("if_match", [False, True], ids=["any-version", "expected-version"])
def test_a_retry_deciding_on_a_state_its_first_attempt_stored_is_told_so_not_refused(
    shared_database_url: str, if_match: bool
) -> None:
    """Deciding again on the state that holds the command itself, the retry would be refused
    (its field is harvested already; the game is past the expected version): that refusal
    would be kept as the key's answer, though the command was stored."""
    with (
        Bohnanza.from_url(shared_database_url) as first,
        Bohnanza.from_url(shared_database_url) as retrying,
    ):
        game_id, harvest, _ = game_where_two_seats_can_harvest(first)
        expected = retrying.game(game_id).version if if_match else None

        with (
            stored_by_the_first_attempt_before_the_load(
                retrying, first, game_id, harvest, "stalled"
            ) as stored,
            pytest.raises(AlreadyApplied) as again,
        ):
            retrying.execute(game_id, harvest, expected_version=expected, request_key="stalled")

        [outcome] = stored
        assert again.value.applied == AppliedRequest(
            outcome.version - len(outcome.facts) + 1, outcome.version
        )
        assert stored_versions(retrying, game_id) == list(range(1, outcome.version + 1))


def test_a_command_refused_without_its_key_in_the_store_is_refused(
    shared_database_url: str,
) -> None:
    with Bohnanza.from_url(shared_database_url) as app:
        game_id, harvest, _ = game_where_two_seats_can_harvest(app)
        app.execute(game_id, harvest)

        with pytest.raises(RuleViolation, match=r"RULES §8\.2"):
            app.execute(game_id, harvest, request_key="never-stored")


# --- new games ----------------------------------------------------------------------------------


def test_a_new_game_stored_with_a_key_is_stored_once_and_its_key_names_its_versions(
    app: Bohnanza,
) -> None:
    """A request that creates a game chooses its id first; every attempt stores it under that
    id with the key, so the store says which attempt stored it."""
    game_id = uuid4()
    stored = app.start_game(SEATS, seed=3, game_id=game_id, request_key="create k")

    with pytest.raises(AlreadyApplied) as again:
        app.start_game(SEATS, seed=3, game_id=game_id, request_key="create k")

    assert again.value.applied == AppliedRequest(1, stored.version)
    assert stored_versions(app, game_id) == list(range(1, stored.version + 1))


def test_a_new_game_stored_otherwise_is_a_conflict_for_a_key(app: Bohnanza) -> None:
    game_id = uuid4()
    app.start_game(SEATS, seed=3, game_id=game_id)

    with pytest.raises(Conflict, match="stored already"):
        app.start_game(SEATS, seed=3, game_id=game_id, request_key="create k")

    assert app.recorder.applied(game_id, "create k") is None


def test_the_key_of_a_new_game_saved_with_records_beside_it_names_the_game_s_versions(
    app: Bohnanza,
) -> None:
    game_id = uuid4()
    first, *rest = simulate("rio-grande", 3, seed=4)
    notes = Annotations(game_id=str(game_id))
    notes.add(1, 3, {"role": "guest", "name": "Kib", "seat": None}, "hm", None, "public", None)

    stored = app.record_game([first, *rest], game_id=game_id, beside=[notes], request_key="k")

    assert app.recorder.applied(game_id, "k") == AppliedRequest(1, stored.version)
    assert app.recorder.applied(notes.id, "k") is None
