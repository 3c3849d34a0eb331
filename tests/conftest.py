"""Fixtures for the stores every storage test runs on: in-memory, a SQLite file and PostgreSQL.

PostgreSQL: each test session creates a database `<prefix><random>` on the server named by
`BOHNANZA_TEST_POSTGRES_URL` (the prefix is `BOHNANZA_TEST_DATABASE_PREFIX`, by default
`bohnanza_test_`) and drops it at the end; each store inside it is a fresh schema, so tests never
see each other's games. An unreachable server skips those tests locally and fails them when
`CI=true`.

The fast subset, `-m "not slow"`, leaves out every PostgreSQL test as well as those marked slow.

Workers: `-n auto` (pyproject.toml) starts one xdist worker more than the CPUs for the whole
suite (one per CPU for the fast subset), and none for a single file, which then runs in this
process. Each worker takes whole files (`--dist loadfile`), in the order
`pytest_collection_modifyitems` sets (`FilesInOrder`).
"""

from __future__ import annotations

import itertools
import os
import re
import secrets
import sys
from collections import Counter
from collections.abc import Callable, Iterator, Mapping
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit, urlunsplit

import psycopg
import pytest
from psycopg import sql
from xdist.scheduler import LoadFileScheduling

from domain.application import Bohnanza
from domain.storage import persistence_env

# Byte-code caches on, whatever the environment says: with PYTHONDONTWRITEBYTECODE (common in
# containers) every xdist worker would rewrite and compile every test module and plugin again on
# each run (about 5 s of collection per worker), and so would every server and command line the
# tests start. The caches go where Python puts them (`__pycache__/`, ignored by git).
sys.dont_write_bytecode = False
os.environ.pop("PYTHONDONTWRITEBYTECODE", None)

POSTGRES_URL_VARIABLE = "BOHNANZA_TEST_POSTGRES_URL"
DEFAULT_POSTGRES_URL = "postgresql://postgres@127.0.0.1:5432/postgres"
DATABASE_PREFIX_VARIABLE = "BOHNANZA_TEST_DATABASE_PREFIX"
DEFAULT_DATABASE_PREFIX = "bohnanza_test_"
RANDOM_SUFFIX_BYTES = 6
IDENTIFIER_BYTES = 63
"""PostgreSQL cuts longer names short (NAMEDATALEN - 1)."""

STORES = ["memory", "sqlite", pytest.param("postgres", marks=pytest.mark.postgres)]
SHARED_STORES = STORES[1:]
"""Stores that several Application instances (processes) can open at once."""


class PostgresTestDatabase:
    """A database made for this test session; hands out one fresh schema per store."""

    def __init__(self, server_url: str, name: str, connection: psycopg.Connection) -> None:
        parts = urlsplit(server_url)
        self.url = urlunsplit(parts._replace(path=f"/{name}", query=""))
        self.connection = connection
        self.schemas = itertools.count(1)

    def new_store_url(self) -> str:
        schema = f"store_{next(self.schemas)}"
        self.connection.execute(sql.SQL("CREATE SCHEMA {}").format(sql.Identifier(schema)))
        return f"{self.url}?schema={schema}"


def _connect(url: str, dbname: str | None = None) -> psycopg.Connection:
    env = persistence_env(url)
    return psycopg.connect(
        host=env["POSTGRES_HOST"],
        port=int(env["POSTGRES_PORT"]),
        user=env["POSTGRES_USER"],
        password=env["POSTGRES_PASSWORD"],
        dbname=dbname or env["POSTGRES_DBNAME"],
        autocommit=True,
        connect_timeout=5,
    )


def _without_password(url: str) -> str:
    parts = urlsplit(url)
    if parts.password is None:
        return url
    return urlunsplit(parts._replace(netloc=parts.netloc.replace(f":{parts.password}@", ":***@")))


