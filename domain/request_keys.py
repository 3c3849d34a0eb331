"""Request keys stored in the same transaction as a command's events, so a command sent again with
the same key is applied once, whatever happened to the process that stored it first.

The API lets clients send commands, and create games, with an `Idempotency-Key`. The key is
written here, by the event store's own recorder, in the very transaction that inserts the
command's events (the recorder's insert hooks, which `Application.save(game, request_key=…)`
reaches with the key): one row per (game, key) under a unique constraint, with the command's
first and last version and what the key covers (`request_covers`: a digest of the caller and the
request, so that the same key sent with another request can be told apart). Either both are
stored or neither. A second attempt with the key fails on that constraint, and `applied` tells
what the first one did.

A request that stores nothing (the rules refused it) keeps its answer in the same row instead
(`keep`, first and last version REFUSED): the row is taken once, by whichever attempt gets there
first, so a key is either a stored command or a refusal, never both. A keyed command is therefore
one transaction whatever its outcome.

On PostgreSQL a command's insert also reads, in its own round trip and after the table's lock,
the game's events from the command's first version on: if another process stored there first,
the insert fails and `Overtaken` carries what that process stored, so that the application
decides the command again without another read (domain/application.py, `execute`).

One recorder per store: SQLite and PostgreSQL (domain/postgres_keys.py), selected with
`APPLICATION_RECORDER_TOPIC`, and the in-memory store (a factory of its own, as the in-memory
factory takes no recorder topic).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, replace
from functools import lru_cache
from typing import Any, Protocol
from uuid import UUID

from eventsourcing.persistence import IntegrityError, StoredEvent
from eventsourcing.popo import POPOApplicationRecorder, POPOFactory
from eventsourcing.sqlite import SQLiteApplicationRecorder, SQLiteCursor
from eventsourcing.utils import get_topic

REQUEST_KEYS_TABLE = "bohnanza_request_keys"


REFUSED = 0
"""The first and last version of a key whose request stored nothing: the row keeps its answer."""

VERSIONS_UNKNOWN = -1
"""The first and last version of a key whose command was stored by a version of the service that
kept keys only beside the store (before 1 Dec 2026), and whose answer is no longer kept."""

COLUMNS = ("originator_id", "request_key", "first_version", "last_version", "covers", "answer")
ADDED_COLUMNS = ("covers", "answer")
"""Columns added on 5 Dec 2026 (text, null in older rows); a store made before gets them."""


@dataclass(frozen=True, slots=True)
class AppliedRequest:
    """What a request key's row says: the versions its command stored, first to last, or
    (REFUSED) that it stored nothing and was answered `answer`; `covers`: the digest of the
    request it was first used for (None for keys stored before 5 Dec 2026, and for the keys of
    new games, whose requests are told apart elsewhere)."""

    first_version: int
    last_version: int
    covers: str | None = None
    answer: str | None = None

    @property
    def stored(self) -> bool:
        """Whether the store holds the events of the key's request (its versions are known)."""
        return self.first_version > 0


class Overtaken(IntegrityError):
    """An aggregate's events refused by the store because another writer stored events at their
    versions first; `stored`: the aggregate's events from the first refused version on, read in
    the refused insert's own transaction, after the table's lock (so as stored then)."""

    def __init__(self, message: str, stored: list[StoredEvent]) -> None:
        super().__init__(message)
        self.stored = stored


class KeyRows(Protocol):
    """What each recorder here adds to the library's: the rows of request keys."""

    def applied(self, originator_id: UUID, request_key: str) -> AppliedRequest | None:
        """What the key's row in this game says, if the key was used."""

    def keep(
        self, originator_id: UUID, request_key: str, applied: AppliedRequest
    ) -> AppliedRequest | None:
        """Take the key's row with `applied` (a refusal's answer, or a command stored before
        keys were): None if taken, else what the row already says (the first use wins)."""

    def cover(self, originator_id: UUID, request_key: str, covers: str) -> bool:
        """Say what a key stored before 5 Dec 2026 covers, unless its row says so already;
        whether the key has a row."""


def events_request(
    stored_events: Sequence[StoredEvent], covers: str | None
) -> tuple[Any, AppliedRequest]:
    """The game and versions of one request's events: those of the first aggregate saved, at
    consecutive versions (a command's game; a new game, saved before the records beside it)."""
    first = stored_events[0]
    last = [e for e in stored_events if e.originator_id == first.originator_id][-1]
    applied = AppliedRequest(first.originator_version, last.originator_version, covers)
    return first.originator_id, applied


def key_row(originator_id: Any, request_key: str, applied: AppliedRequest) -> tuple[Any, ...]:
    """A key's row, in the order of COLUMNS."""
    return (
        originator_id,
        request_key,
        applied.first_version,
        applied.last_version,
        applied.covers,
        applied.answer,
    )


