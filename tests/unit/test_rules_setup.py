"""RULES §2 (player-count configuration) and §3 (setup) for 3–7 players, every preset."""

import dataclasses
from collections import Counter

import pytest

from domain.rules import (
    InvalidRuleset,
    MalformedCommand,
    Phase,
    Ruleset,
    chance_step,
    fold,
    resolve_ruleset,
    start_game,
)
from domain.rules.beans import BEANS
from domain.rules.commands import Deal, Harvest
from domain.rules.events import CardsDealt, GameStarted
from domain.rules.evolve import full_deck
from domain.rules.legal import ChanceStep
from domain.rules.rulesets import check_deal
from domain.rules.state import TABLETOP
from tests.builders import NAMES, cards, rejection, run, start

ALL_BUT_COCOA = cards("coffee wax blue chili stink green soy black-eyed red garden")
ALL_BUT_COFFEE = cards("wax blue chili stink green soy black-eyed red garden cocoa")
ALL_BUT_COCOA_AND_GARDEN = cards("coffee wax blue chili stink green soy black-eyed red")
BASE = cards("blue chili stink green soy black-eyed red garden")

SETUPS = [
    # RULES §2.1–2.3: preset, players, bean types, deck size, hand sizes clockwise from the start
    # seat, fields at start
    pytest.param("rio-grande", 3, ALL_BUT_COCOA, 150, (5, 5, 5), 3, id="rio-grande-3p"),
    pytest.param("rio-grande", 4, ALL_BUT_COFFEE, 130, (5, 5, 5, 5), 2, id="rio-grande-4p"),
    pytest.param("rio-grande", 5, ALL_BUT_COFFEE, 130, (5,) * 5, 2, id="rio-grande-5p"),
    pytest.param(
        "rio-grande", 6, ALL_BUT_COCOA_AND_GARDEN, 144, (3, 4, 5, 6, 6, 6), 2, id="rio-grande-6p"
    ),
    pytest.param(
        "rio-grande", 7, ALL_BUT_COCOA_AND_GARDEN, 144, (3, 4, 5, 6, 6, 6, 6), 2, id="rio-grande-7p"
    ),
    pytest.param("amigo", 3, BASE, 104, (5, 5, 5), 3, id="amigo-3p"),
    pytest.param("amigo", 4, BASE, 104, (5, 5, 5, 5), 2, id="amigo-4p"),
    pytest.param("amigo", 5, BASE, 104, (5,) * 5, 2, id="amigo-5p"),
    pytest.param("amigo-1997", 3, BASE, 104, (5, 5, 5), 2, id="amigo-1997-3p"),
    pytest.param("amigo-1997", 4, BASE, 104, (5, 5, 5, 5), 2, id="amigo-1997-4p"),
    pytest.param("amigo-1997", 5, BASE, 104, (5,) * 5, 2, id="amigo-1997-5p"),
]
SETUP_ARGS = ("preset", "players", "beans", "deck_size", "deal", "fields")


@pytest.mark.parametrize(SETUP_ARGS, SETUPS)
def test_the_deck_holds_every_card_of_the_bean_types_in_play(
    preset, players, beans, deck_size, deal, fields
):
    _, events = start(players, preset)

    started = events[0]
    assert isinstance(started, GameStarted)
    assert len(started.deck) == deck_size
    assert Counter(started.deck) == {bean: BEANS[bean].count for bean in beans}


@pytest.mark.parametrize(SETUP_ARGS, SETUPS)
def test_each_seat_is_dealt_its_hand_size_counting_clockwise_from_the_start_seat(
    preset, players, beans, deck_size, deal, fields
):
    start_seat = players - 2
    state, events = start(players, preset, start_seat=start_seat)

    dealt = events[1]
    assert isinstance(dealt, CardsDealt)
    sizes_from_start = [len(dealt.hands[(start_seat + i) % players]) for i in range(players)]
    assert tuple(sizes_from_start) == deal
    assert len(state.draw_pile) == deck_size - sum(deal)


