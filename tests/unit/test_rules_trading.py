"""RULES §5.2 (phase 2: reveal, trade and donate) and §6 (trading and donating, 3+ players)."""

import pytest

from domain.rules import MalformedCommand, Phase
from domain.rules.commands import Accept, Decline, EndTrading, Offer, Plant, Reveal, Withdraw
from domain.rules.events import (
    CardsRevealed,
    TradeAccepted,
    TradeDeclined,
    TradeOffered,
    TradingEnded,
)
from tests.builders import rejection, run, table

PLAYER_COUNTS = [pytest.param(n, id=f"{n} players") for n in (3, 4, 5, 6, 7)]
HANDS = {0: "chili blue soy", 1: "blue blue stink", 2: "green wax"}


def trading(players: int = 4, **changes):
    """Ana's turn in phase 2: Red and Soy lie face up; Ben and Cy hold cards to trade."""
    return table(players, phase="trade", revealed="red soy", **{"hands": HANDS, **changes})


# --- §5.2.1: the reveal ---------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("preset", "players"),
    [
        *[pytest.param("rio-grande", n, id=f"rio-grande-{n}p") for n in (3, 4, 5, 6, 7)],
        *[pytest.param("amigo", n, id=f"amigo-{n}p") for n in (3, 4, 5)],
        *[pytest.param("amigo-1997", n, id=f"amigo-1997-{n}p") for n in (3, 4, 5)],
    ],
)
def test_phase_2_turns_up_the_top_two_cards_of_the_draw_pile(preset, players):
    state = table(players, preset, hands={0: "chili"}, draw_pile="red soy ...")

    state, events = run(state, Plant(0, 0), Reveal(0))

    assert events[-1] == CardsRevealed(0, ["red", "soy"])
    assert state.revealed == ("red", "soy")
    assert state.phase is Phase.TRADE


def test_at_a_tabletop_the_recorder_names_the_two_cards_turned_up():
    state = table(mode="tabletop", hands={0: "chili"})

    state, events = run(state, Plant(0, 0), Reveal(0, ("garden", "wax")))

    assert events[-1] == CardsRevealed(0, ["garden", "wax"])
    assert (state.draw_pile.count("garden"), state.draw_pile.count("wax")) == (5, 21)


def test_at_a_tabletop_a_card_that_cannot_be_in_the_draw_pile_cannot_be_revealed():
    state = table(mode="tabletop", hands={0: "chili"}, fields={1: ["8 red", ""]})
    state, _ = run(state, Plant(0, 0))

    message = rejection(state, Reveal(0, ("soy", "red")))

    assert message == (
        "RULES §4.4 (every card exists once): Ana cannot reveal a Red: no Red can be in the draw "
        "pile: all 8 Red cards are accounted for elsewhere"
    )


def test_the_cards_are_revealed_once_per_turn():
    assert rejection(trading(), Reveal(0)) == (
        "RULES §5.2 (phase 2: reveal and trade): cards are revealed once, right after phase 1; "
        "the turn is at phase 2, trading"
    )


def test_nobody_trades_before_the_reveal():
    state = table(hands={0: "chili", 1: "blue"})

    assert rejection(state, Offer(1, 0, hand=(0,))) == (
        "RULES §5.2 (phase 2: reveal and trade): Ben cannot offer a trade: trading happens in "
        "phase 2, after the reveal; the turn is at phase 1, planting from the hand"
    )


# --- §6.1–6.5: who trades what --------------------------------------------------------------------


@pytest.mark.parametrize("players", PLAYER_COUNTS)
def test_two_players_other_than_the_active_player_cannot_trade(players):
    assert rejection(trading(players), Offer(1, 2, hand=(0,), wants=("green",))) == (
        "RULES §6.1 (trading: the active player is a party): Ben and Cy cannot trade: every "
        "trade involves the active player, Ana"
    )


def test_a_player_other_than_the_active_player_may_donate_only_to_the_active_player():
    assert rejection(trading(), Offer(1, 2, hand=(0,))).startswith(
        "RULES §6.1 (trading: the active player is a party): Ben and Cy cannot trade"
    )


def test_the_active_player_may_give_face_up_cards_and_hand_cards_from_anywhere_in_the_hand():
    state, events = run(
        trading(), Offer(0, 1, hand=(1,), revealed=("red",), wants=("stink",)), Accept(1, 1, (2,))
    )

    assert events == [
        TradeOffered(1, 0, 1, [1], ["red"], [], ["blue", "red"], ["stink"]),
        TradeAccepted(1, 0, 1, [1], ["red"], [], [2], [], [], ["blue", "red"], ["stink"], []),
    ]
    assert state.players[0].hand == ("chili", "soy")
    assert state.revealed == ("soy",)


