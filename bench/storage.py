"""Storage benchmark: the bytes a complete game takes, where they go, beside its exported record.

    .venv/bin/python -m bench.storage [--games 100] [--no-postgres]

The same seeded bot games are played through the application's command path (`execute`, one
command at a time, as a server stores them) into two stores per database, side by side:

- **now**: this version (compact rows, a compressed snapshot every 500 versions, game ids in time
  order: domain/encoding.py, domain/application.py, domain/ids.py);
- **baseline**: the rows as the version of 4 Dec 2026 stored them (the library's JSON rows under
  long topics, a snapshot every 100 versions, random game ids), the figure issue 25 starts from.

Each store also holds what the service keeps beside the events: the read models (rebuilt once
the games are stored) and each game's tokens (a host's and one per seat, as the API issues
them). Printed per store: bytes per game all-in and the ratio to the baseline (target ≤ 0.50);
per table, with its indexes; per kind of event (rows and the bytes of their state and topic);
and a game's exported record, raw and gzip'd. On SQLite the file is checkpointed and measured
page by page (`dbstat`); on PostgreSQL each table's `pg_total_relation_size`, after `VACUUM`.

A store of few games overstates the bytes a game takes: each of the dozen tables and their
indexes has pages of its own however few rows it holds (at 40 games, about 10 KB a game on
PostgreSQL). So the default is 100 games, the smallest store issue 25 measured, and each store is
also measured when it holds half of them: what the second half added, per game, is what each
further game costs, the figure a store of a million games approaches.
"""

from __future__ import annotations

import argparse
import gzip
import json
import os
import random
import sqlite3
import tempfile
import time
from collections import defaultdict
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any
from uuid import UUID, uuid4

import psycopg
from sqlalchemy import Engine

from api.security import TokenStore
from api.tables import create_missing
from bench.projections import DEFAULT_POSTGRES_URL, POSTGRES_URL_VARIABLE, postgres_database
from domain.aggregate import STORED_TYPES
from domain.application import Bohnanza
from domain.bots import BOTS, Table, play_stored
from domain.encoding import SNAPSHOT_CODE, code_of
from domain.rules import events as ev
from domain.storage import persistence_env
from projections.runner import Projector
from replays.games import export_game

TARGET = 0.5
TABLES = [("rio-grande", 4), ("rio-grande", 3), ("rio-grande", 5), ("amigo", 4), ("rio-grande", 2)]
NAMES = ["Ana", "Ben", "Cleo", "Dan", "Eve"]


class LibraryRows(Bohnanza):
    """The application storing rows as the version of 4 Dec 2026 did: the library's own mapper
    (JSON objects under long topics), a snapshot every 100 versions, random game ids (`fill`)."""

    name = "Bohnanza"  # the same tables
    snapshot_interval = 100

    def construct_mapper(self) -> Any:
        return self.factory.mapper(transcoder=self.construct_transcoder())


KIND_OF_TOPIC: dict[str, str] = {}
for _fact in ev.EVENT_TYPES.values():
    KIND_OF_TOPIC[code_of(_fact)] = KIND_OF_TOPIC[STORED_TYPES[_fact].TOPIC] = _fact.__name__
KIND_OF_TOPIC[SNAPSHOT_CODE] = KIND_OF_TOPIC["eventsourcing.domain:Snapshot"] = "(snapshot)"


@dataclass
class Measured:
    label: str
    games: int
    total: int = 0
    tables: dict[str, tuple[int, int]] = field(default_factory=dict)
    """Per table: its own bytes and its indexes'."""
    kinds: dict[str, tuple[int, int]] = field(default_factory=dict)
    """Per kind of row: how many, and the bytes of their state and topic."""
    seconds: float = 0.0

    @property
    def per_game(self) -> float:
        return self.total / self.games