@pytest.mark.parametrize(SETUP_ARGS, SETUPS)
def test_every_player_starts_with_the_fields_of_the_player_count(
    preset, players, beans, deck_size, deal, fields
):
    state, _ = start(players, preset)

    assert [len(player.fields) for player in state.players] == [fields] * players
    assert all(field.count == 0 for player in state.players for field in player.fields)


@pytest.mark.parametrize(SETUP_ARGS, SETUPS)
def test_the_start_player_takes_the_first_turn_with_no_exhaustion_counted(
    preset, players, beans, deck_size, deal, fields
):
    state, events = start(players, preset, start_seat=1)

    assert events[0].start_seat == state.start_seat == 1
    assert (state.phase, state.active, state.turn, state.exhaustions) == (Phase.PLANT, 1, 1, 0)


def _deck_with_top(players: int, top: list[str]) -> list[str]:
    """A Rio Grande deck for `players` with `top` as its first cards, the rest in table order."""
    rest = Counter(full_deck(resolve_ruleset("rio-grande", players))) - Counter(top)
    return [*top, *rest.elements()]


def test_cards_are_dealt_one_at_a_time_round_robin_from_the_start_seat():
    by_seat = {1: "red", 2: "soy", 3: "blue", 0: "chili"}
    top = [by_seat[seat] for _ in range(5) for seat in (1, 2, 3, 0)]

    state, _ = start(4, deck=_deck_with_top(4, top), start_seat=1)

    assert [player.hand for player in state.players] == [
        ("chili",) * 5,
        ("red",) * 5,
        ("soy",) * 5,
        ("blue",) * 5,
    ]


def test_the_first_card_a_player_receives_is_the_front_of_the_hand():
    seat_zero_gets = ["chili", "blue", "stink", "green", "soy"]
    top = [card for first in seat_zero_gets for card in (first, "wax", "wax")]

    state, _ = start(3, deck=_deck_with_top(3, top))

    assert state.players[0].hand == tuple(seat_zero_gets)


@pytest.mark.parametrize(
    ("players", "deal_order"),
    [
        pytest.param(
            6,
            # start seat 4 gets 3 cards, seat 5 gets 4, seat 0 gets 5, seats 1–3 get 6
            [4, 5, 0, 1, 2, 3] * 3 + [5, 0, 1, 2, 3] + [0, 1, 2, 3] + [1, 2, 3],
            id="6 players",
        ),
        pytest.param(
            7,
            # start seat 4 gets 3 cards, seat 5 gets 4, seat 6 gets 5, seats 0–3 get 6
            [4, 5, 6, 0, 1, 2, 3] * 3 + [5, 6, 0, 1, 2, 3] + [6, 0, 1, 2, 3] + [0, 1, 2, 3],
            id="7 players",
        ),
    ],
)
def test_six_or_seven_players_are_dealt_3_4_5_6_one_card_at_a_time_skipping_full_hands(
    players, deal_order
):
    bean_of = dict(enumerate(["blue", "chili", "stink", "green", "soy", "black-eyed", "red"]))
    top = [bean_of[seat] for seat in deal_order]

    state, _ = start(players, deck=_deck_with_top(players, top), start_seat=4)

    assert [player.hand for player in state.players] == [
        (bean_of[seat],) * deal_order.count(seat) for seat in range(players)
    ]
    assert state.active == 4  # RULES §14 E19: the start player, dealt the fewest, acts first


def test_the_same_seed_shuffles_the_same_deck_and_another_seed_another():
    _, first = start(4, seed=7)
    _, again = start(4, seed=7)
    _, other = start(4, seed=8)

    assert first[0].deck == again[0].deck
    assert first[0].deck != other[0].deck


def test_a_digital_game_needs_a_seed():
    with pytest.raises(MalformedCommand, match="digital games need a seed"):
        start_game(resolve_ruleset("rio-grande", 4), NAMES[:4])


