"""What the benchmarks share: timing, and storing a game command by command as the service does."""

from __future__ import annotations

import os
import resource
import time
from collections.abc import Callable
from pathlib import Path
from uuid import UUID

from domain.application import Bohnanza
from domain.rules import events as ev
from domain.rules.transcript import commands_from_facts


def timed(action: Callable[[], object]) -> float:
    """Seconds `action` took."""
    start = time.perf_counter()
    action()
    return time.perf_counter() - start


def store_game(
    app: Bohnanza, facts: list[ev.Event], costs: list[tuple[int, float]] | None = None
) -> UUID:
    """Store a game's commands one by one through the application; append each command's
    (version before it, seconds) to `costs` if given."""
    first = facts[0]
    assert isinstance(first, ev.GameStarted)
    outcome = app.start_game(
        first.seats,
        preset=first.ruleset["preset"],
        options=first.ruleset["options"],
        start_seat=first.start_seat,
        seed=first.seed,
        deck=first.deck,
    )
    for command in commands_from_facts(facts, tabletop=False):
        version = outcome.version
        start = time.perf_counter()
        outcome = app.execute(outcome.game_id, command)
        if costs is not None:
            costs.append((version, time.perf_counter() - start))
    return outcome.game_id


def cpu_seconds(matches: Callable[[str], bool]) -> float:
    """CPU seconds (user and system) used so far by the live processes whose command line
    `matches` (Linux: read from /proc; 0 elsewhere). Processes that ended are not counted: take
    both readings while the processes measured are running."""
    total = 0.0
    ticks = os.sysconf("SC_CLK_TCK") if hasattr(os, "sysconf") else 100
    for entry in Path("/proc").glob("[0-9]*"):
        try:
            command = (entry / "cmdline").read_bytes().replace(b"\0", b" ").decode(errors="replace")
            if not matches(command):
                continue
            fields = (entry / "stat").read_text().rsplit(")", 1)[1].split()
        except OSError:  # it ended in the meantime
            continue
        total += (int(fields[11]) + int(fields[12])) / ticks  # utime and stime, in ticks
    return total


def own_cpu_seconds() -> float:
    """CPU seconds this process has used, every thread (user and system)."""
    usage = resource.getrusage(resource.RUSAGE_SELF)
    return usage.ru_utime + usage.ru_stime
