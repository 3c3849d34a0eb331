"""The Bohnanza application: the service layer on the `eventsourcing` library.

One instance per process, built lazily (after a server forks) and shared by threads. Each use case
is one method: start a game, execute a command, read a game's state or facts, list games.
"""

from __future__ import annotations

import logging
import random
import secrets
import sqlite3
import threading
import time
from collections import OrderedDict
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from copy import deepcopy
from dataclasses import dataclass
from datetime import datetime
from functools import partial
from pathlib import Path
from typing import TYPE_CHECKING, Any, TypeVar, cast
from uuid import UUID

from eventsourcing.application import (
    AggregateNotFoundError,
    Application,
    ProcessingEvent,
    project_aggregate,
)
from eventsourcing.domain import Aggregate, OriginatorVersionError
from eventsourcing.persistence import (
    IntegrityError,
    JSONTranscoder,
    Mapper,
    Notification,
    PersistenceError,
    Recording,
    Transcoding,
)
from eventsourcing.utils import Environment

from . import limits, seat_names
from .aggregate import Game, StoredFact
from .encoding import CompactMapper, topics_of
from .request_keys import REFUSED, AppliedRequest, KeyRows, Overtaken
from .rules import events as ev
from .rules.commands import Command, Correct, Undo
from .rules.decide import start_game
from .rules.errata import Corrected
from .rules.errors import BohnanzaError, Conflict, InvalidInput, InvalidSetup, NotFound
from .rules.evolve import fold
from .rules.rulesets import DEFAULT_PRESET, resolve_ruleset
from .rules.state import DIGITAL, KNOWN_HANDS, GameState
from .rules.values import replaceable
from .storage import opening_alone, persistence_env

SNAPSHOT_INTERVAL = 500
"""A snapshot every 500 versions: a complete game (700–900 facts) has one or two. Loading a game
the cache does not hold folds at most 499 facts after its snapshot (about 4 ms); each snapshot
costs about a kilobyte, compressed (domain/encoding.py). At 100 they had been a fifth of a
game's storage."""
CORRECTED_KEPT = 64
"""Corrected games whose facts as corrected each process keeps (their corrections are costly)."""
COMMAND_RETRIES = 3
STORED_ELSEWHERE_KEPT = 1000
"""How many games whose last read found another process's commands each process remembers."""
STARTUP_ATTEMPTS = 8
"""How often `Bohnanza.from_url` tries to open a SQLite file other processes are opening too."""

log = logging.getLogger(__name__)

A = TypeVar("A", bound=Aggregate)


class GameStateAsDict(Transcoding):
    """Snapshots hold the aggregate's `GameState`; store it as JSON primitives."""

    type = GameState
    name = "bohnanza_game_state"

    def encode(self, obj: GameState) -> dict[str, Any]:
        return obj.to_dict()

    def decode(self, data: dict[str, Any]) -> GameState:
        return GameState.from_dict(data)


def project_game(
    game: Game | None, stored_events: Iterable[Any], *, seen: list[RecordedFact] | None = None
) -> Game | None:
    """Fold stored events into a Game: the first one (its start, or a snapshot) through the
    library, the facts after it through one `fold` of the rules (an event's own `mutate` evolves
    the state one fact at a time, and the library's default also asserts a runtime-checkable
    protocol per event). Versions are checked as the library checks them. `seen`: a list to add
    the facts folded in to, with their versions and times."""
    events = iter(stored_events)
    if game is None:
        first = next(events, None)
        if first is None:
            return None
        game = first.mutate(None)
    assert isinstance(game, Game)
    facts: list[ev.Event] = []
    last = None
    for stored in events:
        assert isinstance(stored, StoredFact), (
            "after its start or snapshot, a game's events are facts"
        )
        if stored.originator_version != game.version + len(facts) + 1:
            raise OriginatorVersionError(stored.originator_version, game.version + len(facts) + 1)
        facts.append(stored.fact())
        if seen is not None:
            seen.append(RecordedFact.build(stored.originator_version, stored.timestamp, facts[-1]))
        last = stored
    if last is not None:
        game.state = fold(facts, getattr(game, "state", None))
        game.version = last.originator_version
        game.modified_on = last.timestamp
    return game


