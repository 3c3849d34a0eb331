"""RULES §5.3 (phase 3: plant traded, donated and kept cards) and §5.4 (phase 4: draw)."""

import pytest

from domain.rules import MalformedCommand, Phase, legal_commands
from domain.rules.commands import Draw, Harvest, Plant
from domain.rules.events import BeanPlanted, CardDrawn, TurnEnded
from domain.rules.state import Field
from tests.builders import rejection, run, table


def planting_traded(**changes):
    """Phase 3 of Ana's turn: she kept Red and Soy, Ben received a Stink."""
    return table(phase="plant-traded", **{"trade_areas": {0: "red soy", 1: "stink"}, **changes})


# --- §5.3: phase 3 ---------------------------------------------------------------------------------


def test_every_player_plants_every_card_of_their_trade_area_and_then_phase_4_begins():
    state, events = run(
        planting_traded(), Plant(1, 0, "stink"), Plant(0, 0, "red"), Plant(0, 1, "soy")
    )

    assert events == [
        BeanPlanted(1, "stink", 0, "trade-area"),
        BeanPlanted(0, "red", 0, "trade-area"),
        BeanPlanted(0, "soy", 1, "trade-area"),
    ]
    assert [player.trade_area for player in state.players] == [()] * 4
    assert state.phase is Phase.DRAW


def test_each_player_chooses_the_order_of_their_own_cards():
    state = planting_traded()

    state, events = run(state, Plant(0, 1, "soy"), Plant(0, 0, "red"))

    assert [event.bean for event in events] == ["soy", "red"]
    plants = {
        (c.bean, c.field) for c in legal_commands(planting_traded(), 0) if isinstance(c, Plant)
    }
    assert plants == {("red", 0), ("red", 1), ("soy", 0), ("soy", 1)}


def test_phase_3_lasts_while_any_trade_area_holds_a_card():
    state, _ = run(planting_traded(), Plant(0, 0, "red"), Plant(0, 1, "soy"))

    assert state.phase is Phase.PLANT_TRADED
    assert rejection(state, Draw(0)) == (
        "RULES §5.3.4 (phase 3: until every trade area is empty): Ana draws once every trade "
        "area is empty; still to plant: Ben (Stink)"
    )


def test_drawing_before_phase_4_says_where_the_turn_stands():
    assert rejection(table(phase="trade"), Draw(0)) == (
        "RULES §5.4 (phase 4: draw): it is not time to draw: Ana's turn is at phase 2, trading"
    )


def test_only_cards_in_ones_own_trade_area_are_planted_in_phase_3():
    assert rejection(planting_traded(), Plant(1, 0, "red")) == (
        "RULES §5.3 (phase 3: plant traded cards): Ben has no Red to plant: the trade area holds "
        "1 Stink"
    )


@pytest.mark.parametrize(
    "bean", [pytest.param("red", id="bean named"), pytest.param(None, id="bean not named")]
)
def test_a_player_with_an_empty_trade_area_has_nothing_to_plant(bean):
    assert rejection(planting_traded(), Plant(2, 0, bean)) == (
        "RULES §5.3 (phase 3: plant traded cards): Cy has nothing to plant: the trade area is empty"
    )


def test_the_bean_to_plant_must_be_named_when_the_trade_area_holds_several_types():
    with pytest.raises(MalformedCommand, match="name the bean to plant from the trade area"):
        run(planting_traded(), Plant(0, 0))


def test_a_trade_area_card_that_fits_no_field_is_planted_after_a_harvest():
    state = planting_traded(fields={1: ["5 blue", "chili"]})

    state, events = run(state, Harvest(1, 0), Plant(1, 0, "stink"))

    assert [event.kind for event in events] == ["FieldHarvested", "BeanPlanted"]
    assert state.players[1].fields == (Field("stink", 1), Field("chili", 1))


# --- §5.4: phase 4 ---------------------------------------------------------------------------------

DRAWS = [
    # RULES §2: cards drawn in phase 4
    *[pytest.param("rio-grande", n, 3, id=f"rio-grande-{n}p") for n in (3, 4, 5)],
    *[pytest.param("rio-grande", n, 4, id=f"rio-grande-{n}p") for n in (6, 7)],
    *[pytest.param("amigo", n, 3, id=f"amigo-{n}p") for n in (3, 4, 5)],
    *[pytest.param("amigo-1997", n, 3, id=f"amigo-1997-{n}p") for n in (3, 4, 5)],
]


@pytest.mark.parametrize(("preset", "players", "draw"), DRAWS)
def test_the_active_player_draws_cards_one_at_a_time_to_the_back_of_the_hand(preset, players, draw):
    top = ["red", "soy", "blue", "stink"]
    state = table(players, preset, phase="draw", hands={0: "chili"}, draw_pile=[*top, "..."])

    state, events = run(state, Draw(0))

    assert events[:-1] == [CardDrawn(0, bean) for bean in top[:draw]]
    assert state.players[0].hand == ("chili", *top[:draw])


@pytest.mark.parametrize("players", [pytest.param(n, id=f"{n} players") for n in (3, 4, 5, 6, 7)])
def test_after_the_draw_the_left_neighbour_takes_the_next_turn(players):
    last = players - 1
    state = table(players, phase="draw", active=last, planted=2)

    state, events = run(state, Draw(last))

    assert events[-1] == TurnEnded(last, 0, 1)
    assert (state.active, state.phase, state.planted, state.turn) == (0, Phase.PLANT, 0, 2)


def test_only_the_active_player_draws():
    assert rejection(table(phase="draw"), Draw(1)) == (
        "RULES §5.4 (phase 4: draw): Ben cannot draw: it is Ana's turn"
    )


def test_at_a_tabletop_the_recorder_names_the_cards_drawn():
    state = table(mode="tabletop", phase="draw")

    state, events = run(state, Draw(0, ("garden", "wax", "garden")))

    assert events[:3] == [CardDrawn(0, "garden"), CardDrawn(0, "wax"), CardDrawn(0, "garden")]
    assert state.players[0].hand == ("garden", "wax", "garden")


def test_at_a_tabletop_exactly_the_cards_owed_are_named():
    state = table(mode="tabletop", phase="draw")

    assert rejection(state, Draw(0, ("garden", "wax"))) == (
        "RULES §5.4.1 (phase 4: how many cards): Ana must draw 3 cards; 2 were named"
    )
    assert rejection(state, Draw(0, ("garden", "wax", "red", "red"))) == (
        "RULES §5.4.1 (phase 4: how many cards): Ana must draw 3 cards, not 4"
    )


def test_at_a_tabletop_a_card_that_cannot_be_in_the_draw_pile_cannot_be_drawn():
    state = table(mode="tabletop", phase="draw", coins={2: "4 cocoa"})

    assert rejection(state, Draw(0, ("red", "cocoa", "red"))) == (
        "RULES §4.4 (every card exists once): Ana cannot draw a Cocoa: no Cocoa can be in the "
        "draw pile: all 4 Cocoa cards are accounted for elsewhere"
    )


def test_a_digital_draw_takes_the_shuffled_pile_and_names_no_cards():
    with pytest.raises(MalformedCommand, match="digital games draw from the shuffled deck"):
        run(table(phase="draw"), Draw(0, ("red", "red", "red")))


def test_a_tabletop_draw_must_name_its_cards():
    with pytest.raises(MalformedCommand, match="tabletop games name the cards: draw needs"):
        run(table(mode="tabletop", phase="draw"), Draw(0))