def test_a_player_other_than_the_active_player_gives_only_cards_from_the_hand():
    assert rejection(trading(), Offer(1, 0, revealed=("red",))) == (
        "RULES §6.3 (trading: what other players may give): Ben cannot give face-up cards: they "
        "belong to Ana"
    )


def test_a_player_other_than_the_active_player_may_give_any_card_of_the_hand():
    state, _ = run(
        trading(), Offer(1, 0, hand=(2,), wants=("red",)), Accept(0, 1, revealed=("red",))
    )

    assert state.players[1].hand == ("blue", "blue")
    assert state.players[1].trade_area == ("red",)
    assert state.players[0].trade_area == ("stink",)


def test_a_trade_leaves_the_rest_of_each_hand_in_its_order():
    state = trading(hands={0: "chili blue soy red", 1: "blue stink green blue"})

    state, _ = run(state, Offer(0, 1, hand=(1,), wants=("stink", "blue")), Accept(1, 1, (1, 3)))

    assert state.players[0].hand == ("chili", "soy", "red")
    assert state.players[1].hand == ("blue", "green")


def test_received_cards_go_to_the_trade_area_never_into_the_hand():
    state, _ = run(trading(), Offer(0, 1, revealed=("red",), wants=("stink",)), Accept(1, 1, (2,)))

    assert (state.players[1].hand, state.players[1].trade_area) == (("blue", "blue"), ("red",))
    assert (state.players[0].hand, state.players[0].trade_area) == (
        ("chili", "blue", "soy"),
        ("stink",),
    )


def test_cards_received_in_this_phase_cannot_be_traded_on():
    state, _ = run(trading(), Offer(0, 1, revealed=("red",), wants=("stink",)), Accept(1, 1, (2,)))

    assert rejection(state, Offer(1, 0, trade_area=("red",), wants=("soy",))) == (
        "RULES §6.4 (trading: cards that cannot be traded): Ben cannot trade cards received in "
        "a trade; they must be planted"
    )


def test_quantities_are_free_two_blue_for_one_face_up_card():
    state, events = run(
        trading(), Offer(0, 1, revealed=("soy",), wants=("blue", "blue")), Accept(1, 1, (0, 1))
    )

    assert events[-1].to_proposer == ["blue", "blue"]
    assert state.players[0].trade_area == ("blue", "blue")
    assert state.players[1].trade_area == ("soy",)


def test_an_offer_gives_or_asks_for_at_least_one_card():
    assert rejection(trading(), Offer(0, 1)) == (
        "RULES §6.5 (trading: quantities): an offer must give or ask for at least one card"
    )


def test_an_offer_cannot_ask_for_a_bean_type_not_in_play():
    assert rejection(trading(4), Offer(0, 1, revealed=("red",), wants=("coffee",))) == (
        "RULES §2 (player count): Coffee is not in play (rio-grande, 4 players)"
    )


def test_an_offer_to_a_seat_that_does_not_exist_is_malformed():
    with pytest.raises(MalformedCommand, match="seat 4 does not exist"):
        run(trading(4), Offer(0, 4, revealed=("red",)))


# --- §6.6–6.7: consent and donations --------------------------------------------------------------


def test_nothing_moves_until_the_offer_is_accepted():
    before = trading()

    after, events = run(before, Offer(0, 1, hand=(0,), revealed=("red",), wants=("stink",)))

    assert [event.kind for event in events] == ["TradeOffered"]
    assert after.players == before.players
    assert after.revealed == before.revealed


def test_only_the_player_an_offer_was_made_to_can_accept_it():
    state, _ = run(trading(), Offer(0, 1, revealed=("red",)))

    assert rejection(state, Accept(2, 1)) == (
        "RULES §6.6 (trading: consent): offer #1 was made to Ben; Cy cannot accept it"
    )


def test_the_accepting_player_gives_exactly_the_beans_asked_for():
    state, _ = run(trading(), Offer(0, 1, revealed=("red",), wants=("stink",)))

    assert rejection(state, Accept(1, 1, (0,))) == (
        "RULES §6.6 (trading: consent): offer #1 asks Ben for 1 Stink; the cards chosen are 1 Blue"
    )


