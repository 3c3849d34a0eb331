"""The engine played against a second implementation of the rules (tests/independent_rules.py,
written from docs/rules.md alone), command by command, in seeded random games: both must accept
and refuse the same commands, and leave the same table after each one.

The commands are the engine's legal ones and random offers (as a player would send them), mixed
with random commands of every kind for any seat (most of which the rules refuse), so that both
engines' refusals are compared as well as their moves.
"""

from __future__ import annotations

import dataclasses
import random
from collections import Counter
from typing import Any

import pytest

from domain.rules import (
    GameState,
    MalformedCommand,
    RuleViolation,
    decide,
    fold,
    legal_commands,
    resolve_ruleset,
    start_game,
)
from domain.rules import commands as cmd
from domain.rules import events as ev
from domain.rules.legal import chance_step
from domain.rules.state import DIGITAL, TABLETOP, UNKNOWN_HANDS, Phase
from tests import builders
from tests.builders import NAMES, seen_at_the_table
from tests.games import sweep
from tests.independent_rules import Card, Illegal, Table
from tests.marks import slow_beyond

UNKNOWN = "unknown-hands"
"""The mode of the test's tabletop games with unknown hands."""


def _name(options: dict[str, Any]) -> str:
    named = ",".join(f"{key}={value}" for key, value in options.items()).replace(" ", "")
    return named or "defaults"


GAMES = [
    *[pytest.param("rio-grande", n, {}, DIGITAL, id=f"rio-grande-{n}p") for n in (4, 3, 5, 6, 7)],
    *[pytest.param("amigo", n, {}, DIGITAL, id=f"amigo-{n}p") for n in (3, 4, 5)],
    *[pytest.param("amigo-1997", n, {}, DIGITAL, id=f"amigo-1997-{n}p") for n in (4, 3, 5)],
]
OPTIONS = [  # each option of §15 for 3–7 players away from its default, some together
    {"bean_protection": "rg-literal"},
    {"bean_protection": "none"},
    {"allow_retrade": True},
    {"implicit_harvest": True},
    {"implicit_harvest": True, "bean_protection": "rg-literal"},
    {"end_trigger": "failed-draw"},
    {"reshuffle": "on-next-draw"},
    {"empty_reshuffle": "end-game"},
    {"reshuffle": "on-next-draw", "empty_reshuffle": "end-game"},
    {"tie_break": ["seat-distance"]},
    {"tie_break": ["shared"]},
    {"tie_break": ["most-hand-cards", "seat-distance"]},
    {"allow_retrade": True, "implicit_harvest": True, "end_trigger": "failed-draw"},
]
DUELS = [  # the bean duel (§11), its options, and others that apply to it
    {},
    {"duel_start_fields": 3},
    {"duel_coins_to": "discard-pile"},
    {"duel_buy_timing": "own-turn"},
    {"implicit_harvest": True, "bean_protection": "rg-literal"},
    {"end_trigger": "failed-draw", "duel_coins_to": "discard-pile"},
]
PRESETS = {"rio-grande": (3, 4, 5, 6, 7), "amigo": (3, 4, 5), "amigo-1997": (3, 4, 5)}
GAMES += [  # each set of options under a preset and a player count in turn
    pytest.param(
        preset, counts[number % len(counts)], options, DIGITAL, id=f"{preset}-{_name(options)}"
    )
    for number, options in enumerate(OPTIONS)
    for preset, counts in [list(PRESETS.items())[number % 3]]
]
GAMES += [
    pytest.param("rio-grande", 2, options, DIGITAL, id=f"duel-{_name(options)}")
    for options in DUELS
]
TABLETOP_GAMES = {
    # known hands: the recorder names every card dealt, revealed and drawn
    TABLETOP: [
        ("rio-grande", 4, {}),
        ("rio-grande", 2, {}),
        ("rio-grande", 3, {"reshuffle": "on-next-draw"}),
        ("rio-grande", 7, {"end_trigger": "failed-draw"}),
        ("amigo", 5, {"empty_reshuffle": "end-game"}),
        ("amigo-1997", 4, {"allow_retrade": True}),
    ],
    # unknown hands: the deal and draws go into hands unseen, cards are named as seen (§4.4)
    UNKNOWN: [
        ("rio-grande", 4, {}),
        ("rio-grande", 2, {}),
        ("amigo", 3, {"reshuffle": "on-next-draw"}),
        ("rio-grande", 6, {"allow_retrade": True}),
        ("amigo-1997", 5, {"implicit_harvest": True}),
    ],
}
GAMES += [
    pytest.param(
        preset,
        players,
        options,
        mode,
        id=f"{'tabletop' if mode == TABLETOP else 'unknown'}-{preset}-{players}p-{_name(options)}",
    )
    for mode, games in TABLETOP_GAMES.items()
    for preset, players, options in games
]
FAST = (
    "rio-grande-4p",
    "duel-defaults",
    "tabletop-rio-grande-4p-defaults",
    "unknown-rio-grande-4p-defaults",
)
"""The games of the fast subset: a 4-player game, a duel and two tabletop games (with known and
unknown hands); the rest are slow."""
GAMES.sort(key=lambda game: game.id not in FAST)
SEEDS = [seed + 1 for seed in sweep(3)]


