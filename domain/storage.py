"""One storage setting, `BOHNANZA_DATABASE_URL`, mapped to the `eventsourcing` persistence env.

- unset: a SQLite file in the data directory (created on first use);
- `sqlite:///relative/file.db`, `sqlite:////absolute/file.db`: that SQLite file;
- `postgresql://user:password@host:port/dbname` (also `postgres://`, `postgresql+psycopg://`),
  optional `?schema=name`: PostgreSQL through psycopg 3;
- `memory://`: the in-memory store (tests, throw-away demos; one process only).

Nothing here reads the process environment: callers pass the URL in (ARCHITECTURE §2).
"""

from __future__ import annotations

import zlib
from collections.abc import Iterator, Mapping
from contextlib import contextmanager
from pathlib import Path
from urllib.parse import parse_qs, unquote, urlsplit

from eventsourcing.persistence import OperationalError

from .network import network_limits
from .request_keys import MEMORY_FACTORY, POSTGRES_RECORDER, SQLITE_RECORDER
from .rules.errors import BohnanzaError

DATABASE_FILE = "bohnanza.sqlite3"


class StorageConfigError(BohnanzaError):
    """A database URL this service cannot use."""


def default_database_url(data_dir: Path) -> str:
    """The SQLite file used when no URL is configured."""
    return f"sqlite:///{(data_dir / DATABASE_FILE).resolve()}"


def persistence_env(database_url: str) -> dict[str, str]:
    """The `eventsourcing` environment variables for a database URL."""
    parts = urlsplit(database_url)
    scheme = parts.scheme.lower()
    if scheme == "memory":
        return {"PERSISTENCE_MODULE": MEMORY_FACTORY}
    if scheme == "sqlite":
        path = unquote(parts.path)
        if path.startswith("/"):
            path = path[1:]  # as SQLAlchemy: sqlite:///relative.db, sqlite:////absolute.db
        if not path or path == ":memory:":
            raise StorageConfigError(
                "an in-memory SQLite database lives and dies with one connection; use memory://"
            )
        return {
            "PERSISTENCE_MODULE": "eventsourcing.sqlite",
            "APPLICATION_RECORDER_TOPIC": SQLITE_RECORDER,
            "SQLITE_DBNAME": str(Path(path).expanduser()),
            "SQLITE_LOCK_TIMEOUT": "10",
        }
    if scheme in ("postgresql", "postgres", "postgresql+psycopg"):
        if not parts.path.strip("/"):
            raise StorageConfigError(f"the PostgreSQL URL names no database: {database_url}")
        query = parse_qs(parts.query)
        try:
            port = parts.port or 5432
        except ValueError as error:  # urlsplit checks the port only when asked for it
            raise StorageConfigError(f"the PostgreSQL URL has a bad port: {error}") from None
        return {
            "PERSISTENCE_MODULE": "eventsourcing.postgres",
            "APPLICATION_RECORDER_TOPIC": POSTGRES_RECORDER,
            "POSTGRES_DBNAME": unquote(parts.path.strip("/")),
            "POSTGRES_HOST": parts.hostname or "127.0.0.1",
            "POSTGRES_PORT": str(port),
            "POSTGRES_USER": unquote(parts.username or "postgres"),
            "POSTGRES_PASSWORD": unquote(parts.password or ""),
            "POSTGRES_SCHEMA": query.get("schema", ["public"])[0],
            "POSTGRES_POOL_SIZE": _count(query, "pool_size", "2"),
            "POSTGRES_MAX_OVERFLOW": _count(query, "max_overflow", "6"),
            # How long a request waits for a connection before the store counts as unavailable
            # (the library tries each call 10 times: at 2 s a request in an outage gets its 503
            # within about 22 s, where the library's 30 s held every thread for 5 minutes).
            "POSTGRES_CONNECT_TIMEOUT": _count(query, "connect_timeout", "2"),
            "POSTGRES_LOCK_TIMEOUT": "5",
            # No check of a connection as it leaves the pool (POSTGRES_PRE_PING): it is a round
            # trip to the database for every call: 6% of the API's CPU a command, measured. Each
            # call of the store is tried again on a connection error instead (the library's
            # `retry`, domain/postgres_keys.py's too), on a new connection: a connection the
            # database dropped while it sat in the pool costs the call that meets it 0.2 s.
        }
    raise StorageConfigError(
        f"unsupported database URL {database_url!r}: use sqlite:///file, postgresql://… or memory://"
    )


def opened_by_several_processes(database_url: str) -> bool:
    """Whether another process can open the same store (a SQLite file or a PostgreSQL database;
    not the in-memory store)."""
    return persistence_env(database_url)["PERSISTENCE_MODULE"] != MEMORY_FACTORY


def first_line(error: Exception) -> str:
    """What the database driver said, for an operator: its first line only. SQLAlchemy's own
    text goes on with the statement and its parameters, which may hold what clients sent."""
    cause = getattr(error, "orig", None) or error
    return (str(cause).strip().splitlines() or [""])[0][:300]


def _count(query: dict[str, list[str]], name: str, default: str) -> str:
    """A whole-number query parameter, checked here rather than failing later inside the pool."""
    value = query.get(name, [default])[0]
    if not (value.isascii() and value.isdigit()):
        raise StorageConfigError(f"{name} must be a whole number, not {value!r}")
    return value


@contextmanager
def opening_alone(env: Mapping[str, str]) -> Iterator[None]:
    """On PostgreSQL, hold a lock on the store's schema for the block, so that processes opening
    the store at once (the API's workers and the projector starting together on a new database)
    create its tables, types and functions one after the other. Run together, PostgreSQL fails
    one of them even though every statement says IF NOT EXISTS or OR REPLACE: a duplicate key in
    a catalog, "relation already exists", "tuple concurrently updated". The lock is a session
    advisory lock on a connection of its own, released when that connection closes."""
    if env.get("PERSISTENCE_MODULE") != "eventsourcing.postgres":
        yield
        return
    import psycopg  # only here: a process on SQLite never imports it

    key = zlib.crc32(f"bohnanza store {env['POSTGRES_SCHEMA']}".encode())
    try:
        lock = psycopg.connect(
            host=env["POSTGRES_HOST"],
            port=int(env["POSTGRES_PORT"]),
            user=env["POSTGRES_USER"],
            password=env["POSTGRES_PASSWORD"],
            dbname=env["POSTGRES_DBNAME"],
            autocommit=True,
            **network_limits(int(float(env.get("POSTGRES_CONNECT_TIMEOUT", "30")))),
        )
    except psycopg.OperationalError as error:
        raise OperationalError(str(error)) from error
    with lock:
        lock.execute("SELECT pg_advisory_lock(%s)", (key,))
        yield
