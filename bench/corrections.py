"""Corrections benchmark: what a correction early in a long finished game costs, beside what it
must do anyway. Every figure is printed beside its baseline measured in the same run.

    .venv/bin/python -m bench.corrections [--repeats 7]

A finished 5-player tabletop game of about 1,000 events is stored through the application (in
memory). A correction of its entry at step 10 (the entry replaced by itself: everything after it
is decided again, nothing changes) is timed:

1. deciding it (`errata.decide_correction` on the game's stream), beside one full re-decision of
   the game's commands (`transcript.redecide`). Target: ≤ 1.5×.
2. as the service runs it (`Bohnanza.execute`: loading the game and its facts as corrected,
   deciding, storing), beside the same full re-decision, and beside a plain command (`execute` of
   the game's last entry).

Timings are medians of repeated runs; the sides of each ratio are measured alternately in one loop.
"""

from __future__ import annotations

import argparse
import statistics
from uuid import UUID

from bench.support import timed
from domain.application import Bohnanza
from domain.bots import simulate
from domain.rules import commands as cmd
from domain.rules import events as ev
from domain.rules.errata import decide_correction
from domain.rules.transcript import commands_from_facts, entries, redecide

PLAYERS = 5
SEED = 5  # random bots, seed 5: a complete 5-player game of about 1,100 events
STEP = 10


def stored(app: Bohnanza, facts: list[ev.Event]) -> UUID:
    """The tabletop game stored command by command, as a host would enter it."""
    first = facts[0]
    assert isinstance(first, ev.GameStarted)
    outcome = app.start_game(
        first.seats,
        preset=first.ruleset["preset"],
        options=first.ruleset["options"],
        start_seat=first.start_seat,
        mode="tabletop",
    )
    for command in commands_from_facts(facts, tabletop=True):
        outcome = app.execute(outcome.game_id, command)
    return outcome.game_id


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--repeats", type=int, default=7)
    repeats = parser.parse_args().repeats

    facts = redecide(simulate("rio-grande", PLAYERS, bot="random", seed=SEED), tabletop=True)
    found = entries(facts, tabletop=True)
    entry = next(n for n, e in enumerate(found) if e.first >= STEP)
    correction = cmd.Correct((cmd.Change(entry, cmd.REPLACE, found[entry].command),))
    print(
        f"game: {PLAYERS} players, {len(facts)} events, {len(found)} entries; the correction "
        f"replaces entry {entry} (step {found[entry].first + 1}) with itself"
    )

    decided, full = [], []
    for _ in range(repeats):
        full.append(timed(lambda: redecide(facts, tabletop=True)))
        decided.append(timed(lambda: decide_correction(facts, correction)))
    m_full, m_decided = statistics.median(full), statistics.median(decided)
    print(f"full re-decision of the game:       {m_full * 1000:8.1f} ms (baseline)")
    print(
        f"deciding the correction:            {m_decided * 1000:8.1f} ms  "
        f"{m_decided / m_full:5.2f}x  (target ≤ 1.5x)"
    )

    with Bohnanza.from_url("memory://") as app:
        game_id = stored(app, facts)
        plain_command = _last_entry(app, game_id)
        served, plain, full_again = [], [], []
        for _ in range(repeats):
            full_again.append(timed(lambda: redecide(facts, tabletop=True)))
            served.append(timed(lambda: app.execute(game_id, correction)))
            plain.append(timed(lambda: app.execute(game_id, plain_command)))
            app.execute(game_id, cmd.Undo())  # take it back for the next round
    m_served, m_plain = statistics.median(served), statistics.median(plain)
    m_full_again = statistics.median(full_again)
    print(
        f"the correction through the service: {m_served * 1000:8.1f} ms  "
        f"{m_served / m_full_again:5.2f}x the full re-decision ({m_full_again * 1000:.1f} ms), "
        f"{m_served / m_plain:6.1f}x a plain command ({m_plain * 1000:.2f} ms)"
    )


def _last_entry(app: Bohnanza, game_id: UUID) -> cmd.Command:
    """The plain command: the game's last entry, taken back here once; each round enters it
    again and takes it back (a correction, outside the timing)."""
    facts = app.corrected_facts(game_id)
    last = entries(facts, tabletop=True)[-1].command
    app.execute(game_id, cmd.Undo())
    return last


if __name__ == "__main__":
    main()
