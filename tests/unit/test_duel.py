"""RULES §11: the bean duel for two players (rio-grande), and its edge cases in §14."""

from __future__ import annotations

import pytest

from domain.rules import RuleViolation, legal_commands
from domain.rules import events as ev
from domain.rules.commands import (
    BuyField,
    DiscardFromHand,
    DiscardOffered,
    Draw,
    Harvest,
    Offer,
    OfferRest,
    Plant,
    Reveal,
)
from domain.rules.evolve import remove_cards
from domain.rules.state import Field, GameState, Phase
from tests.builders import kinds, run, start, table


def rejection(state: GameState, *commands) -> str:
    with pytest.raises(RuleViolation) as rejected:
        run(state, *commands)
    return str(rejected.value)


def duel(**layout) -> GameState:
    return table(2, **layout)


def offered(state: GameState, cards: str) -> GameState:
    """The opponent left `cards` as an offer: the active player is at step 1 (RULES §11.2)."""
    beans = tuple(cards.split())
    return state.replace(
        draw_pile=remove_cards(state.draw_pile, beans),
        duel_offer=beans,
        phase=Phase.RESOLVE_OFFER,
    )


# --- §11.1: what differs from the 3–7 player game -------------------------------------------------


def test_the_duel_plays_without_garden_and_cocoa_with_144_cards():
    state, _ = start(2)

    assert state.ruleset.deck_size == 144
    assert {"garden", "cocoa"}.isdisjoint(state.ruleset.beans)


def test_each_duel_player_is_dealt_five_cards_and_starts_with_two_fields():
    state, _ = start(2)

    assert [len(player.hand) for player in state.players] == [5, 5]
    assert [len(player.fields) for player in state.players] == [2, 2]


def test_the_three_field_reading_of_the_duel_starts_with_three_fields_and_sells_none():
    state = table(2, options={"duel_start_fields": 3}, coins={0: 5})

    assert len(state.players[0].fields) == 3
    assert "RULES §9.4" in rejection(state, BuyField(0))


def test_there_is_no_trading_in_the_duel():
    state = duel(phase="plant-drawn", hands={0: "blue", 1: "chili"}, revealed="soy red stink")

    assert "RULES §11.1" in rejection(state, Offer(0, 1, hand=(0,), wants=("chili",)))


@pytest.mark.parametrize("phase", ["resolve-offer", "plant", "plant-drawn", "draw"])
def test_the_player_not_on_turn_may_not_harvest(phase):
    state = duel(phase=phase, active=0, fields={1: ["5 blue", ""]})

    message = rejection(state, Harvest(1, 0))

    assert "RULES §11.1" in message
    assert "Ben cannot harvest" in message
    assert all(not isinstance(c, Harvest) for c in legal_commands(state, 1).commands)


def test_the_player_on_turn_may_harvest_at_any_step():
    state = duel(phase="plant-drawn", revealed="soy red stink", fields={0: ["5 blue", ""]})

    _, events = run(state, Harvest(0, 0))

    assert events == [ev.FieldHarvested(0, 0, "blue", 5, 1, final=False)]


def test_third_field_coins_go_out_of_the_game_in_the_duel():
    state = duel(coins={0: "red soy blue chili"})

    state, events = run(state, BuyField(0))

    assert events == [ev.ThirdFieldBought(0, ["chili", "blue", "soy"], "out-of-game")]
    assert state.removed == ("chili", "blue", "soy")
    assert state.players[0].coins == ("red",)
    assert len(state.players[0].fields) == 3


def test_the_duel_coins_option_can_send_them_to_the_discard_pile_instead():
    state = table(2, options={"duel_coins_to": "discard-pile"}, coins={0: 3}, discard="... wax")

    state, events = run(state, BuyField(0))

    assert events[0].destination == "discard-pile"
    assert state.removed == ()
    assert state.discard_pile[-3:] == tuple(events[0].coins)


def test_a_duel_player_may_buy_the_third_field_on_the_opponent_s_turn():
    state = duel(active=0, coins={1: 3})

    _, events = run(state, BuyField(1))

    assert kinds(events) == ["ThirdFieldBought"]


def test_the_own_turn_option_keeps_third_field_purchases_to_one_s_own_turn():
    state = table(2, options={"duel_buy_timing": "own-turn"}, active=0, coins={1: 3})

    assert "RULES §11.5" in rejection(state, BuyField(1))


# --- §11.2 step 1: plant or discard the offered cards ---------------------------------------------


def test_the_start_player_skips_step_one_on_the_first_turn():
    state, _ = start(2)

    assert state.phase is Phase.PLANT
    assert state.duel_offer == ()


def test_cards_left_as_an_offer_wait_for_the_opponent_s_next_turn():
    state = duel(phase="plant-drawn", revealed="soy red stink", fields={0: ["2 soy", ""]})

    state, events = run(state, Plant(0, 0, "soy"), OfferRest(0), Draw(0))

    assert events[1] == ev.CardsOffered(0, ["red", "stink"])
    assert state.active == 1
    assert state.phase is Phase.RESOLVE_OFFER
    assert state.duel_offer == ("red", "stink")


