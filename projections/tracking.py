"""How far each projection has read the event store, and what a projection is.

A projection takes a batch of recorded facts in two steps. First it works out what the batch
changes (`prepare`), reading the rows it touches in one consistent read of the database in which
the projection is at the batch's start; then those changes are written (`Changes.write`) inside
the transaction that also moves its tracking position, so the rows and the position commit
together or not at all. Moving the position is guarded by its old value: of two projectors that
read the same batch, only the first commits; the other finds the position moved, rolls back and
reads on from the new position. Any change to a projection's rows moves its position in the same
transaction, and its rows at a position are a function of the facts up to it, so changes worked
out at the position the write finds still hold.

The work happens before the transaction that writes: on SQLite a write transaction holds the
database's single write lock, which commands and the other read models' writers wait for, from
its first write until it commits.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from datetime import datetime
from typing import NamedTuple, Protocol
from uuid import UUID

from sqlalchemy import (
    Connection,
    Engine,
    Table,
    bindparam,
    exc,
    exists,
    insert,
    literal,
    select,
    update,
)

from domain.rules import events as ev

from .tables import tracking


class Recorded(NamedTuple):
    """A fact as the store recorded it: its notification id, its game and when (a named tuple:
    one is made per event read, and a tuple is the cheapest immutable record)."""

    position: int
    game_id: UUID
    recorded_at: datetime
    fact: ev.Event
    version: int = 0
    """The fact's version in its game (its place in the game's stream)."""


GameHistory = Callable[[UUID, int], list[ev.Event]]
"""A game as corrected when it was at a version (`Bohnanza.corrected_facts`): what a projection
reads again when a correction changes a game it has counted."""


class Changes(Protocol):
    """What a batch of facts changes in a projection's rows, worked out and ready to write."""

    def write(self, connection: Connection) -> None:
        """Write the changes (inside the transaction that moves the tracking position)."""
        ...


class Projection(Protocol):
    """A read model fed by facts: its name, the event topics it reads and the tables it owns."""

    name: str
    topics: tuple[str, ...]
    tables: tuple[Table, ...]

    def prepare(self, connection: Connection, batch: Sequence[Recorded]) -> Changes:
        """What a batch of facts, in order, changes in the projection's rows: read on
        `connection` (one consistent read, at the batch's start), not written."""
        ...


_POSITION = select(tracking.c.position).where(tracking.c.name == bindparam("name"))
_ADVANCE = (
    update(tracking)
    .where(tracking.c.name == bindparam("key_name"), tracking.c.position == bindparam("old"))
    .values(position=bindparam("new"))
)


class Overtaken(Exception):
    """Another projector moved the position first; this batch must not be applied."""


def ensure_tracked(engine: Engine, name: str) -> None:
    """Give a projection a tracking row at position 0 unless it has one."""
    untracked = select(literal(name), literal(0)).where(~exists().where(tracking.c.name == name))
    try:
        with engine.begin() as connection:
            connection.execute(insert(tracking).from_select(["name", "position"], untracked))
    except exc.IntegrityError:
        pass  # another projector inserted it in the meantime


def positions(connection: Connection) -> dict[str, int]:
    """Every projection's position."""
    rows = connection.execute(select(tracking.c.name, tracking.c.position))
    return {row.name: row.position for row in rows}


def position_of(connection: Connection, name: str) -> int:
    """One projection's position (0 if it has never run)."""
    return connection.scalar(_POSITION, {"name": name}) or 0


def advance(connection: Connection, name: str, old: int, new: int) -> None:
    """Move a projection from `old` to `new`, or raise Overtaken if it is no longer at `old`.

    Run it first in the transaction: the row lock it takes (PostgreSQL) or the write lock
    (SQLite) makes a second projector wait here, then find the position moved.
    """
    result = connection.execute(_ADVANCE, {"key_name": name, "old": old, "new": new})
    if result.rowcount != 1:
        raise Overtaken(f"projection {name} is no longer at position {old}")


def reset(connection: Connection, name: str) -> None:
    """Put a projection back to the start of the store (first in a rebuild's transaction)."""
    connection.execute(update(tracking).where(tracking.c.name == name).values(position=0))
