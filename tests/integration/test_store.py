"""The Bohnanza application on real stores: what is recorded, how it reads back, and what
concurrent commands do. Every test runs on each store (in-memory, SQLite file, PostgreSQL);
tests that need two Application instances on one store, as two processes have, run on the
stores that allow it."""

from __future__ import annotations

import json
import random
import sqlite3
import subprocess
import sys
import threading
from collections.abc import Callable, Iterator
from concurrent.futures import ThreadPoolExecutor
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any
from uuid import UUID, uuid4

import pytest
from eventsourcing.application import ProcessingEvent
from eventsourcing.persistence import Mapper, OperationalError, StoredEvent
from eventsourcing.sqlite import SQLiteApplicationRecorder
from eventsourcing.utils import resolve_topic
from psycopg import sql

from domain.aggregate import _FOLDED_AHEAD, Game
from domain.application import SNAPSHOT_INTERVAL, Bohnanza, Outcome, _Collected
from domain.bots import simulate
from domain.encoding import code_of
from domain.postgres_keys import PostgresRecorder
from domain.rules import commands as cmd
from domain.rules import events as ev
from domain.rules import fold, legal_commands, resolve_ruleset
from domain.rules.beans import BASE_BEANS
from domain.rules.errors import Conflict, NotFound, RuleViolation
from domain.rules.state import GameState
from domain.rules.transcript import commands_from_facts
from domain.storage import StorageConfigError, default_database_url, persistence_env
from tests.conftest import PostgresTestDatabase

SEATS = ["Ana", "Ben", "Cleo"]
MAX_COMMANDS = 5_000


def moves(state: GameState) -> list[cmd.Command]:
    """Every listed legal command of every seat. Offers are never listed one by one (only their
    range), so random play cannot trade forever."""
    return [
        command for seat in range(len(state.players)) for command in legal_commands(state, seat)
    ]


def play_to_end(
    app: Bohnanza, game_id: UUID, state: GameState, rng: random.Random
) -> list[ev.Event]:
    """Random legal commands until the game ends; the facts they caused."""
    facts: list[ev.Event] = []
    for _ in range(MAX_COMMANDS):
        if state.is_over:
            return facts
        outcome = app.execute(game_id, rng.choice(moves(state)))
        facts += outcome.facts
        state = fold(outcome.facts, state)
    pytest.fail(f"the game did not end within {MAX_COMMANDS} commands")


def play_complete_game(app: Bohnanza, seats: list[str], seed: int) -> tuple[UUID, list[ev.Event]]:
    """A game from start to end with seeded random commands; its id and every decided fact."""
    started = app.start_game(seats, seed=seed)
    facts = list(started.facts)
    facts += play_to_end(app, started.game_id, fold(facts), random.Random(seed))
    return started.game_id, facts


def game_where_two_seats_can_harvest(
    app: Bohnanza, seed: int = 7
) -> tuple[UUID, cmd.Harvest, cmd.Harvest]:
    """A 3-player game played on until two seats each have a field to harvest (legal off-turn),
    with those two harvests."""
    rng = random.Random(seed)
    started = app.start_game(SEATS, seed=seed)
    state = fold(started.facts)
    for _ in range(MAX_COMMANDS):
        harvests = [
            own[0]
            for seat in range(len(SEATS))
            if (own := [c for c in legal_commands(state, seat) if isinstance(c, cmd.Harvest)])
        ]
        if len(harvests) >= 2:
            return started.game_id, harvests[0], harvests[1]
        others = [c for c in moves(state) if not isinstance(c, cmd.Harvest)]
        outcome = app.execute(started.game_id, rng.choice(others or moves(state)))
        state = fold(outcome.facts, state)
    pytest.fail("no two seats could harvest at once")


def stored_versions(app: Bohnanza, game_id: UUID) -> list[int]:
    return [stored.originator_version for stored in app.recorder.select_events(game_id)]


@contextmanager
def two_applications(database_url: str) -> Iterator[tuple[Bohnanza, Bohnanza]]:
    """Two applications on one store, as two processes are."""
    with Bohnanza.from_url(database_url) as one, Bohnanza.from_url(database_url) as other:
        yield one, other


def reads_of(app: Bohnanza, monkeypatch: pytest.MonkeyPatch) -> list[UUID]:
    """The aggregates whose events the application reads from here on, a read each."""
    reads: list[UUID] = []
    select_events = app.recorder.select_events

    def counted(originator_id: UUID, **kwargs: Any) -> Any:
        reads.append(originator_id)
        return select_events(originator_id, **kwargs)

    monkeypatch.setattr(app.recorder, "select_events", counted)
    return reads


