"""RULES §14: the edge cases of the 3–7 player game and the engine decisions for them.

E7 (the end on the Nth exhaustion, per preset and player count) is table-driven in
test_rules_end.py, E15 (buying the third field on another player's turn) in test_rules_third_field.py
and E19 (the 3/4/5/6 deal at 6–7 players) in test_rules_setup.py. The duel's E17 and E18 are not
part of the 3–7 player game.
"""

import pytest

from domain.rules import Phase, legal_commands
from domain.rules.commands import (
    Accept,
    BuyField,
    Decline,
    Draw,
    EndTrading,
    Harvest,
    Offer,
    Plant,
    Reveal,
)
from domain.rules.events import (
    CardDrawn,
    CardsRevealed,
    DeckExhausted,
    DiscardsReshuffled,
    FieldHarvested,
    GameEnded,
)
from domain.rules.state import Field
from tests.builders import kinds, rejection, run, table

FINAL_PASS = [
    # the exhaustion count just before the end (RULES §10.3), so the next exhaustion is final
    pytest.param("rio-grande", 3, 1, id="rio-grande-3p"),
    pytest.param("rio-grande", 5, 2, id="rio-grande-5p"),
    pytest.param("rio-grande", 7, 2, id="rio-grande-7p"),
    pytest.param("amigo", 3, 2, id="amigo-3p"),
    pytest.param("amigo-1997", 4, 2, id="amigo-1997-4p"),
]


def test_e1_an_empty_hand_skips_phase_1_and_reveals_at_once():
    state = table(hands={0: ""}, draw_pile="red soy ...")

    state, events = run(state, Reveal(0))

    assert events == [CardsRevealed(0, ["red", "soy"])]
    assert rejection(table(hands={0: ""}), Plant(0, 0)) == (
        "RULES §5.1 (phase 1: plant from the hand): Ana has no cards in hand to plant"
    )


def test_e2_a_single_card_in_hand_is_planted_and_no_second_plant_is_possible():
    state = table(hands={0: "chili"})

    state, _ = run(state, Plant(0, 0))

    assert not [c for c in legal_commands(state, 0) if isinstance(c, Plant)]
    assert rejection(state, Plant(0, 0)).endswith("Ana has no cards in hand to plant")


# --- E3, E20: the draw pile runs out during the reveal -----------------------------------------------


def test_e3_a_reveal_that_empties_the_pile_early_reshuffles_and_reveals_from_the_new_pile():
    state = table(4, hands={0: "chili"}, draw_pile="red")
    discards = len(state.discard_pile)

    state, events = run(state, Plant(0, 0), Reveal(0))

    new_pile = events[3].order
    assert events[1:] == [
        CardsRevealed(0, ["red"]),
        DeckExhausted(1, final=False),
        DiscardsReshuffled(new_pile, discards),
        CardsRevealed(0, [new_pile[0]]),
    ]
    assert state.revealed == ("red", new_pile[0])


def test_e3_at_a_tabletop_the_second_card_is_named_from_the_reshuffled_pile():
    state = table(
        4,
        mode="tabletop",
        hands={0: "chili"},
        draw_pile="red",
        discard="blue soy",
        coins={1: "..."},
    )

    state, events = run(state, Plant(0, 0), Reveal(0, ("red", "soy")))

    assert events[1:] == [
        CardsRevealed(0, ["red"]),
        DeckExhausted(1, final=False),
        DiscardsReshuffled(None, 2),
        CardsRevealed(0, ["soy"]),
    ]
    assert state.draw_pile == ("blue",)


@pytest.mark.parametrize(("preset", "players", "before_end"), FINAL_PASS)
def test_e3_on_the_final_pass_a_reveal_with_one_card_left_reveals_only_that_card(
    preset, players, before_end
):
    state = table(players, preset, hands={0: "chili"}, draw_pile="red", exhaustions=before_end)

    state, events = run(state, Plant(0, 0), Reveal(0))

    assert events[1:] == [CardsRevealed(0, ["red"]), DeckExhausted(before_end + 1, final=True)]
    assert (state.phase, state.revealed, state.draw_pile) == (Phase.TRADE, ("red",), ())


