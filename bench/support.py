"""What the benchmarks share: timing, and storing a game command by command as the service does."""

from __future__ import annotations

import time
from collections.abc import Callable
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
