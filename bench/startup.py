"""Start-up of `bohnanza serve` on a store of 100 games beside one of 5,000, in the same run.

    .venv/bin/python -m bench.startup [--small 100] [--large 5000] [--repeats 5]

Each store is filled through the application (each game's facts stored as an import stores
them, `Bohnanza.record_game`: bot games, their seats renamed so that every game is its own) and
its read models caught up. Start-up is the time from starting `bohnanza serve --no-demo` to its
first answer of `GET /api/health`: what a restart costs before the first request. Nothing at
start-up should read the store in proportion to its size (the demo check asks the store's last
position, an index); target: the large store's start-up within 1.2x of the small one's. The two
are started alternately; medians.
"""

from __future__ import annotations

import argparse
import dataclasses
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import httpx

from domain.application import Bohnanza
from domain.bots import simulate
from domain.rules import events as ev
from projections.runner import Projector
from tests.e2e.server import free_port

TARGET_RATIO = 1.2
DISTINCT_GAMES = 40


def fill(url: str, games: int) -> None:
    """Store `games` complete bot games (DISTINCT_GAMES played, stored again under other seat
    names) and catch the read models up."""
    played = [
        simulate("rio-grande", 3 + seed % 5, bot=("greedy", "random")[seed % 2], seed=seed)
        for seed in range(DISTINCT_GAMES)
    ]
    with Bohnanza.from_url(url) as app, Projector.for_url(app, url) as projector:
        for number in range(games):
            facts = played[number % DISTINCT_GAMES]
            started = facts[0]
            assert isinstance(started, ev.GameStarted)
            seats = tuple(f"{name} {number}" for name in started.seats)
            app.record_game([dataclasses.replace(started, seats=seats), *facts[1:]])
        projector.catch_up()


def start_up(url: str) -> float:
    """Seconds from starting `bohnanza serve` on the store to its first health answer."""
    port = free_port()
    command = [sys.executable, "-m", "api.cli", "--database-url", url, "serve", "--no-demo"]
    started = time.perf_counter()
    process = subprocess.Popen(
        [*command, "--port", str(port)], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL
    )
    try:
        while True:
            try:
                if httpx.get(f"http://127.0.0.1:{port}/api/health", timeout=5).status_code == 200:
                    return time.perf_counter() - started
            except httpx.TransportError:
                pass
            if process.poll() is not None:
                raise RuntimeError(f"bohnanza serve exited with {process.returncode}")
            time.sleep(0.01)
    finally:
        process.terminate()
        process.wait(timeout=30)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--small", type=int, default=100)
    parser.add_argument("--large", type=int, default=5000)
    parser.add_argument("--repeats", type=int, default=5)
    options = parser.parse_args()
    with tempfile.TemporaryDirectory() as folder:
        stores = {}
        for games in (options.small, options.large):
            url = f"sqlite:///{Path(folder) / f'{games}.sqlite3'}"
            began = time.perf_counter()
            fill(url, games)
            print(f"filled a store of {games:,} games in {time.perf_counter() - began:.0f} s")
            stores[games] = url
        times: dict[int, list[float]] = {games: [] for games in stores}
        for _ in range(options.repeats):
            for games, url in stores.items():
                times[games].append(start_up(url))
    small, large = (statistics.median(times[games]) for games in stores)
    verdict = "meets" if large <= TARGET_RATIO * small else "misses"
    print(
        f"start-up to the first health answer: {options.small:,} games {small:.2f} s, "
        f"{options.large:,} games {large:.2f} s: {large / small:.2f}x ({verdict} the target of "
        f"{TARGET_RATIO}x; medians of {options.repeats})"
    )


if __name__ == "__main__":
    main()