def test_e3_at_a_tabletop_only_the_one_card_left_on_the_final_pass_is_named():
    state = table(4, mode="tabletop", hands={0: ""}, draw_pile="red", final_pass=True)

    assert rejection(state, Reveal(0, ("red", "soy"))) == (
        "RULES §10.4 (the end during the reveal): 2 cards were named but only 1 could be drawn "
        "before the game ended"
    )
    assert run(state, Reveal(0, ("red",)))[1] == [
        CardsRevealed(0, ["red"]),
        DeckExhausted(3, final=True),
    ]


def test_e3_after_the_final_reveal_phases_2_and_3_are_finished_and_phase_4_is_skipped():
    state = table(4, hands={0: "chili", 1: "blue"}, draw_pile="red", exhaustions=2)
    state, _ = run(state, Plant(0, 0), Reveal(0))

    state, events = run(
        state,
        Offer(0, 1, revealed=("red",), wants=("blue",)),
        Accept(1, 1, (0,)),
        EndTrading(0),
        Plant(1, 0, "red"),
        Plant(0, 1, "blue"),
    )

    assert kinds(events) == [
        "TradeOffered",
        "TradeAccepted",
        "TradingEnded",
        "BeanPlanted",
        "BeanPlanted",
        "FieldHarvested",
        "FieldHarvested",
        "FieldHarvested",
        "GameEnded",
    ]
    assert events[-1].hand_sizes == [0, 0, 0, 0]
    assert state.is_over


@pytest.mark.parametrize(("preset", "players", "before_end"), FINAL_PASS)
def test_e20_when_the_final_exhaustion_comes_with_the_second_card_both_are_revealed(
    preset, players, before_end
):
    state = table(players, preset, hands={0: ""}, draw_pile="red soy", exhaustions=before_end)

    state, events = run(state, Reveal(0))

    assert events == [CardsRevealed(0, ["red", "soy"]), DeckExhausted(before_end + 1, final=True)]
    assert state.phase is Phase.TRADE


def test_e20_after_both_final_cards_are_revealed_phases_2_and_3_end_the_game():
    state = table(5, hands={0: ""}, draw_pile="red soy", exhaustions=2)
    state, _ = run(state, Reveal(0))

    state, events = run(state, EndTrading(0), Plant(0, 0, "red"), Plant(0, 1, "soy"))

    assert kinds(events) == [
        "TradingEnded",
        "BeanPlanted",
        "BeanPlanted",
        "FieldHarvested",
        "FieldHarvested",
        "GameEnded",
    ]
    assert state.is_over


# --- E4, E6: the draw pile runs out during phase 4 ---------------------------------------------------


@pytest.mark.parametrize(("preset", "players", "before_end"), FINAL_PASS)
def test_e4_on_the_final_pass_the_game_ends_mid_draw_and_the_cards_drawn_stay_in_hand(
    preset, players, before_end
):
    state = table(
        players,
        preset,
        phase="draw",
        hands={0: "chili"},
        draw_pile="red soy",
        exhaustions=before_end,
    )

    state, events = run(state, Draw(0))

    assert events[:3] == [
        CardDrawn(0, "red"),
        CardDrawn(0, "soy"),
        DeckExhausted(before_end + 1, final=True),
    ]
    assert kinds(events)[3:] == ["GameEnded"]
    assert state.result.hand_sizes[0] == 3


