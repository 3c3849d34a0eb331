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

One recorder per store: SQLite and PostgreSQL (selected with `APPLICATION_RECORDER_TOPIC`) and
the in-memory store (a factory of its own, as the in-memory factory takes no recorder topic).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, replace
from functools import lru_cache
from typing import Any, Protocol
from uuid import UUID

import psycopg
from eventsourcing.persistence import IntegrityError, InterfaceError, OperationalError, StoredEvent
from eventsourcing.popo import POPOApplicationRecorder, POPOFactory
from eventsourcing.postgres import PostgresApplicationRecorder, PostgresDatastore
from eventsourcing.sqlite import SQLiteApplicationRecorder, SQLiteCursor
from eventsourcing.utils import get_topic, retry
from psycopg.sql import SQL, Composable, Composed, Identifier, Literal

from .deadline import bounded_connections, within_deadline
from .network import RECONNECT_SECONDS, network_limits

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


def _applied(
    stored_events: Sequence[StoredEvent], covers: str | None
) -> tuple[Any, AppliedRequest]:
    """The game and versions of one request's events: those of the first aggregate saved, at
    consecutive versions (a command's game; a new game, saved before the records beside it)."""
    first = stored_events[0]
    last = [e for e in stored_events if e.originator_id == first.originator_id][-1]
    applied = AppliedRequest(first.originator_version, last.originator_version, covers)
    return first.originator_id, applied


def _row(originator_id: Any, request_key: str, applied: AppliedRequest) -> tuple[Any, ...]:
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
            game_id, applied = _applied(stored_events, request_covers)
            c.execute(_SQLITE_INSERT, _row(_sqlite_id(game_id), request_key, applied))
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
                _row(_sqlite_id(originator_id), request_key, applied),
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


def _rendered(statement: Composable) -> SQL:
    """A composed statement rendered into plain SQL (identifiers escaped as without a
    connection, which for the library's names is the same)."""
    return SQL(statement.as_string())


def _sqlite_id(originator_id: Any) -> str:
    """As SQLite's recorder stores an originator id."""
    return originator_id.hex if isinstance(originator_id, UUID) else str(originator_id)


def _stored_events(curs: Any) -> list[StoredEvent]:
    """The rows of the events' table a cursor selected, as the library's StoredEvents."""
    return [
        StoredEvent(
            originator_id=row["originator_id"],
            originator_version=row["originator_version"],
            topic=row["topic"],
            state=bytes(row["state"]),
        )
        for row in curs.fetchall()
    ]


@lru_cache(maxsize=4096)
def _uuid_of(text: str) -> UUID:
    return UUID(text)


