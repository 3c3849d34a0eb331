"""Engine benchmark: every figure is printed beside its baseline measured in the same run.

    .venv/bin/python -m bench.engine [--repeats 7]

1. Pure fold: `evolve` over a stored complete 5-player game's facts, beside the library's own
   `repository.get` of the same game (full replay from its events: no cache, no snapshot).
   Targets: ≥ 100,000 events/s and ≥ 20× faster than repository.get.
2. decide+evolve over the same game's commands. Target: ≥ 20,000 commands/s.
3. On SQLite: the cost of one stored command at event ~1000 of a game beside one at event ~10
   (aggregate cache and snapshots on, as the service runs). Target: ≤ 1.3×.
4. Events and stored bytes per complete game.

Figures 1, 2 and 4 are given for the 5-player game and for a bean duel.

Timings are medians of repeated runs (these machines are noisy); the two sides of each ratio are
measured alternately in the same loop.
"""

from __future__ import annotations

import argparse
import statistics
import tempfile
from dataclasses import dataclass

from bench.support import store_game, timed
from domain.application import Bohnanza
from domain.bots import simulate
from domain.rules import events as ev
from domain.rules.decide import decide
from domain.rules.evolve import evolve, fold
from domain.rules.transcript import commands_from_facts

PLAYERS = 5
SEED = 5  # random bots, seed 5: a 5-player game of about 1,100 events
DUEL_SEED = 1


@dataclass
class GameFigures:
    label: str
    events: int
    commands: int
    fold_rate: float
    get_rate: float
    decode_rate: float
    decide_rate: float
    stored_events: int
    payload_bytes: int
    topic_bytes: int


def measure_game(label: str, facts: list[ev.Event], url: str, repeats: int) -> GameFigures:
    """Fold, repository.get and decide+evolve of one stored game, alternately, `repeats` times."""
    commands = commands_from_facts(facts, tabletop=False)
    app = Bohnanza.from_url(url)
    game_id = store_game(app, facts, [])
    stored = app.recorder.select_events(game_id)
    stored_facts = app.facts(game_id)
    assert stored_facts == facts
    plain = Bohnanza.from_url(url, AGGREGATE_CACHE_MAXSIZE="", IS_SNAPSHOTTING_ENABLED="n")
    plain.snapshots = None
    plain.repository.snapshot_store = None

    def redecide() -> None:
        state = fold(facts[:2])
        for command in commands:
            for fact in decide(state, command):
                state = evolve(state, fact)

    fold_times, get_times, decode_times, decide_times = [], [], [], []
    for _ in range(repeats):
        fold_times.append(timed(lambda: fold(stored_facts)))
        get_times.append(timed(lambda: plain.repository.get(game_id)))
        decode_times.append(timed(lambda: list(plain.events.get(game_id))))
        decide_times.append(timed(redecide))
    plain.close()
    app.close()
    return GameFigures(
        label,
        len(facts),
        len(commands),
        len(facts) / statistics.median(fold_times),
        len(facts) / statistics.median(get_times),
        len(facts) / statistics.median(decode_times),
        len(commands) / statistics.median(decide_times),
        len(stored),
        sum(len(s.state) for s in stored),
        sum(len(s.topic) for s in stored),
    )


def command_costs(facts: list[ev.Event], tmp: str, runs: int) -> tuple[list[float], list[float]]:
    """Each stored command's cost on fresh SQLite stores: those at events 3–30, those at 950–1100."""
    costs: list[tuple[int, float]] = []
    for run in range(runs):
        app = Bohnanza.from_url(f"sqlite:///{tmp}/costs{run}.sqlite3")
        store_game(app, facts, costs)
        app.close()
    early = [cost for version, cost in costs if 3 <= version <= 30]
    late = [cost for version, cost in costs if 950 <= version <= 1100]
    return early, late


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeats", type=int, default=7)
    args = parser.parse_args()
    games = {
        f"rio-grande, {PLAYERS} players": simulate("rio-grande", PLAYERS, bot="random", seed=SEED),
        "bean duel, 2 players": simulate("rio-grande", 2, bot="greedy", seed=DUEL_SEED),
    }
    with tempfile.TemporaryDirectory() as tmp:
        figures = [
            measure_game(label, facts, f"sqlite:///{tmp}/game{i}.sqlite3", args.repeats)
            for i, (label, facts) in enumerate(games.items())
        ]
        early, late = command_costs(next(iter(games.values())), tmp, max(3, args.repeats // 2))

    for game in figures:
        print(f"game: {game.label}: {game.events} events, {game.commands} commands")
        print("1. pure fold")
        print(f"   fold (evolve)          {game.fold_rate:>12,.0f} events/s   target ≥ 100,000")
        print(
            f"   repository.get         {game.get_rate:>12,.0f} events/s   (baseline, full replay)"
        )
        print(
            f"   ratio                  {game.fold_rate / game.get_rate:>12.1f} ×          target ≥ 20×"
        )
        print(
            f"   (events.get alone      {game.decode_rate:>12,.0f} events/s   read + decode, no aggregate)"
        )
        print("2. decide + evolve")
        print(f"   commands               {game.decide_rate:>12,.0f} commands/s target ≥ 20,000")
        print("4. storage per complete game")
        print(f"   events                 {game.stored_events:>12,}")
        print(
            f"   payload bytes          {game.payload_bytes:>12,}   "
            f"({game.payload_bytes / game.stored_events:.0f} per event) + {game.topic_bytes:,} topic bytes"
        )
        print()
    early_ms, late_ms = statistics.median(early) * 1000, statistics.median(late) * 1000
    print(f"3. one stored command on SQLite (cache and snapshots on), {figures[0].label}")
    print(f"   at events 3–30         {early_ms:>12.3f} ms       (baseline, {len(early)} commands)")
    print(f"   at events 950–1100     {late_ms:>12.3f} ms       ({len(late)} commands)")
    print(f"   ratio                  {late_ms / early_ms:>12.2f} ×          target ≤ 1.3×")


if __name__ == "__main__":
    main()