@pytest.mark.parametrize(
    ("preset", "players", "options", "mode"), slow_beyond(GAMES, keep=len(FAST))
)
@pytest.mark.parametrize("seed", SEEDS)
def test_the_engine_and_an_independent_one_agree_on_every_command(
    preset, players, options, mode, seed
):
    rng = random.Random(f"differential/{preset}/{players}/{options}/{mode}/{seed}")
    ruleset = resolve_ruleset(preset, players, options)
    start_seat = seed % players
    how = {"seed": seed} if mode == DIGITAL else {"mode": TABLETOP}
    if mode == UNKNOWN:
        how["hands"] = UNKNOWN_HANDS
    events = start_game(ruleset, NAMES[:players], start_seat=start_seat, **how)
    state = fold(events)
    started = events[0]
    assert isinstance(started, ev.GameStarted)
    table = Table(preset, players, start_seat, started.deck, options, unknown_hands=mode == UNKNOWN)
    assert_same(state, table, "at the start")
    play_both(rng, state, table)


POSITIONS = {  # the draw pile about to run out with nothing to reshuffle (RULES §10, §14 E3–E7)
    "the reveal takes the last card": {"phase": Phase.PLANT, "planted": 1, "draw_pile": "blue"},
    "the reveal takes the last two": {"phase": Phase.PLANT, "planted": 1, "draw_pile": "blue red"},
    "the draw takes the last two": {"phase": Phase.DRAW, "draw_pile": "blue red"},
}
PILE_OPTIONS = [
    {"reshuffle": reshuffle, "empty_reshuffle": empty, "end_trigger": end}
    for reshuffle in ("immediate", "on-next-draw")
    for empty in ("cascade", "end-game")
    for end in ("last-card", "failed-draw")
]


@pytest.mark.parametrize("position", POSITIONS)
@pytest.mark.parametrize("options", PILE_OPTIONS, ids=_name)
@pytest.mark.parametrize("exhaustions", [0, 1])
def test_both_engines_agree_when_the_pile_runs_out_with_no_discards(position, options, exhaustions):
    """Positions the seeded games seldom reach: the rest of the deck in coins, the discard pile
    empty, the pile about to run out on the first or second pass; then played to the end."""
    state = builders.table(  # the engine's table builder (the other engine's is a Table)
        4,
        options=options,
        hands={0: "chili soy", 1: "green", 2: "red red", 3: "stink"},
        fields={0: ["2 chili", "soy"], 1: ["3 green"]},
        coins={3: "..."},
        exhaustions=exhaustions,
        **POSITIONS[position],
    )
    rng = random.Random(f"positions/{position}/{options}/{exhaustions}")
    play_both(rng, state, table_at(state, options))


DUEL_PHASES = {  # the active seat's step when its opponent tries to buy a third field
    "step 2, planting": {"phase": Phase.PLANT},
    "step 4, drawing": {"phase": Phase.DRAW},
}
DUEL_BUYING = [
    {"duel_buy_timing": timing, "duel_coins_to": coins}
    for timing in ("any-time", "own-turn")
    for coins in ("out-of-game", "discard-pile")
]


@pytest.mark.parametrize("phase", DUEL_PHASES)
@pytest.mark.parametrize("options", DUEL_BUYING, ids=_name)
def test_both_engines_agree_on_third_fields_bought_in_the_duel(phase, options):
    """A duel seat buying a third field on its opponent's turn, then on its own (§11.5: allowed
    or not by `duel_buy_timing`; the seeded duels seldom have a seat afford one off its turn,
    so they never told the timings apart); then played to the end."""
    state = builders.table(
        2,
        options=options,
        hands={0: "chili soy wax", 1: "green stink"},
        fields={0: ["2 chili"], 1: ["3 green"]},
        coins={1: 4},
        draw_pile="...",
        **DUEL_PHASES[phase],
    )
    rng = random.Random(f"duel-buying/{phase}/{options}")
    play_both(rng, state, table_at(state, options), opening=(cmd.BuyField(1),))