def fill(app: Bohnanza, engine: Engine, seeds: range) -> list[UUID]:
    """Play a seeded bot game for each seed through `execute` and issue its tokens; the games'
    ids."""
    tokens = TokenStore(engine)
    ids = []
    for seed in seeds:
        preset, players = TABLES[seed % len(TABLES)]
        chosen = {"game_id": uuid4()} if isinstance(app, LibraryRows) else {}
        game = app.start_game(NAMES[:players], preset=preset, seed=seed, **chosen)
        tokens.issue(game.game_id, players)
        bots = Table([BOTS["greedy"]() for _ in range(players)], random.Random(seed))
        play_stored(app, game.game_id, bots)
        ids.append(game.game_id)
    return ids


def store(app_class: type[Bohnanza], url: str, seeds: range) -> tuple[list[UUID], float]:
    """Store the games of `seeds` and rebuild the read models; their ids, and the seconds it took."""
    started = time.perf_counter()
    with app_class.from_url(url) as app, Projector.for_url(app, url) as projector:
        create_missing(projector.engine)
        ids = fill(app, projector.engine, seeds)
        projector.rebuild()
    return ids, time.perf_counter() - started


def measure_sqlite(path: str, label: str, games: int) -> Measured:
    measured = Measured(label, games)
    with sqlite3.connect(path) as connection:
        connection.execute("PRAGMA wal_checkpoint(TRUNCATE)")
        page_size = connection.execute("PRAGMA page_size").fetchone()[0]
        measured.total = page_size * connection.execute("PRAGMA page_count").fetchone()[0]
        indexes = dict(
            connection.execute("SELECT name, tbl_name FROM sqlite_master WHERE type = 'index'")
        )
        sizes: dict[str, list[int]] = defaultdict(lambda: [0, 0])
        for name, size in connection.execute("SELECT name, sum(pgsize) FROM dbstat GROUP BY name"):
            if name in indexes:
                sizes[indexes[name]][1] += size
            else:
                sizes[name][0] += size
        measured.tables = {name: (own, index) for name, (own, index) in sizes.items()}
        for table in ("stored_events", "stored_snapshots"):
            rows = connection.execute(
                f"SELECT topic, count(*), sum(length(state) + length(topic)) FROM {table} GROUP BY topic"
            )
            for topic, count, size in rows:
                measured.kinds[KIND_OF_TOPIC.get(topic, topic)] = (count, size)
    return measured


def measure_postgres(url: str, label: str, games: int) -> Measured:
    measured = Measured(label, games)
    env = persistence_env(url)
    with psycopg.connect(
        host=env["POSTGRES_HOST"],
        port=int(env["POSTGRES_PORT"]),
        user=env["POSTGRES_USER"],
        password=env["POSTGRES_PASSWORD"] or None,
        dbname=env["POSTGRES_DBNAME"],
        autocommit=True,
    ) as connection:
        connection.execute("VACUUM")
        rows = connection.execute(
            "SELECT relname, pg_table_size(oid), pg_indexes_size(oid) FROM pg_class "
            "WHERE relkind = 'r' AND relnamespace = 'public'::regnamespace"
        )
        measured.tables = {name: (own, index) for name, own, index in rows}
        measured.total = sum(own + index for own, index in measured.tables.values())
        rows_tables = connection.execute(
            "SELECT table_name FROM information_schema.columns "
            "WHERE table_schema = 'public' AND column_name = 'topic' AND table_name <> 'api_creations'"
        )
        for (table,) in rows_tables.fetchall():
            query = (
                f"SELECT topic, count(*), sum(octet_length(state) + octet_length(topic)) "
                f"FROM {table} GROUP BY topic"
            )
            for topic, count, size in connection.execute(query):
                measured.kinds[KIND_OF_TOPIC.get(topic, topic)] = (count, int(size))
    return measured


def record_sizes(url: str, ids: list[UUID]) -> tuple[float, float]:
    """A game's exported record, mean bytes raw (compact JSON) and gzip'd."""
    raw = packed = 0
    with Bohnanza.from_url(url) as app:
        for game_id in ids:
            document = json.dumps(export_game(app, game_id), separators=(",", ":")).encode()
            raw += len(document)
            packed += len(gzip.compress(document))
    return raw / len(ids), packed / len(ids)


def added_per_game(half: Measured, whole: Measured) -> float:
    """The bytes each game of the second half added to the store, all-in."""
    return (whole.total - half.total) / (whole.games - half.games)


