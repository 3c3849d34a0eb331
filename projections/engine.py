"""The SQLAlchemy engine for read models, on the same database as the events.

The service's one database URL (`BOHNANZA_DATABASE_URL`, parsed by `domain.storage`) names the
event store; read models live in their own tables in that same database:

- `sqlite:///file`: the same SQLite file (WAL, as the event store sets it up);
- `postgresql://…[?schema=name]`: the same database through psycopg 3, tables in that schema;
- `memory://`: the events live in the process, so do the read models: an in-memory SQLite
  database on one connection that threads take turns on.
"""

from __future__ import annotations

import math
from functools import cache
from typing import Any

from sqlalchemy import URL, Connection, Engine, create_engine, event
from sqlalchemy.pool import QueuePool

from domain.deadline import bounded_connections, bounded_wait
from domain.network import network_limits
from domain.request_keys import MEMORY_FACTORY
from domain.storage import persistence_env

SQLITE_BUSY_TIMEOUT_SECONDS = 10


def projection_engine(database_url: str) -> Engine:
    """The engine for the read models of the store `database_url` names."""
    env = persistence_env(database_url)
    module = env["PERSISTENCE_MODULE"]
    if module == MEMORY_FACTORY:
        # One connection holds the whole in-memory database; a pool of exactly that connection
        # lets threads take turns with proper transactions instead of interleaving on it.
        engine = create_engine(
            "sqlite://",
            poolclass=QueuePool,
            pool_size=1,
            max_overflow=0,
            connect_args={"check_same_thread": False},
        )
        _use_explicit_sqlite_transactions(engine)
        return engine
    if module == "eventsourcing.sqlite":
        engine = create_engine(
            URL.create("sqlite", database=env["SQLITE_DBNAME"]),
            connect_args={"timeout": SQLITE_BUSY_TIMEOUT_SECONDS, "check_same_thread": False},
        )
        _use_explicit_sqlite_transactions(engine)
        return engine
    engine = create_engine(
        URL.create(
            "postgresql+psycopg",
            username=env["POSTGRES_USER"],
            password=env["POSTGRES_PASSWORD"] or None,
            host=env["POSTGRES_HOST"],
            port=int(env["POSTGRES_PORT"]),
            database=env["POSTGRES_DBNAME"],
        ),
        pool_size=2,
        max_overflow=4,
        # A request waits for a connection another holds no longer than for a new one (the
        # default 30 s held the health check for 25 s in an outage); within a request's
        # deadline, less (domain/deadline.py).
        pool_timeout=float(env["POSTGRES_CONNECT_TIMEOUT"]),
        pool_pre_ping=True,
        # As for SQLite (below): a commit lost in a server crash takes its tracking position with
        # it, so its events are simply read again; no need to wait for each WAL flush. The
        # network limits are the event store's (domain/network.py): without them, a database
        # that stops answering held a request's token lookup, or the projector, for minutes.
        connect_args={
            "options": "-c synchronous_commit=off",
            **network_limits(int(env["POSTGRES_CONNECT_TIMEOUT"])),
        },
    )
    _connect_within_deadline(engine)
    schema = env["POSTGRES_SCHEMA"]
    return engine.execution_options(schema_translate_map={None: schema})


@cache
def _connection_class() -> type[Any]:
    """psycopg's connection, bounded by the deadline; imported only for a PostgreSQL engine (a
    process on SQLite never imports psycopg)."""
    import psycopg

    return bounded_connections(psycopg.Connection)


def _connect_within_deadline(engine: Engine) -> None:
    """A new connection waits no longer than the request's deadline leaves (at least the one
    second libpq counts in), and its queries end with the deadline as the event store's do
    (domain/deadline.py)."""

    @event.listens_for(engine, "do_connect")
    def _connect(dialect: Any, record: Any, args: Any, params: dict[str, Any]) -> Any:
        params["connect_timeout"] = max(1, math.ceil(bounded_wait(params["connect_timeout"])))
        return _connection_class().connect(*args, **params)


def durable_commit(connection: Connection) -> None:
    """Make this transaction's commit wait until it is on disk on PostgreSQL, whatever the
    engine's default: what must survive a crash that the events survive (the tokens of a game)."""
    if connection.dialect.name == "postgresql":
        connection.exec_driver_sql("SET LOCAL synchronous_commit TO on")


def schema_of(bind: Engine | Connection) -> str | None:
    """The PostgreSQL schema the read models' tables are in (None: the default one), for what
    the schema translation does not reach: reflection and hand-written SQL."""
    translated: dict[str | None, str | None] = bind.get_execution_options().get(
        "schema_translate_map", {}
    )
    return translated.get(None)


def _use_explicit_sqlite_transactions(engine: Engine) -> None:
    """Make SQLite transactions start at the first statement, reads included.

    The sqlite3 module begins a transaction only before a write, so a read followed by a write
    would not be atomic; this is SQLAlchemy's documented recipe for real SQLite transactions.
    """

    @event.listens_for(engine, "connect")
    def _connect(dbapi_connection: Any, _record: Any) -> None:
        dbapi_connection.isolation_level = None
        # In WAL mode NORMAL may lose the last commits on power loss but never corrupts; a lost
        # commit takes its tracking position with it, so its events are simply read again.
        dbapi_connection.execute("PRAGMA synchronous=NORMAL")

    @event.listens_for(engine, "begin")
    def _begin(connection: Any) -> None:
        connection.exec_driver_sql("BEGIN")