def table_at(state: GameState, options: dict[str, Any]) -> Table:
    """The other engine's table at a digital game's position (its zones copied from the state)."""
    players = len(state.players)
    deck = [bean for bean in state.ruleset.beans for _ in range(state.ruleset.counts[bean])]
    other = Table(state.ruleset.preset, players, state.start_seat, deck, options)
    for seat, player in zip(other.seats, state.players, strict=True):
        seat.hand = [Card(bean) for bean in player.hand]
        seat.fields = [[field.bean, field.count] for field in player.fields]
        seat.trade_area = list(player.trade_area)
        seat.coins = list(player.coins)
        seat.bought = player.bought_field
    other.draw_pile, other.discard = list(state.draw_pile), list(state.discard_pile)
    other.revealed, other.removed = list(state.revealed), list(state.removed)
    other.phase, other.active, other.planted = str(state.phase), state.active, state.planted
    other.exhaustions, other.end_triggered = state.exhaustions, state.end_triggered
    other.reshuffle_due = state.reshuffles < state.exhaustions
    assert not state.offers, "positions with open offers are not copied"
    assert not state.duel_offer, "nor duel positions"
    return other


def play_both(
    rng: random.Random, state: GameState, table: Table, opening: tuple[cmd.Command, ...] = ()
) -> None:
    """The `opening` commands, then random ones (`_command`), played on both engines to the end
    of the game."""
    for step in range(20_000):
        if state.is_over:
            return
        command = opening[step] if step < len(opening) else _command(rng, state, table)
        state = play_one(state, table, command, f"step {step}")
    raise AssertionError("the game did not end")


def play_one(state: GameState, table: Table, command: cmd.Command, where: str) -> GameState:
    """`command` played on both engines: both refuse it (the state returned unchanged), or both
    take it and leave the same table."""
    try:
        decided = decide(state, command)
    except (RuleViolation, MalformedCommand) as refusal:
        try:
            table.play(command, [])
        except Illegal:
            return state
        pytest.fail(f"{where}: the engine refused {command} ({refusal}), the other did not")
    reshuffles = [e.order for e in decided if isinstance(e, ev.DiscardsReshuffled) and e.order]
    try:
        table.play(command, reshuffles)
    except Illegal as refusal:
        pytest.fail(f"{where}: the other refused {command} ({refusal}), the engine did not")
    state = fold(decided, state)
    assert_same(state, table, f"{where}, after {command}")
    return state


def assert_same(state: GameState, table: Table, where: str) -> None:
    ours = {
        "phase": str(state.phase),
        "active": state.active,
        "exhaustions": state.exhaustions,
        "draw pile": Counter(state.draw_pile) if table.tabletop else list(state.draw_pile),
        "discard pile": list(state.discard_pile),
        "out of the game": Counter(state.removed),
        "duel offer": Counter(state.duel_offer),
        "face up": Counter(state.revealed),
        "unseen": [+Counter(pile) for pile in state.pools],
        "offers": {
            offer.id: (
                offer.proposer,
                offer.to,
                sorted(offer.hand),
                Counter(offer.gives),
                Counter(offer.wants),
            )
            for offer in state.offers
        },
        "seats": [
            (
                list(player.hand),
                [tuple(field) for field in player.fields],
                Counter(player.trade_area),
                Counter(player.coins),
                player.bought_field,
            )
            for player in state.players
        ],
        "result": None
        if state.result is None
        else (list(state.result.scores), list(state.result.winners), state.result.decided_by),
    }
    other = {
        "phase": table.phase,
        "active": table.active,
        "exhaustions": table.exhaustions,
        "draw pile": Counter(table.draw_pile) if table.tabletop else table.draw_pile,
        "discard pile": table.discard,
        "out of the game": Counter(table.removed),
        "duel offer": Counter(table.duel_offer),
        "face up": Counter(table.revealed),
        "unseen": [+pile for pile in table.pools],
        "offers": {
            number: (
                offer.proposer,
                offer.to,
                sorted(table.seats[offer.proposer].hand.index(card) for card in offer.hand),
                Counter([card.bean for card in offer.hand] + offer.revealed + offer.trade_area),
                Counter(offer.wants),
            )
            for number, offer in table.offers.items()
        },
        "seats": [
            (
                [str(card) for card in seat.hand],
                [tuple(field) for field in seat.fields],
                Counter(seat.trade_area),
                Counter(seat.coins),
                seat.bought,
            )
            for seat in table.seats
        ],
        "result": None if table.scores is None else (table.scores, table.winners, table.decided_by),
    }
    differ = [key for key in ours if ours[key] != other[key]]
    assert not differ, f"{where}: " + "; ".join(
        f"{key}: engine {ours[key]} / other {other[key]}" for key in differ
    )


