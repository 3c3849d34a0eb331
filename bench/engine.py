"""Engine benchmark: every figure is printed beside its baseline measured in the same run.

    .venv/bin/python -m bench.engine [--repeats 7]

1. Pure fold: `evolve` over a stored complete 5-player game's facts, beside the library's own
   `repository.get` of the same game (full replay from its events: no cache, no snapshot).
   Targets: ≥ 100,000 events/s and ≥ 20× faster than repository.get.
2. decide+evolve over the same game's commands. Target: ≥ 20,000 commands/s.
3. On SQLite: the cost of one stored command at event ~1000 of a game beside one at event ~10
   (aggregate cache and snapshots on, as the service runs). Target: ≤ 1.3×.
4. Events and stored bytes per complete game.

Timings are medians of repeated runs (these machines are noisy); the two sides of each ratio are
measured alternately in the same loop.
"""

from __future__ import annotations

import argparse
import statistics
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

from domain.application import Bohnanza
from domain.bots import simulate
from domain.rules import events as ev
from domain.rules.decide import decide
from domain.rules.evolve import evolve, fold
from domain.rules.transcript import commands_from_facts

PLAYERS = 5
SEED = 5  # random bots, seed 5: a 5-player game of about 1,200 events


def timed(action: Callable[[], object]) -> float:
    start = time.perf_counter()
    action()
    return time.perf_counter() - start


def store_game(
    app: Bohnanza, facts: list[ev.Event], per_command: list[tuple[int, float]]
) -> object:
    """Store a game command by command through the application; record each command's cost."""
    first = facts[0]
    assert isinstance(first, ev.GameStarted)
    outcome = app.start_game(
        first.seats,
        preset=first.ruleset["preset"],
        start_seat=first.start_seat,
        seed=first.seed,
        deck=first.deck,
    )
    for command in commands_from_facts(facts, tabletop=False):
        version = outcome.version
        start = time.perf_counter()
        outcome = app.execute(outcome.game_id, command)
        per_command.append((version, time.perf_counter() - start))
    return outcome.game_id


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeats", type=int, default=7)
    args = parser.parse_args()
    facts = simulate("rio-grande", PLAYERS, bot="random", seed=SEED)
    commands = commands_from_facts(facts, tabletop=False)
    first = facts[0]
    print(f"game: rio-grande, {PLAYERS} players, {len(facts)} events, {len(commands)} commands")

    with tempfile.TemporaryDirectory() as tmp:
        url = f"sqlite:///{tmp}/bench.sqlite3"
        per_command: list[tuple[int, float]] = []
        app = Bohnanza.from_url(url)
        game_id = store_game(app, facts, per_command)
        stored = app.recorder.select_events(game_id)
        stored_facts = app.facts(game_id)
        assert stored_facts == facts

        plain = Bohnanza.from_url(url, AGGREGATE_CACHE_MAXSIZE="", IS_SNAPSHOTTING_ENABLED="n")
        plain.snapshots = None
        plain.repository.snapshot_store = None
        fold_times, get_times, decode_times, decide_times = [], [], [], []
        for _ in range(args.repeats):
            fold_times.append(timed(lambda: fold(stored_facts)))
            get_times.append(timed(lambda: plain.repository.get(game_id)))
            decode_times.append(timed(lambda: list(plain.events.get(game_id))))

            def redecide() -> None:
                state = fold(facts[:2])
                for command in commands:
                    for fact in decide(state, command):
                        state = evolve(state, fact)

            decide_times.append(timed(redecide))

        fold_rate = len(facts) / statistics.median(fold_times)
        get_rate = len(facts) / statistics.median(get_times)
        decode_rate = len(facts) / statistics.median(decode_times)
        decide_rate = len(commands) / statistics.median(decide_times)
        print()
        print("1. pure fold")
        print(f"   fold (evolve)          {fold_rate:>12,.0f} events/s   target ≥ 100,000")
        print(f"   repository.get         {get_rate:>12,.0f} events/s   (baseline, full replay)")
        print(f"   ratio                  {fold_rate / get_rate:>12.1f} ×          target ≥ 20×")
        print(
            f"   (events.get alone      {decode_rate:>12,.0f} events/s   read + decode, no aggregate)"
        )
        print()
        print("2. decide + evolve")
        print(f"   commands               {decide_rate:>12,.0f} commands/s target ≥ 20,000")

        more = [per_command]
        for repeat in range(1, max(3, args.repeats // 2)):
            again = Bohnanza.from_url(f"sqlite:///{tmp}/bench{repeat}.sqlite3")
            costs: list[tuple[int, float]] = []
            store_game(again, facts, costs)
            more.append(costs)
            again.close()
        early = [cost for run in more for version, cost in run if 3 <= version <= 30]
        late = [cost for run in more for version, cost in run if 950 <= version <= 1100]
        early_ms = statistics.median(early) * 1000
        late_ms = statistics.median(late) * 1000
        print()
        print("3. one stored command on SQLite (cache and snapshots on)")
        print(
            f"   at events 3–30         {early_ms:>12.3f} ms       (baseline, {len(early)} commands)"
        )
        print(f"   at events 950–1100     {late_ms:>12.3f} ms       ({len(late)} commands)")
        print(f"   ratio                  {late_ms / early_ms:>12.2f} ×          target ≤ 1.3×")

        state_bytes = sum(len(s.state) for s in stored)
        topic_bytes = sum(len(s.topic) for s in stored)
        print()
        print("4. storage per complete game")
        print(f"   events                 {len(stored):>12,}")
        print(
            f"   payload bytes          {state_bytes:>12,}   ({state_bytes / len(stored):.0f} per event)"
        )
        print(f"   + topic bytes          {topic_bytes:>12,}")
        print(
            f"   SQLite file            {Path(tmp, 'bench.sqlite3').stat().st_size:>12,} bytes"
            " (one game, with snapshots)"
        )
        print(f"   seed {first.seed}" if isinstance(first, ev.GameStarted) else "")
        plain.close()
        app.close()


if __name__ == "__main__":
    main()
