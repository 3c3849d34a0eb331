"""Tabletop games whose hands the recorder never sees (RULES §3.4, §4.4): late-binding cards.

The deal and the draws into a hand name no card; a hand card is named when the table shows it (a
plant from the front, a trade, a discard, the hands shown at the end). Every name is checked
against the beans its draw pile has not shown yet, and nothing else: the game knows only what the
table has seen.
"""

from __future__ import annotations

from collections import Counter

import pytest

from domain.bots import simulate, simulate_under
from domain.rules import commands as cmd
from domain.rules import decide, fold
from domain.rules import events as ev
from domain.rules.audit import audit, check_state
from domain.rules.decide import start_game
from domain.rules.errors import MalformedCommand, RuleViolation
from domain.rules.evolve import full_deck
from domain.rules.legal import legal_commands
from domain.rules.rulesets import resolve_ruleset
from domain.rules.state import TABLETOP, UNKNOWN_HANDS, GameState, Phase, pile_of
from domain.rules.transcript import redecide
from domain.rules.witness import witness
from projections.views import Viewer, render, view_of, viewers
from tests.builders import NAMES, cards, run
from tests.games import CONFIGS, OPTION_VALUES


def started(players: int = 3, preset: str = "rio-grande") -> list[ev.Event]:
    """The facts that start a tabletop game with unknown hands."""
    ruleset = resolve_ruleset(preset, players)
    return start_game(ruleset, NAMES[:players], mode=TABLETOP, hands=UNKNOWN_HANDS)


def unknown_game(players: int = 3, preset: str = "rio-grande") -> GameState:
    """A tabletop game with unknown hands, just dealt."""
    return fold(started(players, preset))


def with_seen(state: GameState, beans: str) -> GameState:
    """`state` with these cards (from the draw pile; "6 garden") lying face up on the discard
    pile: the deck no longer hides them."""
    seen = cards(beans)
    pool = list(state.pools[0])
    for bean in seen:
        pool.remove(bean)
    return state.replace(
        pools=(tuple(pool),),
        draw_pile=state.draw_pile[len(seen) :],
        discard_pile=(*state.discard_pile, *seen),
    )


def test_the_deal_of_a_game_with_unknown_hands_counts_each_seats_cards_and_names_none() -> None:
    state = unknown_game(3)
    assert state.phase is Phase.PLANT
    assert [len(player.hand) for player in state.players] == [5, 5, 5]
    assert all(pile_of(card) == 0 for player in state.players for card in player.hand)
    assert len(state.draw_pile) == 150 - 15
    assert Counter(state.pools[0]) == Counter(full_deck(state.ruleset))


def test_the_deal_of_six_players_follows_the_seat_order_from_the_start_player() -> None:
    state = unknown_game(6)
    assert [len(player.hand) for player in state.players] == [3, 4, 5, 6, 6, 6]


def test_planting_a_front_card_nobody_has_seen_needs_its_bean() -> None:
    state = unknown_game()
    with pytest.raises(MalformedCommand, match="name its bean"):
        decide(state, cmd.Plant(0, 0))


@pytest.mark.parametrize(
    ("seen", "bean", "refusal"),
    [
        ("", "garden", None),
        ("5 garden", "garden", None),
        ("6 garden", "garden", "RULES §4.4"),
        ("", "cocoa", "RULES §2"),
    ],
    ids=["any bean", "the last one the deck hides", "every one seen", "not in play"],
)
def test_a_planted_card_nobody_had_seen_is_a_bean_the_deck_still_hides(
    seen: str, bean: str, refusal: str | None
) -> None:
    state = with_seen(unknown_game(), seen)
    if refusal is None:
        after, facts = run(state, cmd.Plant(0, 0, bean))
        assert facts == [ev.BeanPlanted(0, bean, 0, "hand")]
        assert after.pools[0].count(bean) == state.pools[0].count(bean) - 1
    else:
        with pytest.raises(RuleViolation) as refused:
            decide(state, cmd.Plant(0, 0, bean))
        assert str(refused.value).startswith(refusal + " ")


