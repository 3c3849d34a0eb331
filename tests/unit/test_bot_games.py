"""Seeded complete games between bots, checked after every event.

Each digital game is audited fact by fact (every card accounted for, hand order, one bean per
field, beanometer payouts, scores equal coins earned, the end exactly when the ruleset says),
re-folded, re-decided from its commands, and replayed card for card as a tabletop game.
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass

import pytest

from domain.bots import simulate, simulate_under
from domain.rules import events as ev
from domain.rules.audit import audit
from domain.rules.evolve import fold
from domain.rules.rulesets import resolve_ruleset
from domain.rules.state import TABLETOP, GameState
from domain.rules.transcript import redecide
from tests.games import OPTION_VALUES, sweep

pytestmark = pytest.mark.slow  # about 300 complete bot games (BOHNANZA_TEST_DEPTH: more)

CONFIGS = [
    *[("rio-grande", players) for players in (3, 4, 5, 6, 7)],
    *[("amigo", players) for players in (3, 4, 5)],
    *[("amigo-1997", players) for players in (3, 4, 5)],
]
SEEDS = sweep(4)


@dataclass
class Played:
    facts: list[ev.Event]
    state: GameState


def play(preset: str, players: int, bot: str, seed: int) -> Played:
    facts = simulate(preset, players, bot=bot, seed=seed)
    return Played(facts, fold(facts))


TABLETOP_CONFIGS = [("rio-grande", 2), ("rio-grande", 4), ("amigo", 3), ("amigo-1997", 5)]


@pytest.mark.parametrize(
    ("preset", "players", "bot", "seed"),
    [
        pytest.param(preset, players, bot, seed, id=f"{preset}-{players}p-{bot}-{seed}")
        for preset, players in TABLETOP_CONFIGS
        for bot in ("greedy", "random")
        for seed in range(2)
    ],
)
def test_bots_finish_a_tabletop_game_naming_the_cards_as_a_host_would_and_it_audits_sound(
    preset: str, players: int, bot: str, seed: int
) -> None:
    facts = simulate_under(resolve_ruleset(preset, players), bot=bot, seed=seed, mode=TABLETOP)

    assert fold(facts).is_over
    assert audit(facts) == []


def without_chance_order(fact: ev.Event) -> ev.Event:
    """A fact as a tabletop game records it: no seed, no deck, no reshuffle order."""
    if isinstance(fact, ev.GameStarted):
        return ev.GameStarted(fact.ruleset, fact.seats, fact.start_seat, TABLETOP, None, None)
    if isinstance(fact, ev.DiscardsReshuffled):
        return ev.DiscardsReshuffled(None, fact.size)
    return fact


GAMES = [
    pytest.param(preset, players, bot, seed, id=f"{preset}-{players}p-{bot}-{seed}")
    for preset, players in CONFIGS
    for bot in ("greedy", "random")
    for seed in SEEDS
]


def check_complete_game(facts: list[ev.Event]) -> None:
    """Audited fact by fact, re-folded, re-decided from its commands, replayed at a table."""
    assert audit(facts) == []
    first = facts[0]
    assert isinstance(first, ev.GameStarted)
    assert isinstance(facts[-1], ev.GameEnded)
    assert redecide(facts, tabletop=False) == facts
    tabletop = redecide(facts, tabletop=True)
    assert tabletop == [without_chance_order(fact) for fact in facts]
    assert audit(tabletop) == []


@pytest.mark.parametrize(("preset", "players", "bot", "seed"), GAMES)
def test_a_bot_game_keeps_every_invariant_in_both_modes(preset, players, bot, seed):
    played = play(preset, players, bot, seed)

    assert fold(played.facts) == played.state
    check_complete_game(played.facts)


@pytest.mark.parametrize("seed", sweep(30))
@pytest.mark.parametrize("bot", ["greedy", "random"])
def test_a_bean_duel_between_bots_keeps_every_invariant_in_both_modes(bot, seed):
    facts = simulate("rio-grande", 2, bot=bot, seed=seed)

    check_complete_game(facts)
    assert any(isinstance(fact, ev.CardsOffered) for fact in facts)


@pytest.mark.parametrize(
    ("name", "value"), OPTION_VALUES, ids=[f"{name}={value}" for name, value in OPTION_VALUES]
)
def test_bot_games_under_an_option_keep_every_invariant(name, value):
    duel_only = name.startswith("duel_")
    for seed in sweep(10):
        players = 2 if duel_only else 3 + seed % 5
        facts = simulate(
            "rio-grande",
            players,
            bot=("greedy", "random")[seed % 2],
            seed=seed,
            options={name: value},
        )
        assert facts[0].ruleset["options"] == {name: value}
        check_complete_game(facts)


def test_greedy_games_contain_real_trades_and_donations():
    kinds: Counter[str] = Counter()
    for seed in range(4):
        for fact in play("rio-grande", 4, "greedy", seed).facts:
            if isinstance(fact, ev.TradeAccepted):
                donation = not fact.to_proposer or not fact.to_acceptor
                kinds["donation" if donation else "trade"] += 1
    assert kinds["trade"] > 0
    assert kinds["donation"] > 0


def test_greedy_bots_outscore_random_bots():
    greedy = sum(sum(play("rio-grande", 4, "greedy", seed).state.result.scores) for seed in SEEDS)
    randomly = sum(sum(play("rio-grande", 4, "random", seed).state.result.scores) for seed in SEEDS)
    assert greedy > 2 * randomly
