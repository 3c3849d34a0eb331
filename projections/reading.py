"""Reading the store for the read models: the events of some topics in a range of positions, as
recorded facts, read with the database's own SQL.

The library's `select_notifications` makes a `Notification` object of every row (and, on
PostgreSQL, a dict and a `UUID` first), and pages by a count of rows, which PostgreSQL answers by
sorting every wanted row past the page's start. For a rebuild that was most of the time not spent
in the projections themselves (measured in docs/performance.md). Here a page is a range of
positions, read by the (position) index in one statement on one of the projector's own
connections (before the transaction that moves the tracking positions and writes the rows, so
that on SQLite commands can write between batches); each row goes straight to the mapper's
`to_fact`. What is read is exactly what the library would return for the
same range and topics, in the same order (tested against it).

A store this module has no SQL for (the in-process one) is read through the library.
"""

from __future__ import annotations

import sys
from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING, Any, NamedTuple, TypeGuard
from uuid import UUID

from eventsourcing.persistence import ApplicationRecorder
from eventsourcing.sqlite import SQLiteApplicationRecorder
from sqlalchemy import Connection

from domain.application import Bohnanza
from domain.ids import as_uuid

from .tracking import Recorded

if TYPE_CHECKING:
    from eventsourcing.postgres import PostgresApplicationRecorder

Page = list[tuple[str, Recorded]]
"""Facts as recorded, in position order, each with its row's topic."""


class Row(NamedTuple):
    """A stored event as the mapper reads it (its `to_fact` takes any object with these)."""

    originator_id: UUID
    originator_version: int
    topic: str
    state: bytes


def _on_postgres(recorder: ApplicationRecorder) -> TypeGuard[PostgresApplicationRecorder]:
    """Whether the recorder is the library's PostgreSQL one (asked without importing it: a
    process on SQLite never imports psycopg, and a PostgreSQL recorder means it was)."""
    postgres = sys.modules.get("eventsourcing.postgres")
    return postgres is not None and isinstance(recorder, postgres.PostgresApplicationRecorder)


class StoreReader:
    """Reads pages of the store's events for the projector."""

    def __init__(self, app: Bohnanza) -> None:
        self.app = app
        recorder: ApplicationRecorder = app.recorder
        self._select: Callable[[Connection, int, int, Sequence[str]], list[Any]] | None
        if isinstance(recorder, SQLiteApplicationRecorder):
            self._select = _sqlite_select(recorder.events_table_name)
        elif _on_postgres(recorder):
            datastore = recorder.datastore
            self._select = _postgres_select(
                datastore.schema,
                recorder.events_table_name,
                binary_ids=datastore.originator_id_type == "uuid",
            )
        else:
            self._select = None

    @property
    def reads_sql(self) -> bool:
        """Whether pages are read with SQL on the projector's connections (not the library)."""
        return self._select is not None

    def page(self, connection: Connection, after: int, end: int, topics: Sequence[str]) -> Page:
        """The events of `topics` at positions after `after` up to `end`, in order (read on
        `connection`, a connection to the store's own database)."""
        if end <= after:
            return []
        if self._select is None:
            return self._through_the_library(after, end, topics)
        recorded_fact = self.app.recorded_fact
        ids: dict[Any, UUID] = {}
        page = []
        for position, raw_id, version, topic, state in self._select(connection, after, end, topics):
            game_id = ids.get(raw_id)
            if game_id is None:
                game_id = ids[raw_id] = (
                    UUID(bytes=raw_id) if isinstance(raw_id, bytes) else as_uuid(raw_id)
                )
            recorded_at, fact = recorded_fact(Row(game_id, version, topic, state))  # type: ignore[arg-type]
            page.append((topic, Recorded(position, game_id, recorded_at, fact, version)))
        return page

    def _through_the_library(self, after: int, end: int, topics: Sequence[str]) -> Page:
        recorded_fact = self.app.recorded_fact
        notifications = self.app.recorder.select_notifications(
            after + 1, end - after, stop=end, topics=topics
        )
        page = []
        for notification in notifications:
            recorded_at, fact = recorded_fact(notification)
            game_id = as_uuid(notification.originator_id)
            recorded = Recorded(
                notification.id, game_id, recorded_at, fact, notification.originator_version
            )
            page.append((notification.topic, recorded))
        return page


def _sqlite_select(table: str) -> Callable[[Connection, int, int, Sequence[str]], list[Any]]:
    events = '"' + table.replace('"', '""') + '"'

    def select(connection: Connection, after: int, end: int, topics: Sequence[str]) -> list[Any]:
        wanted = f" AND topic IN ({','.join('?' * len(topics))})" if topics else ""
        statement = (
            "SELECT rowid, originator_id, originator_version, topic, state"
            f" FROM {events} WHERE rowid > ? AND rowid <= ?{wanted} ORDER BY rowid"
        )
        driver = connection.connection.driver_connection
        assert driver is not None
        return driver.execute(statement, (after, end, *topics)).fetchall()

    return select


def _postgres_select(
    schema: str, table: str, *, binary_ids: bool
) -> Callable[[Connection, int, int, Sequence[str]], list[Any]]:
    # The id's 16 bytes, made a UUID once per game by the reader, instead of psycopg making one
    # per row.
    from psycopg import sql  # only here: a process on SQLite never imports psycopg

    game = "uuid_send(originator_id)" if binary_ids else "originator_id"
    events = sql.Identifier(schema, table).as_string(None)
    every = (
        f"SELECT notification_id, {game}, originator_version, topic, state FROM {events}"
        " WHERE notification_id > %s AND notification_id <= %s"
    )
    of_topics = every + " AND topic = ANY(%s) ORDER BY notification_id"
    every += " ORDER BY notification_id"

    def select(connection: Connection, after: int, end: int, topics: Sequence[str]) -> list[Any]:
        driver = connection.connection.driver_connection
        assert driver is not None
        with driver.cursor(binary=True) as cursor:
            if topics:
                cursor.execute(of_topics, (after, end, list(topics)), prepare=True)
            else:
                cursor.execute(every, (after, end), prepare=True)
            return cursor.fetchall()

    return select
