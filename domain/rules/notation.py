"""Text for people: one line per event, and the table drawn as text.

`describe(event, names)` gives the public one-line summary (a drawn card is "a card" unless
`show_hidden`); `draw_table(state)` renders the table for the CLI and for tests' failure messages.
"""

from __future__ import annotations

from collections.abc import Sequence

from . import commands as cmd
from . import events as ev
from .beans import beans_text, coins_text, label
from .rulesets import MOST_HAND_CARDS, SEAT_DISTANCE
from .state import UNKNOWN, GameState, is_hidden, pile_of
from .table import field_name

TIE_BREAK_WORDS = {
    MOST_HAND_CARDS: "most hand cards",
    SEAT_DISTANCE: "furthest clockwise from the start player",
}
"""How a tie for most coins was broken, in the rulebook's words (RULES §10.7)."""


def tie_break_text(decided_by: str | None) -> str:
    """ " (tie broken by most hand cards)" after a result; nothing when no tie was broken, or
    when it was shared (the verb says so)."""
    words = TIE_BREAK_WORDS.get(decided_by or "")
    return f" (tie broken by {words})" if words else ""


def _ordinal(n: int) -> str:
    return {1: "1st", 2: "2nd", 3: "3rd"}.get(n, f"{n}th")


def describe(event: ev.Event, names: Sequence[str], *, show_hidden: bool = False) -> str:
    """One line saying what happened, e.g. "Ana harvests field 1 (6 Blue) → 2 coins". With
    `show_hidden`, the cards of a fact redacted for a viewer show as that viewer saw them."""

    def who(seat: int) -> str:
        return names[seat]

    match event:
        case ev.GameStarted():
            preset = event.ruleset["preset"]
            return (
                f"Game started: {', '.join(event.seats)} ({preset}, {event.mode}); "
                f"{names[event.start_seat]} starts"
            )
        case ev.CardsDealt():
            if show_hidden:
                hands = "; ".join(
                    f"{who(seat)}: "
                    + (
                        f"{len(hand)} cards"
                        if UNKNOWN in hand
                        else " ".join(label(b) for b in hand)
                    )
                    for seat, hand in enumerate(event.hands)
                )
                return f"Cards dealt — {hands}"
            sizes = ", ".join(f"{who(seat)} {len(hand)}" for seat, hand in enumerate(event.hands))
            return f"Cards dealt ({sizes})"
        case ev.BeanPlanted():
            source = {
                "hand": "from the hand",
                "trade-area": "from the trade area",
                "offer": "from the offer",
                "revealed": "from the drawn cards",
            }[event.source]
            return f"{who(event.seat)} plants {label(event.bean)} {source} in {field_name(event.field)}"
        case ev.CardsRevealed():
            return f"{who(event.seat)} reveals {beans_text(event.cards)}"
        case ev.TradeOffered():
            gives = beans_text(event.cards) if event.cards else "nothing"
            wants = beans_text(event.wants) if event.wants else "nothing"
            return (
                f"#{event.offer} {who(event.proposer)} offers {who(event.to)} {gives} for {wants}"
            )
        case ev.TradeAccepted():
            lapsed = (
                f" (lapsed: {', '.join(f'#{o}' for o in event.lapsed)})" if event.lapsed else ""
            )
            return (
                f"#{event.offer} {who(event.acceptor)} accepts: {who(event.proposer)} gets "
                f"{beans_text(event.to_proposer)}, {who(event.acceptor)} gets "
                f"{beans_text(event.to_acceptor)}{lapsed}"
            )
        case ev.TradeDeclined():
            return f"#{event.offer} {who(event.seat)} declines"
        case ev.TradeWithdrawn():
            return f"#{event.offer} {who(event.seat)} withdraws the offer"
        case ev.TradingEnded():
            kept = f"; keeps {beans_text(event.kept)}" if event.kept else ""
            return f"{who(event.seat)} ends trading{kept}"
        case ev.FieldHarvested():
            final = "final harvest: " if event.final else ""
            return (
                f"{final}{who(event.seat)} harvests {field_name(event.field)} "
                f"({event.count} {label(event.bean)}) → {coins_text(event.coins)}"
            )
        case ev.ThirdFieldBought():
            where = "the discard pile" if event.destination == "discard-pile" else "out of the game"
            return f"{who(event.seat)} buys a third field for {len(event.coins)} coins ({where})"
        case ev.CardDrawn():
            card = label(event.bean) if show_hidden and event.bean != UNKNOWN else "a card"
            return f"{who(event.seat)} draws {card}"
        case ev.DeckExhausted():
            end = " — the game ends" if event.final else ""
            return f"The draw pile is exhausted for the {_ordinal(event.count)} time{end}"
        case ev.DrawFailed():
            return (
                f"{who(event.seat)} must {event.step} a card but the draw pile is empty "
                "and will not be refilled: the end of the game is triggered"
            )
        case ev.DiscardsReshuffled():
            return f"The discard pile ({event.size} cards) is shuffled into a new draw pile"
        case ev.TurnEnded():
            return f"{who(event.seat)}'s turn {event.turn} ends; {who(event.next_seat)} is next"
        case ev.GameEnded():
            scores = ", ".join(f"{who(s)} {score}" for s, score in enumerate(event.scores))
            winners = " and ".join(who(s) for s in event.winners)
            how = tie_break_text(event.decided_by)
            verb = "wins" if len(event.winners) == 1 else "share the win"
            return f"Game over — {scores}; {winners} {verb}{how}"
        case ev.OfferedCardDiscarded():
            return f"{who(event.seat)} discards the offered {label(event.bean)}"
        case ev.HandCardDiscarded():
            return f"{who(event.seat)} discards {label(event.bean)} from hand position {event.position + 1}"
        case ev.DiscardsMatched():
            return f"{who(event.seat)} adds {beans_text(event.cards)} from the discard pile"
        case ev.CardsOffered():
            cards = beans_text(event.cards) if event.cards else "nothing"
            return f"{who(event.seat)} leaves {cards} as an offer"
        case ev.HandNoted() | ev.HandKnown():
            noted = [bean for bean in event.cards if bean != UNKNOWN]
            if show_hidden and noted:
                return f"{who(event.seat)} notes their hand: " + " ".join(
                    label(bean) if bean != UNKNOWN else "?" for bean in event.cards
                )
            return f"{who(event.seat)} notes their hand (for their own eyes)"
        case ev.HandShown():
            return f"{who(event.seat)} shows their hand: {' '.join(label(b) for b in event.cards)}"
        case ev.EntriesCorrected():
            return f"The host corrects the record ({_changes_text(event.changes)})"
        case ev.TableReplaced():
            return "The host corrects the record"
    return event.kind