def test_e4_before_the_final_pass_the_draw_goes_on_from_the_reshuffled_pile():
    state = table(6, phase="draw", draw_pile="red soy")

    state, events = run(state, Draw(0))

    new_pile = events[3].order
    assert kinds(events) == [
        "CardDrawn",
        "CardDrawn",
        "DeckExhausted",
        "DiscardsReshuffled",
        "CardDrawn",
        "CardDrawn",
        "TurnEnded",
    ]
    assert state.players[0].hand == ("red", "soy", *new_pile[:2])


def test_e6_a_reshuffle_of_an_empty_discard_pile_counts_the_next_exhaustion_until_the_end():
    state = table(4, phase="draw", draw_pile="red", discard="", coins={1: "..."})

    state, events = run(state, Draw(0))

    assert events[:6] == [
        CardDrawn(0, "red"),
        DeckExhausted(1, final=False),
        DiscardsReshuffled([], 0),
        DeckExhausted(2, final=False),
        DiscardsReshuffled([], 0),
        DeckExhausted(3, final=True),
    ]
    assert kinds(events)[6:] == ["GameEnded"]


def test_e6_an_empty_pile_left_by_an_empty_reshuffle_counts_as_an_exhaustion_at_the_next_reveal():
    state = table(
        3,
        hands={0: "chili"},
        fields={1: ["4 red", ""]},
        draw_pile="",
        discard="",
        coins={2: "..."},
        exhaustions=0,
    )
    state, _ = run(state, Harvest(1, 0))

    state, events = run(state, Plant(0, 0), Reveal(0))

    assert events[1:] == [
        DeckExhausted(1, final=False),
        DiscardsReshuffled(["red"], 1),
        CardsRevealed(0, ["red"]),
        DeckExhausted(2, final=True),
    ]


# --- E5, E8, E9, E11: making room and bean protection -------------------------------------------------


@pytest.mark.parametrize(
    ("preset", "players", "coins", "choices"),
    [
        pytest.param("rio-grande", 4, 3, [Harvest(0, 1), BuyField(0)], id="rio-grande-4p-3-coins"),
        pytest.param("rio-grande", 4, 2, [Harvest(0, 1)], id="rio-grande-4p-2-coins"),
        pytest.param("rio-grande", 7, 2, [Harvest(0, 1), BuyField(0)], id="rio-grande-7p-2-coins"),
        pytest.param("amigo-1997", 3, 3, [Harvest(0, 1), BuyField(0)], id="amigo-1997-3p-3-coins"),
        pytest.param("amigo", 5, 9, [Harvest(0, 1)], id="amigo-5p-9-coins"),
    ],
)
def test_e5_a_card_that_fits_no_field_leaves_a_legal_harvest_or_buying_the_third_field(
    preset, players, coins, choices
):
    state = table(
        players, preset, hands={0: "blue"}, fields={0: ["chili", "4 red"]}, coins={0: coins}
    )

    assert list(legal_commands(state, 0)) == choices


def test_e5_in_phase_3_room_is_made_as_often_as_needed():
    state = table(
        4, phase="plant-traded", trade_areas={0: "blue soy"}, fields={0: ["chili", "4 red"]}
    )

    state, events = run(
        state, Harvest(0, 1), Plant(0, 1, "blue"), Harvest(0, 0), Plant(0, 0, "soy")
    )

    assert kinds(events) == ["FieldHarvested", "BeanPlanted", "FieldHarvested", "BeanPlanted"]
    assert state.players[0].fields == (Field("soy", 1), Field("blue", 1))
    assert state.phase is Phase.DRAW


def test_e8_when_every_field_holds_one_card_the_player_chooses_which_to_harvest():
    state = table(3, fields={0: ["chili", "red", "soy"]})

    state, events = run(state, Harvest(0, 1))

    assert events == [FieldHarvested(0, 1, "red", 1, 0, final=False)]


def test_e9_a_single_card_beside_an_empty_field_may_be_harvested_for_no_coins():
    state = table(fields={0: ["red", ""]})

    state, events = run(state, Harvest(0, 0))

    assert events == [FieldHarvested(0, 0, "red", 1, 0, final=False)]
    assert state.players[0].coins == ()


