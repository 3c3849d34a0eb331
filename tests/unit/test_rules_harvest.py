"""RULES §8: harvesting ("selling") — timing, whole fields, bean protection, payout."""

import pytest

from domain.rules import RuleViolation, legal_commands
from domain.rules.commands import Harvest
from domain.rules.events import FieldHarvested
from domain.rules.state import Field
from tests.builders import rejection, run, table

# --- §8.1: timing -----------------------------------------------------------------------------------


@pytest.mark.parametrize("phase", ["plant", "trade", "plant-traded", "draw"])
@pytest.mark.parametrize("seat", [pytest.param(0, id="active"), pytest.param(2, id="not active")])
def test_any_player_may_harvest_at_any_time_of_any_turn(phase, seat):
    state = table(phase=phase, fields={seat: ["4 red", ""]}, trade_areas={1: "soy"})

    _, events = run(state, Harvest(seat, 0))

    assert events == [FieldHarvested(seat, 0, "red", 4, 3, final=False)]


# --- §8.2, §8.4: the whole field, coins and discards ------------------------------------------------


def test_a_harvest_sells_the_whole_field_and_leaves_it_empty():
    state = table(fields={1: ["6 blue", "chili"]})

    state, _ = run(state, Harvest(1, 0))

    assert state.players[1].fields == (Field(None, 0), Field("chili", 1))


HARVESTS = [
    # bean, cards in the field, coins earned (RULES §1.2), cards to the discard pile
    ("blue", 6, 2, 4),
    ("stink", 8, 4, 4),
    ("red", 5, 4, 1),
    ("garden", 2, 2, 0),
    ("chili", 2, 0, 2),
]


@pytest.mark.parametrize(
    ("bean", "n", "coins", "discarded"),
    HARVESTS,
    ids=[f"{n} {bean}" for bean, n, _, _ in HARVESTS],
)
def test_the_beanometer_cards_become_coins_and_the_rest_go_to_the_discard_pile(
    bean, n, coins, discarded
):
    state = table(3, fields={0: [f"{n} {bean}", "", ""]}, coins={0: "wax"}, discard="... soy")

    state, events = run(state, Harvest(0, 0))

    assert events == [FieldHarvested(0, 0, bean, n, coins, final=False)]
    assert state.players[0].coins == ("wax", *[bean] * coins)
    assert state.discard_pile[-1 - discarded :] == ("soy", *[bean] * discarded)


def test_a_harvest_may_earn_nothing():
    state = table(fields={0: ["2 blue", "2 chili"]})

    state, events = run(state, Harvest(0, 1))

    assert events[0].coins == 0
    assert state.players[0].coins == ()


def test_an_empty_field_cannot_be_harvested():
    state = table(fields={0: ["3 blue", ""]})

    assert rejection(state, Harvest(0, 1)) == (
        "RULES §8.2 (harvest the whole field): Ana cannot harvest field 2: it is empty"
    )


# --- §8.3: bean protection ---------------------------------------------------------------------------

PROTECTION = [
    # the fields of one player, and which of them may be harvested (RULES §8.3 examples)
    pytest.param(["chili", "6 blue"], [1], id="{1,6}: only the 6"),
    pytest.param(["chili", "red"], [0, 1], id="{1,1}: either"),
    pytest.param(["chili", "red", "4 blue"], [2], id="{1,1,4}: only the 4"),
    pytest.param(["chili", "red", "soy"], [0, 1, 2], id="{1,1,1}: any"),
    pytest.param(["chili", ""], [0], id="{1,0}: the single card"),
    pytest.param(["2 chili", "red", "3 blue"], [0, 2], id="{2,1,3}: the 2 and the 3"),
    pytest.param(["chili", "", "2 soy"], [2], id="{1,0,2}: only the 2"),
]


@pytest.mark.parametrize(("fields", "harvestable"), PROTECTION)
def test_a_single_card_is_harvestable_only_while_no_other_field_holds_two_or_more(
    fields, harvestable
):
    state = table(3, fields={1: fields + [""] * (3 - len(fields))})

    listed = [c.field for c in legal_commands(state, 1) if isinstance(c, Harvest)]
    accepted = [i for i, f in enumerate(state.players[1].fields) if f.count and _accepts(state, i)]

    assert listed == accepted == harvestable


def _accepts(state, field: int) -> bool:
    try:
        run(state, Harvest(1, field))
    except RuleViolation:
        return False
    return True


def test_a_single_card_cannot_be_harvested_while_another_field_holds_two():
    state = table(fields={0: ["chili", "4 blue"]})

    assert rejection(state, Harvest(0, 0)) == (
        "RULES §8.3 (bean protection): Ana cannot harvest field 1 (1 Chili) while field 2 holds "
        "4 Blue"
    )


def test_bean_protection_binds_players_harvesting_off_turn_too():
    state = table(phase="trade", fields={3: ["2 soy", "red"]})

    assert rejection(state, Harvest(3, 1)) == (
        "RULES §8.3 (bean protection): Dee cannot harvest field 2 (1 Red) while field 1 holds 2 Soy"
    )
