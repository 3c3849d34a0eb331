"""The audit finds a broken invariant in a tampered record (so a clean audit means something)."""

from __future__ import annotations

import dataclasses

import pytest

from domain.rules import events as ev
from domain.rules.audit import audit, check_step
from domain.rules.evolve import fold
from tests.unit.test_bot_games import play


@pytest.fixture(scope="module")
def facts() -> list[ev.Event]:
    return play("rio-grande", 4, "greedy", seed=1).facts


def first(facts, kind, **match):
    for position, fact in enumerate(facts):
        if isinstance(fact, kind) and all(getattr(fact, k) == v for k, v in match.items()):
            return position
    raise LookupError(kind)


def test_an_untouched_game_passes_the_audit(facts):
    assert audit(facts) == []


def test_a_harvest_paying_more_than_the_beanometer_is_found(facts):
    at = first(facts, ev.FieldHarvested, final=False)
    tampered = list(facts)
    tampered[at] = dataclasses.replace(facts[at], coins=facts[at].coins + 1)

    problems = audit(tampered)

    assert any("pay" in p.message for p in problems)
    assert problems[0].position == at + 1


def test_a_drawn_card_that_is_not_the_pile_s_card_breaks_conservation(facts):
    at = first(facts, ev.CardDrawn)
    other = "coffee" if facts[at].bean != "coffee" else "blue"
    tampered = list(facts)
    tampered[at] = dataclasses.replace(facts[at], bean=other)

    assert any("on the table" in p.message for p in audit(tampered))


def test_a_trade_delivering_a_card_nobody_gave_breaks_conservation(facts):
    at = first(facts, ev.TradeAccepted)
    tampered = list(facts)
    tampered[at] = dataclasses.replace(facts[at], to_acceptor=[*facts[at].to_acceptor, "blue"])

    assert any("on the table" in p.message for p in audit(tampered))


def test_a_reordered_hand_is_found(facts):
    state = fold(facts[:2])
    player = state.players[0]
    shuffled = player.replace(hand=tuple(reversed(player.hand)))
    after = state.replace(players=(shuffled, *state.players[1:]))
    assert player.hand != shuffled.hand

    problems = check_step(state, ev.TradeDeclined(offer=1, seat=1), after)

    assert any("changed order" in message for message in problems)


def test_a_game_that_goes_on_after_its_final_exhaustion_is_found(facts):
    end = first(facts, ev.DeckExhausted, final=True)
    tampered = [*facts[:end], dataclasses.replace(facts[end], final=False), *facts[end + 1 :]]

    assert any("final exhaustion" in p.message for p in audit(tampered))


def test_a_wrong_final_score_is_found(facts):
    ended = facts[-1]
    assert isinstance(ended, ev.GameEnded)
    tampered = [*facts[:-1], dataclasses.replace(ended, scores=[s + 1 for s in ended.scores])]

    assert any("scored" in p.message for p in audit(tampered))