def test_e11_the_final_harvest_sells_single_cards_beside_larger_fields():
    state = table(4, phase="draw", draw_pile="soy", final_pass=True, fields={2: ["red", "6 blue"]})

    _, events = run(state, Draw(0))

    assert events[2:4] == [
        FieldHarvested(2, 0, "red", 1, 0, final=True),
        FieldHarvested(2, 1, "blue", 6, 2, final=True),
    ]


# --- E10, E12–E14: during trading ------------------------------------------------------------------

TRADING = {"phase": "trade", "revealed": "red soy", "hands": {1: "blue stink", 2: "green"}}


def test_e10_a_player_other_than_the_active_player_may_harvest_during_trading():
    state = table(**TRADING, fields={2: ["4 red", ""]})

    state, events = run(state, Harvest(2, 0))

    assert events == [FieldHarvested(2, 0, "red", 4, 3, final=False)]
    assert (state.players[2].hand, state.players[2].coins) == (("green",), ("red",) * 3)
    assert legal_commands(state, 2).offer.hand == (0,)


def test_e12_an_offer_whose_cards_have_since_moved_lapses_and_cannot_be_accepted():
    state, events = run(
        table(**TRADING),
        Offer(0, 1, revealed=("red",), wants=("stink",)),
        Offer(0, 2, revealed=("red",)),
        Accept(2, 2),
    )

    assert events[-1].lapsed == [1]
    assert rejection(state, Accept(1, 1, (1,))) == (
        "RULES §6.6 (trading: consent): offer #1 is not open (it was accepted, declined, "
        "withdrawn or lapsed)"
    )


def test_e12_an_offer_lapses_when_its_hand_card_is_given_in_another_trade():
    state, events = run(
        table(**TRADING),
        Offer(1, 0, hand=(1,), wants=("red",)),
        Offer(0, 1, revealed=("soy",), wants=("stink",)),
        Accept(1, 2, (1,)),
    )

    assert events[-1].lapsed == [1]
    assert rejection(state, Accept(0, 1, revealed=("red",))).startswith(
        "RULES §6.6 (trading: consent): offer #1 is not open"
    )


def test_e13_a_face_up_card_everyone_refuses_stays_with_the_active_player_to_plant():
    state, _ = run(table(**TRADING), Offer(0, 1, revealed=("red",)), Decline(1, 1), EndTrading(0))

    assert state.players[0].trade_area == ("red", "soy")
    assert state.phase is Phase.PLANT_TRADED


def test_e14_the_active_player_may_harvest_between_revealing_and_trading():
    state = table(**TRADING, fields={0: ["3 chili", "blue"]})

    state, events = run(state, Harvest(0, 0), Offer(0, 1, revealed=("red",)))

    assert kinds(events) == ["FieldHarvested", "TradeOffered"]


# --- E16: a tie the tie-break cannot settle ----------------------------------------------------------


@pytest.mark.parametrize(
    ("preset", "players"),
    [
        *[pytest.param("rio-grande", n, id=f"rio-grande-{n}p") for n in range(3, 8)],
        *[pytest.param("amigo-1997", n, id=f"amigo-1997-{n}p") for n in (3, 4, 5)],
    ],
)
def test_e16_players_tied_on_coins_and_hand_cards_share_the_victory(preset, players):
    state = table(
        players,
        preset,
        phase="draw",
        draw_pile="soy",
        final_pass=True,
        coins={1: 4, 2: 4},
        hands={0: "blue", 1: "2 red", 2: "green chili"},
    )

    _, events = run(state, Draw(0))

    assert events[-1] == GameEnded(
        scores=[0, 4, 4] + [0] * (players - 3),
        hand_sizes=[2, 2, 2] + [0] * (players - 3),
        winners=[1, 2],
        decided_by="shared",
    )