def test_a_reveal_names_only_beans_the_draw_pile_still_hides() -> None:
    state, _ = run(with_seen(unknown_game(), "5 garden"), cmd.Plant(0, 0, "blue"))
    with pytest.raises(RuleViolation, match="every Garden it could hold has been seen"):
        decide(state, cmd.Reveal(0, ("garden", "garden")))
    after, _ = run(state, cmd.Reveal(0, ("garden", "blue")))
    assert "garden" not in after.pools[0]


def test_cards_drawn_into_a_hand_go_there_unseen() -> None:
    state = unknown_game()
    state, _ = run(
        state,
        cmd.Plant(0, 0, "blue"),
        cmd.Reveal(0, ("red", "soy")),
        cmd.EndTrading(0),
        cmd.Plant(0, 1, "red"),
        cmd.Plant(0, 2, "soy"),
    )
    assert state.phase is Phase.DRAW
    with pytest.raises(MalformedCommand, match="unseen"):
        decide(state, cmd.Draw(0, ("blue", "blue", "blue")))
    after, facts = run(state, cmd.Draw(0))
    assert [fact for fact in facts if isinstance(fact, ev.CardDrawn)] == [ev.CardDrawn(0, "?")] * 3
    assert after.players[0].hand[-3:] == ("?0", "?0", "?0")


def test_an_offer_of_hand_cards_nobody_has_seen_names_their_beans() -> None:
    state, _ = run(unknown_game(), cmd.Plant(0, 0, "blue"), cmd.Reveal(0, ("red", "soy")))
    with pytest.raises(MalformedCommand, match="hand_beans"):
        decide(state, cmd.Offer(1, 0, hand=(2,), wants=("red",)))
    _, facts = run(state, cmd.Offer(1, 0, hand=(2,), wants=("red",), hand_beans=("chili",)))
    assert facts[0].cards == ["chili"]


def test_an_acceptance_takes_its_beans_from_the_wants_when_they_decide() -> None:
    state, _ = run(
        unknown_game(),
        cmd.Plant(0, 0, "blue"),
        cmd.Reveal(0, ("red", "soy")),
        cmd.Offer(0, 1, revealed=("red",), wants=("chili", "chili")),
    )
    after, facts = run(state, cmd.Accept(1, 1, hand=(0, 3)))
    assert facts[0].to_proposer == ["chili", "chili"]
    assert after.players[1].hand == ("?0", "?0", "?0")
    assert after.pools[0].count("chili") == state.pools[0].count("chili") - 2


def test_a_hand_card_offered_is_the_bean_the_offer_named_from_then_on() -> None:
    state, _ = run(
        with_seen(unknown_game(), "5 garden"),
        cmd.Plant(0, 0, "blue"),
        cmd.Reveal(0, ("red", "soy")),
        cmd.Offer(1, 0, hand=(0,), hand_beans=("garden",), wants=("red",)),
    )
    assert state.players[1].hand[0] == "garden"
    assert "garden" not in state.pools[0]
    with pytest.raises(RuleViolation, match="every Garden it could be has been seen"):
        decide(state, cmd.Offer(2, 0, hand=(0,), hand_beans=("garden",), wants=("soy",)))
    declined, _ = run(state, cmd.Decline(0, 1))
    with pytest.raises(RuleViolation, match="is Garden, not Blue"):
        decide(declined, cmd.Offer(1, 0, hand=(0,), hand_beans=("blue",)))


def test_an_acceptance_cannot_name_the_last_hidden_bean_its_offer_names_already() -> None:
    state, _ = run(
        with_seen(unknown_game(), "5 garden"),
        cmd.Plant(0, 0, "blue"),
        cmd.Reveal(0, ("red", "soy")),
        cmd.Offer(0, 1, hand=(0,), hand_beans=("garden",), wants=("garden",)),
    )
    acceptance = cmd.Accept(1, 1, hand=(0,), hand_beans=("garden",))
    with pytest.raises(RuleViolation) as refused:
        decide(state, acceptance)
    assert str(refused.value).startswith("RULES §4.4 ")
    assert [c for c in legal_commands(state, 1) if isinstance(c, cmd.Accept)] == []