def report(
    database: str,
    now: Measured,
    baseline: Measured,
    halves: tuple[Measured, Measured],
    record: tuple[float, float],
) -> float:
    ratio = now.per_game / baseline.per_game
    verdict = "met" if ratio <= TARGET else "NOT met"
    added = added_per_game(halves[0], now), added_per_game(halves[1], baseline)
    print(f"\n{database}: {now.games} complete bot games, played command by command")
    print(f"   {'':<32}{'now':>12}{'baseline':>12}")
    print(f"   {'bytes per game, all-in':<32}{now.per_game:>12,.0f}{baseline.per_game:>12,.0f}")
    print(f"   now / baseline {ratio:.2f}   target ≤ {TARGET:.2f}: {verdict}")
    print(
        f"   {f'each of the last {now.games - halves[0].games} games added':<32}"
        f"{added[0]:>12,.0f}{added[1]:>12,.0f}   now / baseline {added[0] / added[1]:.2f}"
    )
    print(f"   stored in {now.seconds:.1f} s now, {baseline.seconds:.1f} s baseline")
    print(f"   the exported record: {record[0]:,.0f} bytes raw, {record[1]:,.0f} gzip'd")
    print("\n   per table, bytes per game (table + its indexes)")
    for name in sorted(set(now.tables) | set(baseline.tables)):
        own, index = now.tables.get(name, (0, 0))
        old_own, old_index = baseline.tables.get(name, (0, 0))
        print(
            f"   {name:<32}{(own + index) / now.games:>12,.0f}{(old_own + old_index) / baseline.games:>12,.0f}"
            f"   ({own / now.games:,.0f} + {index / now.games:,.0f} index)"
        )
    print("\n   per kind of row: rows per game, bytes per row (state + topic)")
    kinds = sorted(
        set(now.kinds) | set(baseline.kinds),
        key=lambda kind: -baseline.kinds.get(kind, (0, 0))[1],
    )
    for kind in kinds:
        count, size = now.kinds.get(kind, (0, 0))
        old_count, old_size = baseline.kinds.get(kind, (0, 0))
        print(
            f"   {kind:<24}{count / now.games:>7,.1f} rows {size / max(count, 1):>8,.1f}"
            f"   baseline {old_count / baseline.games:>7,.1f} rows {old_size / max(old_count, 1):>8,.1f}"
        )
    return ratio


def side_by_side(
    database: str,
    urls: Callable[[str], str],
    measure: Callable[[str, str, int], Measured],
    locate: Callable[[str], str],
    games: int,
) -> None:
    results, halves = {}, {}
    half = games // 2
    for label, app_class in (("now", Bohnanza), ("baseline", LibraryRows)):
        url = urls(label)
        ids, seconds = store(app_class, url, range(half))
        halves[label] = measure(locate(url), label, half)
        more, more_seconds = store(app_class, url, range(half, games))
        results[label] = measure(locate(url), label, games)
        results[label].seconds = seconds + more_seconds
        if label == "now":
            record = record_sizes(url, ids + more)
    report(
        database, results["now"], results["baseline"], (halves["now"], halves["baseline"]), record
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=100)
    parser.add_argument("--no-postgres", action="store_true", help="SQLite only")
    args = parser.parse_args()
    if args.games < 2:
        parser.error("--games: at least 2 (the store is measured at half of them too)")
    with tempfile.TemporaryDirectory() as tmp:
        side_by_side(
            "SQLite file",
            lambda label: f"sqlite:///{tmp}/{label}.sqlite3",
            measure_sqlite,
            lambda url: url.removeprefix("sqlite:///"),
            args.games,
        )
    if args.no_postgres:
        return
    server = os.environ.get(POSTGRES_URL_VARIABLE, DEFAULT_POSTGRES_URL)
    with postgres_database(server) as now_url, postgres_database(server) as baseline_url:
        if now_url is None or baseline_url is None:
            return
        chosen = {"now": now_url, "baseline": baseline_url}
        side_by_side(
            "PostgreSQL", chosen.__getitem__, measure_postgres, lambda url: url, args.games
        )


if __name__ == "__main__":
    main()