def _changes_text(changes: Sequence[dict[str, object]]) -> str:
    words = {"replace": "corrects", "delete": "deletes", "insert": "inserts before"}
    return "; ".join(
        f"{words.get(str(c.get('action')), c.get('action'))} entry {c.get('entry')}"
        for c in changes
    )


def describe_command(command: cmd.Command, names: Sequence[str]) -> str:
    """A command in words, as an entry of a record: "Ben plants Blue in field 2", "Ana reveals
    Blue, Green", "the deal"."""

    def who(seat: int) -> str:
        return names[seat] if 0 <= seat < len(names) else f"seat {seat}"

    def cards(beans: Sequence[str] | None) -> str:
        if not beans:
            return "no cards"
        seen = [bean for bean in beans if bean != UNKNOWN]
        unseen = len(beans) - len(seen)
        parts = [beans_text(seen)] if seen else []
        if unseen:
            parts.append(f"{unseen} unseen card{'s' if unseen != 1 else ''}")
        return ", ".join(parts)

    match command:
        case cmd.Deal():
            return "the deal"
        case cmd.Plant():
            bean = f"{label(command.bean)} " if command.bean else ""
            return f"{who(command.seat)} plants {bean}in {field_name(command.field)}"
        case cmd.Reveal():
            return f"{who(command.seat)} reveals {cards(command.cards)}"
        case cmd.Draw():
            return f"{who(command.seat)} draws {cards(command.cards)}"
        case cmd.Offer():
            given = [*(command.hand_beans or ()), *command.revealed, *command.trade_area]
            hand = len(command.hand) - len(command.hand_beans or ())
            gives = beans_text(given) if given else ""
            if hand:
                gives = f"{gives}{', ' if gives else ''}{hand} hand card{'s' if hand != 1 else ''}"
            wants = beans_text(command.wants) if command.wants else "nothing"
            return f"{who(command.seat)} offers {who(command.to)} {gives or 'nothing'} for {wants}"
        case cmd.Accept():
            return f"{who(command.seat)} accepts offer #{command.offer}"
        case cmd.Decline():
            return f"{who(command.seat)} declines offer #{command.offer}"
        case cmd.Withdraw():
            return f"{who(command.seat)} withdraws offer #{command.offer}"
        case cmd.EndTrading():
            return f"{who(command.seat)} ends trading"
        case cmd.Harvest():
            return f"{who(command.seat)} harvests {field_name(command.field)}"
        case cmd.BuyField():
            return f"{who(command.seat)} buys a third field"
        case cmd.DiscardOffered():
            return f"{who(command.seat)} discards the offered {label(command.bean)}"
        case cmd.DiscardFromHand():
            bean = f"{label(command.bean)} " if command.bean else ""
            return f"{who(command.seat)} discards {bean}from hand position {command.position + 1}"
        case cmd.OfferRest():
            return f"{who(command.seat)} leaves the rest as an offer"
        case cmd.NoteHand():
            return f"{who(command.seat)} notes their hand"
        case cmd.ShowHand():
            return f"{who(command.seat)} shows their hand: {cards(command.cards)}"
    return command.type