@dataclass(frozen=True, slots=True)
class Outcome:
    """What a command did: the facts, the game's new version and its position in the store."""

    game_id: UUID
    version: int
    facts: list[ev.Event]
    position: int | None
    recorded_at: datetime | None = None
    """When the facts were stored (None when nothing was)."""

    def recorded(self) -> list[RecordedFact]:
        """The facts as `recorded_facts` would read them back."""
        first = self.version - len(self.facts) + 1
        assert self.recorded_at is not None or not self.facts
        return [
            RecordedFact.build(first + i, self.recorded_at, fact)
            for i, fact in enumerate(self.facts)
        ]


class KeyUsed(Exception):
    """The request key was used already, by an earlier attempt: `applied` says what it did."""

    def __init__(self, game_id: UUID, request_key: str, applied: AppliedRequest) -> None:
        super().__init__(self.describe(game_id, request_key, applied))
        self.game_id = game_id
        self.request_key = request_key
        self.applied = applied

    @staticmethod
    def describe(game_id: UUID, request_key: str, applied: AppliedRequest) -> str:
        return f"request key {request_key!r} was used in game {game_id}"

    @staticmethod
    def of(game_id: UUID, request_key: str, applied: AppliedRequest) -> KeyUsed:
        """AlreadyApplied if the key's request stored its events, else AlreadyAnswered."""
        kind = AlreadyApplied if applied.stored else AlreadyAnswered
        return kind(game_id, request_key, applied)


class AlreadyApplied(KeyUsed):
    """The command given with this request key was stored already, by an earlier attempt."""

    @staticmethod
    def describe(game_id: UUID, request_key: str, applied: AppliedRequest) -> str:
        return (
            f"the command with request key {request_key!r} was stored in game {game_id} "
            f"as versions {applied.first_version}–{applied.last_version}"
        )


class AlreadyAnswered(KeyUsed):
    """The request given with this request key was answered without storing anything (its
    answer is kept with the key), or by a version of the service whose answer is gone."""


@replaceable
@dataclass(frozen=True, slots=True)
class RecordedFact:
    """A stored fact with where and when it was recorded."""

    version: int
    recorded_at: datetime
    fact: ev.Event

    if TYPE_CHECKING:

        @staticmethod
        def build(*values: Any) -> RecordedFact: ...


FactsRead = Callable[[UUID, list[RecordedFact]], None]
"""Told the facts a load of a game read from the store (`Bohnanza.on_facts_read`)."""


@dataclass(frozen=True, slots=True)
class GameSummary:
    game_id: UUID
    started_at: datetime
    seats: list[str]
    preset: str
    mode: str
    ended: bool
    scores: list[int] | None
    winners: list[int] | None


def _outcome(game: Game, facts: list[ev.Event], recordings: Sequence[Any]) -> Outcome:
    if not recordings:
        return Outcome(game.id, game.version, facts, None)
    last = recordings[-1]
    return Outcome(game.id, game.version, facts, last.notification.id, last.domain_event.timestamp)


class _Collected(ProcessingEvent[UUID]):
    """A save's new events. The library asks each object saved whether it is a domain event or
    collects events (`isinstance` against two runtime-checkable Protocols), and on Python 3.11
    such a check walks the protocol's classes every time: collecting a game's events took 12.3
    µs that way and takes 1.1 here (in a loop, warm; docs/performance.md). An aggregate is
    neither question's doubt; anything else saved goes the library's way."""

    def collect_events(self, *objs: Any, **kwargs: Any) -> None:
        if not all(isinstance(obj, Aggregate) for obj in objs):
            super().collect_events(*objs, **kwargs)
            return
        for aggregate in objs:
            self.events.extend(aggregate.collect_events())
            self.aggregates[aggregate.id] = aggregate
        self.saved_kwargs.update(kwargs)


