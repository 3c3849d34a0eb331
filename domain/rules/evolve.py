"""evolve(state, event) → state: apply one fact. No validation, no randomness, no clock, no I/O.

Phase changes that follow from a fact with no choice left (the last trade-area card planted, the
last offered card resolved) happen here too, so the event log holds facts only, never bookkeeping.

Each fact is applied by one handler to a private mutable working copy of the table (a `_Draft`),
which is frozen back into an immutable `GameState` afterwards. `evolve` does that per fact; `fold`
thaws once, applies a whole sequence and freezes once; `scan` and a `Folding` keep one draft
going, freezing after each fact or each batch. One set of handlers serves them all, and no
draft ever escapes this module. (Copying a 22-field immutable state for every fact made the fold
several times slower; replays fold thousands of facts.)
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator
from typing import Any

from . import events as ev
from .rulesets import Ruleset
from .state import (
    EMPTY_FIELD,
    TABLETOP,
    UNKNOWN,
    UNKNOWN_HANDS,
    Field,
    GameState,
    Offer,
    Phase,
    Player,
    Result,
    pile_of,
    unseen_card,
)


def evolve(state: GameState | None, event: ev.Event) -> GameState:
    """The table after `event`; `state` is None only for GameStarted."""
    return fold((event,), state)


def fold(events: Iterable[ev.Event], state: GameState | None = None) -> GameState:
    """Apply events in order, from `state` or from nothing."""
    draft = _applied(None if state is None else _Draft(state), events)
    assert draft is not None, "fold of no events"
    return draft.freeze()


def _applied(draft: _Draft | None, events: Iterable[ev.Event]) -> _Draft | None:
    """`draft` with `events` applied (made from the first, GameStarted, if None); None if there
    was neither."""
    apply = _APPLY
    for event in events:
        if draft is None:
            draft = _Draft(_start(event))
            continue
        apply[type(event)](draft, event)
    return draft


class Folding:
    """A fold that goes on: each `fold` applies the next facts and returns the table after them.
    It keeps one draft for its whole life, as `scan` does, so that the zones and seats facts
    touch stay thawed from one call to the next instead of being copied out of the last state
    again: a viewer's view in the service is brought on a few facts at a time, on every
    command (api/services.py). The draft costs about 4.5 KB beside the state (a 4-player
    game's view, 6–11 KB from its start to its end; measured with tracemalloc)."""

    __slots__ = ("_draft",)

    def __init__(self) -> None:
        self._draft: _Draft | None = None

    @property
    def state(self) -> GameState | None:
        """The table after the facts folded so far (None before the first)."""
        return None if self._draft is None else self._draft.base

    def fold(self, events: Iterable[ev.Event]) -> GameState | None:
        """The table after `events`, which follow those folded so far."""
        draft = self._draft = _applied(self._draft, events)
        return None if draft is None else draft.freeze()


def scan(events: Iterable[ev.Event], state: GameState | None = None) -> Iterator[GameState]:
    """The state after each event in turn (what stepping through a game needs): one draft for
    the whole sequence, each state sharing every zone the event did not touch."""
    draft = None if state is None else _Draft(state)
    apply = _APPLY
    for event in events:
        if draft is None:
            draft = _Draft(_start(event))
            yield draft.base
            continue
        apply[type(event)](draft, event)
        yield draft.freeze()


def _start(event: ev.Event) -> GameState:
    assert isinstance(event, ev.GameStarted), f"a game starts with GameStarted, not {event}"
    return _game_started(event)


def full_deck(ruleset: Ruleset) -> tuple[str, ...]:
    """Every card of the game, in bean-table order: the tabletop draw pile before the deal."""
    return tuple(bean for bean in ruleset.beans for _ in range(ruleset.counts[bean]))


def remove_cards(cards: tuple[str, ...], removed: Iterable[str]) -> tuple[str, ...]:
    """`cards` without one occurrence of each removed bean; the rest keep their order."""
    remaining = list(cards)
    for bean in removed:
        remaining.remove(bean)
    return tuple(remaining)


def without_positions(cards: tuple[str, ...], positions: Iterable[int]) -> tuple[str, ...]:
    """`cards` without the cards at `positions`; the rest keep their order (RULES §4.2)."""
    gone = set(positions)
    return tuple(card for i, card in enumerate(cards) if i not in gone)


class _Seat:
    """A player's zones while facts are applied."""

    __slots__ = ("bought_field", "coins", "fields", "hand", "name", "trade_area")

    def __init__(self, player: Player) -> None:
        self.name = player.name
        self.hand = list(player.hand)
        self.fields = list(player.fields)
        self.trade_area = list(player.trade_area)
        self.coins = list(player.coins)
        self.bought_field = player.bought_field

    def freeze(self) -> Player:
        return Player.build(
            self.name,
            tuple(self.hand),
            tuple(self.fields),
            tuple(self.trade_area),
            tuple(self.coins),
            self.bought_field,
        )


_ZONES = ("draw_pile", "discard_pile", "removed", "revealed", "duel_offer", "offers", "pools")
_SCALARS = (
    "next_offer",
    "exhaustions",
    "reshuffles",
    "end_triggered",
    "phase",
    "active",
    "turn",
    "planted",
    "hand_discarded",
    "result",
)


def _zone(name: str) -> property:
    """A draft attribute for one of the state's card zones: a list made from the base state's
    tuple the first time a fact touches it, and marked for freezing."""

    def get(draft: _Draft) -> list[Any]:
        draft.dirty.add(name)
        zone = draft.zones.get(name)
        if zone is None:
            zone = draft.zones[name] = list(getattr(draft.base, name))
        return zone

    def put(draft: _Draft, value: list[Any]) -> None:
        draft.dirty.add(name)
        draft.zones[name] = value

    return property(get, put)


class _Draft:
    """A mutable working copy of a GameState. Zones and seats are thawed when a fact first
    touches them, and only what facts touched since the last freeze is frozen again, so the
    states of a scan share every untouched zone."""

    __slots__ = ("base", "dirty", "dirty_seats", "frozen", "seats", "zones", *_SCALARS)

    draw_pile = _zone("draw_pile")
    discard_pile = _zone("discard_pile")
    removed = _zone("removed")
    revealed = _zone("revealed")
    duel_offer = _zone("duel_offer")
    offers = _zone("offers")
    pools = _zone("pools")

    # The _SCALARS, as GameState types them (set from the state in __init__).
    next_offer: int
    exhaustions: int
    reshuffles: int
    end_triggered: bool
    phase: Phase
    active: int
    turn: int
    planted: int
    hand_discarded: bool
    result: Result | None

    def __init__(self, state: GameState) -> None:
        self.base = state
        self.zones: dict[str, list[Any]] = {}
        # Written out rather than looped over _ZONES and _SCALARS: every fold starts here.
        self.frozen: dict[str, tuple[Any, ...]] = {
            "draw_pile": state.draw_pile,
            "discard_pile": state.discard_pile,
            "removed": state.removed,
            "revealed": state.revealed,
            "duel_offer": state.duel_offer,
            "offers": state.offers,
            "pools": state.pools,
        }
        """Each zone as of the last freeze."""
        self.dirty: set[str] = set()
        self.seats: dict[int, _Seat] = {}
        self.dirty_seats: set[int] = set()
        self.next_offer = state.next_offer
        self.exhaustions = state.exhaustions
        self.reshuffles = state.reshuffles
        self.end_triggered = state.end_triggered
        self.phase = state.phase
        self.active = state.active
        self.turn = state.turn
        self.planted = state.planted
        self.hand_discarded = state.hand_discarded
        self.result = state.result

    def seat(self, index: int) -> _Seat:
        self.dirty_seats.add(index)
        seat = self.seats.get(index)
        if seat is None:
            seat = self.seats[index] = _Seat(self.base.players[index])
        return seat

    def take_from_pile(self, beans: list[str]) -> None:
        """Remove drawn cards: off the top in digital games, by bean from the tabletop multiset.

        In a viewer's folded view the pile holds UNKNOWN cards; a card seen as it comes off
        such a pile takes the place of an unknown one."""
        pile = self.draw_pile
        if self.base.mode == TABLETOP:
            for bean in beans:
                pile.remove(bean if bean in pile else UNKNOWN)
        else:
            del pile[: len(beans)]

    def to_hand(self, seat: _Seat, bean: str) -> None:
        """A card goes to the back of a hand: an unseen one, in a game with unknown hands, is
        marked with the draw pile it came from."""
        seat.hand.append(
            unseen_card(self.reshuffles) if bean == UNKNOWN and self.base.pools else bean
        )

    def named(self, card: str, bean: str) -> None:
        """A hand card the table has just seen as `bean` leaves its place: if nobody had seen it,
        its pile's unseen beans lose that bean (in views without pools, nothing to do)."""
        pile = pile_of(card)
        if pile is not None and self.base.pools:
            pools = self.pools
            pools[pile] = remove_cards(pools[pile], (bean,))

    def shown(self, seat: _Seat, position: int, bean: str) -> None:
        """A hand card the table has just seen as `bean` stays in the hand, known from now on.
        (A fact stored before offers named their cards may name a bean its pile no longer hides:
        that card stays unseen.)"""
        card = seat.hand[position]
        pile = pile_of(card)
        if pile is not None and self.base.pools and bean in self.pools[pile]:
            self.named(card, bean)
            seat.hand[position] = bean

    def seen_off_pile(self, beans: Iterable[str]) -> None:
        """Cards turned face up from a pile nobody has seen leave that pile's unseen beans."""
        if self.base.pools:
            pools = self.pools
            pools[self.reshuffles] = remove_cards(pools[self.reshuffles], beans)

    def trade_areas_empty(self) -> bool:
        seats = self.seats
        return not any(
            seats.get(i, player).trade_area for i, player in enumerate(self.base.players)
        )

    def freeze(self) -> GameState:
        """The state now; the draft may go on from it."""
        base = self.base
        players = base.players
        if self.dirty_seats:
            changed = list(players)
            for index in self.dirty_seats:
                changed[index] = self.seats[index].freeze()
            players = tuple(changed)
            self.dirty_seats.clear()
        frozen = self.frozen
        if self.dirty:
            for name in self.dirty:
                frozen[name] = tuple(self.zones[name])
            self.dirty.clear()
        self.base = state = GameState.build(
            base.ruleset,
            base.mode,
            base.seed,
            base.start_seat,
            players,
            frozen["draw_pile"],
            frozen["discard_pile"],
            frozen["removed"],
            frozen["revealed"],
            frozen["offers"],
            self.next_offer,
            frozen["duel_offer"],
            self.exhaustions,
            self.reshuffles,
            self.end_triggered,
            self.phase,
            self.active,
            self.turn,
            self.planted,
            self.hand_discarded,
            self.result,
            frozen["pools"],
        )
        return state


def _game_started(e: ev.GameStarted) -> GameState:
    ruleset = Ruleset.from_dict(e.ruleset)
    fields = (EMPTY_FIELD,) * ruleset.fields_at_start
    unknown = e.hands == UNKNOWN_HANDS
    if e.deck is not None:
        pile = tuple(e.deck)
    else:
        pile = (UNKNOWN,) * ruleset.deck_size if unknown else full_deck(ruleset)
    return GameState(
        ruleset=ruleset,
        mode=e.mode,
        seed=e.seed,
        start_seat=e.start_seat,
        players=tuple(Player(name, (), fields, (), ()) for name in e.seats),
        draw_pile=pile,
        discard_pile=(),
        removed=(),
        revealed=(),
        offers=(),
        next_offer=1,
        duel_offer=(),
        exhaustions=0,
        reshuffles=0,
        end_triggered=False,
        phase=Phase.DEAL,
        active=e.start_seat,
        turn=0,
        planted=0,
        hand_discarded=False,
        result=None,
        pools=(full_deck(ruleset),) if unknown else (),
    )


def _cards_dealt(d: _Draft, e: ev.CardsDealt) -> None:
    for seat, hand in enumerate(e.hands):
        player = d.seat(seat)
        player.hand = []
        for bean in hand:
            d.to_hand(player, bean)
        d.take_from_pile(hand)
    d.phase = Phase.PLANT
    d.active = d.base.start_seat
    d.turn = 1


def _bean_planted(d: _Draft, e: ev.BeanPlanted) -> None:
    seat = d.seat(e.seat)
    seat.fields[e.field] = Field(e.bean, seat.fields[e.field].count + 1)
    if e.source == "hand":
        d.named(seat.hand.pop(0), e.bean)
        d.planted += 1
    elif e.source == "trade-area":
        seat.trade_area.remove(e.bean)
        if d.trade_areas_empty():
            d.phase = Phase.DRAW
    elif e.source == "offer":
        d.duel_offer.remove(e.bean)
        if not d.duel_offer:
            d.phase = Phase.PLANT
    else:
        d.revealed.remove(e.bean)
        if not d.revealed:
            d.phase = Phase.DRAW


def _cards_revealed(d: _Draft, e: ev.CardsRevealed) -> None:
    d.take_from_pile(e.cards)
    d.seen_off_pile(e.cards)
    d.revealed += e.cards
    d.phase = Phase.PLANT_DRAWN if d.base.ruleset.duel else Phase.TRADE


def _trade_offered(d: _Draft, e: ev.TradeOffered) -> None:
    # The table has seen the hand cards offered (hand cards come first in `cards`, in hand order):
    # a card nobody had seen is that bean from now on, whatever becomes of the offer.
    seat = d.seat(e.proposer)
    for position, bean in zip(sorted(e.hand), e.cards, strict=False):
        d.shown(seat, position, bean)
    d.offers.append(
        Offer.build(  # id, proposer, to, hand, revealed, trade_area, gives, wants
            e.offer,
            e.proposer,
            e.to,
            tuple(e.hand),
            tuple(e.revealed),
            tuple(e.trade_area),
            tuple(e.cards),
            tuple(e.wants),
        )
    )
    d.next_offer = e.offer + 1


def _shift(positions: tuple[int, ...], removed: list[int]) -> tuple[int, ...]:
    """Hand positions after the cards at `removed` left the hand."""
    return tuple(pos - sum(1 for gone in removed if gone < pos) for pos in positions)


def _trade_accepted(d: _Draft, e: ev.TradeAccepted) -> None:
    sides = (
        (e.proposer, e.proposer_hand, e.proposer_trade_area, e.to_proposer, e.to_acceptor),
        (e.acceptor, e.acceptor_hand, e.acceptor_trade_area, e.to_acceptor, e.to_proposer),
    )
    for index, hand, traded_area, received, given in sides:
        seat = d.seat(index)
        for position, bean in zip(sorted(hand), given, strict=False):
            d.named(seat.hand[position], bean)  # hand cards are given first, in hand order
        seat.hand = list(without_positions(tuple(seat.hand), hand))
        for bean in traded_area:
            seat.trade_area.remove(bean)
        seat.trade_area += received
    for bean in (*e.proposer_revealed, *e.acceptor_revealed):
        d.revealed.remove(bean)
    removed = {e.proposer: e.proposer_hand, e.acceptor: e.acceptor_hand}
    closed = {e.offer, *e.lapsed}
    d.offers = [
        offer.replace(hand=_shift(offer.hand, removed[offer.proposer]))
        if offer.proposer in removed
        else offer
        for offer in d.offers
        if offer.id not in closed
    ]


def _offer_closed(d: _Draft, e: ev.TradeDeclined | ev.TradeWithdrawn) -> None:
    d.offers = [offer for offer in d.offers if offer.id != e.offer]


def _trading_ended(d: _Draft, e: ev.TradingEnded) -> None:
    d.seat(e.seat).trade_area += e.kept
    d.revealed = []
    d.offers = []
    d.phase = Phase.DRAW if d.trade_areas_empty() else Phase.PLANT_TRADED


def _field_harvested(d: _Draft, e: ev.FieldHarvested) -> None:
    seat = d.seat(e.seat)
    seat.fields[e.field] = EMPTY_FIELD
    seat.coins += [e.bean] * e.coins
    d.discard_pile += [e.bean] * (e.count - e.coins)


def _third_field_bought(d: _Draft, e: ev.ThirdFieldBought) -> None:
    seat = d.seat(e.seat)
    del seat.coins[len(seat.coins) - len(e.coins) :]
    seat.fields.append(EMPTY_FIELD)
    seat.bought_field = True
    if e.destination == "discard-pile":
        d.discard_pile += e.coins
    else:
        d.removed += e.coins


def _card_drawn(d: _Draft, e: ev.CardDrawn) -> None:
    d.to_hand(d.seat(e.seat), e.bean)
    d.take_from_pile([e.bean])


def _deck_exhausted(d: _Draft, e: ev.DeckExhausted) -> None:
    d.exhaustions = e.count
    d.end_triggered = d.end_triggered or e.final


def _draw_failed(d: _Draft, e: ev.DrawFailed) -> None:
    d.end_triggered = True


def _discards_reshuffled(d: _Draft, e: ev.DiscardsReshuffled) -> None:
    if d.base.pools:  # unknown hands: the new pile's beans are known, their order is not
        d.pools.append(tuple(sorted(d.discard_pile, key=d.base.ruleset.beans.index)))
        d.draw_pile = [UNKNOWN] * len(d.discard_pile)
    elif e.order is None:
        d.draw_pile = sorted(d.discard_pile, key=d.base.ruleset.beans.index)
    else:
        d.draw_pile = list(e.order)
    d.discard_pile = []
    d.reshuffles += 1


def _turn_ended(d: _Draft, e: ev.TurnEnded) -> None:
    d.active = e.next_seat
    d.turn = e.turn + 1
    d.planted = 0
    d.hand_discarded = False
    d.phase = Phase.RESOLVE_OFFER if d.duel_offer else Phase.PLANT


def _game_ended(d: _Draft, e: ev.GameEnded) -> None:
    d.result = Result(
        scores=tuple(e.scores),
        hand_sizes=tuple(e.hand_sizes),
        winners=tuple(e.winners),
        decided_by=e.decided_by,
    )
    d.phase = Phase.ENDED
    d.offers = []


def _offered_card_discarded(d: _Draft, e: ev.OfferedCardDiscarded) -> None:
    d.duel_offer.remove(e.bean)
    d.discard_pile.append(e.bean)
    if not d.duel_offer:
        d.phase = Phase.PLANT


def _hand_card_discarded(d: _Draft, e: ev.HandCardDiscarded) -> None:
    d.named(d.seat(e.seat).hand.pop(e.position), e.bean)
    d.discard_pile.append(e.bean)
    d.hand_discarded = True


def _discards_matched(d: _Draft, e: ev.DiscardsMatched) -> None:
    del d.discard_pile[len(d.discard_pile) - len(e.cards) :]
    d.revealed += e.cards


def _cards_offered(d: _Draft, e: ev.CardsOffered) -> None:
    d.revealed = []
    d.duel_offer = list(e.cards)
    d.phase = Phase.DRAW


def _hand_noted(d: _Draft, e: ev.HandNoted) -> None:
    """A seat's note names no card for the table: nothing changes (its own view folds the note
    as `HandKnown`)."""


def _hand_known(d: _Draft, e: ev.HandKnown) -> None:
    hand = d.seat(e.seat).hand
    for position, (card, bean) in enumerate(zip(hand, e.cards, strict=False)):
        pile = pile_of(card)
        if pile is not None:
            hand[position] = unseen_card(pile, None if bean == UNKNOWN else bean)


def _hand_shown(d: _Draft, e: ev.HandShown) -> None:
    hand = d.seat(e.seat).hand
    for position, (card, bean) in enumerate(zip(hand, e.cards, strict=True)):
        d.named(card, bean)
        hand[position] = bean


def _entries_corrected(d: _Draft, e: ev.EntriesCorrected) -> None:
    if e.table is None:
        raise ValueError(
            "a correction is folded by the game aggregate only; views fold the corrected facts"
        )
    d.__init__(GameState.from_dict(e.table))  # type: ignore[misc]


def _table_replaced(d: _Draft, e: ev.TableReplaced) -> None:
    d.__init__(e.table)  # type: ignore[misc]


_APPLY: dict[type[ev.Event], Callable[[_Draft, Any], None]] = {
    ev.CardsDealt: _cards_dealt,
    ev.BeanPlanted: _bean_planted,
    ev.CardsRevealed: _cards_revealed,
    ev.TradeOffered: _trade_offered,
    ev.TradeAccepted: _trade_accepted,
    ev.TradeDeclined: _offer_closed,
    ev.TradeWithdrawn: _offer_closed,
    ev.TradingEnded: _trading_ended,
    ev.FieldHarvested: _field_harvested,
    ev.ThirdFieldBought: _third_field_bought,
    ev.CardDrawn: _card_drawn,
    ev.DeckExhausted: _deck_exhausted,
    ev.DrawFailed: _draw_failed,
    ev.DiscardsReshuffled: _discards_reshuffled,
    ev.TurnEnded: _turn_ended,
    ev.GameEnded: _game_ended,
    ev.OfferedCardDiscarded: _offered_card_discarded,
    ev.HandCardDiscarded: _hand_card_discarded,
    ev.DiscardsMatched: _discards_matched,
    ev.CardsOffered: _cards_offered,
    ev.HandNoted: _hand_noted,
    ev.HandKnown: _hand_known,
    ev.HandShown: _hand_shown,
    ev.EntriesCorrected: _entries_corrected,
    ev.TableReplaced: _table_replaced,
}