@pytest.fixture(scope="session")
def postgres_database() -> Iterator[PostgresTestDatabase]:
    """A fresh PostgreSQL database for this session, dropped (even if still in use) at the end."""
    server_url = os.environ.get(POSTGRES_URL_VARIABLE, DEFAULT_POSTGRES_URL)
    try:
        admin = _connect(server_url)
    except psycopg.OperationalError as error:
        reason = (
            f"PostgreSQL at {_without_password(server_url)} is unreachable "
            f"(set {POSTGRES_URL_VARIABLE} to another server): {' '.join(str(error).split())}"
        )
        if os.environ.get("CI", "").lower() == "true":
            pytest.fail(reason, pytrace=False)
        pytest.skip(reason)
    name = database_prefix(os.environ) + secrets.token_hex(RANDOM_SUFFIX_BYTES)
    drop = sql.SQL("DROP DATABASE IF EXISTS {} WITH (FORCE)").format(sql.Identifier(name))
    try:
        admin.execute(sql.SQL("CREATE DATABASE {}").format(sql.Identifier(name)))
        # A throw-away database need not outlive a crash of its server: commits do not wait
        # for the disk (a transaction's own SET LOCAL still decides for it).
        admin.execute(
            sql.SQL("ALTER DATABASE {} SET synchronous_commit = off").format(sql.Identifier(name))
        )
        with _connect(server_url, dbname=name) as connection:
            yield PostgresTestDatabase(server_url, name, connection)
    finally:
        admin.execute(drop)
        admin.close()


def database_prefix(env: Mapping[str, str]) -> str:
    """The test databases' name prefix; UsageError if it leaves the random suffix no room in
    the names PostgreSQL keeps."""
    prefix = env.get(DATABASE_PREFIX_VARIABLE, DEFAULT_DATABASE_PREFIX)
    room = IDENTIFIER_BYTES - 2 * RANDOM_SUFFIX_BYTES
    if len(prefix.encode()) > room:
        raise pytest.UsageError(
            f"{DATABASE_PREFIX_VARIABLE}={prefix!r} is {len(prefix.encode())} bytes; PostgreSQL "
            f"keeps {IDENTIFIER_BYTES}-byte names and the random suffix takes "
            f"{2 * RANDOM_SUFFIX_BYTES}, so at most {room}"
        )
    return prefix


def pytest_configure(config: pytest.Config) -> None:
    database_prefix(os.environ)  # a bad prefix stops the run before any test


WHOLLY_SLOW = re.compile(r"^pytestmark = .*\bpytest\.mark\.slow\b", re.MULTILINE)
"""A test module marked slow as a whole."""


def pytest_ignore_collect(collection_path: Path, config: pytest.Config) -> bool | None:
    """With `-m "not slow"` (exactly that), a test module marked slow as a whole is not even
    imported: every test in it would be deselected, and importing it (schemathesis' app, the bot
    games' tables, the browser driver) costs each worker seconds of the fast subset's minute."""
    if config.option.markexpr.strip() != "not slow" or not collection_path.name.startswith("test_"):
        return None
    if collection_path.suffix != ".py" or not WHOLLY_SLOW.search(collection_path.read_text()):
        return None
    return True


WAITING = "tests/browser/"
"""Test files whose worker waits about half the time (on Chromium, which renders in processes of
its own, and on the pages' own timers): alone about 85 s of wall time, in which the worker and
Playwright's driver use about 40 s of CPU (Chromium's headless shell about 65 more; 6 Dec 2026).
They run as one unit on one worker, first, while the other workers run the files that keep the
cores busy; left to xdist they ran last, on both workers at once, and the machine was half idle
for two minutes."""

LONGEST_FIRST = (
    "tests/integration/test_projections.py",
    "tests/unit/test_bot_games.py",
    "tests/unit/test_record.py",
    "tests/unit/test_views.py",
    "tests/integration/test_annotations_forks.py",
    "tests/unit/test_replay_steps.py",
    "tests/docs/test_guides.py",
    "tests/e2e/test_outages.py",
    "tests/unit/test_unknown_hands.py",
    "tests/api/test_replays.py",
)
"""The longest other test files (13 to 56 s each on a 2-core machine, 5 Dec 2026), started
next, longest first, so that none of them is left to run alone at the end."""


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    """Every PostgreSQL test is slow too, so the fast subset (`-m "not slow"`) needs no
    database server (each store-parametrized test still runs on memory and SQLite there). The
    files that mostly wait come first (WAITING), then the longest files (LONGEST_FIRST), then
    the rest, those with the most tests first (as xdist orders files by itself): the workers
    take whole files in this order (`FilesInOrder`)."""
    for item in items:
        if item.get_closest_marker("postgres") is not None:
            item.add_marker(pytest.mark.slow)
    rank = {path: place for place, path in enumerate(LONGEST_FIRST, start=1)}
    tests = Counter(item.nodeid.split("::")[0] for item in items)

    def place(item: pytest.Item) -> tuple[int, int]:
        path = item.nodeid.split("::")[0]
        if path.startswith(WAITING):
            return (0, 0)
        return (rank.get(path, len(rank) + 1), -tests[path])

    items.sort(key=place)