def test_an_explicit_deck_must_hold_exactly_the_cards_of_the_ruleset():
    deck = _deck_with_top(4, [])
    deck[0] = "coffee"

    with pytest.raises(MalformedCommand, match="exactly the 130 cards"):
        start(4, deck=deck)


def _one_bean_deck(players: int, cards: int) -> Ruleset:
    """A resolved ruleset for `players` whose deck is `cards` Coffee: what a record's header may
    carry, though no preset gives it."""
    ruleset = resolve_ruleset("rio-grande", players)
    return dataclasses.replace(
        ruleset, beans=("coffee",), counts={"coffee": cards}, meters={"coffee": (4, 7, 10, 12)}
    )


@pytest.mark.parametrize(
    ("players", "cards", "refusal"),
    [
        pytest.param(2, 1, "the deal needs 10 cards (5 + 5), but the deck holds only 1", id="1"),
        pytest.param(2, 9, "the deal needs 10 cards (5 + 5), but the deck holds only 9", id="9"),
        pytest.param(
            6, 29, "needs 30 cards (3 + 4 + 5 + 6 + 6 + 6), but the deck holds only 29", id="6p"
        ),
    ],
)
def test_a_ruleset_whose_deal_needs_more_cards_than_its_deck_holds_is_refused(
    players, cards, refusal
):
    with pytest.raises(InvalidRuleset) as refused:
        check_deal(_one_bean_deck(players, cards))

    assert refusal in str(refused.value)
    assert str(refused.value).endswith("(RULES §3.4)")


@pytest.mark.parametrize("mode", ["digital", "tabletop"])
def test_no_game_starts_under_a_ruleset_whose_deal_runs_past_the_deck(mode):
    seed = 1 if mode == "digital" else None

    with pytest.raises(InvalidRuleset, match="the deal needs 10 cards"):
        start_game(_one_bean_deck(2, 1), NAMES[:2], mode=mode, seed=seed)


def test_a_deal_of_the_whole_deck_starts_with_an_empty_draw_pile():
    facts = start_game(_one_bean_deck(2, 10), NAMES[:2], seed=1)

    state = fold(facts)
    assert [len(player.hand) for player in state.players] == [5, 5]
    assert state.draw_pile == ()


@pytest.mark.parametrize(
    ("preset", "players"),
    [
        pytest.param("rio-grande", 8, id="rio-grande-8p"),
        pytest.param("rio-grande", 1, id="rio-grande-1p"),
        pytest.param("amigo", 6, id="amigo-6p"),
        pytest.param("amigo", 2, id="amigo-2p"),
        pytest.param("amigo-1997", 6, id="amigo-1997-6p"),
    ],
)
def test_a_preset_rejects_a_player_count_it_has_no_rules_for(preset, players):
    with pytest.raises(InvalidRuleset, match=f"ruleset {preset} is for"):
        resolve_ruleset(preset, players)


# --- tabletop: the hands are entered as dealt -----------------------------------------------------


def _dealable_hands(state) -> list[tuple[str, ...]]:
    """Hands of the right sizes, taken from the (tabletop, unordered) draw pile."""
    pile = iter(state.draw_pile)
    players = state.ruleset.players
    sizes = [state.ruleset.deal[(seat - state.start_seat) % players] for seat in range(players)]
    return [tuple(next(pile) for _ in range(size)) for size in sizes]


def test_a_tabletop_game_waits_for_the_hands_to_be_dealt():
    state, events = start(4, mode="tabletop")

    assert [type(event) for event in events] == [GameStarted]
    assert events[0].deck is None
    assert state.phase is Phase.DEAL