def test_only_the_proposer_withdraws_an_offer():
    state, _ = run(trading(), Offer(1, 0, hand=(0,), wants=("red",)))

    assert rejection(state, Withdraw(0, 1)) == (
        "RULES §6.6 (trading: consent): offer #1 is Ben's; Ana cannot withdraw it"
    )


def test_a_withdrawn_offer_can_no_longer_be_accepted():
    state, _ = run(trading(), Offer(1, 0, hand=(0,), wants=("red",)), Withdraw(1, 1))

    assert rejection(state, Accept(0, 1, revealed=("red",))) == (
        "RULES §6.6 (trading: consent): offer #1 is not open (it was accepted, declined, "
        "withdrawn or lapsed)"
    )


@pytest.mark.parametrize(
    ("made", "message"),
    [(0, "none was made"), (1, "only offer #1 was made"), (2, "offers #1–#2 were made")],
)
def test_an_offer_that_was_never_made_cannot_be_answered(made, message):
    offers = [Offer(1, 0, hand=(0,), wants=("red",)), Offer(2, 0, hand=(0,), wants=("red",))]
    state, _ = run(trading(), *offers[:made])

    assert rejection(state, Decline(0, 9)) == (
        f"RULES §6.6 (trading: consent): there is no offer #9: {message}"
    )


def test_a_donation_moves_the_cards_when_accepted():
    state, _ = run(trading(), Offer(0, 2, revealed=("red",)), Accept(2, 1))

    assert state.players[2].trade_area == ("red",)
    assert state.revealed == ("soy",)


def test_a_donation_need_not_be_accepted():
    state, events = run(trading(), Offer(0, 2, revealed=("red",)), Decline(2, 1))

    assert events[-1] == TradeDeclined(1, 2)
    assert state.revealed == ("red", "soy")
    assert state.players[2].trade_area == ()


def test_a_player_other_than_the_active_player_may_donate_hand_cards_to_the_active_player():
    state, _ = run(trading(), Offer(2, 0, hand=(1,)), Accept(0, 1))

    assert state.players[2].hand == ("green",)
    assert state.players[0].trade_area == ("wax",)


# --- §6.9, §5.2.2–5.2.3: the end of phase 2 -------------------------------------------------------


def test_the_active_player_may_trade_hand_cards_after_both_face_up_cards_are_gone():
    state, _ = run(
        trading(),
        Offer(0, 1, revealed=("red", "soy")),
        Accept(1, 1),
        Offer(0, 2, hand=(0,), wants=("green",)),
        Accept(2, 2, (0,)),
    )

    assert state.revealed == ()
    assert state.players[0].hand == ("blue", "soy")
    assert state.players[2].trade_area == ("chili",)


def test_a_face_up_card_stays_tradeable_until_trading_ends():
    state, _ = run(
        trading(), Offer(0, 1, revealed=("red",)), Decline(1, 1), Offer(0, 2, revealed=("red",))
    )

    state, _ = run(state, Accept(2, 2))

    assert state.players[2].trade_area == ("red",)


def test_ending_trading_puts_the_kept_face_up_cards_in_the_active_players_trade_area():
    state, _ = run(trading(), Offer(1, 0, hand=(0,), wants=("red",)))

    state, events = run(state, EndTrading(0))

    assert events == [TradingEnded(0, kept=["red", "soy"], lapsed=[1])]
    assert state.players[0].trade_area == ("red", "soy")
    assert state.players[1].hand == ("blue", "blue", "stink")
    assert (state.revealed, state.offers, state.phase) == ((), (), Phase.PLANT_TRADED)


def test_only_the_active_player_ends_trading():
    assert rejection(trading(), EndTrading(1)) == (
        "RULES §5.2 (phase 2: reveal and trade): Ben cannot end trading: it is Ana's turn"
    )


def test_cards_are_planted_only_after_trading_ends():
    assert rejection(trading(), Plant(0, 0, "red")) == (
        "RULES §5.3 (phase 3: plant traded cards): cards are planted in phase 3, once the active "
        "player ends trading"
    )


def test_an_open_offer_still_gives_the_same_card_after_an_earlier_hand_card_was_traded():
    state, _ = run(
        trading(),
        Offer(1, 0, hand=(2,), wants=("red",)),
        Offer(1, 0, hand=(0,)),
        Accept(0, 2),
    )

    state, events = run(state, Accept(0, 1, revealed=("red",)))

    assert events[-1].to_acceptor == ["stink"]
    assert state.players[1].hand == ("blue",)
    assert state.players[0].trade_area == ("blue", "stink")
