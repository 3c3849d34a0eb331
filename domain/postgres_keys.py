"""PostgreSQL's application recorder, also storing request keys with a command's events
(domain/request_keys.py says how keys are kept). A module of its own, named by a topic string
(`request_keys.POSTGRES_RECORDER`), so that a process on SQLite never imports psycopg: the
command line starts a tenth of a second sooner.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any
from uuid import UUID

from eventsourcing.persistence import InterfaceError, OperationalError, StoredEvent
from eventsourcing.postgres import PostgresApplicationRecorder, PostgresDatastore
from eventsourcing.utils import retry
from psycopg.sql import SQL, Composable, Identifier, Literal

from .deadline import bounded_connections, within_deadline
from .network import RECONNECT_SECONDS, network_limits
from .request_keys import COLUMNS, AppliedRequest, Overtaken, events_request, key_row

store_call = retry((InterfaceError, OperationalError), max_attempts=10, wait=0.2)
"""As the library's own calls of the store: tried again on a connection error, 0.2 s apart, ten
times at most. The pool checks no connection as it hands it out (domain/storage.py), so this is
how a connection the database dropped while it sat in the pool is replaced: the call that meets
it fails, and its next try takes another."""


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
        self._command_function(table["table"])

    def _command_function(self, keys_table: Identifier) -> None:
        """The store's function that stores a command's events and its request key, called
        by one statement (`command_statement`). It does what the library's insert sends as
        statements of a pipeline inside a transaction (the lock's timeout, the table's lock,
        the NOTIFY, the insert), what this recorder added to them (the read of the game's
        versions the command takes, the key's row), in one round trip and with one statement
        for psycopg to send: psycopg's Python work for the pipeline was about a third of an
        API worker's CPU a command. Created with the tables, so a store made before it gets it
        when a process opens it. Its name carries a number: a change to its parameters or
        results takes a new name, so that processes of the version before keep theirs."""
        self.command_function_name = f"{self.events_table_name}_command_1"
        self.check_identifier_length(self.command_function_name)
        names = {
            "schema": Identifier(self.datastore.schema),
            "function": Identifier(self.command_function_name),
            "event": Identifier(self.stored_event_type_name),
            "events_table": Identifier(self.events_table_name),
            "keys_table": keys_table,
            "channel": Identifier(self.channel_name),
            "key_columns": SQL(", ").join(map(Identifier, COLUMNS)),
        }
        self.sql_create_statements.append(
            SQL(
                "CREATE OR REPLACE FUNCTION {schema}.{function}("
                "lock_timeout text, events {schema}.{event}[], request_key text, "
                "first_version bigint, last_version bigint, covers text, answer text) "
                "RETURNS TABLE "
                "(notification_id bigint, version bigint, topic text, state bytea) "
                "LANGUAGE plpgsql AS $body$ "
                "DECLARE first {schema}.{event} := events[1]; "
                "BEGIN "
                "PERFORM set_config('lock_timeout', lock_timeout, true); "
                "LOCK TABLE {schema}.{events_table} IN EXCLUSIVE MODE; "
                "NOTIFY {channel}; "
                "IF first.originator_version > 1 THEN "
                "RETURN QUERY SELECT NULL::bigint, s.originator_version, s.topic, s.state "
                "FROM {schema}.{events_table} s WHERE s.originator_id = first.originator_id "
                "AND s.originator_version >= first.originator_version "
                "ORDER BY s.originator_version; "
                "IF FOUND THEN RETURN; END IF; "
                "END IF; "
                "RETURN QUERY INSERT INTO {schema}.{events_table} AS t "
                "(originator_id, originator_version, topic, state) "
                "SELECT e.originator_id, e.originator_version, e.topic, e.state "
                "FROM unnest(events) e "
                "RETURNING t.notification_id, NULL::bigint, NULL::text, NULL::bytea; "
                "IF request_key IS NOT NULL THEN "
                "INSERT INTO {schema}.{keys_table} ({key_columns}) "
                "VALUES (first.originator_id, request_key, first_version, last_version, "
                "covers, answer); "
                "END IF; "
                "END $body$"
            ).format(**names)
        )
        self.command_lock_timeout = f"{self.datastore.lock_timeout}s"
        """The command function's first argument: the lock's timeout, as PostgreSQL reads it."""
        self.command_statement = _rendered(
            SQL(
                "SELECT * FROM {schema}.{function}(%s, %s::{schema}.{event}[], %s, %s, %s, %s, %s)"
            ).format(**names)
        )

    def _render_statements(self) -> None:
        """The select of events, rendered into plain SQL once for each shape it takes
        (`_select_events_statement`): psycopg renders a composed statement again on each
        execute (each identifier escaped anew); plain SQL it only encodes."""
        self.select_events_statements: dict[tuple[bool, bool, bool, bool], SQL] = {}

    @store_call
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

    def _select_events_statement(self, gt: bool, lte: bool, desc: bool, limit: bool) -> SQL:
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

    @store_call
    def insert_events(
        self,
        stored_events: Sequence[StoredEvent],
        *,
        request_key: str | None = None,
        request_covers: str | None = None,
        **kwargs: Any,
    ) -> Sequence[int] | None:
        """The events (and the request key, if any) in one statement, one round trip: the
        store's command function (`_command_function`, called by `command_statement`) takes
        the table's lock, sends the NOTIFY, and, for events that follow others of their
        aggregate (a command's), first reads the aggregate's events from their first version
        on. If there are any, another writer stored there first: nothing is inserted, and
        Overtaken carries them. A version or key used before fails the insert as the store's
        IntegrityError."""
        if not stored_events:
            return None
        key: tuple[Any, ...] = (None, None, None, None, None)
        if request_key is not None:
            game_id, applied = events_request(stored_events, request_covers)
            key = key_row(game_id, request_key, applied)[1:]
        events = [
            self.construct_pg_stored_event(e.originator_id, e.originator_version, e.topic, e.state)
            for e in stored_events
        ]
        arguments = (self.command_lock_timeout, events, *key)
        with self.datastore.get_connection() as conn, conn.cursor() as curs:
            curs.execute(self.command_statement, arguments, prepare=True)
            rows = curs.fetchall()
        if rows and rows[0]["notification_id"] is None:
            first = stored_events[0]
            raise Overtaken(
                f"events of {first.originator_id} from version {first.originator_version} on "
                "were stored first by another writer",
                [
                    StoredEvent(
                        first.originator_id, row["version"], row["topic"], bytes(row["state"])
                    )
                    for row in rows
                ],
            )
        return [row["notification_id"] for row in rows]

    @store_call
    def applied(self, originator_id: UUID, request_key: str) -> AppliedRequest | None:
        with self.datastore.get_connection() as conn, conn.cursor() as curs:
            return self._applied(curs, originator_id, request_key)

    def _applied(self, curs: Any, originator_id: UUID, request_key: str) -> AppliedRequest | None:
        curs.execute(self.select_request_key_statement, (originator_id, request_key))
        row = curs.fetchone()
        return None if row is None else AppliedRequest(**row)

    @store_call
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

    @store_call
    def cover(self, originator_id: UUID, request_key: str, covers: str) -> bool:
        with self.datastore.transaction(commit=True) as curs:
            curs.execute(self.cover_request_key_statement, (covers, originator_id, request_key))
            return curs.rowcount == 1
