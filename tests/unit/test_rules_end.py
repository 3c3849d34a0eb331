"""RULES §10: the draw pile, its exhaustion and reshuffle, the end of the game, scoring, tie-breaks.

How the end plays out in the middle of a reveal or a draw (RULES §10.4–10.5) is in
test_rules_edge_cases.py with the edge cases that pin it down (E3, E4, E6, E20).
"""

import pytest

from domain.rules.commands import Draw, Harvest
from domain.rules.events import (
    CardDrawn,
    DeckExhausted,
    DiscardsReshuffled,
    FieldHarvested,
    GameEnded,
    TurnEnded,
)
from domain.rules.notation import describe
from tests.builders import kinds, rejection, run, table

END_ON = [
    # RULES §10.3 (§14 E7): the exhaustion of the draw pile that ends the game
    pytest.param("rio-grande", 3, 2, id="rio-grande-3p"),
    *[pytest.param("rio-grande", n, 3, id=f"rio-grande-{n}p") for n in (4, 5, 6, 7)],
    *[pytest.param("amigo", n, 3, id=f"amigo-{n}p") for n in (3, 4, 5)],
    *[pytest.param("amigo-1997", n, 3, id=f"amigo-1997-{n}p") for n in (3, 4, 5)],
]


# --- §10.1–10.3: exhaustion and reshuffle ------------------------------------------------------------


@pytest.mark.parametrize(("preset", "players", "end_on"), END_ON)
def test_each_exhaustion_before_the_last_reshuffles_the_discard_pile_into_a_new_draw_pile(
    preset, players, end_on
):
    state = table(players, preset, phase="draw", exhaustions=end_on - 2, draw_pile="soy")
    discards = len(state.discard_pile)

    state, events = run(state, Draw(0))

    reshuffled = events[2]
    assert events[:3] == [
        CardDrawn(0, "soy"),
        DeckExhausted(end_on - 1, final=False),
        DiscardsReshuffled(reshuffled.order, discards),
    ]
    assert (state.exhaustions, state.discard_pile) == (end_on - 1, ())


@pytest.mark.parametrize(("preset", "players", "end_on"), END_ON)
def test_the_game_ends_on_the_exhaustion_the_ruleset_names_without_a_reshuffle(
    preset, players, end_on
):
    state = table(players, preset, phase="draw", exhaustions=end_on - 1, draw_pile="soy")

    state, events = run(state, Draw(0))

    assert events[:2] == [CardDrawn(0, "soy"), DeckExhausted(end_on, final=True)]
    assert kinds(events)[2:] == ["GameEnded"]
    assert state.is_over


def test_after_a_reshuffle_the_owed_cards_are_drawn_from_the_new_pile():
    state = table(4, phase="draw", hands={0: "chili"}, draw_pile="soy")

    state, events = run(state, Draw(0))

    new_pile = events[2].order
    assert events[3:] == [
        CardDrawn(0, new_pile[0]),
        CardDrawn(0, new_pile[1]),
        TurnEnded(0, 1, 1),
    ]
    assert state.players[0].hand == ("chili", "soy", *new_pile[:2])
    assert state.draw_pile == tuple(new_pile[2:])


def test_a_digital_reshuffle_is_the_same_for_the_same_seed_and_table():
    first = run(table(4, phase="draw", draw_pile="soy", seed=5), Draw(0))
    again = run(table(4, phase="draw", draw_pile="soy", seed=5), Draw(0))
    other = run(table(4, phase="draw", draw_pile="soy", seed=6), Draw(0))

    assert first == again
    assert first[1][2].order != other[1][2].order


def test_a_tabletop_reshuffle_makes_the_discard_pile_the_draw_pile_in_unknown_order():
    state = table(
        4, mode="tabletop", phase="draw", draw_pile="soy", discard="blue red blue", coins={1: "..."}
    )

    state, events = run(state, Draw(0, ("soy", "blue", "red")))

    assert events[1:3] == [DeckExhausted(1, final=False), DiscardsReshuffled(None, 3)]
    assert state.draw_pile == ("blue",)


def test_after_a_tabletop_reshuffle_only_cards_of_the_old_discard_pile_can_be_drawn():
    state = table(
        4, mode="tabletop", phase="draw", draw_pile="soy", discard="blue red blue", coins={1: "..."}
    )

    assert rejection(state, Draw(0, ("soy", "blue", "soy"))) == (
        "RULES §4.4 (every card exists once): Ana cannot draw a Soy: no Soy can be in the draw "
        "pile: all 12 Soy cards are accounted for elsewhere"
    )


