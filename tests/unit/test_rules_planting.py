"""RULES §5.1 (phase 1: plant from the hand), §4.1/§4.3 (hand order, fields) and §7 (planting)."""

import pytest

from domain.rules import MalformedCommand, Phase, legal_commands
from domain.rules.commands import Harvest, Plant, Reveal
from domain.rules.events import BeanPlanted, FieldHarvested
from domain.rules.state import Field
from tests.builders import rejection, run, table

PLAYER_COUNTS = [pytest.param(n, id=f"{n} players") for n in (3, 4, 5, 6, 7)]


@pytest.mark.parametrize("players", PLAYER_COUNTS)
def test_the_active_player_plants_the_front_card_of_the_hand(players):
    state = table(players, hands={0: "chili blue soy"})

    state, events = run(state, Plant(0, 0))

    assert events == [BeanPlanted(0, "chili", 0, "hand")]
    assert state.players[0].hand == ("blue", "soy")
    assert state.players[0].fields[0] == Field("chili", 1)


def test_the_planted_card_must_be_the_front_card():
    state = table(hands={0: "chili blue soy"})

    assert rejection(state, Plant(0, 0, "blue")) == (
        "RULES §5.1.2 (phase 1: the front card first): Ana's front card is Chili, not Blue: "
        "cards are planted from the front of the hand"
    )


def test_the_front_card_must_be_planted_before_the_cards_are_revealed():
    state = table(hands={0: "chili blue"})

    assert rejection(state, Reveal(0)) == (
        "RULES §5.1.2 (phase 1: the front card first): Ana must first plant the front card (Chili)"
    )


def test_after_the_front_card_the_next_card_may_be_planted_too():
    state = table(hands={0: "chili blue soy"}, fields={0: ["2 chili", ""]})

    state, events = run(state, Plant(0, 0), Plant(0, 1))

    assert events == [BeanPlanted(0, "chili", 0, "hand"), BeanPlanted(0, "blue", 1, "hand")]
    assert state.players[0].fields == (Field("chili", 3), Field("blue", 1))
    assert state.players[0].hand == ("soy",)


def test_the_second_plant_is_optional():
    state = table(hands={0: "chili blue"})

    state, events = run(state, Plant(0, 0), Reveal(0))

    assert events[-1].kind == "CardsRevealed"
    assert state.phase is Phase.TRADE
    assert state.players[0].hand == ("blue",)


def test_a_third_card_is_never_planted_in_phase_1():
    state = table(hands={0: "chili chili chili"})
    state, _ = run(state, Plant(0, 0), Plant(0, 0))

    assert rejection(state, Plant(0, 0)) == (
        "RULES §5.1.3 (phase 1: at most two cards): Ana has planted two cards; never a third"
    )


def test_only_the_active_player_plants_from_the_hand():
    state = table(hands={0: "chili", 1: "blue"})

    assert rejection(state, Plant(1, 0)) == (
        "RULES §5.1 (phase 1: plant from the hand): Ben cannot plant from the hand: "
        "it is Ana's turn"
    )


def test_planting_keeps_the_order_of_the_rest_of_the_hand():
    state = table(hands={0: "chili blue soy red stink green"})

    state, _ = run(state, Plant(0, 0), Plant(0, 1))

    assert state.players[0].hand == ("soy", "red", "stink", "green")


# --- §7: where a card may be planted -------------------------------------------------------------


def test_a_card_joins_a_field_of_its_own_type():
    state = table(hands={0: "blue"}, fields={0: ["", "3 blue"]})

    state, _ = run(state, Plant(0, 1))

    assert state.players[0].fields == (Field(None, 0), Field("blue", 4))


def test_a_card_may_start_a_second_field_of_a_type_already_growing():
    state = table(hands={0: "blue"}, fields={0: ["3 blue", ""]})

    state, events = run(state, Plant(0, 1))

    assert events == [BeanPlanted(0, "blue", 1, "hand")]
    assert state.players[0].fields == (Field("blue", 3), Field("blue", 1))


def test_a_card_cannot_be_planted_on_a_field_of_another_type():
    state = table(hands={0: "blue"}, fields={0: ["2 chili", "red"]})

    assert rejection(state, Plant(0, 0)) == (
        "RULES §7.1 (planting: one bean type per field): Ana cannot plant Blue on field 1 "
        "(2 Chili): a field holds one bean type; harvest it first"
    )


def test_a_card_that_fits_no_field_is_planted_after_harvesting_a_legal_field():
    state = table(hands={0: "blue"}, fields={0: ["chili", "4 red"]})

    state, events = run(state, Harvest(0, 1), Plant(0, 1))

    assert events == [
        FieldHarvested(0, 1, "red", 4, 3, final=False),
        BeanPlanted(0, "blue", 1, "hand"),
    ]
    assert state.players[0].fields == (Field("chili", 1), Field("blue", 1))


def test_a_two_field_player_has_no_third_field_to_plant_on():
    state = table(4, hands={0: "blue"})

    assert rejection(state, Plant(0, 2)) == (
        "RULES §9.1 (third bean field: once per game): Ana has no field 3: no third field yet"
    )


def test_a_three_player_game_plants_on_the_third_field_from_the_start():
    state = table(3, hands={0: "blue"})

    state, events = run(state, Plant(0, 2))

    assert events == [BeanPlanted(0, "blue", 2, "hand")]


def test_a_field_number_beyond_three_is_malformed():
    state = table(3, hands={0: "blue"})

    with pytest.raises(MalformedCommand, match="field index 3 does not exist"):
        run(state, Plant(0, 3))


@pytest.mark.parametrize(
    ("fields", "targets"),
    [
        pytest.param(["", ""], [0, 1], id="both fields empty"),
        pytest.param(["2 blue", ""], [0, 1], id="own type or empty"),
        pytest.param(["chili", "2 blue"], [1], id="own type only"),
        pytest.param(["chili", "red"], [], id="no field fits"),
    ],
)
def test_the_legal_plants_are_the_fields_of_the_same_type_and_the_empty_ones(fields, targets):
    state = table(hands={0: "blue"}, fields={0: fields})

    plants = [c.field for c in legal_commands(state, 0) if isinstance(c, Plant)]

    assert plants == targets


@pytest.mark.parametrize(
    ("fields", "harvestable"),
    [
        pytest.param(["chili", "red"], [0, 1], id="two singletons: either"),
        pytest.param(["chili", "4 red"], [1], id="singleton and four: the four"),
        pytest.param(["3 chili", "4 red"], [0, 1], id="both large: either"),
    ],
)
def test_when_the_front_card_fits_no_field_a_legal_harvest_always_makes_room(fields, harvestable):
    state = table(hands={0: "blue"}, fields={0: fields})

    legal = list(legal_commands(state, 0))

    assert not [c for c in legal if isinstance(c, Plant)]
    assert [c.field for c in legal if isinstance(c, Harvest)] == harvestable