class SQLiteRecorder(SQLiteApplicationRecorder):
    """SQLite's application recorder, also storing request keys with the events."""

    def convert_originator_id(self, originator_id: str) -> UUID | str:
        """A stored id as a UUID, each id made once while it is read often (a page of events
        holds a few games' ids hundreds of times each: reading the store for the read models
        had spent a sixth of its time making UUIDs)."""
        if self.datastore.originator_id_type != "uuid":
            return originator_id
        return _uuid_of(originator_id)

    def construct_create_table_statements(self) -> list[str]:
        return [
            *super().construct_create_table_statements(),
            f"CREATE TABLE IF NOT EXISTS {REQUEST_KEYS_TABLE} ("
            "originator_id TEXT NOT NULL, "
            "request_key TEXT NOT NULL, "
            "first_version INTEGER NOT NULL, "
            "last_version INTEGER NOT NULL, "
            "covers TEXT, "
            "answer TEXT, "
            "PRIMARY KEY (originator_id, request_key)) "
            "WITHOUT ROWID",
        ]

    def _create_table(self, c: SQLiteCursor) -> None:
        super()._create_table(c)
        c.execute(f"PRAGMA table_info({REQUEST_KEYS_TABLE})")
        present = {row[1] for row in c.fetchall()}
        for column in ADDED_COLUMNS:
            if column not in present:
                c.execute(f"ALTER TABLE {REQUEST_KEYS_TABLE} ADD COLUMN {column} TEXT")

    def _insert_events(
        self,
        c: SQLiteCursor,
        stored_events: Sequence[StoredEvent],
        *,
        request_key: str | None = None,
        request_covers: str | None = None,
        **kwargs: Any,
    ) -> Sequence[int] | None:
        notification_ids = super()._insert_events(c, stored_events, **kwargs)
        if request_key is not None and stored_events:
            game_id, applied = events_request(stored_events, request_covers)
            c.execute(_SQLITE_INSERT, key_row(_sqlite_id(game_id), request_key, applied))
        return notification_ids

    def applied(self, originator_id: UUID, request_key: str) -> AppliedRequest | None:
        with self.datastore.transaction(commit=False) as c:
            return self._applied(c, originator_id, request_key)

    @staticmethod
    def _applied(c: SQLiteCursor, originator_id: UUID, request_key: str) -> AppliedRequest | None:
        c.execute(
            f"SELECT first_version, last_version, covers, answer FROM {REQUEST_KEYS_TABLE} "
            "WHERE originator_id = ? AND request_key = ?",
            (_sqlite_id(originator_id), request_key),
        )
        row = c.fetchone()
        return None if row is None else AppliedRequest(*row)

    def keep(
        self, originator_id: UUID, request_key: str, applied: AppliedRequest
    ) -> AppliedRequest | None:
        with self.datastore.transaction(commit=True) as c:
            c.execute(
                f"{_SQLITE_INSERT} ON CONFLICT DO NOTHING",
                key_row(_sqlite_id(originator_id), request_key, applied),
            )
            taken = c.sqlite_cursor.rowcount == 1
            return None if taken else self._applied(c, originator_id, request_key)

    def cover(self, originator_id: UUID, request_key: str, covers: str) -> bool:
        with self.datastore.transaction(commit=True) as c:
            c.execute(
                f"UPDATE {REQUEST_KEYS_TABLE} SET covers = coalesce(covers, ?) "
                "WHERE originator_id = ? AND request_key = ?",
                (covers, _sqlite_id(originator_id), request_key),
            )
            return bool(c.sqlite_cursor.rowcount == 1)


_SQLITE_INSERT = (
    f"INSERT INTO {REQUEST_KEYS_TABLE} ({', '.join(COLUMNS)}) VALUES (?, ?, ?, ?, ?, ?)"
)


def _sqlite_id(originator_id: Any) -> str:
    """As SQLite's recorder stores an originator id."""
    return originator_id.hex if isinstance(originator_id, UUID) else str(originator_id)


@lru_cache(maxsize=4096)
def _uuid_of(text: str) -> UUID:
    return UUID(text)


class MemoryRecorder(POPOApplicationRecorder):
    """The in-memory application recorder, also keeping request keys with the events."""

    def __init__(self) -> None:
        super().__init__()
        self._request_keys: dict[tuple[str, str], AppliedRequest] = {}

    def _assert_uniqueness(
        self,
        stored_events: Sequence[StoredEvent],
        *,
        request_key: str | None = None,
        request_covers: str | None = None,
        **kwargs: Any,
    ) -> None:
        super()._assert_uniqueness(stored_events, **kwargs)
        if request_key is not None and stored_events:
            game_id, _ = events_request(stored_events, request_covers)
            if (str(game_id), request_key) in self._request_keys:
                raise IntegrityError(f"request key {request_key!r} was used in {game_id}")

    def _update_table(
        self,
        stored_events: Sequence[StoredEvent],
        *,
        request_key: str | None = None,
        request_covers: str | None = None,
        **kwargs: Any,
    ) -> Sequence[int] | None:
        notification_ids = super()._update_table(stored_events, **kwargs)
        if request_key is not None and stored_events:
            game_id, applied = events_request(stored_events, request_covers)
            self._request_keys[str(game_id), request_key] = applied
        return notification_ids

    def applied(self, originator_id: UUID, request_key: str) -> AppliedRequest | None:
        with self._database_lock:
            return self._request_keys.get((str(originator_id), request_key))

    def keep(
        self, originator_id: UUID, request_key: str, applied: AppliedRequest
    ) -> AppliedRequest | None:
        where = (str(originator_id), request_key)
        with self._database_lock:
            if where in self._request_keys:
                return self._request_keys[where]
            self._request_keys[where] = applied
            return None

    def cover(self, originator_id: UUID, request_key: str, covers: str) -> bool:
        with self._database_lock:
            row = self._request_keys.get((str(originator_id), request_key))
            if row is not None and row.covers is None:
                self._request_keys[str(originator_id), request_key] = replace(row, covers=covers)
            return row is not None


class MemoryFactory(POPOFactory):
    """The in-memory store, with `MemoryRecorder` as its application recorder."""

    def application_recorder(self) -> MemoryRecorder:
        return MemoryRecorder()


SQLITE_RECORDER = get_topic(SQLiteRecorder)
POSTGRES_RECORDER = "domain.postgres_keys:PostgresRecorder"
"""PostgreSQL's recorder, named and not imported: a process on SQLite never imports psycopg."""
MEMORY_FACTORY = get_topic(MemoryFactory)