class Bohnanza(Application[UUID]):
    """Bohnanza games as event-sourced aggregates."""

    name = "Bohnanza"
    env = {  # noqa: RUF012 (library API)
        "AGGREGATE_CACHE_MAXSIZE": "1000",
        # The library keeps each aggregate this process saved or loaded, and reads nothing for
        # one it holds: `current` brings a held aggregate up to what the store holds, and a
        # command is decided on the game as held, the store's unique versions refusing it if
        # another process stored first (`execute`).
        "AGGREGATE_CACHE_FASTFORWARD": "n",
    }
    is_snapshotting_enabled = True
    """Snapshots are taken by `execute` after a command is stored (`_snapshot`), not inside the
    library's `save`: a failed snapshot must not turn a stored command into an error or a retry."""
    log_section_size = 500
    snapshot_interval = SNAPSHOT_INTERVAL

    @classmethod
    def from_url(cls, database_url: str, **extra_env: str) -> Bohnanza:
        """The application on the store a `BOHNANZA_DATABASE_URL` names (see `domain.storage`)."""
        env = {**persistence_env(database_url), **extra_env}
        if "SQLITE_DBNAME" in env:
            Path(env["SQLITE_DBNAME"]).parent.mkdir(parents=True, exist_ok=True)
        with opening_alone(env):
            for attempt in range(1, STARTUP_ATTEMPTS):
                try:
                    return cls(env=env)
                except sqlite3.OperationalError as error:
                    # A new SQLite file's journal becomes a write-ahead log on first use, which
                    # fails at once ("database is locked") while another process does the same.
                    if "database is locked" not in str(error):
                        raise
                    time.sleep(random.uniform(0, 0.01 * attempt))
            return cls(env=env)

    def __init__(self, env: Mapping[str, str] | None = None) -> None:
        super().__init__(env)
        self._corrected: OrderedDict[UUID, Corrected] = OrderedDict()
        self._corrected_lock = threading.Lock()
        self._facts_read: list[FactsRead] = []
        self._elsewhere: dict[UUID, None] = {}
        """The aggregates whose last read found events another process had stored, oldest
        first (`execute` reads such a game before deciding)."""
        self._elsewhere_lock = threading.Lock()

    def on_facts_read(self, listener: FactsRead) -> None:
        """Have `listener(game_id, facts)` called with the facts each load of a game's current
        state reads from the store (a cached game's fast-forward past other processes' commands,
        or the facts after its start or snapshot), so that a cache of facts beside the
        application can take them rather than read them again. It is called on the loading
        thread, and must neither block nor load a game."""
        self._facts_read.append(listener)

    def construct_env(self, name: str, env: Mapping[str, str] | None = None) -> Environment:
        """Only the class defaults and the given env: configuration is read in one place (the
        CLI or app factory), never from this process's environment behind the caller's back."""
        return Environment(name, {**type(self).env, "IS_SNAPSHOTTING_ENABLED": "y", **(env or {})})

    def construct_mapper(self) -> Mapper[UUID]:
        """The library's mapper with a game's events stored as compact rows (domain/encoding.py),
        with the store's compressor and cipher if configured."""
        return self.factory.mapper(
            transcoder=self.construct_transcoder(), mapper_class=CompactMapper
        )

    def recorded_fact(self, notification: Notification) -> tuple[datetime, ev.Event]:
        """A stored game event as its time and its fact (the read models' way in)."""
        if isinstance(self.mapper, CompactMapper):
            return self.mapper.to_fact(notification)
        stored = self.mapper.to_domain_event(notification)
        assert isinstance(stored, StoredFact), f"{notification.topic} is no game event"
        return stored.timestamp, stored.fact()

    def register_transcodings(self, transcoder: JSONTranscoder) -> None:
        super().register_transcodings(transcoder)
        transcoder.register(GameStateAsDict())

    # --- commands ----------------------------------------------------------------------------

    def start_game(
        self,
        seats: Sequence[str],
        *,
        preset: str = DEFAULT_PRESET,
        options: Mapping[str, Any] | None = None,
        start_seat: int = 0,
        mode: str = DIGITAL,
        seed: int | None = None,
        deck: Sequence[str] | None = None,
        game_id: UUID | None = None,
        hands: str = KNOWN_HANDS,
        request_key: str | None = None,
    ) -> Outcome:
        """Create a game whose seats have names people can tell apart; digital games without a
        seed get a random one (stored, secret). With `game_id` and `request_key`, as
        `record_game`: AlreadyApplied if an earlier attempt with the key stored it, Conflict if
        the id is taken otherwise."""
        ruleset = resolve_ruleset(preset, len(seats), options)
        if mode == DIGITAL and seed is None:
            seed = secrets.randbelow(2**63)
        facts = start_game(
            ruleset, seats, start_seat=start_seat, mode=mode, seed=seed, deck=deck, hands=hands
        )
        alike = seat_names.clash(seats)
        if alike is not None:
            raise InvalidSetup("seats", alike.message)
        first, *rest = facts
        assert isinstance(first, ev.GameStarted)
        game = Game.start(first, game_id=game_id)
        game.record(rest)
        recordings = self.save_new(game, request_key=request_key)
        return _outcome(game, facts, recordings)

    def record_game(
        self,
        facts: Sequence[ev.Event],
        *,
        game_id: UUID | None = None,
        beside: Sequence[Aggregate] = (),
        request_key: str | None = None,
    ) -> Outcome:
        """Store facts decided elsewhere (an imported record, re-decided by `replays`) as a new
        game, in one transaction with the aggregates `beside` it (what the record says about the
        game); Conflict if `game_id` is taken, AlreadyApplied if by an earlier attempt with
        `request_key` (see `save_new`)."""
        first, *rest = facts
        if not isinstance(first, ev.GameStarted):
            raise InvalidInput(f"a game's facts start with GameStarted, not {first.kind}")
        game = Game.start(first, game_id=game_id)
        # The game's last snapshot version (a multiple of the interval) is taken on the way, of
        # the game in memory: taken after the save, it read and folded that many stored events
        # again (a quarter of an import's time).
        latest = len(facts) - len(facts) % self.snapshot_interval
        before = max(latest - 1, 0)
        game.record(rest[:before])
        snapshot = self._snapshot_of(game) if latest else None
        game.record(rest[before:])
        recordings = self.save_new(game, *beside, request_key=request_key)
        if snapshot is not None:
            self._put_snapshot(snapshot)
        return Outcome(game.id, game.version, list(facts), recordings[-1].notification.id)

    def save(self, *objs: Any, **kwargs: Any) -> list[Recording[UUID]]:
        """The library's `Application.save` (eventsourcing 9.5, the same steps), its events
        collected by `_Collected`, which spares aggregates the library's runtime Protocol checks."""
        processing_event = _Collected()
        processing_event.collect_events(*objs, **kwargs)
        recordings = self._record(processing_event)
        self._take_snapshots(processing_event)
        self._notify(recordings)
        self.notify(processing_event.events)  # deprecated in the library, which still calls it
        return recordings

    def save_new(
        self, game: Aggregate, *beside: Aggregate, request_key: str | None = None
    ) -> list[Any]:
        """Store a new game, in one transaction with the aggregates `beside` it and, if given,
        `request_key` (stored with the game's events, as a command's key is): a request that
        creates a game with an id chosen before its first attempt is then stored once, whatever
        happened to that attempt. AlreadyApplied if an earlier attempt with the key stored the
        game, Conflict if something else holds its id (or the versions of what is beside it)."""
        try:
            return self.save(game, *beside, **({"request_key": request_key} if request_key else {}))
        except IntegrityError:
            self._refuse_if_used(game.id, request_key)
            raise Conflict(f"a game {game.id} is stored already", None) from None

    def execute(
        self,
        game_id: UUID,
        command: Command,
        *,
        expected_version: int | None = None,
        request_key: str | None = None,
        request_covers: str | None = None,
    ) -> Outcome:
        """Decide and store `command`. With `expected_version`, a game that has moved on since
        raises Conflict; without, a concurrent write is retried against the new state. With
        `request_key`, the command is stored at most once under that key (the key is stored in
        the same transaction as its events, with `request_covers`: what it covers): if an
        earlier attempt used the key, KeyUsed says what it did (AlreadyApplied: which versions
        it stored, also when the command would be refused now, on a game that holds it;
        AlreadyAnswered: it stored nothing, see `answered`). The store is not asked first: the
        key's unique row refuses a second use, in the command's own transaction.

        A command is decided on the game as this process holds it, without reading the store,
        unless the last read of the game found commands another process stored (then the game
        is read first, as its commands likely come through several processes): when this
        process stored the game's last command (a client's requests on one kept-alive
        connection, a worker of its own), the command is one transaction, its insert. If another
        process stored a command since, the store refuses the insert (its versions are taken),
        and the command is decided again on the game as stored: on PostgreSQL the refused insert
        read what was stored (Overtaken), elsewhere it is read. A refusal by the rules is only
        given once decided on the game as stored."""
        game = None if self._stored_elsewhere(game_id) else self._held(game_id)
        as_stored = False
        for _ in range(COMMAND_RETRIES + 1):
            if game is None:
                game, as_stored = self.game(game_id), True
            try:
                limits.check_size(command)
                facts, corrected = self._decided(game, command, expected_version)
                limits.check_command(game.version - len(facts), command, facts)
            except BohnanzaError:
                if not as_stored:  # perhaps only because another process stored a command since
                    game = None
                    continue
                # Decided on the game as stored now, which may hold this very command: an
                # earlier attempt may have stored it. Its key was stored with its events, so the
                # store holds the key for every state holding the command: a refusal is given
                # only if the key is still free once it was decided.
                self._refuse_if_used(game_id, request_key)
                raise
            before = game.version - len(facts)
            keyed = {"request_key": request_key, "request_covers": request_covers}
            try:
                recordings = self.save(game, **(keyed if request_key else {}))
            except IntegrityError as refused:
                self._refuse_if_used(game_id, request_key)
                if expected_version is not None:
                    raise Conflict(
                        f"another command was stored first at version {expected_version + 1}",
                        self.game(game_id).version,
                    ) from None
                game = self._overtaken(game_id, refused)
                continue
            if corrected is not None:
                self._keep_corrected(game_id, corrected)
            self._snapshot(game_id, before, game.version, game if corrected is None else None)
            return _outcome(game, facts, recordings)
        raise Conflict(f"the game kept changing; {COMMAND_RETRIES} attempts failed", None)

    def answered(self, game_id: UUID, request_key: str, covers: str, answer: str) -> None:
        """Keep the answer of a request given with `request_key` that stored nothing (the rules
        refused its command), in the key's row: a later attempt with the key, whatever it would
        decide, is told AlreadyAnswered. KeyUsed if an earlier attempt used the key first."""
        refused = AppliedRequest(REFUSED, REFUSED, covers, answer)
        earlier = self.keys.keep(game_id, request_key, refused)
        if earlier is not None:
            raise KeyUsed.of(game_id, request_key, earlier)

    def _decided(
        self, game: Game, command: Command, expected_version: int | None
    ) -> tuple[list[ev.Event], Corrected | None]:
        """`command` decided on `game` (recorded on it, not saved yet): its facts, and for a
        correction the game as corrected with it; Conflict if the game is not at
        `expected_version`, RuleViolation if the rules refuse."""
        if expected_version is not None and game.version != expected_version:
            raise Conflict(
                f"the game is at version {game.version}, not {expected_version}", game.version
            )
        if isinstance(command, Correct | Undo):  # decided on the game's record
            fact, corrected = self.corrected(game.id, game.version).correct(command)
            game.record([fact])
            return [fact], corrected
        return game.execute(command), None

    def _overtaken(self, game_id: UUID, refused: IntegrityError) -> Game | None:
        """After a command's insert was refused: the game as stored, if the refusal says what
        was stored (Overtaken) after the game this process holds, which it then holds; else
        None (it is read)."""
        held = self._held(game_id)
        if held is None or not isinstance(refused, Overtaken):
            return None
        later = [self.mapper.to_domain_event(e) for e in refused.stored]
        later = [event for event in later if event.originator_version > held.version]
        if not later or later[0].originator_version != held.version + 1:
            return None
        seen: list[RecordedFact] = []
        game = project_game(held, later, seen=seen)
        assert isinstance(game, Game)
        self._hold_read_elsewhere(game)
        self._tell_facts_read(game_id, seen)
        return game

    def request_key_stored(self, game_id: UUID, request_key: str) -> bool:
        """Whether a request was given in this game under `request_key`."""
        return self.keys.applied(game_id, request_key) is not None

    @property
    def keys(self) -> KeyRows:
        """The rows of request keys, kept by the store's recorder (domain/request_keys.py)."""
        return cast(KeyRows, self.recorder)

    def _refuse_if_used(self, game_id: UUID, request_key: str | None) -> None:
        if request_key is None:
            return
        applied = self.keys.applied(game_id, request_key)
        if applied is not None:
            raise KeyUsed.of(game_id, request_key, applied)

    def _snapshot(self, game_id: UUID, before: int, after: int, stored: Game | None = None) -> None:
        """Snapshot every `snapshot_interval`-th version this command reached. Best effort: the
        command is stored already, and a snapshot only makes later loads faster. `stored`: the
        game as the command left it, stored; a snapshot at its version is taken of it in memory
        (the library's `take_snapshot` would load that many events to make the same one)."""
        for version in range(before + 1, after + 1):
            if version % self.snapshot_interval != 0:
                continue
            if stored is not None and version == stored.version:
                self._put_snapshot(self._snapshot_of(stored))
                continue
            try:
                self.take_snapshot(game_id, version=version, projector_func=project_game)
            except PersistenceError:
                log.warning("snapshot of game %s at version %d failed", game_id, version)

    def _snapshot_of(self, game: Game) -> Any:
        """A snapshot of the game as it is in memory, as the library's `take_snapshot` makes
        one of a game it loads."""
        snapshot_class = getattr(type(game), "Snapshot", type(self).snapshot_class)
        assert snapshot_class is not None, "the library's application has a snapshot class"
        return snapshot_class.take(game)

    def _put_snapshot(self, snapshot: Any) -> None:
        """Store a snapshot of a game stored already; best effort, as `_snapshot`."""
        assert self.snapshots is not None, "snapshotting is on (Bohnanza.env)"
        try:
            self.snapshots.put([snapshot])
        except PersistenceError:
            game_id, version = snapshot.originator_id, snapshot.originator_version
            log.warning("snapshot of game %s at version %d failed", game_id, version)

    # --- queries -------------------------------------------------------------------------------

    def game(self, game_id: UUID, *, version: int | None = None) -> Game:
        """The aggregate, as stored now or at `version`; NotFound if there is no such game."""
        seen: list[RecordedFact] = []
        project = partial(project_game, seen=seen) if self._facts_read else project_game
        try:
            game = self.current(game_id, project) if version is None else None
            if game is None:
                game = self.repository.get(game_id, version=version, projector_func=project)
        except AggregateNotFoundError:
            raise NotFound(f"no game {game_id}") from None
        if not isinstance(game, Game):
            raise NotFound(f"no game {game_id}")
        if version is None:
            self._tell_facts_read(game_id, seen)
        return game

    def _tell_facts_read(self, game_id: UUID, seen: list[RecordedFact]) -> None:
        if seen:
            for listener in self._facts_read:
                listener(game_id, seen)

    def current(
        self, aggregate_id: UUID, projector: Callable[[Any, Iterable[Any]], Any] = project_aggregate
    ) -> Any:
        """The aggregate as the store holds it now (a copy of its own), folded by `projector`:
        the one this process holds brought on by the events stored after it (and held so),
        or loaded whole. AggregateNotFoundError if there is none."""
        held = self._held(aggregate_id)
        if held is None:
            return self.repository.get(aggregate_id, projector_func=projector)
        later = list(self.events.get(aggregate_id, gt=held.version))
        if not later:
            with self._elsewhere_lock:
                self._elsewhere.pop(aggregate_id, None)
            return held
        aggregate = projector(held, later)
        self._hold_read_elsewhere(aggregate)
        return aggregate

    def _held(self, aggregate_id: UUID) -> Any | None:
        """A copy of the aggregate as this process last saved or loaded it (None if it holds
        none): what the store held then, which other processes may have added to since."""
        cache = self.repository.cache
        if cache is None:
            return None
        try:
            held = cache.get(aggregate_id)
        except KeyError:
            return None
        return deepcopy(held)

    def _hold_read_elsewhere(self, aggregate: Aggregate) -> None:
        """Hold (a copy of) `aggregate`, as read from the store just now, and remember that the
        read found events another process stored. Two threads may hold the same aggregate at
        once, the older last: that only costs a later read."""
        if self.repository.cache is None:
            return
        self.repository.cache.put(aggregate.id, deepcopy(aggregate))
        with self._elsewhere_lock:
            self._elsewhere[aggregate.id] = None
            while len(self._elsewhere) > STORED_ELSEWHERE_KEPT:
                del self._elsewhere[next(iter(self._elsewhere))]

    def _stored_elsewhere(self, aggregate_id: UUID) -> bool:
        """Whether the last read of the aggregate found events another process had stored."""
        return aggregate_id in self._elsewhere

    def find(self, aggregate_id: UUID, kind: type[A]) -> A | None:
        """The aggregate of type `kind` stored under `aggregate_id` (the records beside a game:
        its notes, lineage, record header), or None if none is stored."""
        try:
            aggregate: Aggregate = self.current(aggregate_id)
        except AggregateNotFoundError:
            return None
        assert isinstance(aggregate, kind)
        return aggregate

    def state(self, game_id: UUID, *, version: int | None = None) -> GameState:
        return self.game(game_id, version=version).state

    def recorded_facts(self, game_id: UUID, *, after: int = 0) -> list[RecordedFact]:
        """The game's facts in order, with versions and times; NotFound if there are none."""
        facts = [
            RecordedFact.build(stored.originator_version, stored.timestamp, stored.fact())
            for stored in self.events.get(game_id, gt=after or None)
            if isinstance(stored, StoredFact)
        ]
        if not facts and after == 0:
            raise NotFound(f"no game {game_id}")
        return facts

    def facts(self, game_id: UUID) -> list[ev.Event]:
        """The game's stored facts, corrections included (the game as recorded)."""
        return [recorded.fact for recorded in self.recorded_facts(game_id)]

    def corrected_facts(self, game_id: UUID, version: int | None = None) -> list[ev.Event]:
        """The game's facts with every correction applied (the game as corrected), now or when it
        was at `version`."""
        return self.corrected(game_id, version).facts

    def corrected(self, game_id: UUID, version: int | None = None) -> Corrected:
        """The game as corrected, now or when it was at `version`, with the marks of what each
        correction changed (a copy). The games corrected last are kept as corrected, so that a
        correction after others decides only its own changes again."""
        stored = self.recorded_facts(game_id) if version is None else None
        if stored is not None:
            version = len(stored)
        assert version is not None
        with self._corrected_lock:
            kept = self._corrected.get(game_id)
        if kept is None or kept.stream > version:
            kept = Corrected()
        if stored is not None:
            later = [recorded.fact for recorded in stored[kept.stream :]]
        else:
            later = self.facts_between(game_id, kept.stream, version)
        game = kept.copy().extend(later)
        if game.corrections:
            self._keep_corrected(game_id, game)
        return game.copy()

    def _keep_corrected(self, game_id: UUID, game: Corrected) -> None:
        with self._corrected_lock:
            kept = self._corrected.get(game_id)
            if kept is None or kept.stream <= game.stream:
                self._corrected[game_id] = game
                self._corrected.move_to_end(game_id)
            while len(self._corrected) > CORRECTED_KEPT:
                self._corrected.popitem(last=False)

    def facts_between(self, game_id: UUID, after: int, version: int) -> list[ev.Event]:
        """The game's stored facts after version `after`, up to and including `version`."""
        return [
            stored.fact()
            for stored in self.events.get(game_id, gt=after or None, lte=version)
            if isinstance(stored, StoredFact)
        ]

    def refold(self, game_id: UUID) -> GameState:
        """The state from folding every stored fact with the rules alone (no aggregate or cache)."""
        return fold(self.facts(game_id))

    def games(self) -> list[GameSummary]:
        """Every stored game, oldest first."""
        summaries: dict[UUID, GameSummary] = {}
        for stored in self._stored_of(topics_of(ev.GameStarted, ev.GameEnded)):
            fact = stored.fact()
            if isinstance(fact, ev.GameStarted):
                summaries[stored.originator_id] = GameSummary(
                    stored.originator_id,
                    stored.timestamp,
                    list(fact.seats),
                    fact.ruleset["preset"],
                    fact.mode,
                    False,
                    None,
                    None,
                )
            elif isinstance(fact, ev.GameEnded) and stored.originator_id in summaries:
                old = summaries[stored.originator_id]
                summaries[stored.originator_id] = GameSummary(
                    old.game_id,
                    old.started_at,
                    old.seats,
                    old.preset,
                    old.mode,
                    True,
                    list(fact.scores),
                    list(fact.winners),
                )
        return list(summaries.values())

    def position(self) -> int:
        """The id of the last recorded event in the whole store (0 if none)."""
        return self.recorder.max_notification_id() or 0

    def _stored_of(self, topics: Sequence[str]) -> Iterator[Any]:
        start = 1
        while True:
            page = self.recorder.select_notifications(
                start=start, limit=self.log_section_size, topics=topics
            )
            for notification in page:
                yield self.mapper.to_domain_event(notification)
            if len(page) < self.log_section_size:
                return
            start = page[-1].id + 1
