"""Projection benchmark: rebuild throughput beside reading and decoding the same store.

    .venv/bin/python -m bench.projections [--games 300] [--repeats 5] [--no-postgres]

On a store of a few hundred complete bot games (a SQLite file; PostgreSQL too when a server
answers at `BOHNANZA_BENCH_POSTGRES_URL`, default postgresql://postgres@127.0.0.1:5432/postgres,
in a throw-away database), measured alternately in one loop, medians of the repeats:

1. rebuild: `Projector.rebuild()` of every projection (drop, recreate, process the whole store:
   the scoreboards in this process and the insights in a worker process, projections/workers.py),
   the same in one process (`apart=False`: one reading of the store for both), and
   `Projector.rebuild(name)` of each alone: the scoreboards (games, scoreboards, leaderboard)
   and the insights (each game's numbers);
2. decode all: `select_notifications` + `mapper.to_domain_event` of every event in the store, no
   projection (the baseline the target is set against);
3. decode read: the same for the events the projection subscribes to (it reads only those), plus
   `.fact()`, so the cost of the projection itself shows too;
4. on SQLite, once after those, a writer beside the rebuild: another process takes the
   database's write lock every 5 ms, as a command's insert does, while `Projector.rebuild()`
   runs, then as long again with nothing else running (the baseline); how long it waited for
   the lock (the 99th percentile and the longest wait).

The PostgreSQL store is vacuumed and analysed after the fill (`settle`), as autovacuum leaves a
store some time after it was written. Rates are the store's events per second in every row, so
they compare directly.
Targets: the whole rebuild ≥ 150,000 events/s and ≥ 50% of decode all; the insights' rebuild
alone ≥ 50% of the scoreboards' alone.
"""

from __future__ import annotations

import argparse
import json
import os
import secrets
import sqlite3
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from collections.abc import Callable, Iterable, Iterator
from contextlib import contextmanager
from urllib.parse import urlsplit, urlunsplit

import psycopg
from psycopg import sql

from domain.aggregate import Game
from domain.application import Bohnanza
from domain.bots import simulate
from domain.rules import events as ev
from domain.storage import persistence_env
from projections.engine import SQLITE_BUSY_TIMEOUT_SECONDS
from projections.insights import GameInsights
from projections.runner import REBUILD_BATCH_SIZE, Projector
from projections.scoreboards import Scoreboards

POSTGRES_URL_VARIABLE = "BOHNANZA_BENCH_POSTGRES_URL"
DEFAULT_POSTGRES_URL = "postgresql://postgres@127.0.0.1:5432/postgres"
TABLES = [("rio-grande", 3), ("rio-grande", 4), ("rio-grande", 5), ("amigo", 4), ("rio-grande", 2)]
TARGET = 0.5
TARGET_RATE = 150_000
PAGE = REBUILD_BATCH_SIZE
"""The decoding baselines read pages as large as the rebuild's batches."""


def bot_games(count: int) -> Iterator[list[ev.Event]]:
    """The facts of `count` complete bot games over several presets and player counts."""
    for seed in range(count):
        preset, players = TABLES[seed % len(TABLES)]
        yield simulate(preset, players, bot=("greedy", "random")[seed % 2], seed=seed)


def fill(app: Bohnanza, games: Iterable[list[ev.Event]]) -> None:
    """Store each game's facts as one aggregate save (the same events commands would store)."""
    for facts in games:
        first, *rest = facts
        assert isinstance(first, ev.GameStarted)
        game = Game.start(first)
        game.record(rest)
        app.save(game)


def settle(url: str) -> bool:
    """On PostgreSQL, the store as autovacuum leaves it some time after it was written: vacuumed
    (each row's visibility recorded) and analysed. Measured right after the fill, the first
    rebuilds ran beside autovacuum's first passes over the new rows and paid for the first
    reads' hint bits: five rebuilds in a row at 107,000, 110,000, 130,000, 144,000 and 157,000
    events/s; on a store filled alike and vacuumed, 162,000, 166,000, 169,000, 164,000 and
    150,000 (6 Dec 2026). A rebuild after an upgrade meets a store written long before.
    Whether it did: a SQLite store has nothing of the kind to settle."""
    if not url.startswith("postgresql"):
        return False
    with psycopg.connect(url, autocommit=True) as connection:
        connection.execute("VACUUM (ANALYZE)")
    return True


