"""PostgreSQL's application recorder, also storing request keys with a command's events
(domain/request_keys.py says how keys are kept). A module of its own, named by a topic string
(`request_keys.POSTGRES_RECORDER`), so that a process on SQLite never imports psycopg: the
command line starts a tenth of a second sooner.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any
from uuid import UUID

import psycopg
from eventsourcing.persistence import InterfaceError, OperationalError, StoredEvent
from eventsourcing.postgres import PostgresApplicationRecorder, PostgresDatastore
from eventsourcing.utils import retry
from psycopg.sql import SQL, Composable, Composed, Identifier, Literal

from .deadline import bounded_connections, within_deadline
from .network import RECONNECT_SECONDS, network_limits
from .request_keys import COLUMNS, AppliedRequest, Overtaken, events_request, key_row


def _rendered(statement: Composable) -> SQL:
    """A composed statement rendered into plain SQL (identifiers escaped as without a
    connection, which for the library's names is the same)."""
    return SQL(statement.as_string())


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
        statement = self._select_events_statement(
            gt is not None, lte is not None, desc, limit is not None
        )
        params = [originator_id, *(p for p in (gt, lte, limit) if p is not None)]
        with self.datastore.get_connection() as conn, conn.cursor() as curs:
            curs.execute(statement, params, prepare=True)
            return _stored_events(curs)

    def _select_events_statement(
        self, gt: bool = False, lte: bool = False, desc: bool = False, limit: bool = False
    ) -> SQL:
        """The select of an aggregate's events of this shape (which bounds, which order,
        whether limited), rendered on first use."""
        shape = (gt, lte, desc, limit)
        statement = self.select_events_statements.get(shape)
        if statement is None:
            composed = self.select_events_statement
            if gt:
                composed += SQL(" AND originator_version > %s")
            if lte:
                composed += SQL(" AND originator_version <= %s")
            composed += SQL(" ORDER BY originator_version")
            composed += SQL(" DESC") if desc else SQL(" ASC")
            if limit:
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
                            self._select_events_statement(gt=True),
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
            game_id, applied = events_request(stored_events, request_covers)
            with curs.connection.cursor() as key_curs:
                key_curs.execute(
                    self.insert_request_key_statement,
                    key_row(game_id, request_key, applied),
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
            curs.execute(
                self.keep_request_key_statement, key_row(originator_id, request_key, applied)
            )
            if curs.rowcount == 1:
                return None
            return self._applied(curs, originator_id, request_key)

    def cover(self, originator_id: UUID, request_key: str, covers: str) -> bool:
        with self.datastore.transaction(commit=True) as curs:
            curs.execute(self.cover_request_key_statement, (covers, originator_id, request_key))
            return curs.rowcount == 1