def card_text(card: str) -> str:
    """A card for people: its bean, "?" for one the viewer does not know, "unseen" for one
    nobody has seen."""
    if not is_hidden(card):
        return label(card)
    return "unseen" if pile_of(card) is not None else UNKNOWN


def draw_table(state: GameState) -> str:
    """The whole table as text, hidden cards included (for recorders, audits and tests)."""
    rules = state.ruleset
    lines = [
        f"{rules.preset}, {rules.players} players, {state.mode}; turn {state.turn}, "
        f"{state.name(state.active)} active, at {state.phase_text}",
        f"draw pile {len(state.draw_pile)} · discard pile {len(state.discard_pile)}"
        + (f" (top {label(state.discard_pile[-1])})" if state.discard_pile else "")
        + f" · exhausted {state.exhaustions}/{rules.end_on_exhaustion}",
    ]
    if state.revealed:
        lines.append(f"face up: {beans_text(state.revealed)}")
    if state.duel_offer:
        lines.append(f"offer: {beans_text(state.duel_offer)}")
    for offer in state.offers:
        lines.append(
            f"offer #{offer.id}: {state.name(offer.proposer)} → {state.name(offer.to)}: "
            f"{beans_text(offer.gives)} for {beans_text(offer.wants)}"
        )
    for seat, player in enumerate(state.players):
        fields = " | ".join(field.text() for field in player.fields)
        hand = " ".join(card_text(card) for card in player.hand) or "—"
        lines.append(f"{'*' if seat == state.active else ' '} {player.name}: [{fields}]")
        lines.append(f"    hand: {hand}")
        lines.append(
            f"    coins: {len(player.coins)}"
            + (f" · trade area: {beans_text(player.trade_area)}" if player.trade_area else "")
        )
    return "\n".join(lines)