def test_the_tabletop_deal_gives_each_seat_the_cards_named_front_first():
    state, _ = start(3, mode="tabletop", start_seat=2)
    hands = (("chili",) * 5, ("blue", "soy", "red", "red", "wax"), ("green",) * 5)

    state, events = run(state, Deal(hands))

    assert events == [CardsDealt([list(hand) for hand in hands])]
    assert tuple(player.hand for player in state.players) == hands
    assert len(state.draw_pile) == 150 - 15
    assert (state.phase, state.active) == (Phase.PLANT, 2)


def test_a_tabletop_deal_must_give_each_seat_its_hand_size():
    state, _ = start(6, mode="tabletop", start_seat=1)
    hands = _dealable_hands(state)
    hands[0], hands[1] = hands[1], hands[0]  # Ana (6 cards) and Ben (the start seat: 3) swapped

    assert (
        rejection(state, Deal(tuple(hands))) == "RULES §3.4 (dealing): Ana is dealt 6 cards, not 3"
    )


@pytest.mark.parametrize(
    ("preset", "players", "absent"),
    [
        pytest.param("rio-grande", 3, "cocoa", id="rio-grande-3p-cocoa"),
        pytest.param("rio-grande", 4, "coffee", id="rio-grande-4p-coffee"),
        pytest.param("rio-grande", 6, "garden", id="rio-grande-6p-garden"),
        pytest.param("amigo", 3, "wax", id="amigo-3p-wax"),
        pytest.param("amigo-1997", 5, "coffee", id="amigo-1997-5p-coffee"),
    ],
)
def test_a_bean_type_not_in_play_cannot_be_dealt(preset, players, absent):
    state, _ = start(players, preset, mode="tabletop")
    hands = _dealable_hands(state)
    hands[0] = (absent, *hands[0][1:])

    name = absent.capitalize()
    assert rejection(state, Deal(tuple(hands))) == (
        f"RULES §4.4 (every card exists once): Ana cannot be dealt a {name}: "
        f"{name} is not in play ({preset}, {players} players)"
    )


@pytest.mark.parametrize(
    ("start_seat", "refused"),
    [(0, "Ana"), (1, "Ben")],
    ids=["Ana-deals-first", "Ben-deals-first"],
)
def test_the_card_one_too_many_is_the_first_such_card_in_deal_order(start_seat, refused):
    # 4 Cocoa exist; Ana's first three cards are Cocoa, and so are Ben's. Dealt one at a time
    # from the start seat (RULES §3.4), the fifth Cocoa dealt is the one refused.
    state, _ = start(4, mode="tabletop", start_seat=start_seat)
    hands = (
        ("cocoa", "cocoa", "cocoa", "red", "red"),
        ("cocoa", "cocoa", "cocoa", "red", "red"),
        ("blue",) * 5,
        ("blue",) * 5,
    )

    assert rejection(state, Deal(hands)) == (
        f"RULES §4.4 (every card exists once): {refused} cannot be dealt a Cocoa: no Cocoa can "
        "be in the draw pile: all 4 Cocoa cards are accounted for elsewhere"
    )


def test_the_cards_are_dealt_only_once():
    state, _ = start(3, mode="tabletop")
    state, _ = run(state, Deal(tuple(_dealable_hands(state))))

    assert rejection(state, Deal(tuple(_dealable_hands(state)))) == (
        "RULES §3.4 (dealing): the cards have already been dealt"
    )


def test_nothing_can_be_harvested_before_the_deal():
    state, _ = start(3, mode="tabletop")

    assert rejection(state, Harvest(0, 0)) == (
        "RULES §3.4 (dealing): the cards have not been dealt yet"
    )


def test_a_table_is_told_how_many_cards_each_seat_is_dealt_from_the_start_seat_on() -> None:
    ruleset = resolve_ruleset("rio-grande", 7)
    state = fold(start_game(ruleset, [f"P{i}" for i in range(7)], start_seat=2, mode=TABLETOP))

    step = chance_step(state)

    assert ruleset.deal == (3, 4, 5, 6, 6, 6, 6)
    assert step == ChanceStep("deal", None, 36, (6, 6, 3, 4, 5, 6, 6))
