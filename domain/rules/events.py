"""Domain events: past-tense facts in the game's language (ARCHITECTURE §4).

Payloads are JSON primitives only (lists, str-keyed dicts, str, int, bool, None), so a stored event
round-trips unchanged. Each event carries what is needed to replay it without the rules or a random
generator: the card drawn, the new order of a reshuffled pile, the coins a harvest earned.

`secret` says who may see which fields; everything not listed is public. Audiences:
"seat" (the seat named by the event's `seat` field), "proposer" (the event's `proposer`),
"each-seat" (a list whose item i belongs to seat i) and "nobody" (no player; auditors only).

In a game with unknown hands (`GameStarted.hands == "unknown"`), a card nobody at the table has
seen yet is written UNSEEN ("?"): the deal and the draws into a hand name no card, and a card is
named by the fact that shows it (a plant from the hand, a trade, a discard, the hands shown at the
end). Such a fact is public: the service then knows only what the table has seen.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass, fields
from functools import cache
from typing import Any, ClassVar

from .values import written_out


@dataclass(frozen=True, slots=True)
class Event:
    """Base of all game events."""

    secret: ClassVar[dict[str, str]] = {}

    @property
    def kind(self) -> str:
        return type(self).__name__

    def payload(self) -> dict[str, Any]:
        """The fields by name, a fresh copy: changing it leaves the event as it was. (Each event
        type has its own, written out from its fields: `_compiled_payload`.)"""
        return {name: _copied(getattr(self, name)) for name in event_fields(type(self))}  # type: ignore[arg-type]  # a class is hashable (python/mypy#20409)


def _copied(value: Any) -> Any:
    """A JSON primitive, its lists and dicts copied all the way down (`asdict` without the
    `deepcopy` of every leaf: payloads are copied on every command)."""
    if isinstance(value, list):
        return [_copied(item) for item in value]
    if isinstance(value, dict):
        return {key: _copied(item) for key, item in value.items()}
    return value


@dataclass(frozen=True, slots=True)
class GameStarted(Event):
    """A game began: the fully resolved ruleset, the seats clockwise, the mode and the deck, and
    whether it is a sandbox."""

    ruleset: dict[str, Any]
    seats: list[str]
    start_seat: int
    mode: str
    seed: int | None
    """Digital games: seeds the reshuffles (RULES §10.2). Secret: it predicts the deck."""
    deck: list[str] | None
    """Digital games: the shuffled deck, top first. Tabletop games: None (order unknown)."""
    sandbox: bool = False
    """A what-if game (a fork of another): played like any other, counted in no standing."""
    hands: str = "known"
    """Tabletop games: "known" (the host enters every card dealt and drawn) or "unknown" (the
    deal and the draws into a hand are counted, and a card is named when the table shows it)."""

    secret: ClassVar[dict[str, str]] = {"seed": "nobody", "deck": "nobody"}


@dataclass(frozen=True, slots=True)
class CardsDealt(Event):
    """Each seat's opening hand, front card first (RULES §3.4); UNSEEN cards in a game with
    unknown hands."""

    hands: list[list[str]]

    secret: ClassVar[dict[str, str]] = {"hands": "each-seat"}


@dataclass(frozen=True, slots=True)
class BeanPlanted(Event):
    """A card went into a field. Sources: hand, trade-area, offer (duel), revealed (duel)."""

    seat: int
    bean: str
    field: int
    source: str


@dataclass(frozen=True, slots=True)
class CardsRevealed(Event):
    """Cards turned face up from the draw pile (phase 2; the duel's step 3)."""

    seat: int
    cards: list[str]


@dataclass(frozen=True, slots=True)
class TradeOffered(Event):
    """`proposer` offers `cards` to `to` for `wants`; either side may be empty (a donation)."""

    offer: int
    proposer: int
    to: int
    hand: list[int]
    """Positions (0 = front) of the offered hand cards in the proposer's hand."""
    revealed: list[str]
    trade_area: list[str]
    cards: list[str]
    wants: list[str]

    secret: ClassVar[dict[str, str]] = {"hand": "proposer"}


@dataclass(frozen=True, slots=True)
class TradeAccepted(Event):
    """An offer was accepted: the cards that moved, from where, and offers that lapsed with it."""

    offer: int
    proposer: int
    acceptor: int
    proposer_hand: list[int]
    proposer_revealed: list[str]
    proposer_trade_area: list[str]
    acceptor_hand: list[int]
    acceptor_revealed: list[str]
    acceptor_trade_area: list[str]
    to_acceptor: list[str]
    to_proposer: list[str]
    lapsed: list[int]
    """Other open offers whose cards just moved (RULES §14 E12)."""


@dataclass(frozen=True, slots=True)
class TradeDeclined(Event):
    offer: int
    seat: int


@dataclass(frozen=True, slots=True)
class TradeWithdrawn(Event):
    offer: int
    seat: int


@dataclass(frozen=True, slots=True)
class TradingEnded(Event):
    """Phase 2 is over: face-up cards nobody took go to the active player's trade area."""

    seat: int
    kept: list[str]
    lapsed: list[int]


@dataclass(frozen=True, slots=True)
class FieldHarvested(Event):
    """A whole field was sold: `coins` cards to the coin pile, the rest to the discard pile."""

    seat: int
    field: int
    bean: str
    count: int
    coins: int
    final: bool
    """True for the end-of-game harvest (RULES §10.6)."""


@dataclass(frozen=True, slots=True)
class ThirdFieldBought(Event):
    """A third field was bought with the top coins of the coin pile (RULES §9)."""

    seat: int
    coins: list[str]
    """The coin cards paid, topmost first."""
    destination: str


@dataclass(frozen=True, slots=True)
class CardDrawn(Event):
    """One card from the draw pile to the back of a hand (UNSEEN in a game with unknown hands)."""

    seat: int
    bean: str

    secret: ClassVar[dict[str, str]] = {"bean": "seat"}


@dataclass(frozen=True, slots=True)
class DeckExhausted(Event):
    """The draw pile ran out (RULES §10.1); `final` when this exhaustion triggers the end."""

    count: int
    final: bool


@dataclass(frozen=True, slots=True)
class DrawFailed(Event):
    """A card was needed and none could be had; it triggers the end. Either the pile was empty on
    its last pass, under the failed-draw house rule (RULES §12.1 H3: the game ends at once), or
    the deferred reshuffle (on-next-draw) found the discard pile empty under end-game (§14 E6:
    the end comes as at a final exhaustion, §10.4–10.5). `step` is "reveal" or "draw"."""

    seat: int
    step: str


@dataclass(frozen=True, slots=True)
class DiscardsReshuffled(Event):
    """The discard pile became the new draw pile (RULES §10.2)."""

    order: list[str] | None
    """Digital games: the new pile, top first, from the game's seeded generator. Tabletop: None."""
    size: int

    secret: ClassVar[dict[str, str]] = {"order": "nobody"}


@dataclass(frozen=True, slots=True)
class TurnEnded(Event):
    seat: int
    next_seat: int
    turn: int
    """The number of the turn that ended (the first turn is 1)."""


@dataclass(frozen=True, slots=True)
class GameEnded(Event):
    """Final standing after the final harvest (RULES §10.6–10.7)."""

    scores: list[int]
    hand_sizes: list[int]
    winners: list[int]
    decided_by: str | None


@dataclass(frozen=True, slots=True)
class OfferedCardDiscarded(Event):
    """Duel step 1: a card the opponent left as an offer went to the discard pile."""

    seat: int
    bean: str


@dataclass(frozen=True, slots=True)
class HandCardDiscarded(Event):
    """Duel step 2: the one optional discard from anywhere in the hand (RULES §11.2)."""

    seat: int
    position: int
    bean: str


@dataclass(frozen=True, slots=True)
class DiscardsMatched(Event):
    """Duel step 3: top cards of the discard pile matching a drawn card joined the drawn cards."""

    seat: int
    cards: list[str]


@dataclass(frozen=True, slots=True)
class CardsOffered(Event):
    """Duel step 3: the drawn cards not planted are left as an offer to the opponent."""

    seat: int
    cards: list[str]


@dataclass(frozen=True, slots=True)
class HandNoted(Event):
    """A seat noted, for its own eyes only, which cards it holds in a game with unknown hands:
    `cards[i]` is the bean at hand position i, or UNSEEN where it noted none. A note names no card
    for the game (the table has not seen them): it changes no table but the seat's own view."""

    seat: int
    cards: list[str]

    secret: ClassVar[dict[str, str]] = {"cards": "seat"}


@dataclass(frozen=True, slots=True)
class HandShown(Event):
    """After the end, a seat's hand shown to the table: the cards at every position, front first
    (a game with unknown hands learns the cards nobody had seen)."""

    seat: int
    cards: list[str]


@dataclass(frozen=True, slots=True)
class EntriesCorrected(Event):
    """The host corrected the record of a tabletop game: each change replaces, deletes or inserts
    one entry (a command, numbered from 0 in the game as it stood). The entries it replaced stay
    in the store; the game is the re-decision of the corrected entries.

    `changes`: `{"entry": i, "action": "replace" | "delete" | "insert", "command": {...} | None}`;
    `replaced`: the commands the changes replaced or deleted, in the order of `changes` (None for
    an insert); `table`: the whole table after the correction, for the game aggregate only (it is
    never shown: every view is folded again from the corrected facts)."""

    changes: list[dict[str, Any]]
    replaced: list[dict[str, Any] | None]
    table: dict[str, Any] | None

    secret: ClassVar[dict[str, str]] = {"table": "nobody", "changes": "host", "replaced": "host"}


EVENT_TYPES: dict[str, type[Event]] = {
    cls.__name__: cls
    for cls in (
        GameStarted,
        CardsDealt,
        BeanPlanted,
        CardsRevealed,
        TradeOffered,
        TradeAccepted,
        TradeDeclined,
        TradeWithdrawn,
        TradingEnded,
        FieldHarvested,
        ThirdFieldBought,
        CardDrawn,
        DeckExhausted,
        DrawFailed,
        DiscardsReshuffled,
        TurnEnded,
        GameEnded,
        OfferedCardDiscarded,
        HandCardDiscarded,
        DiscardsMatched,
        CardsOffered,
        HandNoted,
        HandShown,
        EntriesCorrected,
    )
}


@dataclass(frozen=True, slots=True)
class HandKnown(Event):
    """Never stored: a seat's own note (`HandNoted`) as that seat's view folds it, showing the
    noted beans on its hand. Only `projections.views.redact` makes one, for the noting seat."""

    seat: int
    cards: list[str]

    @property
    def kind(self) -> str:
        return "HandNoted"


@dataclass(frozen=True, slots=True)
class TableReplaced(Event):
    """Never stored: a step of a game shown as recorded where a correction changed the table;
    `table` is the viewer's own table after it (folded from the corrected facts it may see)."""

    table: Any

    @property
    def kind(self) -> str:
        return "EntriesCorrected"


def cards_off_the_pile(facts: Iterable[Event]) -> list[str]:
    """The cards the facts turned up from the draw pile, in order: revealed and drawn."""
    cards: list[str] = []
    for fact in facts:
        if isinstance(fact, CardsRevealed):
            cards += fact.cards
        elif isinstance(fact, CardDrawn):
            cards.append(fact.bean)
    return cards


@cache
def event_fields(cls: type[Event]) -> tuple[str, ...]:
    """The payload field names of an event type, in declaration order."""
    return tuple(field.name for field in fields(cls))


def event_from_payload(kind: str, payload: dict[str, Any]) -> Event:
    """Rebuild an event from its kind and payload (as stored or exported)."""
    return EVENT_TYPES[kind](**payload)


_SCALARS = frozenset(("bool", "int", "int | None", "str", "str | None"))
"""Field types whose values are never copied: immutable."""
_FLAT_LISTS = frozenset(("list[int]", "list[str]", "list[str] | None"))
"""Field types whose lists hold immutable values only: a slice copies them."""


def _compiled_payload(cls: type[Event]) -> Callable[[Event], dict[str, Any]]:
    """`cls.payload` written out from its fields: a dict display with each field copied as its
    type needs (`_copied` for nested lists and dicts, a slice for a flat list, nothing for a
    scalar). A payload is made for every fact a command stores and every fact an answer shows;
    the generic loop over the field names took several times as long."""
    items = []
    for field in fields(cls):
        value = f"self.{field.name}"
        if field.type in _FLAT_LISTS:
            value = f"(v[:] if (v := {value}).__class__ is list else v)"
        elif field.type not in _SCALARS:
            value = f"_copied({value})"
        items.append(f"{field.name!r}: {value}")
    lines = ["def payload(self):", f"    return {{{', '.join(items)}}}"]
    payload: Callable[[Event], dict[str, Any]] = written_out(
        "payload", lines, {"_copied": _copied}, Event.payload.__doc__
    )
    return payload


def event_classes(cls: type[Event] = Event) -> Iterator[type[Event]]:
    """Every event type below `cls` (not the class statements' own classes, which
    `dataclass(slots=True)` replaced by new ones)."""
    for subclass in cls.__subclasses__():
        if "__slots__" in vars(subclass):
            yield subclass
            yield from event_classes(subclass)


for _cls in event_classes():
    setattr(_cls, "payload", _compiled_payload(_cls))  # noqa: B010  # a method per class