def decode(app: Bohnanza, topics: tuple[str, ...] = (), *, facts: bool = False) -> int:
    """Read and decode every event of the store (of `topics`, if given); how many."""
    to_domain_event = app.mapper.to_domain_event
    start, decoded = 1, 0
    while True:
        page = app.recorder.select_notifications(start, PAGE, topics=topics)
        for notification in page:
            stored = to_domain_event(notification)
            if facts:
                stored.fact()  # type: ignore[attr-defined]
        decoded += len(page)
        if len(page) < PAGE:
            return decoded
        start = page[-1].id + 1


def timed(action: Callable[[], object]) -> float:
    start = time.perf_counter()
    action()
    return time.perf_counter() - start


def measure(label: str, url: str, count: int, repeats: int) -> float:
    """Fill the store at `url` with `count` games, time the three readings alternately; the
    rebuild/decode ratio. The games are simulated as they are stored, so that the process holds
    no more than a rebuild's would: the cycle collector's passes walk every object it holds."""
    with Bohnanza.from_url(url) as app, Projector.for_url(app, url) as projector:
        filling = timed(lambda: fill(app, bot_games(count)))
        settled = settle(url)
        events = app.position()
        read = Scoreboards.topics
        subscribed = decode(app, read)
        numbers = decode(app, GameInsights.topics)
        print(f"\n{label}: {count} games, {events:,} events ({subscribed:,} of the topics")
        print(
            f"   the scoreboards read, {numbers:,} the insights read), simulated and stored in {filling:.1f} s"
        )
        if settled:
            print("   then vacuumed and analysed, as autovacuum leaves a store some time after")
        rebuilds = ("scoreboards", "insights")
        times: dict[str, list[float]] = {
            "rebuild": [],
            "rebuild, one process": [],
            **{f"rebuild {name}": [] for name in rebuilds},
            "decode all": [],
            "decode read": [],
        }
        for _ in range(repeats):
            times["rebuild"].append(timed(projector.rebuild))
            times["rebuild, one process"].append(timed(lambda: projector.rebuild(apart=False)))
            for name in rebuilds:
                times[f"rebuild {name}"].append(timed(lambda name=name: projector.rebuild(name)))
            times["decode all"].append(timed(lambda: decode(app)))
            times["decode read"].append(timed(lambda: decode(app, read, facts=True)))
        rates = {name: events / statistics.median(seconds) for name, seconds in times.items()}
        for name, rate in rates.items():
            spread = f"{min(times[name]):.3f}–{max(times[name]):.3f} s"
            print(f"   {name:<20} {rate:>10,.0f} events/s   ({spread} over {repeats} runs)")
        ratio = rates["rebuild"] / rates["decode all"]
        verdict = "met" if rates["rebuild"] >= TARGET_RATE else "NOT met"
        print(
            f"   rebuild {rates['rebuild']:>10,.0f} events/s   target ≥ {TARGET_RATE:,}: {verdict}"
        )
        print(f"   rebuild / decode all  {ratio:>6.2f}   target ≥ {TARGET:.2f}: {_verdict(ratio)}")
        print(
            "   rebuild / rebuild in one process "
            f"{rates['rebuild'] / rates['rebuild, one process']:>6.2f}"
        )
        print(
            f"   rebuild scoreboards / decode read {rates['rebuild scoreboards'] / rates['decode read']:>6.2f}"
        )
        beside = rates["rebuild insights"] / rates["rebuild scoreboards"]
        print(
            f"   insights / scoreboards rebuild {beside:>6.2f}   target ≥ {TARGET:.2f}: "
            f"{_verdict(beside)}"
        )
        if url.startswith("sqlite"):
            path = persistence_env(url)["SQLITE_DBNAME"]
            rebuilding = writer_beside(path, projector.rebuild)
            alone = writer_beside(path, lambda: time.sleep(statistics.median(times["rebuild"])))
            print("   a writer taking SQLite's write lock every 5 ms, as a command's insert does:")
            print(f"     beside a rebuild     {_waits(rebuilding)}")
            print(f"     alone (baseline)     {_waits(alone)}")
        return ratio