def test_a_note_changes_no_table_and_is_checked_only_against_what_the_table_saw() -> None:
    state = with_seen(unknown_game(), "6 garden")
    with pytest.raises(RuleViolation, match=r"RULES §4\.4"):
        decide(state, cmd.NoteHand(1, ("garden", "?", "?", "?", "?")))
    after, facts = run(state, cmd.NoteHand(1, ("blue", "?", "?", "red", "?")))
    assert facts == [ev.HandNoted(1, ["blue", "?", "?", "red", "?"])]
    assert after == state


def test_a_seat_sees_its_own_note_and_nobody_else_does() -> None:
    state = unknown_game()
    _, facts = run(state, cmd.NoteHand(1, ("blue", "?", "?", "red", "?")))
    history = [*started(), *facts]
    for viewer in viewers(3):
        hand = render(view_of(history, viewer), viewer)["seats"][1]["hand"]
        if viewer == Viewer.of_seat(1):
            assert hand == ["blue", None, None, "red", None]
        else:
            assert hand is None


def test_hands_shown_at_the_end_name_the_cards_nobody_saw() -> None:
    facts = redecide(simulate("rio-grande", 3, seed=2), tabletop=True, unknown_hands=True)
    state = fold(facts)
    assert state.is_over
    hand = state.players[0].hand
    truth = fold(simulate("rio-grande", 3, seed=2)).players[0].hand
    assert len(hand) == len(truth)
    with pytest.raises(RuleViolation, match=r"RULES §10\.6"):
        decide(fold(facts[:-3]), cmd.ShowHand(0, truth))
    after, shown = run(state, cmd.ShowHand(0, truth))
    assert shown == [ev.HandShown(0, list(truth))]
    assert after.players[0].hand == truth
    assert not check_state(after)


def test_a_card_from_a_reshuffled_pile_may_be_only_a_bean_that_pile_still_hides() -> None:
    facts = redecide(simulate("rio-grande", 4, seed=4), tabletop=True, unknown_hands=True)
    for index in range(len(facts)):
        state = fold(facts[: index + 1])
        if state.reshuffles and not state.is_over and state.phase is Phase.PLANT:
            front = state.players[state.active].hand[:1]
            if front and pile_of(front[0]) == state.reshuffles and state.planted == 0:
                break
    else:
        pytest.skip("no turn began with a card of a reshuffled pile in front")
    only_older = set(state.pools[0]) - set(state.pools[state.reshuffles])
    assert only_older, "the deck's unseen beans and the new pile's differ"
    with pytest.raises(RuleViolation, match=r"RULES §4\.4"):
        decide(state, cmd.Plant(state.active, 0, sorted(only_older)[0]))


@pytest.mark.slow  # a complete game for each case
@pytest.mark.parametrize(("preset", "players"), CONFIGS, ids=[f"{p}-{n}" for p, n in CONFIGS])
@pytest.mark.parametrize("seed", [0, 1])
def test_every_bot_game_replays_with_unknown_hands_to_the_same_result_and_stays_sound(
    preset: str, players: int, seed: int
) -> None:
    digital = simulate(preset, players, bot=("greedy", "random")[seed % 2], seed=seed)
    hidden = redecide(digital, tabletop=True, unknown_hands=True)
    assert fold(hidden).result == fold(digital).result
    assert audit(hidden) == []
    assert not any(
        isinstance(fact, ev.CardsDealt | ev.CardDrawn)
        and any(card != "?" for card in getattr(fact, "hands", [[getattr(fact, "bean", "?")]])[0])
        for fact in hidden
    )


