"""RULES §9: the third bean field — who may buy it, when, for how many coins, where they go."""

import pytest

from domain.rules import Phase, legal_commands
from domain.rules.commands import BuyField, Draw, Plant
from domain.rules.events import BeanPlanted, ThirdFieldBought
from domain.rules.state import Field
from tests.builders import rejection, run, table

FOR_SALE = [
    # RULES §2, §9.1–9.2: the games with a third field for sale, and its price in coins
    pytest.param("rio-grande", 4, 3, id="rio-grande-4p"),
    pytest.param("rio-grande", 5, 3, id="rio-grande-5p"),
    pytest.param("rio-grande", 6, 2, id="rio-grande-6p"),
    pytest.param("rio-grande", 7, 2, id="rio-grande-7p"),
    pytest.param("amigo-1997", 3, 3, id="amigo-1997-3p"),
    pytest.param("amigo-1997", 4, 3, id="amigo-1997-4p"),
    pytest.param("amigo-1997", 5, 3, id="amigo-1997-5p"),
]


@pytest.mark.parametrize(("preset", "players", "price"), FOR_SALE)
def test_a_third_field_costs_the_price_of_the_player_count(preset, players, price):
    state = table(players, preset, coins={0: ["chili"] + ["red"] * price})

    state, events = run(state, BuyField(0))

    assert events == [ThirdFieldBought(0, ["red"] * price, "discard-pile")]
    assert state.players[0].coins == ("chili",)
    assert state.players[0].fields == (Field(None, 0),) * 3


@pytest.mark.parametrize(("preset", "players", "price"), FOR_SALE)
def test_the_coins_paid_go_bean_side_up_onto_the_discard_pile(preset, players, price):
    state = table(players, preset, coins={0: ["soy"] * price}, discard="... chili")

    state, _ = run(state, BuyField(0))

    assert state.discard_pile[-price - 1 :] == ("chili", *["soy"] * price)
    assert state.removed == ()


HELD = {1: "1 coin", 2: "2 coins"}


@pytest.mark.parametrize(("preset", "players", "price"), FOR_SALE)
def test_a_player_with_fewer_coins_than_the_price_cannot_buy_the_third_field(
    preset, players, price
):
    state = table(players, preset, coins={0: ["red"] * (price - 1)})

    assert rejection(state, BuyField(0)) == (
        f"RULES §9.2 (third bean field: price): Ana has {HELD[price - 1]}; the third field "
        f"costs {price}"
    )
    assert BuyField(0) not in legal_commands(state, 0)


def test_the_price_is_paid_with_the_topmost_coins_of_the_coin_pile():
    state = table(4, coins={0: "chili blue stink soy"})

    state, events = run(state, BuyField(0))

    assert events[0].coins == ["soy", "stink", "blue"]
    assert state.players[0].coins == ("chili",)


def test_the_third_field_can_be_used_at_once():
    state = table(4, hands={0: "red"}, fields={0: ["2 blue", "chili"]}, coins={0: 3})

    state, events = run(state, BuyField(0), Plant(0, 2))

    assert events[-1] == BeanPlanted(0, "red", 2, "hand")
    assert state.players[0].fields[2] == Field("red", 1)


def test_the_third_field_can_be_bought_only_once():
    state = table(5, coins={0: 6})
    state, _ = run(state, BuyField(0))

    assert rejection(state, BuyField(0)) == (
        "RULES §9.1 (third bean field: once per game): Ana already has a third field; it can be "
        "bought only once"
    )


@pytest.mark.parametrize("phase", ["plant", "trade", "plant-traded", "draw"])
def test_the_third_field_may_be_bought_on_another_players_turn(phase):
    state = table(6, phase=phase, coins={3: 2}, trade_areas={1: "red"})

    state, events = run(state, BuyField(3))

    assert [event.kind for event in events] == ["ThirdFieldBought"]
    assert BuyField(3) in legal_commands(table(6, phase=phase, coins={3: 2}), 3)


@pytest.mark.parametrize(
    ("preset", "players", "reason"),
    [
        pytest.param(
            "rio-grande",
            3,
            "Ana started with three fields; no further field can be bought",
            id="rio-grande-3p",
        ),
        pytest.param(
            "amigo",
            3,
            "Ana started with three fields; no further field can be bought",
            id="amigo-3p",
        ),
        pytest.param(
            "amigo", 4, "the amigo ruleset has no third bean field for sale", id="amigo-4p"
        ),
        pytest.param(
            "amigo", 5, "the amigo ruleset has no third bean field for sale", id="amigo-5p"
        ),
    ],
)
def test_no_field_is_for_sale_to_three_rio_grande_players_nor_in_the_amigo_game(
    preset, players, reason
):
    state = table(players, preset, coins={0: 10})

    assert rejection(state, BuyField(0)) == f"RULES §9.4 (third bean field: not for sale): {reason}"
    assert BuyField(0) not in legal_commands(state, 0)


def test_the_coins_paid_for_a_field_re_enter_the_game_at_the_next_reshuffle():
    state = table(4, phase=Phase.DRAW, coins={0: "red red red", 1: "..."}, draw_pile="soy")

    state, _ = run(state, BuyField(0), Draw(0))

    assert state.players[0].hand == ("soy", "red", "red")
    assert (state.draw_pile, state.discard_pile) == (("red",), ())
