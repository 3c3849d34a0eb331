"""Scale benchmark: the service's answers on a store of 1,000 games beside the same store grown to
10,000 and 100,000.

    .venv/bin/python -m bench.scale [--sizes 1000,10000,100000] [--requests 30] [--database URL]

One store (a SQLite file by default; `--database` names another, e.g. an empty PostgreSQL
database) is filled through the application, as an import stores a record
(`Bohnanza.record_game`: complete bot games, a few hundred played and stored again under other
seat names, drawn from a pool of players so the leaderboard has thousands of them) in two
processes at once, as two clients importing, its read models caught up meanwhile by a third, as
a projector follows the store. At each size `bohnanza serve` is started on it and asked,
over HTTP with one kept-alive client, `--requests` times each (medians):

- the game list's first page, and a deep one (90% of the way down) by cursor, and the same deep
  page by offset for comparison;
- the leaderboard's first page;
- a finished game's scoreboard, a step of it, and its record;

beside the server's start-up (to its first health answer) and its memory once it has answered
them (resident set of the server and its workers). Target: each answer at the largest size
within 1.5x of the same answer at the smallest. The store then grows to the next size.
"""

from __future__ import annotations

import argparse
import dataclasses
import multiprocessing
import os
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

import httpx

from api.games import _cursor
from bench.startup import start_up
from domain.application import Bohnanza
from domain.bots import simulate
from domain.rules import events as ev
from projections import queries
from projections.runner import Projector
from tests.e2e.server import free_port

TARGET = 1.5
DISTINCT_GAMES = 300
PLAYERS = 5_000
"""Names the seats are drawn from: a leaderboard of about this many players."""
TABLES = [("rio-grande", 3), ("rio-grande", 4), ("rio-grande", 5), ("amigo", 4), ("rio-grande", 2)]


def played_games() -> list[list[ev.Event]]:
    return [
        simulate(*TABLES[seed % len(TABLES)], bot=("greedy", "random")[seed % 2], seed=seed)
        for seed in range(DISTINCT_GAMES)
    ]


def grow(
    url: str, played: list[list[ev.Event]], start: int, stop: int, processes: int = 2
) -> float:
    """Store games `start` to `stop` (each a played game under other seat names) and catch the
    read models up; the seconds it took. The games are stored by `processes` processes at once,
    as that many clients importing records would (each takes every `processes`-th game), while
    this one catches the read models up beside them, as a projector follows a store."""
    began = time.perf_counter()
    with Bohnanza.from_url(url):
        pass  # the store's tables, made before the processes that store open it
    # Forked before this process opens the store (no connection crosses the fork), so that each
    # shares the games simulated already.
    forking = multiprocessing.get_context("fork")
    storing = [
        forking.Process(target=_store, args=(url, played, start + first, stop, processes))
        for first in range(processes)
    ]
    for process in storing:
        process.start()
    try:
        with Bohnanza.from_url(url) as app, Projector.for_url(app, url) as projector:
            while any(process.is_alive() for process in storing):
                if not projector.catch_up(batch_size=5000):
                    time.sleep(0.2)
            for process in storing:
                process.join()
                if process.exitcode != 0:
                    raise RuntimeError(f"a process storing games ended with {process.exitcode}")
            projector.catch_up(batch_size=5000)
    finally:
        for process in storing:  # none left behind if this one failed
            process.kill()
            process.join()
    return time.perf_counter() - began


def _store(url: str, played: list[list[ev.Event]], first: int, stop: int, step: int) -> None:
    """Store games `first`, `first + step`, … before `stop`, as an import stores a record."""
    with Bohnanza.from_url(url) as app:
        for number in range(first, stop, step):
            facts = played[number % len(played)]
            started = facts[0]
            assert isinstance(started, ev.GameStarted)
            seats = tuple(
                f"P{(number * 7 + seat * 1_009) % PLAYERS}" for seat in range(len(started.seats))
            )
            app.record_game([dataclasses.replace(started, seats=seats), *facts[1:]])


@dataclasses.dataclass
class Answers:
    size: int
    seconds: dict[str, float]
    """Each question's median answer time."""
    start_up: float
    memory_mib: float
    events: int


def questions(url: str, games: int) -> dict[str, str]:
    """The paths asked at this size (found once, not timed)."""
    with Bohnanza.from_url(url) as app, Projector.for_url(app, url) as projector:
        events = app.position()
        deep = int(games * 0.9)
        (record,), _, _ = queries.game_page(projector.engine, limit=1, offset=deep)
        finished, _, _ = queries.game_page(projector.engine, limit=1, status="ended")
    game = finished[0].game_id
    return {
        "list, first page": "/api/games?limit=20",
        "list, deep page by cursor": f"/api/games?limit=20&cursor={_cursor(record)}",
        "list, deep page by offset": f"/api/games?limit=20&offset={deep}",
        "leaderboard, first page": "/api/leaderboard?limit=20",
        "a scoreboard": f"/api/games/{game}/scoreboard",
        "a step of a finished game": f"/api/games/{game}/steps/300",
        "a record": f"/api/games/{game}/record",
        "_events": str(events),
    }