@pytest.mark.slow  # a complete game for each case
@pytest.mark.parametrize(("preset", "players"), CONFIGS, ids=[f"{p}-{n}" for p, n in CONFIGS])
@pytest.mark.parametrize("bot", ["greedy", "random"])
def test_bots_play_a_game_with_unknown_hands_to_its_end_naming_only_what_the_table_shows(
    preset: str, players: int, bot: str
) -> None:
    ruleset = resolve_ruleset(preset, players)
    facts = simulate_under(ruleset, bot=bot, seed=players, mode=TABLETOP, hands=UNKNOWN_HANDS)
    assert fold(facts).is_over
    assert audit(facts) == []
    assert redecide(facts, tabletop=True) == facts
    dealt = [
        card for f in facts if isinstance(f, ev.CardsDealt) for hand in f.hands for card in hand
    ]
    drawn = [fact.bean for fact in facts if isinstance(fact, ev.CardDrawn)]
    assert set(dealt + drawn) == {"?"}


@pytest.mark.slow  # a complete game for each case
@pytest.mark.parametrize(
    ("name", "value"), OPTION_VALUES, ids=[f"{n}={v}" for n, v in OPTION_VALUES]
)
def test_every_option_plays_with_unknown_hands(name: str, value: object) -> None:
    preset, players = ("rio-grande", 2) if name.startswith("duel") else ("rio-grande", 4)
    digital = simulate(preset, players, bot="random", seed=3, options={name: value})
    hidden = redecide(digital, tabletop=True, unknown_hands=True)
    assert fold(hidden).result == fold(digital).result
    assert audit(hidden) == []


def test_no_view_of_a_game_with_unknown_hands_names_a_card_the_table_did_not_show() -> None:
    hidden = redecide(simulate("rio-grande", 4, seed=5), tabletop=True, unknown_hands=True)
    for cut in range(1, len(hidden), 37):
        table = fold(hidden[:cut])  # the cards the table saw are named there (offered ones)
        for viewer in viewers(4):
            document = render(view_of(hidden[:cut], viewer), viewer)
            for seat in document["seats"]:
                for position, card in enumerate(seat["hand"] or []):
                    seen = table.players[seat["seat"]].hand[position]
                    assert card is None or (pile_of(seen) is None and card == seen)


def test_legal_commands_name_every_bean_an_unseen_front_card_may_be_and_decide_takes_them() -> None:
    state = with_seen(unknown_game(), "6 garden")
    plants = [c for c in legal_commands(state, 0) if isinstance(c, cmd.Plant)]
    assert {c.bean for c in plants} == set(state.pools[0])
    assert "garden" not in {c.bean for c in plants}
    for command in plants:
        decide(state, command)


# --- the witness: one assignment of beans to the cards nobody saw, checked -----------------------


@pytest.mark.slow  # a complete game for each case
@pytest.mark.parametrize(("preset", "players"), CONFIGS, ids=[f"{p}-{n}" for p, n in CONFIGS])
def test_a_game_with_unknown_hands_has_a_witness_that_replays_as_a_game_with_known_hands(
    preset: str, players: int
) -> None:
    ruleset = resolve_ruleset(preset, players)
    facts = simulate_under(ruleset, bot="random", seed=players, mode=TABLETOP, hands=UNKNOWN_HANDS)
    known = witness(facts)

    assert known is not None
    assert "?" not in {
        card for f in known if isinstance(f, ev.CardsDealt) for h in f.hands for card in h
    }
    assert "?" not in {fact.bean for fact in known if isinstance(fact, ev.CardDrawn)}
    assert audit(known) == []
    assert redecide(known, tabletop=True) == known
    assert fold(known).result == fold(facts).result


def test_the_witness_gives_a_digital_games_hidden_cards_beans_that_fit_what_the_table_saw() -> None:
    digital = simulate("rio-grande", 4, bot="greedy", seed=8)
    known = witness(redecide(digital, tabletop=True, unknown_hands=True))
    assert known is not None
    assert audit(known) == []
    assert fold(known).result == fold(digital).result


def test_a_game_with_known_hands_needs_no_witness() -> None:
    assert witness(simulate("rio-grande", 3, seed=1)) is None