@contextmanager
def loads_held_together(*apps: Bohnanza) -> Iterator[None]:
    """Make each of two racing threads wait, after loading the game for its first attempt (the
    game as its application holds it, or as stored), until the other has loaded it too: both
    decide on the same version and collide when storing."""
    barrier = threading.Barrier(2, timeout=10)
    seen = threading.local()

    def first_load_waits(load: Callable[..., Any]) -> Callable[..., Any]:
        def loaded(*args: Any, **kwargs: Any) -> Any:
            game = load(*args, **kwargs)
            if game is not None and not getattr(seen, "loaded", False):
                seen.loaded = True
                barrier.wait()
            return game

        return loaded

    for app in {id(app): app for app in apps}.values():
        app.game = first_load_waits(app.game)  # type: ignore[method-assign]
        app._held = first_load_waits(app._held)  # type: ignore[method-assign]
    try:
        yield
    finally:
        for app in apps:
            vars(app).pop("game", None)
            vars(app).pop("_held", None)


def race(*calls: Callable[[], Outcome]) -> list[Outcome | Conflict]:
    """Run the calls in parallel threads; each one's Outcome or Conflict."""

    def attempt(call: Callable[[], Outcome]) -> Outcome | Conflict:
        try:
            return call()
        except Conflict as conflict:
            return conflict

    with ThreadPoolExecutor(len(calls)) as pool:
        return list(pool.map(attempt, calls))


def split(results: list[Outcome | Conflict]) -> tuple[list[Outcome], list[Conflict]]:
    outcomes = sorted((r for r in results if isinstance(r, Outcome)), key=lambda o: o.version)
    return outcomes, [r for r in results if isinstance(r, Conflict)]


# --- a complete game, recorded once per store --------------------------------------------------


@dataclass(frozen=True)
class RecordedGame:
    app: Bohnanza
    game_id: UUID
    facts: list[ev.Event]


@pytest.fixture(scope="module")
def recorded(module_database_url: str) -> Iterator[RecordedGame]:
    with Bohnanza.from_url(module_database_url) as app:
        game_id, facts = play_complete_game(app, SEATS, seed=2024)
        yield RecordedGame(app, game_id, facts)


def test_a_complete_game_reads_back_as_the_facts_decided_in_order(recorded: RecordedGame) -> None:
    stored = recorded.app.recorded_facts(recorded.game_id)

    assert [r.fact for r in stored] == recorded.facts
    assert [r.version for r in stored] == list(range(1, len(recorded.facts) + 1))
    assert isinstance(recorded.facts[-1], ev.GameEnded)


def test_folding_the_stored_facts_gives_the_state_the_application_loads(
    recorded: RecordedGame,
) -> None:
    app, game_id = recorded.app, recorded.game_id

    assert app.refold(game_id) == app.state(game_id) == fold(recorded.facts)


def test_the_state_at_a_version_is_the_fold_of_that_many_facts(recorded: RecordedGame) -> None:
    last = len(recorded.facts)
    versions = sorted(
        {1, 2, 3, last - 1, last}
        | {v + d for v in range(SNAPSHOT_INTERVAL, last, SNAPSHOT_INTERVAL) for d in (-1, 0, 1)}
        | set(random.Random(1).sample(range(1, last + 1), 10))
    )

    for version in versions:
        assert recorded.app.state(recorded.game_id, version=version) == fold(
            recorded.facts[:version]
        ), f"version {version}"


def test_snapshots_are_taken_every_interval_and_restore_the_exact_state(
    recorded: RecordedGame,
) -> None:
    snapshots = list(recorded.app.snapshots.get(recorded.game_id))

    assert [s.originator_version for s in snapshots] == list(
        range(SNAPSHOT_INTERVAL, len(recorded.facts) + 1, SNAPSHOT_INTERVAL)
    )
    for snapshot in snapshots:
        restored = snapshot.mutate(None)
        assert restored.version == snapshot.originator_version
        assert restored.state == fold(recorded.facts[: snapshot.originator_version])


