"""The commands behind a game's facts: what was asked, in order, recovered from what happened.

Facts that follow from a command with no choice (reshuffles, exhaustions, turn ends, matching discard
cards in the duel, the final harvest, the result) are not commands: they belong to the entry of the
command that caused them. Re-deciding the commands from the start reproduces the facts. With
`tabletop=True` the chance steps carry the cards that came off the pile, so a digital game can be
replayed card for card as a tabletop record; with `unknown_hands=True` as well, as a tabletop game
whose hands nobody saw: the deal and the draws name no card, and the plants, trades and discards
name the beans they show.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import Any

from . import commands as cmd
from . import events as ev
from .decide import decide, start_game
from .evolve import fold
from .rulesets import Ruleset
from .state import KNOWN_HANDS, TABLETOP, UNKNOWN_HANDS, UNSEEN

FOLLOW_UPS = (
    ev.GameStarted,
    ev.DeckExhausted,
    ev.DiscardsReshuffled,
    ev.TurnEnded,
    ev.GameEnded,
    ev.DiscardsMatched,
)
"""Facts no command asks for directly."""


@dataclass(frozen=True, slots=True)
class Entry:
    """One command of a game and the facts it decided: `facts[first:stop]`, follow-ups included."""

    command: cmd.Command
    first: int
    stop: int


def entries(
    facts: Sequence[ev.Event], *, tabletop: bool, unknown_hands: bool | None = None
) -> list[Entry]:
    """The commands that produced `facts` (which start with GameStarted), with the facts of each.
    The facts before the first command (the start, a deal made with it) belong to no entry.
    `unknown_hands` (default: as the game was played) writes the commands of a game whose hands
    nobody saw; it needs `tabletop`."""
    first = facts[0]
    assert isinstance(first, ev.GameStarted), "a game's facts start with GameStarted"
    hidden = first.hands == UNKNOWN_HANDS if unknown_hands is None else unknown_hands
    found: list[Entry] = []
    chance: cmd.Reveal | cmd.Draw | None = None

    def add(command: cmd.Command, index: int) -> None:
        found.append(Entry(command, index, index + 1))

    def extend(command: cmd.Command, index: int) -> None:
        found[-1] = Entry(command, found[-1].first, index + 1)

    for index, fact in enumerate(facts):
        if isinstance(fact, FOLLOW_UPS) or (isinstance(fact, ev.FieldHarvested) and fact.final):
            if found:
                extend(found[-1].command, index)
            continue
        if isinstance(fact, ev.CardsRevealed):
            if isinstance(chance, cmd.Reveal):
                chance = cmd.Reveal(fact.seat, (*(chance.cards or ()), *fact.cards))
                extend(chance, index)
            else:
                chance = cmd.Reveal(fact.seat, tuple(fact.cards))
                add(chance, index)
            continue
        if isinstance(fact, ev.DrawFailed):
            kind = cmd.Reveal if fact.step == "reveal" else cmd.Draw
            if isinstance(chance, kind):
                extend(chance, index)
            else:
                chance = kind(fact.seat, ())
                add(chance, index)
            continue
        if isinstance(fact, ev.CardDrawn):
            bean = UNSEEN if hidden else fact.bean
            if isinstance(chance, cmd.Draw):
                chance = cmd.Draw(fact.seat, (*(chance.cards or ()), bean))
                extend(chance, index)
            else:
                chance = cmd.Draw(fact.seat, (bean,))
                add(chance, index)
            continue
        chance = None
        command = _command_for(fact, tabletop=tabletop, hidden=hidden)
        if command is not None:
            add(command, index)
        elif found:
            extend(found[-1].command, index)
    if not tabletop:
        found = [_without_cards(entry) for entry in found]
    return found


def _without_cards(entry: Entry) -> Entry:
    command = entry.command
    if isinstance(command, cmd.Reveal):
        return Entry(cmd.Reveal(command.seat), entry.first, entry.stop)
    if isinstance(command, cmd.Draw):
        return Entry(cmd.Draw(command.seat), entry.first, entry.stop)
    return entry


def commands_from_facts(
    facts: Iterable[ev.Event], *, tabletop: bool, unknown_hands: bool | None = None
) -> list[cmd.Command]:
    """The commands that produced `facts` (which start with GameStarted)."""
    return [
        entry.command
        for entry in entries(list(facts), tabletop=tabletop, unknown_hands=unknown_hands)
    ]


def _command_for(fact: ev.Event, *, tabletop: bool, hidden: bool) -> cmd.Command | None:
    match fact:
        case ev.CardsDealt():
            if not tabletop or hidden:
                return None  # dealt with the game's start: no card is named
            return cmd.Deal(tuple(tuple(hand) for hand in fact.hands))
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
                tuple(fact.cards[: len(fact.hand)]) if hidden and fact.hand else None,
            )
        case ev.TradeAccepted():
            return cmd.Accept(
                fact.acceptor,
                fact.offer,
                tuple(fact.acceptor_hand),
                tuple(fact.acceptor_revealed),
                tuple(fact.acceptor_trade_area),
                tuple(fact.to_proposer[: len(fact.acceptor_hand)])
                if hidden and fact.acceptor_hand
                else None,
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
            return cmd.DiscardFromHand(fact.seat, fact.position, fact.bean if hidden else None)
        case ev.CardsOffered():
            return cmd.OfferRest(fact.seat)
        case ev.HandNoted():
            return cmd.NoteHand(fact.seat, tuple(fact.cards))
        case ev.HandShown():
            return cmd.ShowHand(fact.seat, tuple(fact.cards))
        case ev.EntriesCorrected():
            return correction_command(fact)
    raise ValueError(f"no command produces {fact.kind}")


def correction_command(fact: ev.EntriesCorrected) -> cmd.Correct:
    """The command a stored correction carried out."""
    return cmd.Correct(tuple(_change(change) for change in fact.changes))


def _change(data: dict[str, Any]) -> cmd.Change:
    command = data.get("command")
    parsed = None if command is None else cmd.parse_command(command)
    return cmd.Change(data["entry"], data["action"], parsed)


def redecide(
    facts: Sequence[ev.Event], *, tabletop: bool, unknown_hands: bool | None = None
) -> list[ev.Event]:
    """Decide a game's commands again from its start: in digital form (the same seed and deck,
    so the very same facts), or as a tabletop game naming every card as it came off the pile, or
    (`unknown_hands`; default: as the game was played) as a tabletop game whose hands nobody saw.
    The facts hold no correction (pass a game's corrected facts, `errata.effective`)."""
    first = facts[0]
    assert isinstance(first, ev.GameStarted), "a game's facts start with GameStarted"
    hidden = first.hands == UNKNOWN_HANDS if unknown_hands is None else unknown_hands
    ruleset = Ruleset.from_dict(first.ruleset)
    chance: dict[str, Any] = (
        {"mode": TABLETOP, "hands": UNKNOWN_HANDS if hidden else KNOWN_HANDS}
        if tabletop
        else {"seed": first.seed, "deck": first.deck}
    )
    replayed = start_game(
        ruleset, first.seats, start_seat=first.start_seat, sandbox=first.sandbox, **chance
    )
    state = fold(replayed)
    for command in commands_from_facts(facts, tabletop=tabletop, unknown_hands=hidden):
        new = decide(state, command)
        state = fold(new, state)
        replayed += new
    return replayed