def _command(rng: random.Random, state: GameState, table: Table) -> cmd.Command:
    """A legal command or offer of a random seat (mostly the active one), or a random one."""
    players = len(state.players)
    seat = rng.choice((state.active, state.active, rng.randrange(players)))
    if rng.random() < 0.3:
        return _any_command(rng, state, seat, table)
    return (
        _legal_command(rng, state, seat)
        or _legal_command(rng, state, state.active, every=True)
        or _any_command(rng, state, seat, table)
    )


def _legal_command(
    rng: random.Random, state: GameState, seat: int, *, every: bool = False
) -> cmd.Command | None:
    """One of the seat's legal commands, or an offer it may make. Harvests are legal for every
    seat nearly always: taken as often as the rest, they would keep every field small and every
    coin pile too short for a third field, so they come last (None then, unless `every`)."""
    legal = legal_commands(state, seat)
    chance = chance_step(state)
    if chance is not None and chance.kind == "deal":
        pile = iter(rng.sample(state.draw_pile, len(state.draw_pile)))
        return cmd.Deal(tuple(tuple(next(pile) for _ in range(n)) for n in chance.hands or ()))
    if chance is not None and (seat == chance.seat or every) and rng.random() < 0.5:
        named = seen_at_the_table(rng, state, chance.count)
        return (cmd.Reveal if chance.kind == "reveal" else cmd.Draw)(chance.seat or 0, named)
    offer = legal.offer
    if offer and offer.hand + offer.revealed and rng.random() < 0.3:
        hand = tuple(rng.sample(offer.hand, min(len(offer.hand), rng.randint(0, 2))))
        revealed = tuple(rng.sample(offer.revealed, rng.randint(0, len(offer.revealed))))
        wants = tuple(rng.sample(offer.wants, rng.randint(0 if hand or revealed else 1, 2)))
        area = tuple(rng.sample(offer.trade_area, rng.randint(0, min(1, len(offer.trade_area)))))
        beans = tuple(rng.choice(offer.hand_beans[p]) for p in hand) if offer.hand_beans else None
        return cmd.Offer(seat, rng.choice(offer.to), hand, revealed, area, wants, beans)
    harvests = [c for c in legal.commands if isinstance(c, cmd.Harvest)]
    purchases = [c for c in legal.commands if isinstance(c, cmd.BuyField)]
    others = [  # a seat's notes of its own hand change nothing at the table (§4.4)
        c for c in legal.commands if not isinstance(c, cmd.Harvest | cmd.BuyField | cmd.NoteHand)
    ]
    for choices, chance in ((purchases, 0.5), (harvests, 0.1), (others, 1), (harvests, every)):
        if choices and rng.random() < chance:
            chosen = rng.choice(choices)
            if isinstance(chosen, cmd.Accept) and chosen.hand_beans and rng.random() < 0.5:
                # unnamed: accepted if the wanted beans leave no choice that matters (§6.6)
                chosen = dataclasses.replace(chosen, hand_beans=None)
            return chosen
    return None


def _any_command(rng: random.Random, state: GameState, seat: int, table: Table) -> cmd.Command:
    """A command of any kind with random arguments, legal or (mostly) not."""
    beans = list(state.ruleset.beans)
    hand = len(state.players[seat].hand)

    def some(cards: list[Any], most: int) -> tuple[Any, ...]:
        return tuple(rng.sample(cards, rng.randint(0, min(most, len(cards)))))

    offer = rng.randint(0, table.next_offer)
    named = some(beans, 4) if table.tabletop else None
    makers = [
        lambda: cmd.Plant(seat, rng.randrange(4), rng.choice([None, *beans])),
        lambda: cmd.Harvest(seat, rng.randrange(4)),
        lambda: cmd.BuyField(seat),
        lambda: cmd.Reveal(seat, named),
        lambda: cmd.Draw(seat, named),
        lambda: cmd.EndTrading(seat),
        lambda: cmd.Decline(seat, offer),
        lambda: cmd.Withdraw(seat, offer),
        lambda: cmd.Accept(seat, offer, some(range(hand + 1), 2), some(beans, 1), some(beans, 1)),
        lambda: cmd.Offer(
            seat,
            rng.randrange(len(state.players)),
            some(range(hand + 1), 2),
            some(beans, 1),
            some(beans, 1),
            some(beans, 2),
        ),
        lambda: cmd.DiscardOffered(seat, rng.choice(beans)),
        lambda: cmd.DiscardFromHand(seat, rng.randrange(hand + 1), rng.choice([None, *beans])),
        lambda: cmd.OfferRest(seat),
    ]
    return rng.choice(makers)()