def test_every_snapshot_is_the_stored_game_at_its_version_taken_in_memory_or_loaded(
    app: Bohnanza, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(app, "snapshot_interval", 7)  # many, some reached mid-command
    loaded: list[int | None] = []
    take_snapshot = app.take_snapshot

    def counted(game_id: UUID, version: int | None = None, **kwargs: Any) -> None:
        loaded.append(version)
        take_snapshot(game_id, version=version, **kwargs)

    monkeypatch.setattr(app, "take_snapshot", counted)
    game_id, facts = play_complete_game(app, SEATS, seed=2024)

    snapshots = list(app.snapshots.get(game_id))
    versions = [snapshot.originator_version for snapshot in snapshots]
    assert versions == list(range(7, len(facts) + 1, 7))
    assert 0 < len(loaded) < len(versions) / 2  # most taken of the game in memory
    stored = app.events.get(game_id)
    timestamps = {event.originator_version: event.timestamp for event in stored}
    for snapshot in snapshots:
        restored = snapshot.mutate(None)
        version = snapshot.originator_version
        assert (restored.version, restored.state) == (version, fold(facts[:version]))
        assert (restored.created_on, restored.modified_on) == (timestamps[1], timestamps[version])


def test_snapshots_name_the_game_by_its_explicit_topic(recorded: RecordedGame) -> None:
    topics = {s.topic for s in recorded.app.snapshots.get(recorded.game_id)}

    assert topics == {"bohnanza:Game"}


def test_every_stored_event_carries_the_explicit_topic_of_its_fact(recorded: RecordedGame) -> None:
    topics = [stored.topic for stored in recorded.app.recorder.select_events(recorded.game_id)]

    assert topics == [code_of(type(fact)) for fact in recorded.facts]
    assert code_of(ev.GameStarted) == "GS3"  # the code, and the stored class's version


# --- recording ---------------------------------------------------------------------------------


def stored_before_codes(app: Bohnanza, stored: StoredEvent) -> StoredEvent:
    """A stored event as the library's own mapper stored it before the compact encoding: a JSON
    object under the event class's long topic."""
    legacy = Mapper[UUID](transcoder=app.mapper.transcoder)
    return legacy.to_stored_event(app.mapper.to_domain_event(stored))


def test_the_first_stored_event_carries_the_fully_resolved_ruleset(app: Bohnanza) -> None:
    options = {"tie_break": ["seat-distance"], "coin_counts_visible": False}
    game_id = app.start_game(SEATS, preset="amigo-1997", options=options, seed=5).game_id

    first = app.recorder.select_events(game_id, limit=1)[0]
    payload = vars(app.mapper.to_domain_event(first))

    assert first.topic == "GS3"
    assert payload["originator_topic"] == "bohnanza:Game"
    assert payload["ruleset"] == resolve_ruleset("amigo-1997", 3, options).to_dict()
    assert payload["ruleset"]["preset"] == "amigo-1997"
    assert payload["ruleset"]["beans"] == list(BASE_BEANS)
    assert payload["ruleset"]["deal"] == [5, 5, 5]
    assert payload["ruleset"]["options"] == {
        "tie_break": ["seat-distance"],
        "coin_counts_visible": False,
    }


def test_a_game_started_before_sandboxes_existed_reads_back_as_a_played_game(
    app: Bohnanza,
) -> None:
    game_id = app.start_game(SEATS, seed=6).game_id
    first, *rest = (stored_before_codes(app, s) for s in app.recorder.select_events(game_id))
    payload = json.loads(first.state)
    assert (payload["class_version"], payload["sandbox"], payload["hands"]) == (3, False, "known")
    del payload["class_version"], payload["sandbox"], payload["hands"]  # as version 1 stored it
    old_id = uuid4()
    app.recorder.insert_events(
        [
            StoredEvent(old_id, 1, first.topic, json.dumps(payload).encode()),
            *(StoredEvent(old_id, s.originator_version, s.topic, s.state) for s in rest),
        ]
    )

    started = app.facts(old_id)[0]

    assert isinstance(started, ev.GameStarted)
    assert started.sandbox is False
    assert app.state(old_id) == app.state(game_id)


def test_a_game_started_before_unknown_hands_existed_reads_back_with_known_hands(
    app: Bohnanza,
) -> None:
    started = app.start_game(SEATS, mode="tabletop")
    first = stored_before_codes(app, app.recorder.select_events(started.game_id, limit=1)[0])
    payload = json.loads(first.state)
    payload["class_version"] = 2
    del payload["hands"]  # as version 2 stored it
    old_id = uuid4()
    app.recorder.insert_events([StoredEvent(old_id, 1, first.topic, json.dumps(payload).encode())])

    (fact,) = app.facts(old_id)

    assert isinstance(fact, ev.GameStarted)
    assert fact.hands == "known"
    assert app.state(old_id).pools == ()


def test_a_rejected_command_stores_nothing_and_leaves_the_version_unchanged(
    app: Bohnanza,
) -> None:
    started = app.start_game(SEATS, seed=3)
    before = app.game(started.game_id).version

    with pytest.raises(RuleViolation):
        app.execute(started.game_id, cmd.Draw(0), expected_version=before)

    assert app.game(started.game_id).version == before
    assert stored_versions(app, started.game_id) == list(range(1, before + 1))


def test_a_command_based_on_a_version_since_moved_on_is_a_conflict_and_stores_nothing(
    app: Bohnanza,
) -> None:
    game_id, first, second = game_where_two_seats_can_harvest(app)
    version = app.game(game_id).version
    stored = app.execute(game_id, first, expected_version=version)

    with pytest.raises(Conflict) as conflict:
        app.execute(game_id, second, expected_version=version)

    assert conflict.value.current_version == stored.version
    assert stored_versions(app, game_id) == list(range(1, stored.version + 1))


def test_of_two_threads_racing_on_one_version_exactly_one_command_is_stored(
    app: Bohnanza,
) -> None:
    game_id, first, second = game_where_two_seats_can_harvest(app)
    version = app.game(game_id).version

    with loads_held_together(app):
        results = race(
            lambda: app.execute(game_id, first, expected_version=version),
            lambda: app.execute(game_id, second, expected_version=version),
        )

    [winner], [conflict] = split(results)
    assert "stored first" in str(conflict)  # lost when storing: both had passed the version check
    assert conflict.current_version == winner.version
    assert stored_versions(app, game_id) == list(range(1, version + len(winner.facts) + 1))
    assert app.facts(game_id)[version:] == winner.facts
    assert app.refold(game_id) == app.state(game_id)


def test_two_threads_racing_without_an_expected_version_both_harvest_through_the_retry(
    app: Bohnanza,
) -> None:
    game_id, first, second = game_where_two_seats_can_harvest(app)
    version = app.game(game_id).version

    with loads_held_together(app):
        results = race(lambda: app.execute(game_id, first), lambda: app.execute(game_id, second))

    (earlier, later), [] = split(results)
    assert stored_versions(app, game_id) == list(range(1, later.version + 1))
    assert app.facts(game_id)[version:] == earlier.facts + later.facts
    assert {fact.seat for fact in earlier.facts + later.facts} == {first.seat, second.seat}
    assert app.refold(game_id) == app.state(game_id)


# --- several application instances on one store (several processes) -----------------------------


def test_a_fresh_application_on_the_same_store_loads_the_same_game(
    shared_database_url: str,
) -> None:
    with Bohnanza.from_url(shared_database_url) as app:
        game_id, facts = play_complete_game(app, SEATS, seed=99)
        with Bohnanza.from_url(shared_database_url) as fresh:
            assert fresh.state(game_id) == app.state(game_id) == fold(facts)
            assert fresh.facts(game_id) == facts
            assert fresh.state(game_id, version=150) == fold(facts[:150])


LOAD_IN_ANOTHER_PROCESS = """
import json, sys, uuid
from domain.application import Bohnanza
with Bohnanza.from_url(sys.argv[1]) as app:
    print(json.dumps(app.state(uuid.UUID(sys.argv[2])).to_dict()))
"""


def test_another_process_loads_the_same_game(shared_database_url: str) -> None:
    with Bohnanza.from_url(shared_database_url) as app:
        game_id, facts = play_complete_game(app, SEATS, seed=98)

    loaded = subprocess.run(
        [sys.executable, "-c", LOAD_IN_ANOTHER_PROCESS, shared_database_url, str(game_id)],
        capture_output=True,
        text=True,
        timeout=60,
        check=True,
    )

    assert GameState.from_dict(json.loads(loaded.stdout)) == fold(facts)


def test_applications_starting_together_on_an_empty_store_all_start(
    new_shared_database_url: Callable[[], str],
) -> None:
    """As the API's workers and the projector do when they start on a new database: each one
    creates the store's tables, types and functions if they are missing, at the same moment."""
    for _ in range(10):
        url = new_shared_database_url()
        start = threading.Barrier(4)

        def open_the_store(url: str = url, start: threading.Barrier = start) -> None:
            start.wait()
            Bohnanza.from_url(url).close()

        with ThreadPoolExecutor(4) as pool:
            for started in [pool.submit(open_the_store) for _ in range(4)]:
                started.result()


def test_a_sqlite_file_locked_by_another_process_opening_it_is_tried_again(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    failures = [sqlite3.OperationalError("database is locked")] * 2
    construct = Bohnanza.construct_recorder

    def locked_at_first(app: Bohnanza) -> Any:
        if failures:
            raise failures.pop()
        return construct(app)

    monkeypatch.setattr(Bohnanza, "construct_recorder", locked_at_first)

    with Bohnanza.from_url(f"sqlite:///{tmp_path / 'store.sqlite3'}") as app:
        assert app.games() == []
    assert failures == []


def test_a_sqlite_file_that_fails_otherwise_is_not_tried_again(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    attempts: list[Bohnanza] = []

    def broken(app: Bohnanza) -> Any:
        attempts.append(app)
        raise sqlite3.OperationalError("disk I/O error")

    monkeypatch.setattr(Bohnanza, "construct_recorder", broken)

    with pytest.raises(sqlite3.OperationalError, match="disk I/O error"):
        Bohnanza.from_url(f"sqlite:///{tmp_path / 'store.sqlite3'}")
    assert len(attempts) == 1


def test_of_two_application_instances_racing_on_one_version_exactly_one_command_is_stored(
    shared_database_url: str,
) -> None:
    with two_applications(shared_database_url) as (one, other):
        game_id, first, second = game_where_two_seats_can_harvest(one)
        version = other.game(game_id).version

        with loads_held_together(one, other):
            results = race(
                lambda: one.execute(game_id, first, expected_version=version),
                lambda: other.execute(game_id, second, expected_version=version),
            )

        [winner], [conflict] = split(results)
        assert "stored first" in str(conflict)
        assert conflict.current_version == winner.version
        for app in (one, other):
            assert stored_versions(app, game_id) == list(range(1, winner.version + 1))
            assert app.facts(game_id)[version:] == winner.facts
            assert app.state(game_id) == app.refold(game_id)


def test_two_application_instances_racing_without_an_expected_version_both_harvest(
    shared_database_url: str,
) -> None:
    with two_applications(shared_database_url) as (one, other):
        game_id, first, second = game_where_two_seats_can_harvest(one)
        version = other.game(game_id).version

        with loads_held_together(one, other):
            results = race(
                lambda: one.execute(game_id, first), lambda: other.execute(game_id, second)
            )

        (earlier, later), [] = split(results)
        for app in (one, other):
            assert stored_versions(app, game_id) == list(range(1, later.version + 1))
            assert app.facts(game_id)[version:] == earlier.facts + later.facts
            assert app.state(game_id) == app.refold(game_id)


def test_a_game_played_by_two_application_instances_in_turn_is_stored_whole_and_in_order(
    shared_database_url: str,
) -> None:
    """Each application's command finds the game passed by the other's last command: read
    first, or decided on the game as held and then again on the game as stored (its insert
    refused by the store, or the command by the rules on the old state), it is stored."""
    with two_applications(shared_database_url) as (one, other):
        started = one.start_game(SEATS, seed=5)
        other.game(started.game_id)  # both hold the game from here on
        facts, rng = list(started.facts), random.Random(5)
        for turn in range(MAX_COMMANDS):
            state = fold(facts)
            if state.is_over:
                break
            app = (one, other)[turn % 2]
            facts += app.execute(started.game_id, rng.choice(moves(state))).facts

        assert fold(facts).is_over
        for app in (one, other):
            assert app.facts(started.game_id) == facts
            assert stored_versions(app, started.game_id) == list(range(1, len(facts) + 1))
            assert app.state(started.game_id) == app.refold(started.game_id)


def test_a_command_decided_on_a_game_another_application_passed_is_decided_again_and_stored(
    shared_database_url: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Its insert is refused (the versions are taken); on PostgreSQL the refused insert read
    what the other stored, so the command is decided again without another read."""
    with two_applications(shared_database_url) as (one, other):
        game_id, first, second = game_where_two_seats_can_harvest(one)
        other.game(game_id)
        earlier = one.execute(game_id, first)
        reads = reads_of(other, monkeypatch)

        later = other.execute(game_id, second)

        assert reads == ([game_id] if shared_database_url.startswith("sqlite") else [])
        assert later.version == earlier.version + len(later.facts)
        assert other.facts(game_id)[earlier.version :] == later.facts
        assert other.state(game_id) == other.refold(game_id)


def test_a_command_the_rules_refuse_on_the_game_as_held_is_decided_on_the_game_as_stored(
    shared_database_url: str,
) -> None:
    with two_applications(shared_database_url) as (one, other):
        started = one.start_game(SEATS, seed=3)
        held = one.state(started.game_id)
        state, rng = held, random.Random(3)
        for _ in range(MAX_COMMANDS):  # the other plays until a command is legal only now
            only_now = [c for c in moves(state) if c not in moves(held)]
            if only_now:
                break
            state = fold(other.execute(started.game_id, rng.choice(moves(state))).facts, state)

        outcome = one.execute(started.game_id, only_now[0])

        assert one.state(started.game_id) == fold(outcome.facts, state)


def test_a_command_on_a_game_its_application_stored_last_reads_nothing_from_the_store(
    app: Bohnanza, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Its one trip to the store is its insert: the game as the application holds it is the
    game as stored (the insert would be refused otherwise)."""
    game_id, harvest, _ = game_where_two_seats_can_harvest(app)
    reads = reads_of(app, monkeypatch)

    outcome = app.execute(game_id, harvest)

    assert reads == []
    assert outcome.facts
    assert stored_versions(app, game_id)[-1] == outcome.version


# --- queries -----------------------------------------------------------------------------------

UNKNOWN_GAME_OPERATIONS: dict[str, Callable[[Bohnanza, UUID], object]] = {
    "state": lambda app, game_id: app.state(game_id),
    "state-at-version": lambda app, game_id: app.state(game_id, version=1),
    "execute": lambda app, game_id: app.execute(game_id, cmd.Harvest(0, 0)),
    "facts": lambda app, game_id: app.facts(game_id),
    "refold": lambda app, game_id: app.refold(game_id),
}


@pytest.mark.parametrize("operation", UNKNOWN_GAME_OPERATIONS)
def test_an_unknown_game_id_is_not_found(app: Bohnanza, operation: str) -> None:
    app.start_game(SEATS, seed=1)

    with pytest.raises(NotFound):
        UNKNOWN_GAME_OPERATIONS[operation](app, uuid4())


def test_the_game_list_shows_started_and_ended_games_with_scores_and_winners(
    app: Bohnanza,
) -> None:
    ended_id, facts = play_complete_game(app, ["Ana", "Ben"], seed=11)
    open_id = app.start_game(SEATS, preset="amigo", seed=12).game_id
    result = fold(facts).result
    assert result is not None

    ended, started = app.games()

    assert (ended.game_id, ended.seats, ended.preset, ended.mode) == (
        ended_id,
        ["Ana", "Ben"],
        "rio-grande",
        "digital",
    )
    assert (ended.ended, ended.scores, ended.winners) == (
        True,
        list(result.scores),
        list(result.winners),
    )
    assert (started.game_id, started.seats, started.preset) == (open_id, SEATS, "amigo")
    assert (started.ended, started.scores, started.winners) == (False, None, None)
    assert ended.started_at <= started.started_at


# --- the database URL --------------------------------------------------------------------------

POSTGRES_DEFAULTS = {
    "PERSISTENCE_MODULE": "eventsourcing.postgres",
    "APPLICATION_RECORDER_TOPIC": "domain.postgres_keys:PostgresRecorder",
    "POSTGRES_HOST": "127.0.0.1",
    "POSTGRES_PORT": "5432",
    "POSTGRES_USER": "postgres",
    "POSTGRES_PASSWORD": "",
    "POSTGRES_SCHEMA": "public",
    "POSTGRES_POOL_SIZE": "2",
    "POSTGRES_MAX_OVERFLOW": "6",
    "POSTGRES_CONNECT_TIMEOUT": "2",
    "POSTGRES_LOCK_TIMEOUT": "5",
}

URL_SETTINGS: list[tuple[str, dict[str, str]]] = [
    ("memory://", {"PERSISTENCE_MODULE": "domain.request_keys:MemoryFactory"}),
    ("sqlite:///games.sqlite3", {"SQLITE_DBNAME": "games.sqlite3"}),
    ("sqlite:///var/data/games.db", {"SQLITE_DBNAME": "var/data/games.db"}),
    ("sqlite:////srv/bohnanza/games.db", {"SQLITE_DBNAME": "/srv/bohnanza/games.db"}),
    ("sqlite:////srv/bean%20games.db", {"SQLITE_DBNAME": "/srv/bean games.db"}),
    ("sqlite:///~/games.db", {"SQLITE_DBNAME": str(Path("~/games.db").expanduser())}),
    (
        "postgresql://db.example/bohnanza",
        {"POSTGRES_HOST": "db.example", "POSTGRES_DBNAME": "bohnanza"},
    ),
    (
        "postgresql://ana:s%40cret%3A1@db.example:6543/beans?schema=records",
        {
            "POSTGRES_USER": "ana",
            "POSTGRES_PASSWORD": "s@cret:1",
            "POSTGRES_HOST": "db.example",
            "POSTGRES_PORT": "6543",
            "POSTGRES_DBNAME": "beans",
            "POSTGRES_SCHEMA": "records",
        },
    ),
    (
        "postgres://ana@10.0.0.5/beans",
        {"POSTGRES_USER": "ana", "POSTGRES_HOST": "10.0.0.5", "POSTGRES_DBNAME": "beans"},
    ),
    (
        "postgresql+psycopg://[::1]:5433/beans",
        {"POSTGRES_HOST": "::1", "POSTGRES_PORT": "5433", "POSTGRES_DBNAME": "beans"},
    ),
    ("postgresql:///beans", {"POSTGRES_DBNAME": "beans"}),
    (
        "postgresql://db/beans?pool_size=4&max_overflow=0&connect_timeout=10",
        {
            "POSTGRES_HOST": "db",
            "POSTGRES_DBNAME": "beans",
            "POSTGRES_POOL_SIZE": "4",
            "POSTGRES_MAX_OVERFLOW": "0",
            "POSTGRES_CONNECT_TIMEOUT": "10",
        },
    ),
]


@pytest.mark.parametrize(("url", "expected"), URL_SETTINGS, ids=[url for url, _ in URL_SETTINGS])
def test_a_database_url_maps_to_the_persistence_settings(
    url: str, expected: dict[str, str]
) -> None:
    env = persistence_env(url)

    if url.startswith("postgres"):
        assert env == {**POSTGRES_DEFAULTS, **expected}
    elif url.startswith("sqlite"):
        assert env == {
            "PERSISTENCE_MODULE": "eventsourcing.sqlite",
            "APPLICATION_RECORDER_TOPIC": "domain.request_keys:SQLiteRecorder",
            "SQLITE_LOCK_TIMEOUT": "10",
            **expected,
        }
    else:
        assert env == expected


def test_the_postgresql_recorder_topic_names_the_recorder() -> None:
    from domain.postgres_keys import PostgresRecorder

    assert resolve_topic(POSTGRES_DEFAULTS["APPLICATION_RECORDER_TOPIC"]) is PostgresRecorder


@pytest.mark.postgres
def test_a_postgresql_store_made_before_the_command_function_gets_it_when_opened(
    postgres_database: PostgresTestDatabase,
) -> None:
    url = postgres_database.new_store_url()
    with Bohnanza.from_url(url) as app:
        game_id = app.start_game(SEATS, seed=5).game_id
        recorder = app.recorder
        assert isinstance(recorder, PostgresRecorder)
        function = sql.Identifier(recorder.datastore.schema, recorder.command_function_name)
    postgres_database.connection.execute(sql.SQL("DROP FUNCTION {}").format(function))

    with Bohnanza.from_url(url) as app:
        app.execute(game_id, moves(app.state(game_id))[0])

        assert stored_versions(app, game_id)[-1] == app.game(game_id).version


PLAY_AND_PROJECT_ON_SQLITE = """
import sys
from domain.application import Bohnanza
from projections.runner import Projector
import api.app, api.cli_records
with Bohnanza.from_url(sys.argv[1]) as app, Projector.for_url(app, sys.argv[1]) as projector:
    game = app.start_game(["Ana", "Ben", "Cleo"], seed=1)
    projector.catch_up()
print(sorted(name for name in sys.modules if name.split(".")[0] in ("psycopg", "psycopg_pool")))
"""


def test_a_process_on_sqlite_never_imports_psycopg(tmp_path: Path) -> None:
    """The command line on the default store starts a tenth of a second sooner without it."""
    done = subprocess.run(
        [sys.executable, "-c", PLAY_AND_PROJECT_ON_SQLITE, f"sqlite:///{tmp_path / 's.sqlite3'}"],
        capture_output=True,
        text=True,
        timeout=60,
        check=True,
    )

    assert done.stdout.strip() == "[]"


def test_the_default_database_url_names_an_absolute_sqlite_file(tmp_path: Path) -> None:
    url = default_database_url(tmp_path / "data")

    assert persistence_env(url)["SQLITE_DBNAME"] == str(tmp_path / "data" / "bohnanza.sqlite3")


BAD_URLS = [
    "",
    "games.sqlite3",
    "mysql://ana@db/beans",
    "sqlite://",
    "sqlite:///",
    "sqlite:///:memory:",
    "postgresql://db.example",
    "postgresql://db.example/",
    "postgresql://db.example:port/beans",
    "postgresql://db.example:70000/beans",
    "postgresql://db.example/beans?pool_size=many",
    "postgresql://db.example/beans?max_overflow=-1",
    "postgresql://db.example/beans?connect_timeout=0.5",
]


@pytest.mark.parametrize("url", BAD_URLS)
def test_a_database_url_the_service_cannot_use_is_a_storage_config_error(url: str) -> None:
    with pytest.raises(StorageConfigError):
        persistence_env(url)


def test_a_failed_snapshot_leaves_the_stored_command_standing(
    app: Bohnanza, monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture
) -> None:
    def broken(*args: Any, **kwargs: Any) -> None:
        raise OperationalError("the snapshot store is down")

    monkeypatch.setattr(app.snapshots, "put", broken)
    outcome = app.start_game(["Ana", "Ben", "Cleo"], seed=3)
    state = fold(outcome.facts)
    while outcome.version < SNAPSHOT_INTERVAL:
        outcome = app.execute(outcome.game_id, moves(state)[0])
        state = fold(outcome.facts, state)

    assert app.game(outcome.game_id).version == outcome.version
    assert (
        f"snapshot of game {outcome.game_id} at version {SNAPSHOT_INTERVAL} failed" in caplog.text
    )


def test_the_process_environment_cannot_redirect_the_store(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("BOHNANZA_PERSISTENCE_MODULE", "eventsourcing.popo")
    app = Bohnanza.from_url(f"sqlite:///{tmp_path}/env.sqlite3")

    assert isinstance(app.recorder, SQLiteApplicationRecorder)


def _game_of_six_facts(game_id: UUID) -> Game:
    facts = simulate("rio-grande", 3, bot="greedy", seed=4)[:6]
    assert isinstance(facts[0], ev.GameStarted)
    game = Game.start(facts[0], game_id=game_id)
    game.record(facts[1:])
    return game


def test_a_save_collects_a_game_s_events_as_the_library_s_processing_event_does() -> None:
    game_id = uuid4()
    ours, library = _Collected(), ProcessingEvent[UUID]()
    ours.collect_events(_game_of_six_facts(game_id), request_key="k")
    library.collect_events(_game_of_six_facts(game_id), request_key="k")

    def collected(event: Any) -> tuple[Any, ...]:
        return type(event), event.originator_id, event.originator_version

    assert [collected(e) for e in ours.events] == [collected(e) for e in library.events]
    assert len(ours.events) == 6
    assert list(ours.aggregates) == list(library.aggregates) == [game_id]
    assert ours.saved_kwargs == library.saved_kwargs == {"request_key": "k"}


def test_a_save_holding_anything_but_aggregates_is_collected_the_library_s_way() -> None:
    game_id = uuid4()
    ours = _Collected()
    ours.collect_events(None, _game_of_six_facts(game_id))  # the library skips a None
    assert len(ours.events) == 6
    assert list(ours.aggregates) == [game_id]


def test_a_game_s_table_after_each_command_is_the_fold_of_its_facts_so_far() -> None:
    """A command's stored events take the tables its decision folded (Game.execute): they must
    be the tables the facts fold to, as a game loaded from the store has them."""
    facts = simulate("rio-grande", 4, bot="greedy", seed=8)
    game = Game.start(facts[0])
    game.record(facts[1:2])  # the deal
    recorded = list(facts[:2])
    for number, command in enumerate(commands_from_facts(facts, tabletop=False)):
        recorded += game.execute(command)
        if number % 20 == 0:
            assert game.state == fold(recorded)
    assert recorded == facts
    assert game.state == fold(facts)
    assert _FOLDED_AHEAD not in game.__dict__