class PostgresRecorder(PostgresApplicationRecorder):
    """PostgreSQL's application recorder, also storing request keys with the events."""

    def __init__(
        self, datastore: PostgresDatastore, *, events_table_name: str = "stored_events"
    ) -> None:
        if datastore.enable_db_functions:
            raise ValueError(
                "request keys are stored by the recorder's own insert, which "
                "POSTGRES_ENABLE_DB_FUNCTIONS=y bypasses; leave that setting off"
            )
        # The library passes libpq no limits (a dead network hung a connection's users) and
        # leaves the pool's reconnection to back off for 5 minutes (domain/network.py).
        pool_kwargs = datastore.pool.kwargs
        assert isinstance(pool_kwargs, dict), "the library gives its pool a dict of kwargs"
        pool_kwargs.update(network_limits(int(datastore.pool.timeout)))
        datastore.pool.reconnect_timeout = RECONNECT_SECONDS
        # Every call of the library reaches a connection through the pool's getconn: bounded
        # there, a request's deadline holds across the library's retries (domain/deadline.py).
        datastore.pool.getconn = within_deadline(datastore.pool)  # type: ignore[method-assign,assignment]
        datastore.pool.connection_class = bounded_connections(datastore.pool.connection_class)
        super().__init__(datastore, events_table_name=events_table_name)
        self._render_statements()
        self.request_keys_table_name = f"{events_table_name}_request_keys"
        self.check_identifier_length(self.request_keys_table_name)
        table = {
            "schema": Identifier(self.datastore.schema),
            "table": Identifier(self.request_keys_table_name),
        }
        self.sql_create_statements.append(
            SQL(
                "CREATE TABLE IF NOT EXISTS {schema}.{table} ("
                "originator_id {originator_id_type} NOT NULL, "
                "request_key text NOT NULL, "
                "first_version bigint NOT NULL, "
                "last_version bigint NOT NULL, "
                "covers text, "
                "answer text, "
                "PRIMARY KEY (originator_id, request_key))"
            ).format(**table, originator_id_type=Identifier(self.datastore.originator_id_type))
        )
        # A store made before 5 Dec 2026 gets the added columns; asked first, so that starting
        # a process does not queue for the table's lock behind running commands.
        self.sql_create_statements.append(
            SQL(
                "DO $$ BEGIN IF NOT EXISTS (SELECT FROM information_schema.columns "
                "WHERE table_schema = {schema_name} AND table_name = {table_name} "
                "AND column_name = 'covers') THEN "
                "ALTER TABLE {schema}.{table} ADD COLUMN covers text, ADD COLUMN answer text; "
                "END IF; END $$"
            ).format(
                **table,
                schema_name=Literal(self.datastore.schema),
                table_name=Literal(self.request_keys_table_name),
            )
        )
        columns = SQL(", ").join(map(Identifier, COLUMNS))
        self.insert_request_key_statement = SQL(
            "INSERT INTO {schema}.{table} ({columns}) VALUES (%s, %s, %s, %s, %s, %s)"
        ).format(**table, columns=columns)
        self.keep_request_key_statement = SQL(
            "INSERT INTO {schema}.{table} ({columns}) VALUES (%s, %s, %s, %s, %s, %s) "
            "ON CONFLICT DO NOTHING"
        ).format(**table, columns=columns)
        self.select_request_key_statement = SQL(
            "SELECT first_version, last_version, covers, answer FROM {schema}.{table} "
            "WHERE originator_id = %s AND request_key = %s"
        ).format(**table)
        self.cover_request_key_statement = SQL(
            "UPDATE {schema}.{table} SET covers = coalesce(covers, %s) "
            "WHERE originator_id = %s AND request_key = %s"
        ).format(**table)

    def _render_statements(self) -> None:
        """Render the library's statements of every command once, into plain SQL: psycopg
        renders a composed statement again on each execute (each identifier escaped anew),
        several times a command; plain SQL it only encodes."""
        self.insert_events_statement = Composed([_rendered(self.insert_events_statement)])
        self.lock_table_statements = [
            _rendered(s) if isinstance(s, Composable) else s for s in self.lock_table_statements
        ]
        self.notify_statement = _rendered(SQL("NOTIFY {0}").format(Identifier(self.channel_name)))
        self.select_events_statements: dict[tuple[bool, bool, bool, bool], SQL] = {}

    def _notify_channel(self, curs: Any) -> None:
        curs.execute(self.notify_statement)

    @retry((InterfaceError, OperationalError), max_attempts=10, wait=0.2)
    def select_events(
        self,
        originator_id: UUID | str,
        *,
        gt: int | None = None,
        lte: int | None = None,
        desc: bool = False,
        limit: int | None = None,
    ) -> Sequence[StoredEvent]:
        """The library's own, with each of its sixteen statements rendered once (the library
        composes one on every call)."""
        statement = self._select_events_statement(gt is not None, lte is not None, desc, limit)
        params = [originator_id, *(p for p in (gt, lte, limit) if p is not None)]
        with self.datastore.get_connection() as conn, conn.cursor() as curs:
            curs.execute(statement, params, prepare=True)
            return _stored_events(curs)

    def _select_events_statement(
        self, gt: bool, lte: bool, desc: bool = False, limit: int | None = None
    ) -> SQL:
        shape = (gt, lte, desc, limit is not None)
        statement = self.select_events_statements.get(shape)
        if statement is None:
            composed = self.select_events_statement
            if gt:
                composed += SQL(" AND originator_version > %s")
            if lte:
                composed += SQL(" AND originator_version <= %s")
            composed += SQL(" ORDER BY originator_version")
            composed += SQL(" DESC") if desc else SQL(" ASC")
            if limit is not None:
                composed += SQL(" LIMIT %s")
            statement = self.select_events_statements.setdefault(shape, _rendered(composed))
        return statement

    @retry((InterfaceError, OperationalError), max_attempts=10, wait=0.2)
    def insert_events(
        self, stored_events: Sequence[StoredEvent], **kwargs: Any
    ) -> Sequence[int] | None:
        """The library's insert (the table's lock, its NOTIFY and the insert in one pipeline,
        then the request key, sent to travel with the commit), with one statement more for
        events that follow others of their aggregate (a command's): the aggregate's events from
        their first version on, read after the lock. Another writer stored there first exactly
        when it returns any, and the insert then fails: Overtaken carries them."""
        if not stored_events:
            return None
        first = stored_events[0]
        follows_others = first.originator_version > 1
        error: Exception | None = None
        stored: list[StoredEvent] = []
        with self.datastore.get_connection() as conn:
            with (
                conn.pipeline() as pipeline,
                conn.transaction(),
                conn.cursor() as curs,
                conn.cursor() as later,
            ):
                try:
                    self._lock_table(curs)
                    self._notify_channel(curs)
                    if follows_others:
                        later.execute(
                            self._select_events_statement(gt=True, lte=False),
                            (first.originator_id, first.originator_version - 1),
                            prepare=True,
                        )
                    super(PostgresApplicationRecorder, self)._insert_stored_events(
                        curs, stored_events
                    )
                    # Synced now, so that a version stored first fails here, as itself.
                    pipeline.sync()
                    return self._fetch_ids_after_insert_events(curs, stored_events, **kwargs)
                except Exception as failed:  # re-raised once out of the pipeline
                    error = failed
                    if follows_others and isinstance(failed, psycopg.IntegrityError):
                        stored = _stored_events(later)
            if stored:
                raise Overtaken(str(error), stored) from error
            assert error is not None
            raise error

    def _fetch_ids_after_insert_events(
        self,
        curs: Any,
        stored_events: Sequence[StoredEvent],
        *,
        request_key: str | None = None,
        request_covers: str | None = None,
        **kwargs: Any,
    ) -> Sequence[int] | None:
        # Once the events' insert has succeeded (the library syncs the pipeline before fetching
        # their ids): after the events' table lock, so two attempts with one key queue for it
        # instead of deadlocking, and after any failure of the events' own insert, which is then
        # raised as itself. The key's insert is only sent: it travels with the commit, in the
        # same round trip, and a key used before fails there, raised as IntegrityError by the
        # library's connection, just as a version used before is. (Sent before the events' sync,
        # a failure of theirs sometimes surfaced as "pipeline aborted" instead.)
        notification_ids = super()._fetch_ids_after_insert_events(curs, stored_events, **kwargs)
        if request_key is not None and stored_events:
            game_id, applied = _applied(stored_events, request_covers)
            with curs.connection.cursor() as key_curs:
                key_curs.execute(
                    self.insert_request_key_statement,
                    _row(game_id, request_key, applied),
                    prepare=False,  # a statement prepared in an aborted pipeline is lost
                )
        return notification_ids

    def applied(self, originator_id: UUID, request_key: str) -> AppliedRequest | None:
        with self.datastore.get_connection() as conn, conn.cursor() as curs:
            return self._applied(curs, originator_id, request_key)

    def _applied(self, curs: Any, originator_id: UUID, request_key: str) -> AppliedRequest | None:
        curs.execute(self.select_request_key_statement, (originator_id, request_key))
        row = curs.fetchone()
        return None if row is None else AppliedRequest(**row)

    def keep(
        self, originator_id: UUID, request_key: str, applied: AppliedRequest
    ) -> AppliedRequest | None:
        with self.datastore.transaction(commit=True) as curs:
            curs.execute(self.keep_request_key_statement, _row(originator_id, request_key, applied))
            if curs.rowcount == 1:
                return None
            return self._applied(curs, originator_id, request_key)

    def cover(self, originator_id: UUID, request_key: str, covers: str) -> bool:
        with self.datastore.transaction(commit=True) as curs:
            curs.execute(self.cover_request_key_statement, (covers, originator_id, request_key))
            return curs.rowcount == 1


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
            game_id, _ = _applied(stored_events, request_covers)
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
            game_id, applied = _applied(stored_events, request_covers)
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
POSTGRES_RECORDER = get_topic(PostgresRecorder)
MEMORY_FACTORY = get_topic(MemoryFactory)
