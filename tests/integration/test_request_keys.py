"""Request keys (domain/request_keys.py): a command given with a key is stored at most once, on
every store, because the key is stored in the same transaction as the command's events."""

from __future__ import annotations

from concurrent.futures import ThreadPoolExecutor

import pytest
from eventsourcing.persistence import IntegrityError, StoredEvent

from domain.application import AlreadyApplied, Bohnanza, Outcome
from domain.request_keys import AppliedRequest
from tests.conftest import PostgresTestDatabase

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
    one = app.start_game(SEATS, seed=1)
    other = app.start_game(SEATS, seed=1)
    game_id, harvest, _ = game_where_two_seats_can_harvest(app)

    app.execute(game_id, harvest, request_key="same")

    assert app.recorder.applied(one.game_id, "same") is None
    assert app.recorder.applied(other.game_id, "same") is None


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
def test_postgres_functions_that_would_bypass_the_keys_are_refused(
    postgres_database: PostgresTestDatabase,
) -> None:
    url = postgres_database.new_store_url()

    with pytest.raises(ValueError, match="POSTGRES_ENABLE_DB_FUNCTIONS"):
        Bohnanza.from_url(url, POSTGRES_ENABLE_DB_FUNCTIONS="y")