class FilesInOrder(LoadFileScheduling):
    """xdist's `--dist loadfile`, taking the files in collection order (xdist reorders them by
    their number of tests unless told not to, which put every browser file last) and the
    WAITING files as one unit."""

    def __init__(self, config: pytest.Config, log: Any = None) -> None:
        config.option.loadscopereorder = False
        super().__init__(config, log)

    def _split_scope(self, nodeid: str) -> str:
        return WAITING if nodeid.startswith(WAITING) else super()._split_scope(nodeid)


def pytest_xdist_make_scheduler(config: pytest.Config, log: Any) -> FilesInOrder | None:
    """`FilesInOrder` for `--dist loadfile` (pyproject.toml's default), except for the fast
    subset, which has no WAITING files: it keeps xdist's own order (the files with the most
    tests first; 52-56 s either way); any other mode as asked."""
    if config.getvalue("dist") != "loadfile" or config.option.markexpr.strip() == "not slow":
        return None
    return FilesInOrder(config, log)


def pytest_xdist_auto_num_workers(config: pytest.Config) -> int | None:
    """Workers for `-n auto`: one more than the CPUs for the whole suite, so that two workers
    keep the CPUs busy while one runs the WAITING files (3 workers on a 2-core machine: 258 s,
    against 283 s with 2, 5 Dec 2026; 242 against 272 s, 6 Dec 2026); one a CPU for the fast
    subset, which has none of them.
    No workers when the run names a single test file (or tests in one): starting workers, each
    importing the app and collecting the file again, costs more than the file takes.
    PYTEST_XDIST_AUTO_NUM_WORKERS, if set, decides instead."""
    if os.environ.get("PYTEST_XDIST_AUTO_NUM_WORKERS"):
        return None
    paths = {config.invocation_params.dir / arg.split("::")[0] for arg in config.args}
    if len(paths) == 1 and next(iter(paths)).is_file():
        return 0
    if config.option.markexpr.strip() == "not slow":
        return None
    return len(os.sched_getaffinity(0)) + 1 if hasattr(os, "sched_getaffinity") else None


def _store_url(request: pytest.FixtureRequest, kind: str, directory: Path) -> str:
    if kind == "memory":
        return "memory://"
    if kind == "sqlite":
        return f"sqlite:///{directory / 'bohnanza.sqlite3'}"
    return request.getfixturevalue("postgres_database").new_store_url()


@pytest.fixture(params=STORES)
def database_url(request: pytest.FixtureRequest, tmp_path: Path) -> str:
    """An empty store of each kind."""
    return _store_url(request, request.param, tmp_path)


@pytest.fixture(params=SHARED_STORES)
def shared_database_url(request: pytest.FixtureRequest, tmp_path: Path) -> str:
    """An empty store that several Application instances can open, as separate processes do."""
    return _store_url(request, request.param, tmp_path)


@pytest.fixture(scope="module", params=STORES)
def module_database_url(
    request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory
) -> str:
    """An empty store of each kind, kept for a whole test module (for data costly to record)."""
    return _store_url(request, request.param, tmp_path_factory.mktemp("store"))


@pytest.fixture
def app(database_url: str) -> Iterator[Bohnanza]:
    """The application on an empty store, closed after the test."""
    with Bohnanza.from_url(database_url) as application:
        yield application


@pytest.fixture(params=SHARED_STORES)
def new_shared_database_url(request: pytest.FixtureRequest, tmp_path: Path) -> Callable[[], str]:
    """Makes an empty store of one kind that several Application instances can open, a new one
    on each call."""
    stores = itertools.count(1)

    def new() -> str:
        directory = tmp_path / f"store_{next(stores)}"
        directory.mkdir()
        return _store_url(request, request.param, directory)

    return new