@pytest.mark.parametrize(
    ("command", "event"),
    [
        (Plant(0, 1, "red"), ev.BeanPlanted(0, "red", 1, "offer")),
        (DiscardOffered(0, "red"), ev.OfferedCardDiscarded(0, "red")),
    ],
    ids=["planted", "discarded"],
)
def test_each_offered_card_is_planted_or_discarded(command, event):
    state = offered(duel(fields={0: ["3 blue", ""]}), "red stink")

    state, events = run(state, command)

    assert events == [event]
    assert state.duel_offer == ("stink",)
    assert state.phase is Phase.RESOLVE_OFFER


def test_unwanted_offered_cards_are_discarded_face_up_in_the_order_chosen():
    state = offered(duel(discard="wax"), "red stink soy")

    state, _ = run(
        state, DiscardOffered(0, "soy"), DiscardOffered(0, "red"), DiscardOffered(0, "stink")
    )

    assert state.discard_pile[-3:] == ("soy", "red", "stink")


def test_once_every_offered_card_is_resolved_the_player_plants_from_the_hand():
    state = offered(duel(hands={0: "blue chili"}), "red")

    state, _ = run(state, DiscardOffered(0, "red"))

    assert state.phase is Phase.PLANT


def test_hand_cards_wait_until_every_offered_card_is_resolved():
    state = offered(duel(hands={0: "blue chili"}, fields={0: ["", ""]}), "red")

    message = rejection(state, Plant(0, 0, "blue"))

    assert "RULES §11.2" in message
    assert "has no Blue to plant: the offer holds 1 Red" in message


def test_only_the_player_on_turn_resolves_the_offer():
    state = offered(duel(active=0), "red")

    assert "RULES §11.2" in rejection(state, DiscardOffered(1, "red"))


def test_a_card_that_is_not_in_the_offer_cannot_be_discarded_from_it():
    state = offered(duel(), "red")

    assert "the offer holds no Soy" in rejection(state, DiscardOffered(0, "soy"))


# --- §11.2 step 2: plant, then discard one hand card -----------------------------------------------


def test_after_planting_one_card_may_be_discarded_from_anywhere_in_the_hand():
    state = duel(hands={0: "blue chili soy red"}, discard="... wax")

    state, events = run(state, Plant(0, 0), DiscardFromHand(0, 2))

    assert events[1] == ev.HandCardDiscarded(0, 2, "red")
    assert state.players[0].hand == ("chili", "soy")
    assert state.discard_pile[-1] == "red"


def test_no_hand_card_may_be_discarded_before_the_front_card_is_planted():
    state = duel(hands={0: "blue chili"})

    assert "discards only after planting" in rejection(state, DiscardFromHand(0, 1))


def test_only_one_hand_card_may_be_discarded_per_turn():
    state = duel(hands={0: "blue chili soy red"})

    assert "only one hand card" in rejection(
        state, Plant(0, 0), DiscardFromHand(0, 0), DiscardFromHand(0, 0)
    )


def test_no_card_is_planted_after_the_hand_discard():
    state = duel(hands={0: "blue blue soy red"}, fields={0: ["", ""]})

    assert "planting is over" in rejection(state, Plant(0, 0), DiscardFromHand(0, 2), Plant(0, 0))


def test_with_an_empty_hand_the_player_neither_plants_nor_discards_but_draws():
    state = duel(hands={0: ""}, draw_pile="soy red stink ...")

    state, events = run(state, Reveal(0))

    assert events[0] == ev.CardsRevealed(0, ["soy", "red", "stink"])
    assert all(not isinstance(c, DiscardFromHand) for c in legal_commands(state, 0).commands)


# --- §11.2 step 3: draw three face up, match the discard pile, plant, offer ----------------------


def test_step_three_turns_three_cards_face_up():
    state = duel(hands={0: "blue"}, draw_pile="soy red stink ...", discard="")

    state, events = run(state, Plant(0, 0), Reveal(0))

    assert events[1:] == [ev.CardsRevealed(0, ["soy", "red", "stink"])]
    assert state.phase is Phase.PLANT_DRAWN


def test_top_discards_matching_a_drawn_card_join_them_until_one_does_not_match():
    state = duel(hands={0: "blue"}, draw_pile="blue red chili ...", discard="wax soy chili blue")

    state, events = run(state, Plant(0, 0), Reveal(0))

    assert events[2] == ev.DiscardsMatched(0, ["blue", "chili"])
    assert state.revealed == ("blue", "red", "chili", "blue", "chili")
    assert state.discard_pile[-2:] == ("wax", "soy")


def test_the_card_discarded_in_step_two_can_come_back_through_the_matching():
    state = duel(hands={0: "blue soy"}, draw_pile="soy red stink ...", discard="wax")

    state, events = run(state, Plant(0, 0), DiscardFromHand(0, 0), Reveal(0))

    assert events[-1] == ev.DiscardsMatched(0, ["soy"])
    assert state.revealed.count("soy") == 2


