"""Replay benchmark: every figure is printed beside its baseline measured in the same run.

    .venv/bin/python -m bench.replay [--repeats 7] [--accesses 200]

1. Random access to a step of a stored complete 5-player game: `Replay.view_at(k, seat)` for
   random k, beside `repository.get(game_id, version=k)` on SQLite as the service runs it (cache
   and snapshots every 100 events on). The replay's one-off cost (redacting the viewer's facts and
   folding its checkpoints) is stated separately and amortised. Target: ≥ 20× faster.
2. Stepping through every step: a fresh Replay's `view_at(k, seat)` for k = 1..N, beside one full
   `fold` of the game. Target: ≤ 3×.
3. The checkpoint interval: build cost, random access and stepping for several intervals.
4. Import (re-decide) of the complete game from its commands, in events/s, beside the fold.

Timings are medians of repeated runs; the two sides of each ratio are measured alternately in the
same loop.
"""

from __future__ import annotations

import argparse
import random
import statistics
import tempfile
from dataclasses import fields

from bench.support import store_game, timed
from domain.application import Bohnanza, project_game
from domain.bots import simulate
from domain.rules import events as ev
from domain.rules.evolve import evolve, fold
from domain.rules.state import GameState
from domain.rules.transcript import redecide
from projections.views import Viewer
from replays.steps import CHECKPOINT_EVERY, Replay

PLAYERS = 5
SEED = 5  # random bots, seed 5: a complete 5-player game of about 1,100 events
VIEWER = Viewer.of_seat(1)
INTERVALS = (1, 8, 32, 128)


def median(times: list[float]) -> float:
    return statistics.median(times)


def step_through(facts: list[ev.Event], every: int) -> None:
    walk(Replay(facts, checkpoint_every=every), len(facts))


def walk(replay: Replay, n: int) -> None:
    for position in range(1, n + 1):
        replay.view_at(position, VIEWER)


def evolve_each(facts: list[ev.Event]) -> None:
    state = None
    for fact in facts:
        state = evolve(state, fact)


def build_each(state: GameState, n: int) -> None:
    values = [getattr(state, field.name) for field in fields(state)]
    for _ in range(n):
        GameState.build(*values)


