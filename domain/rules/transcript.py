"""The commands behind a game's facts: what was asked, in order, recovered from what happened.

Facts that follow from a command with no choice (reshuffles, exhaustions, turn ends, matching discard
cards in the duel, the final harvest, the result) are not commands and are skipped. Re-deciding the
commands from the start reproduces the facts. With `tabletop=True` the chance steps carry the cards
that came off the pile, so a digital game can be replayed card for card as a tabletop record.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import Any

from . import commands as cmd
from . import events as ev
from .decide import decide, start_game
from .evolve import fold
from .rulesets import Ruleset
from .state import TABLETOP

FOLLOW_UPS = (
    ev.GameStarted,
    ev.DeckExhausted,
    ev.DiscardsReshuffled,
    ev.TurnEnded,
    ev.GameEnded,
    ev.DiscardsMatched,
)
"""Facts no command asks for directly."""


def commands_from_facts(facts: Iterable[ev.Event], *, tabletop: bool) -> list[cmd.Command]:
    """The commands that produced `facts` (which start with GameStarted)."""
    commands: list[cmd.Command] = []
    chance: cmd.Reveal | cmd.Draw | None = None
    for fact in facts:
        if isinstance(fact, FOLLOW_UPS):
            continue
        if isinstance(fact, ev.FieldHarvested) and fact.final:
            continue
        if isinstance(fact, ev.CardsRevealed):
            if isinstance(chance, cmd.Reveal):
                chance = cmd.Reveal(fact.seat, (*(chance.cards or ()), *fact.cards))
                commands[-1] = chance
            else:
                chance = cmd.Reveal(fact.seat, tuple(fact.cards))
                commands.append(chance)
            continue
        if isinstance(fact, ev.DrawFailed):
            kind = cmd.Reveal if fact.step == "reveal" else cmd.Draw
            if not isinstance(chance, kind):
                chance = kind(fact.seat, ())
                commands.append(chance)
            continue
        if isinstance(fact, ev.CardDrawn):
            if isinstance(chance, cmd.Draw):
                chance = cmd.Draw(fact.seat, (*(chance.cards or ()), fact.bean))
                commands[-1] = chance
            else:
                chance = cmd.Draw(fact.seat, (fact.bean,))
                commands.append(chance)
            continue
        chance = None
        command = _command_for(fact, tabletop)
        if command is not None:
            commands.append(command)
    if not tabletop:
        commands = [
            cmd.Reveal(c.seat)
            if isinstance(c, cmd.Reveal)
            else cmd.Draw(c.seat)
            if isinstance(c, cmd.Draw)
            else c
            for c in commands
        ]
    return commands


def _command_for(fact: ev.Event, tabletop: bool) -> cmd.Command | None:
    match fact:
        case ev.CardsDealt():
            return cmd.Deal(tuple(tuple(hand) for hand in fact.hands)) if tabletop else None
        case ev.BeanPlanted():
            return cmd.Plant(fact.seat, fact.field, fact.bean)
        case ev.TradeOffered():
            return cmd.Offer(
                fact.proposer,
                fact.to,
                tuple(fact.hand),
                tuple(fact.revealed),
                tuple(fact.trade_area),
                tuple(fact.wants),
            )
        case ev.TradeAccepted():
            return cmd.Accept(
                fact.acceptor,
                fact.offer,
                tuple(fact.acceptor_hand),
                tuple(fact.acceptor_revealed),
                tuple(fact.acceptor_trade_area),
            )
        case ev.TradeDeclined():
            return cmd.Decline(fact.seat, fact.offer)
        case ev.TradeWithdrawn():
            return cmd.Withdraw(fact.seat, fact.offer)
        case ev.TradingEnded():
            return cmd.EndTrading(fact.seat)
        case ev.FieldHarvested():
            return cmd.Harvest(fact.seat, fact.field)
        case ev.ThirdFieldBought():
            return cmd.BuyField(fact.seat)
        case ev.OfferedCardDiscarded():
            return cmd.DiscardOffered(fact.seat, fact.bean)
        case ev.HandCardDiscarded():
            return cmd.DiscardFromHand(fact.seat, fact.position)
        case ev.CardsOffered():
            return cmd.OfferRest(fact.seat)
    raise ValueError(f"no command produces {fact.kind}")


def redecide(facts: Sequence[ev.Event], *, tabletop: bool) -> list[ev.Event]:
    """Decide a game's commands again from its start: in digital form (the same seed and deck,
    so the very same facts), or as a tabletop game naming every card as it came off the pile."""
    first = facts[0]
    assert isinstance(first, ev.GameStarted), "a game's facts start with GameStarted"
    ruleset = Ruleset.from_dict(first.ruleset)
    chance: dict[str, Any] = (
        {"mode": TABLETOP} if tabletop else {"seed": first.seed, "deck": first.deck}
    )
    replayed = start_game(
        ruleset, first.seats, start_seat=first.start_seat, sandbox=first.sandbox, **chance
    )
    state = fold(replayed)
    for command in commands_from_facts(facts, tabletop=tabletop):
        new = decide(state, command)
        state = fold(new, state)
        replayed += new
    return replayed