def test_an_empty_discard_pile_matches_nothing():
    state = duel(hands={0: "blue"}, draw_pile="soy red stink ...")
    assert state.discard_pile == ()

    _, events = run(state, Plant(0, 0), Reveal(0))

    assert "DiscardsMatched" not in kinds(events)


def test_any_drawn_cards_may_be_planted_and_the_rest_are_left_as_the_offer():
    state = duel(phase="plant-drawn", revealed="soy soy red", fields={0: ["soy", ""]})

    state, events = run(state, Plant(0, 0, "soy"), Plant(0, 0, "soy"), OfferRest(0))

    assert kinds(events) == ["BeanPlanted", "BeanPlanted", "CardsOffered"]
    assert state.players[0].fields[0] == Field("soy", 3)
    assert state.duel_offer == ("red",)
    assert state.phase is Phase.DRAW


def test_none_of_the_drawn_cards_need_be_planted():
    state = duel(phase="plant-drawn", revealed="soy soy red")

    state, events = run(state, OfferRest(0))

    assert events == [ev.CardsOffered(0, ["soy", "soy", "red"])]


def test_planting_every_drawn_card_leaves_no_offer():
    state = duel(phase="plant-drawn", revealed="soy", fields={0: ["", ""]})

    state, events = run(state, Plant(0, 0, "soy"))

    assert kinds(events) == ["BeanPlanted"]
    assert state.phase is Phase.DRAW
    assert state.duel_offer == ()


# --- §11.2 step 4: draw two ------------------------------------------------------------------------


def test_step_four_draws_two_cards_to_the_back_of_the_hand_then_the_opponent_plays():
    state = duel(phase="draw", hands={0: "wax"}, draw_pile="soy red ...")

    state, events = run(state, Draw(0))

    assert kinds(events) == ["CardDrawn", "CardDrawn", "TurnEnded"]
    assert state.players[0].hand == ("wax", "soy", "red")
    assert state.active == 1


def test_step_four_waits_until_the_drawn_cards_not_planted_are_offered():
    state = duel(phase="plant-drawn", revealed="soy soy red")

    assert rejection(state, Draw(0)) == (
        "RULES §11.2 (bean duel: turn steps): Ana draws after step 3: plant the drawn cards "
        "wanted, then offer the rest (offer-rest)"
    )


@pytest.mark.parametrize(
    ("phase", "command", "owed"),
    [("plant", Reveal(0, ("soy", "red")), 3), ("draw", Draw(0, ("soy", "red", "wax")), 2)],
    ids=["step-3-turns-three", "step-4-draws-two"],
)
def test_at_a_tabletop_a_duel_draw_names_as_many_cards_as_its_step_takes(phase, command, owed):
    state = duel(mode="tabletop", phase=phase, hands={0: ""}, draw_pile="soy red wax soy red")

    message = rejection(state, command)

    assert message.startswith("RULES §11.2 (bean duel: turn steps): Ana must ")
    assert f" {owed} cards" in message


# --- §11.4: the end at the first exhaustion --------------------------------------------------------


def test_the_first_exhaustion_during_step_three_finishes_step_three_then_ends_the_duel():
    state = duel(hands={0: "blue"}, draw_pile="soy red", discard="... red", fields={0: ["", ""]})

    state, events = run(state, Plant(0, 0), Reveal(0))

    assert kinds(events)[1:] == ["CardsRevealed", "DeckExhausted", "DiscardsMatched"]
    assert events[1] == ev.CardsRevealed(0, ["soy", "red"])
    assert not state.is_over
    state, events = run(state, Plant(0, 1, "soy"), OfferRest(0))
    assert kinds(events)[-1] == "GameEnded"
    assert "CardDrawn" not in kinds(events)


def test_the_first_exhaustion_during_step_four_ends_the_duel_at_once_keeping_the_drawn_card():
    state = duel(phase="draw", hands={0: "wax", 1: "red red"}, draw_pile="soy")

    state, events = run(state, Draw(0))

    assert kinds(events)[:2] == ["CardDrawn", "DeckExhausted"]
    assert kinds(events)[-1] == "GameEnded"
    assert state.result.hand_sizes == (2, 2)


def test_the_duel_ends_with_a_final_harvest_and_the_most_hand_cards_breaking_a_tie():
    state = duel(
        phase="draw",
        hands={0: "wax wax", 1: "red"},
        fields={0: ["4 blue", ""], 1: ["2 red", ""]},
        coins={0: 1, 1: 1},
        draw_pile="soy",
    )

    state, events = run(state, Draw(0))

    assert [e for e in events if isinstance(e, ev.FieldHarvested)] == [
        ev.FieldHarvested(0, 0, "blue", 4, 1, final=True),
        ev.FieldHarvested(1, 0, "red", 2, 1, final=True),
    ]
    assert events[-1] == ev.GameEnded([2, 2], [3, 1], [0], "most-hand-cards")