def ask(url: str, games: int, requests: int) -> Answers:
    paths = questions(url, games)
    events = int(paths.pop("_events"))
    port = free_port()
    command = [sys.executable, "-m", "api.cli", "--database-url", url, "serve", "--no-demo"]
    server = subprocess.Popen(
        [*command, "--port", str(port)], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL
    )
    seconds: dict[str, float] = {}
    try:
        base = f"http://127.0.0.1:{port}"
        with httpx.Client(base_url=base, timeout=60) as client:
            _wait_for(lambda: client.get("/api/health").status_code == 200, server)
            for name, path in paths.items():
                assert client.get(path).status_code == 200, path  # warm: the first answer
                times = []
                for _ in range(requests):
                    began = time.perf_counter()
                    response = client.get(path)
                    times.append(time.perf_counter() - began)
                    assert response.status_code == 200, (path, response.text[:200])
                seconds[name] = statistics.median(times)
        memory = _resident_mib(server.pid)
    finally:
        server.terminate()
        server.wait(timeout=30)
    return Answers(games, seconds, start_up(url), memory, events)


def _wait_for(ready: Callable[[], bool], server: subprocess.Popen[bytes]) -> None:
    while True:
        try:
            if ready():
                return
        except httpx.TransportError:
            pass
        if server.poll() is not None:
            raise RuntimeError(f"bohnanza serve exited with {server.returncode}")
        time.sleep(0.05)


def _resident_mib(pid: int) -> float:
    """The resident memory of a process and its children, in MiB (Linux)."""
    total, pending = 0, [pid]
    while pending:
        current = pending.pop()
        try:
            status = Path(f"/proc/{current}/status").read_text()
            total += int(
                next(line.split()[1] for line in status.splitlines() if line.startswith("VmRSS"))
            )
            for task in Path(f"/proc/{current}/task").iterdir():
                pending += [int(child) for child in (task / "children").read_text().split()]
        except (FileNotFoundError, StopIteration):
            continue
    return total / 1024


def report(results: list[Answers]) -> None:
    first = results[0]
    print(f"\n{'':<30}" + "".join(f"{r.size:>12,} games" for r in results) + "   last / first")
    print(f"{'events in the store':<30}" + "".join(f"{r.events:>18,}" for r in results))
    for name in first.seconds:
        cells = "".join(f"{r.seconds[name] * 1000:>15.2f} ms" for r in results)
        ratio = results[-1].seconds[name] / first.seconds[name]
        verdict = "" if "offset" in name else ("  met" if ratio <= TARGET else "  NOT met")
        print(f"{name:<30}{cells}   {ratio:>6.2f}x{verdict}")
    cells = "".join(f"{r.start_up:>16.2f} s" for r in results)
    print(f"{'start-up':<30}{cells}   {results[-1].start_up / first.start_up:>6.2f}x")
    cells = "".join(f"{r.memory_mib:>14.0f} MiB" for r in results)
    print(f"{'server memory':<30}{cells}   {results[-1].memory_mib / first.memory_mib:>6.2f}x")
    print(f"(target: each answer within {TARGET}x; the deep page by offset is for comparison)")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sizes", default="1000,10000,100000")
    parser.add_argument("--requests", type=int, default=30)
    parser.add_argument("--database", help="a store URL (default: a new SQLite file)")
    args = parser.parse_args()
    sizes = [int(size) for size in args.sizes.split(",")]
    began = time.perf_counter()
    played = played_games()
    print(f"{DISTINCT_GAMES} bot games simulated in {time.perf_counter() - began:.0f} s")
    with tempfile.TemporaryDirectory() as folder:
        url = args.database or f"sqlite:///{Path(folder) / 'scale.sqlite3'}"
        results, stored = [], 0
        for size in sizes:
            took = grow(url, played, stored, size)
            stored = size
            print(f"grew the store to {size:,} games in {took:.0f} s", flush=True)
            results.append(ask(url, size, args.requests))
            if url.startswith("sqlite:///"):
                on_disk = os.path.getsize(url.removeprefix("sqlite:///"))
                print(f"   the SQLite file: {on_disk / size / 1024:,.1f} KiB a game", flush=True)
            report(results)


if __name__ == "__main__":
    main()
