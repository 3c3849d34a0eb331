"""Request keys stored in the same transaction as a command's events, so a command sent again with
the same key is applied once, whatever happened to the process that stored it first.

The API lets clients send commands, and create games, with an `Idempotency-Key`. Its answer is kept elsewhere (the
API's own table), after the command is stored; a process that stops between the two would leave
the key's outcome unknown. So the key is also written here, by the event store's own recorder, in
the very transaction that inserts the command's events (the recorder's insert hooks, which
`Application.save(game, request_key=…)` reaches with the key): one row per (game, key) under a
unique constraint, with the command's first and last version. Either both are stored or neither.
A second attempt with the key fails on that constraint, and `applied` tells which versions the
first one stored.

One recorder per store: SQLite and PostgreSQL (selected with `APPLICATION_RECORDER_TOPIC`) and
the in-memory store (a factory of its own, as the in-memory factory takes no recorder topic).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from functools import lru_cache
from typing import Any
from uuid import UUID

from eventsourcing.persistence import IntegrityError, StoredEvent
from eventsourcing.popo import POPOApplicationRecorder, POPOFactory
from eventsourcing.postgres import PostgresApplicationRecorder, PostgresDatastore
from eventsourcing.sqlite import SQLiteApplicationRecorder, SQLiteCursor
from eventsourcing.utils import get_topic
from psycopg.sql import SQL, Identifier

from .deadline import bounded_connections, within_deadline
from .network import RECONNECT_SECONDS, network_limits

REQUEST_KEYS_TABLE = "bohnanza_request_keys"


@dataclass(frozen=True, slots=True)
class AppliedRequest:
    """The versions a command sent with a request key stored, first to last."""

    first_version: int
    last_version: int


def _applied(stored_events: Sequence[StoredEvent]) -> tuple[Any, AppliedRequest]:
    """The game and versions of one request's events: those of the first aggregate saved, at
    consecutive versions (a command's game; a new game, saved before the records beside it)."""
    first = stored_events[0]
    last = [e for e in stored_events if e.originator_id == first.originator_id][-1]
    return first.originator_id, AppliedRequest(first.originator_version, last.originator_version)


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
            "PRIMARY KEY (originator_id, request_key)) "
            "WITHOUT ROWID",
        ]

    def _insert_events(
        self,
        c: SQLiteCursor,
        stored_events: Sequence[StoredEvent],
        *,
        request_key: str | None = None,
        **kwargs: Any,
    ) -> Sequence[int] | None:
        notification_ids = super()._insert_events(c, stored_events, **kwargs)
        if request_key is not None and stored_events:
            game_id, applied = _applied(stored_events)
            c.execute(
                f"INSERT INTO {REQUEST_KEYS_TABLE} VALUES (?, ?, ?, ?)",
                (_sqlite_id(game_id), request_key, applied.first_version, applied.last_version),
            )
        return notification_ids

    def applied(self, originator_id: UUID, request_key: str) -> AppliedRequest | None:
        """The versions the command sent with this key stored in this game, if it was."""
        with self.datastore.transaction(commit=False) as c:
            c.execute(
                f"SELECT first_version, last_version FROM {REQUEST_KEYS_TABLE} "
                "WHERE originator_id = ? AND request_key = ?",
                (_sqlite_id(originator_id), request_key),
            )
            row = c.fetchone()
        return None if row is None else AppliedRequest(row[0], row[1])


def _sqlite_id(originator_id: Any) -> str:
    """As SQLite's recorder stores an originator id."""
    return originator_id.hex if isinstance(originator_id, UUID) else str(originator_id)


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
                "PRIMARY KEY (originator_id, request_key))"
            ).format(**table, originator_id_type=Identifier(self.datastore.originator_id_type))
        )
        self.insert_request_key_statement = SQL(
            "INSERT INTO {schema}.{table} VALUES (%s, %s, %s, %s)"
        ).format(**table)
        self.select_request_key_statement = SQL(
            "SELECT first_version, last_version FROM {schema}.{table} "
            "WHERE originator_id = %s AND request_key = %s"
        ).format(**table)

    def _insert_stored_events(
        self,
        curs: Any,
        stored_events: Sequence[StoredEvent],
        *,
        request_key: str | None = None,
        **kwargs: Any,
    ) -> None:
        # After the events, which takes the events' table lock first, so two attempts with one key
        # queue for it instead of deadlocking; and inside the recorder's error handling, so that
        # a key used before fails with IntegrityError just as a version used before does. The
        # pipeline is synced first: had the events' insert failed, a statement sent after it
        # would only report "pipeline aborted" and hide that failure. (Written from the
        # `_insert_events` hook, before the events, a used key sometimes surfaced that way too.)
        super()._insert_stored_events(curs, stored_events, **kwargs)
        if request_key is not None and stored_events:
            game_id, applied = _applied(stored_events)
            connection = curs.connection
            with connection.pipeline() as pipeline:
                pipeline.sync()
                with connection.cursor() as key_curs:
                    key_curs.execute(
                        self.insert_request_key_statement,
                        (game_id, request_key, applied.first_version, applied.last_version),
                        prepare=False,  # a statement prepared in an aborted pipeline is lost
                    )

    def applied(self, originator_id: UUID, request_key: str) -> AppliedRequest | None:
        """The versions the command sent with this key stored in this game, if it was."""
        with self.datastore.get_connection() as conn, conn.cursor() as curs:
            curs.execute(self.select_request_key_statement, (originator_id, request_key))
            row = curs.fetchone()
        if row is None:
            return None
        return AppliedRequest(row["first_version"], row["last_version"])


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
        **kwargs: Any,
    ) -> None:
        super()._assert_uniqueness(stored_events, **kwargs)
        if request_key is not None and stored_events:
            game_id, _ = _applied(stored_events)
            if (str(game_id), request_key) in self._request_keys:
                raise IntegrityError(f"request key {request_key!r} was used in {game_id}")

    def _update_table(
        self,
        stored_events: Sequence[StoredEvent],
        *,
        request_key: str | None = None,
        **kwargs: Any,
    ) -> Sequence[int] | None:
        notification_ids = super()._update_table(stored_events, **kwargs)
        if request_key is not None and stored_events:
            game_id, applied = _applied(stored_events)
            self._request_keys[str(game_id), request_key] = applied
        return notification_ids

    def applied(self, originator_id: UUID, request_key: str) -> AppliedRequest | None:
        """The versions the command sent with this key stored in this game, if it was."""
        with self._database_lock:
            return self._request_keys.get((str(originator_id), request_key))


class MemoryFactory(POPOFactory):
    """The in-memory store, with `MemoryRecorder` as its application recorder."""

    def application_recorder(self) -> MemoryRecorder:
        return MemoryRecorder()


SQLITE_RECORDER = get_topic(SQLiteRecorder)
POSTGRES_RECORDER = get_topic(PostgresRecorder)
MEMORY_FACTORY = get_topic(MemoryFactory)