def writer_beside(path: str, action: Callable[[], object]) -> list[float]:
    """The waits for SQLite's write lock (seconds, sorted) of a writer in a process of its own
    that takes it every 5 ms while `action` runs here."""
    writer = subprocess.Popen(
        [sys.executable, "-m", "bench.projections", "--take-write-lock", path],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        text=True,
    )
    assert writer.stdin is not None
    assert writer.stdout is not None
    writer.stdout.readline()  # it has opened the database
    try:
        action()
    finally:
        writer.stdin.close()  # its cue to stop
    waits: list[float] = json.loads(writer.stdout.read())
    writer.wait()
    return sorted(waits)


def take_write_lock(path: str) -> None:
    """The writer: `BEGIN IMMEDIATE; COMMIT` every 5 ms until its input ends, then each wait
    on its output (a command's insert takes the lock alike, waiting up to the store's 10 s)."""
    database = sqlite3.connect(path, timeout=SQLITE_BUSY_TIMEOUT_SECONDS, isolation_level=None)
    stop = threading.Event()
    threading.Thread(target=lambda: (sys.stdin.read(), stop.set()), daemon=True).start()
    print("ready", flush=True)
    waits = []
    while not stop.is_set():
        start = time.perf_counter()
        database.execute("BEGIN IMMEDIATE")
        database.execute("COMMIT")
        waits.append(time.perf_counter() - start)
        time.sleep(0.005)
    print(json.dumps(waits))


def _waits(waits: list[float]) -> str:
    p99 = waits[int(0.99 * (len(waits) - 1))]
    return f"p99 {p99 * 1000:.1f} ms, longest {waits[-1] * 1000:.1f} ms over {len(waits)} writes"


def _verdict(ratio: float) -> str:
    return "met" if ratio >= TARGET else "NOT met"


@contextmanager
def postgres_database(server_url: str) -> Iterator[str | None]:
    """A throw-away database on the server (its URL), or None if no server answers."""
    env = persistence_env(server_url)
    connect = {
        "host": env["POSTGRES_HOST"],
        "port": int(env["POSTGRES_PORT"]),
        "user": env["POSTGRES_USER"],
        "password": env["POSTGRES_PASSWORD"],
        "autocommit": True,
        "connect_timeout": 5,
    }
    try:
        admin = psycopg.connect(dbname=env["POSTGRES_DBNAME"], **connect)
    except psycopg.OperationalError as error:
        print(f"\nPostgreSQL: skipped, no server ({' '.join(str(error).split())[:100]})")
        yield None
        return
    name = f"bohnanza_bench_{secrets.token_hex(4)}"
    admin.execute(sql.SQL("CREATE DATABASE {}").format(sql.Identifier(name)))
    try:
        yield urlunsplit(urlsplit(server_url)._replace(path=f"/{name}", query=""))
    finally:
        drop = sql.SQL("DROP DATABASE IF EXISTS {} WITH (FORCE)").format(sql.Identifier(name))
        admin.execute(drop)
        admin.close()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=300)
    parser.add_argument("--repeats", type=int, default=5)
    parser.add_argument("--no-postgres", action="store_true", help="SQLite only")
    parser.add_argument("--take-write-lock", metavar="PATH", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.take_write_lock:
        take_write_lock(args.take_write_lock)
        return
    with tempfile.TemporaryDirectory() as tmp:
        measure("SQLite file", f"sqlite:///{tmp}/bench.sqlite3", args.games, args.repeats)
    if not args.no_postgres:
        server = os.environ.get(POSTGRES_URL_VARIABLE, DEFAULT_POSTGRES_URL)
        with postgres_database(server) as url:
            if url is not None:
                measure("PostgreSQL", url, args.games, args.repeats)


if __name__ == "__main__":
    main()
