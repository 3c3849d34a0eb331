"""Complete games for the property tests: every preset and player count, every option, in both
modes (a tabletop game is a digital game re-entered card for card). Cached: several test modules
check the same games from different sides."""

from __future__ import annotations

import os
from functools import cache

from domain.bots import simulate
from domain.rules import events as ev
from domain.rules.transcript import redecide

DEPTH = float(os.environ.get("BOHNANZA_TEST_DEPTH", "1"))
"""How deep the sweeps over seeded games go: 1 by default, so that the whole suite runs in a few
minutes; more for a soak run, e.g. `BOHNANZA_TEST_DEPTH=5 pytest -m slow` plays five times as
many games in every sweep."""


def sweep(games: int) -> range:
    """The seeds of a sweep over `games` games at the default depth."""
    return range(max(1, round(games * DEPTH)))


CONFIGS = [
    *[("rio-grande", players) for players in (2, 3, 4, 5, 6, 7)],
    *[("amigo", players) for players in (3, 4, 5)],
    *[("amigo-1997", players) for players in (3, 4, 5)],
]
"""Every preset with each of its player counts (rio-grande 2 is the bean duel)."""

OPTION_VALUES = [
    ("allow_retrade", True),
    ("implicit_harvest", True),
    ("end_trigger", "failed-draw"),
    ("coin_counts_visible", False),
    ("discard_pile_browsable", True),
    ("bean_protection", "rg-literal"),
    ("bean_protection", "none"),
    ("tie_break", ["seat-distance"]),
    ("tie_break", ["shared"]),
    ("reshuffle", "on-next-draw"),
    ("empty_reshuffle", "end-game"),
    ("duel_start_fields", 3),
    ("duel_coins_to", "discard-pile"),
    ("duel_buy_timing", "own-turn"),
]
"""A value other than the default for every ruleset option (duel_* apply to 2 players only)."""


@cache
def digital_game(preset: str, players: int, seed: int) -> tuple[ev.Event, ...]:
    """A complete bot game: greedy bots for even seeds, random ones for odd seeds."""
    return tuple(simulate(preset, players, bot=("greedy", "random")[seed % 2], seed=seed))


@cache
def tabletop_game(preset: str, players: int, seed: int) -> tuple[ev.Event, ...]:
    """`digital_game` re-entered card for card at a physical table."""
    return tuple(redecide(digital_game(preset, players, seed), tabletop=True))