# --- §10.6: final scoring ----------------------------------------------------------------------------


def ending(players: int = 4, preset: str = "rio-grande", **changes):
    """Ana's phase 4 with one card left on the final pass: her draw ends the game."""
    return table(players, preset, phase="draw", final_pass=True, draw_pile="soy", **changes)


def test_at_the_end_every_field_of_every_player_is_harvested_regardless_of_bean_protection():
    state = ending(
        fields={0: ["chili", "5 blue"], 1: ["4 red", ""], 3: ["2 garden", "cocoa"]},
        coins={0: 2, 1: 1},
    )

    _, events = run(state, Draw(0))

    assert events[2:-1] == [
        FieldHarvested(0, 0, "chili", 1, 0, final=True),
        FieldHarvested(0, 1, "blue", 5, 1, final=True),
        FieldHarvested(1, 0, "red", 4, 3, final=True),
        FieldHarvested(3, 0, "garden", 2, 2, final=True),
        FieldHarvested(3, 1, "cocoa", 1, 0, final=True),
    ]


def test_the_score_is_the_number_of_coins_and_hand_cards_score_nothing():
    state = ending(fields={1: ["4 red", ""]}, coins={0: 2, 1: 1, 2: 3}, hands={2: "8 blue"})

    state, events = run(state, Draw(0))

    assert events[-1] == GameEnded(
        scores=[2, 4, 3, 0], hand_sizes=[1, 0, 8, 0], winners=[1], decided_by=None
    )
    assert state.result.winners == (1,)


def test_no_command_is_accepted_after_the_end():
    state, _ = run(ending(fields={1: ["4 red", ""]}), Draw(0))

    assert rejection(state, Harvest(1, 0)) == (
        "RULES §10 (end of the game): the game is over; no more commands are accepted"
    )


# --- §10.7: the tie-break ----------------------------------------------------------------------------

MOST_HAND_CARDS = "most-hand-cards"
SEAT_DISTANCE = "seat-distance"
TIE_BREAKS = [
    # RULES §10.7: how a tie for the most coins is broken
    *[pytest.param("rio-grande", n, MOST_HAND_CARDS, id=f"rio-grande-{n}p") for n in range(3, 8)],
    *[pytest.param("amigo", n, SEAT_DISTANCE, id=f"amigo-{n}p") for n in (3, 4, 5)],
    *[pytest.param("amigo-1997", n, MOST_HAND_CARDS, id=f"amigo-1997-{n}p") for n in (3, 4, 5)],
]


@pytest.mark.parametrize(("preset", "players", "tie_break"), TIE_BREAKS)
def test_a_tie_for_most_coins_goes_to_most_hand_cards_or_furthest_clockwise_from_the_start(
    preset, players, tie_break
):
    # Ana and Ben tie on coins. Ben holds more cards; Ana sits furthest clockwise from the start
    # player, Ben (the start player himself is the nearest).
    state = ending(
        players, preset, start_seat=1, active=2, coins={0: 5, 1: 5}, hands={0: "red", 1: "3 blue"}
    )

    _, events = run(state, Draw(2))

    winner = {MOST_HAND_CARDS: 1, SEAT_DISTANCE: 0}[tie_break]
    assert events[-1] == GameEnded(
        scores=[5, 5] + [0] * (players - 2),
        hand_sizes=[1, 3, 1] + [0] * (players - 3),
        winners=[winner],
        decided_by=tie_break,
    )


@pytest.mark.parametrize(
    ("winners", "decided_by", "line"),
    [
        ([1], MOST_HAND_CARDS, "Ben wins (tie broken by most hand cards)"),
        ([0], SEAT_DISTANCE, "Ana wins (tie broken by furthest clockwise from the start player)"),
        ([0, 1], "shared", "Ana and Ben share the win"),
        ([0], None, "Ana wins"),
    ],
)
def test_the_end_of_the_game_words_its_tie_break_as_the_rulebook_does(winners, decided_by, line):
    ended = GameEnded(
        scores=[5, 5, 2], hand_sizes=[1, 3, 0], winners=winners, decided_by=decided_by
    )

    assert describe(ended, ["Ana", "Ben", "Cleo"]) == f"Game over — Ana 5, Ben 5, Cleo 2; {line}"