def built(facts: list[ev.Event], every: int) -> Replay:
    """A replay whose viewer's facts are redacted and checkpoints folded to the end."""
    replay = Replay(facts, checkpoint_every=every)
    replay.view_at(len(facts), VIEWER)
    return replay


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeats", type=int, default=7)
    parser.add_argument("--accesses", type=int, default=200)
    args = parser.parse_args()
    facts = simulate("rio-grande", PLAYERS, bot="random", seed=SEED)
    n = len(facts)
    rng = random.Random(SEED)
    positions = [rng.randrange(1, n + 1) for _ in range(args.accesses)]
    print(f"game: rio-grande, {PLAYERS} players, {n} events; viewer: {VIEWER}")

    with tempfile.TemporaryDirectory() as tmp:
        app = Bohnanza.from_url(f"sqlite:///{tmp}/bench.sqlite3")
        game_id = store_game(app, facts)
        assert app.facts(game_id) == facts
        assert app.game(game_id, version=n // 2).state == fold(facts[: n // 2])

        fold_times, get_times, get_plain_times = [], [], []
        access_times, build_times, fresh_times, step_times = [], [], [], []
        warm_times, evolve_times, alloc_times = [], [], []
        final = fold(facts)
        replay = built(facts, CHECKPOINT_EVERY)
        for repeat in range(args.repeats):
            fold_times.append(timed(lambda: fold(facts)))
            get_times.append(
                timed(
                    lambda: [
                        app.repository.get(game_id, version=k, projector_func=project_game)
                        for k in positions
                    ]
                )
            )
            if repeat < 3:  # the library's default projector: slow, measured a few times only
                get_plain_times.append(
                    timed(lambda: [app.repository.get(game_id, version=k) for k in positions])
                )
            access_times.append(timed(lambda: [replay.view_at(k, VIEWER) for k in positions]))
            build_times.append(timed(lambda: built(facts, CHECKPOINT_EVERY)))
            fresh_times.append(
                timed(lambda: [Replay(facts).view_at(k, VIEWER) for k in positions[:20]])
            )
            step_times.append(timed(lambda: step_through(facts, CHECKPOINT_EVERY)))
            warm_times.append(timed(lambda: walk(replay, n)))
            evolve_times.append(timed(lambda: evolve_each(facts)))
            alloc_times.append(timed(lambda: build_each(final, n)))

        accesses = len(positions)
        fold_s = median(fold_times)
        get_us = median(get_times) / accesses * 1e6
        get_plain_us = median(get_plain_times) / accesses * 1e6
        access_us = median(access_times) / accesses * 1e6
        build_us = median(build_times) * 1e6
        fresh_us = median(fresh_times) / 20 * 1e6
        amortised_us = access_us + build_us / accesses
        print()
        print(f"1. random access to a step (median of {accesses} random steps)")
        print(
            f"   repository.get(version=k)     {get_us:>10,.0f} µs   baseline (service projector)"
        )
        print(f"   (default projector            {get_plain_us:>10,.0f} µs)")
        print(
            f"   Replay.view_at, built         {access_us:>10,.1f} µs   {get_us / access_us:>6.0f} ×"
        )
        print(
            f"   + build over {accesses} accesses   {amortised_us:>10,.1f} µs"
            f"   {get_us / amortised_us:>6.0f} ×   target ≥ 20×"
        )
        print(
            f"   build (redact + checkpoints)  {build_us:>10,.0f} µs   "
            f"= {build_us / 1e6 / fold_s:.2f} full folds, once per viewer"
        )
        print(
            f"   fresh Replay + one view_at    {fresh_us:>10,.0f} µs   {get_us / fresh_us:>6.1f} ×"
            "   (a replay built for one step)"
        )

        step_s = median(step_times)
        print()
        print("2. stepping through every step")
        print(f"   one full fold                 {fold_s * 1e3:>10.2f} ms   baseline")
        print(
            f"   fresh Replay, view_at 1..N    {step_s * 1e3:>10.2f} ms   "
            f"{step_s / fold_s:>6.2f} ×   target ≤ 3×"
        )
        warm = median(warm_times)
        evolve_s = median(evolve_times)
        alloc_s = median(alloc_times)
        changes = replay_changes_time(facts)
        print(f"   built Replay, view_at 1..N    {warm * 1e3:>10.2f} ms   {warm / fold_s:>6.2f} ×")
        print(
            f"   evolve fact by fact           {evolve_s * 1e3:>10.2f} ms   "
            f"{evolve_s / fold_s:>6.2f} ×   (the rules' way to one new GameState per step)"
        )
        print(
            f"   GameState.build × N alone     {alloc_s * 1e3:>10.2f} ms   "
            f"{alloc_s / fold_s:>6.2f} ×   (allocating N states, nothing applied)"
        )
        print(
            f"   built Replay, changes 1..N    {changes * 1e3:>10.2f} ms   "
            f"{changes / fold_s:>6.2f} ×   (render + diff per step, as the CLI pages)"
        )

        print()
        print("3. checkpoint interval (same viewer; ×: in full folds of the game)")
        print("   every   build         random access   stepping (fresh)")
        for every in INTERVALS:
            build = median([timed(lambda e=every: built(facts, e)) for _ in range(args.repeats)])
            ready = built(facts, every)
            access = median(
                [
                    timed(lambda r=ready: [r.view_at(k, VIEWER) for k in positions])
                    for _ in range(args.repeats)
                ]
            )
            stepping = median(
                [timed(lambda e=every: step_through(facts, e)) for _ in range(args.repeats)]
            )
            print(
                f"   {every:>5}   {build / fold_s:>5.2f} ×     {access / accesses * 1e6:>8.1f} µs"
                f"     {stepping / fold_s:>5.2f} ×"
            )
        app.close()

    digital, tabletop, folds = [], [], []
    for _ in range(args.repeats):
        folds.append(timed(lambda: fold(facts)))
        digital.append(timed(lambda: redecide(facts, tabletop=False)))
        tabletop.append(timed(lambda: redecide(facts, tabletop=True)))
    assert redecide(facts, tabletop=False) == facts
    print()
    print("4. import (re-decide every command)")
    print(f"   fold                          {n / median(folds):>10,.0f} events/s   baseline")
    print(f"   digital record                {n / median(digital):>10,.0f} events/s")
    print(f"   tabletop record               {n / median(tabletop):>10,.0f} events/s")


def replay_changes_time(facts: list[ev.Event]) -> float:
    replay = built(facts, CHECKPOINT_EVERY)
    return timed(lambda: [replay.changes(k, VIEWER) for k in range(1, len(facts) + 1)])


if __name__ == "__main__":
    main()
