"""evolve(state, event) → state: apply one fact. No validation, no randomness, no clock, no I/O.

Phase changes that follow from a fact with no choice left (the last trade-area card planted, the
last offered card resolved) happen here too, so the event log holds facts only, never bookkeeping.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from . import events as ev
from .rulesets import Ruleset
from .state import (
    EMPTY_FIELD,
    TABLETOP,
    Field,
    GameState,
    Offer,
    Phase,
    Player,
    Result,
)


def evolve(state: GameState | None, event: ev.Event) -> GameState:
    """The table after `event`; `state` is None only for GameStarted."""
    return _APPLY[type(event)](state, event)


def fold(events: list[ev.Event], state: GameState | None = None) -> GameState:
    """Apply events in order, from `state` or from nothing."""
    apply = _APPLY
    for event in events:
        state = apply[type(event)](state, event)
    assert state is not None, "fold of no events"
    return state


def full_deck(ruleset: Ruleset) -> tuple[str, ...]:
    """Every card of the game, in bean-table order: the tabletop draw pile before the deal."""
    return tuple(bean for bean in ruleset.beans for _ in range(ruleset.counts[bean]))


def remove_cards(cards: tuple[str, ...], removed: list[str] | tuple[str, ...]) -> tuple[str, ...]:
    """`cards` without one occurrence of each removed bean; the rest keep their order."""
    remaining = list(cards)
    for bean in removed:
        remaining.remove(bean)
    return tuple(remaining)


def without_positions(cards: tuple[str, ...], positions: list[int]) -> tuple[str, ...]:
    """`cards` without the cards at `positions`; the rest keep their order (RULES §4.2)."""
    gone = set(positions)
    return tuple(card for i, card in enumerate(cards) if i not in gone)


def _set_player(state: GameState, seat: int, player: Player) -> tuple[Player, ...]:
    players = list(state.players)
    players[seat] = player
    return tuple(players)


def _take_from_pile(state: GameState, beans: list[str]) -> tuple[str, ...]:
    if state.mode == TABLETOP:
        return remove_cards(state.draw_pile, beans)
    return state.draw_pile[len(beans) :]


def _game_started(_: Any, e: ev.GameStarted) -> GameState:
    ruleset = Ruleset.from_dict(e.ruleset)
    fields = (EMPTY_FIELD,) * ruleset.fields_at_start
    return GameState(
        ruleset=ruleset,
        mode=e.mode,
        seed=e.seed,
        start_seat=e.start_seat,
        players=tuple(Player(name, (), fields, (), ()) for name in e.seats),
        draw_pile=tuple(e.deck) if e.deck is not None else full_deck(ruleset),
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
    )


def _cards_dealt(s: GameState, e: ev.CardsDealt) -> GameState:
    dealt = [bean for hand in e.hands for bean in hand]
    players = tuple(
        player.replace(hand=tuple(hand)) for player, hand in zip(s.players, e.hands, strict=True)
    )
    return s.replace(
        players=players,
        draw_pile=_take_from_pile(s, dealt),
        phase=Phase.PLANT,
        active=s.start_seat,
        turn=1,
    )


def _bean_planted(s: GameState, e: ev.BeanPlanted) -> GameState:
    player = s.players[e.seat]
    fields = list(player.fields)
    fields[e.field] = Field(e.bean, fields[e.field].count + 1)
    changes: dict[str, Any] = {}
    if e.source == "hand":
        player = player.replace(hand=player.hand[1:], fields=tuple(fields))
        changes["planted"] = s.planted + 1
    elif e.source == "trade-area":
        player = player.replace(
            trade_area=remove_cards(player.trade_area, [e.bean]), fields=tuple(fields)
        )
    else:
        player = player.replace(fields=tuple(fields))
        if e.source == "offer":
            changes["duel_offer"] = offer = remove_cards(s.duel_offer, [e.bean])
            if not offer:
                changes["phase"] = Phase.PLANT
        else:
            changes["revealed"] = revealed = remove_cards(s.revealed, [e.bean])
            if not revealed:
                changes["phase"] = Phase.DRAW
    players = _set_player(s, e.seat, player)
    if e.source == "trade-area" and not any(p.trade_area for p in players):
        changes["phase"] = Phase.DRAW
    return s.replace(players=players, **changes)


def _cards_revealed(s: GameState, e: ev.CardsRevealed) -> GameState:
    return s.replace(
        draw_pile=_take_from_pile(s, e.cards),
        revealed=s.revealed + tuple(e.cards),
        phase=Phase.PLANT_DRAWN if s.ruleset.duel else Phase.TRADE,
    )


def _trade_offered(s: GameState, e: ev.TradeOffered) -> GameState:
    offer = Offer(
        id=e.offer,
        proposer=e.proposer,
        to=e.to,
        hand=tuple(e.hand),
        revealed=tuple(e.revealed),
        trade_area=tuple(e.trade_area),
        gives=tuple(e.cards),
        wants=tuple(e.wants),
    )
    return s.replace(offers=(*s.offers, offer), next_offer=e.offer + 1)


def _shift(positions: tuple[int, ...], removed: list[int]) -> tuple[int, ...]:
    return tuple(pos - sum(1 for gone in removed if gone < pos) for pos in positions)


def _trade_accepted(s: GameState, e: ev.TradeAccepted) -> GameState:
    def moved(seat: int, hand: list[int], trade_area: list[str], received: list[str]) -> Player:
        player = s.players[seat]
        kept_area = remove_cards(player.trade_area, trade_area)
        return player.replace(
            hand=without_positions(player.hand, hand),
            trade_area=kept_area + tuple(received),
        )

    players = list(s.players)
    players[e.proposer] = moved(e.proposer, e.proposer_hand, e.proposer_trade_area, e.to_proposer)
    players[e.acceptor] = moved(e.acceptor, e.acceptor_hand, e.acceptor_trade_area, e.to_acceptor)
    removed_positions = {e.proposer: e.proposer_hand, e.acceptor: e.acceptor_hand}
    closed = {e.offer, *e.lapsed}
    offers = tuple(
        offer.replace(hand=_shift(offer.hand, removed_positions[offer.proposer]))
        if offer.proposer in removed_positions
        else offer
        for offer in s.offers
        if offer.id not in closed
    )
    return s.replace(
        players=tuple(players),
        revealed=remove_cards(s.revealed, e.proposer_revealed + e.acceptor_revealed),
        offers=offers,
    )


def _offer_closed(s: GameState, e: ev.TradeDeclined | ev.TradeWithdrawn) -> GameState:
    return s.replace(offers=tuple(offer for offer in s.offers if offer.id != e.offer))


def _trading_ended(s: GameState, e: ev.TradingEnded) -> GameState:
    player = s.players[e.seat]
    players = _set_player(s, e.seat, player.replace(trade_area=player.trade_area + tuple(e.kept)))
    busy = any(p.trade_area for p in players)
    return s.replace(
        players=players,
        revealed=(),
        offers=(),
        phase=Phase.PLANT_TRADED if busy else Phase.DRAW,
    )


def _field_harvested(s: GameState, e: ev.FieldHarvested) -> GameState:
    player = s.players[e.seat]
    fields = list(player.fields)
    fields[e.field] = EMPTY_FIELD
    player = player.replace(fields=tuple(fields), coins=player.coins + (e.bean,) * e.coins)
    return s.replace(
        players=_set_player(s, e.seat, player),
        discard_pile=s.discard_pile + (e.bean,) * (e.count - e.coins),
    )


def _third_field_bought(s: GameState, e: ev.ThirdFieldBought) -> GameState:
    player = s.players[e.seat]
    player = player.replace(
        coins=player.coins[: len(player.coins) - len(e.coins)],
        fields=(*player.fields, EMPTY_FIELD),
        bought_field=True,
    )
    paid = tuple(e.coins)
    if e.destination == "discard-pile":
        return s.replace(players=_set_player(s, e.seat, player), discard_pile=s.discard_pile + paid)
    return s.replace(players=_set_player(s, e.seat, player), removed=s.removed + paid)


def _card_drawn(s: GameState, e: ev.CardDrawn) -> GameState:
    player = s.players[e.seat]
    player = player.replace(hand=(*player.hand, e.bean))
    return s.replace(players=_set_player(s, e.seat, player), draw_pile=_take_from_pile(s, [e.bean]))


def _deck_exhausted(s: GameState, e: ev.DeckExhausted) -> GameState:
    return s.replace(exhaustions=e.count, end_triggered=s.end_triggered or e.final)


def _discards_reshuffled(s: GameState, e: ev.DiscardsReshuffled) -> GameState:
    if e.order is None:
        pile = tuple(sorted(s.discard_pile, key=s.ruleset.beans.index))
    else:
        pile = tuple(e.order)
    return s.replace(draw_pile=pile, discard_pile=(), reshuffles=s.reshuffles + 1)


def _turn_ended(s: GameState, e: ev.TurnEnded) -> GameState:
    phase = Phase.RESOLVE_OFFER if s.duel_offer else Phase.PLANT
    return s.replace(
        active=e.next_seat,
        turn=e.turn + 1,
        planted=0,
        hand_discarded=False,
        phase=phase,
    )


def _game_ended(s: GameState, e: ev.GameEnded) -> GameState:
    result = Result(
        scores=tuple(e.scores),
        hand_sizes=tuple(e.hand_sizes),
        winners=tuple(e.winners),
        decided_by=e.decided_by,
    )
    return s.replace(result=result, phase=Phase.ENDED, offers=())


def _offered_card_discarded(s: GameState, e: ev.OfferedCardDiscarded) -> GameState:
    offer = remove_cards(s.duel_offer, [e.bean])
    return s.replace(
        duel_offer=offer,
        discard_pile=(*s.discard_pile, e.bean),
        phase=s.phase if offer else Phase.PLANT,
    )


def _hand_card_discarded(s: GameState, e: ev.HandCardDiscarded) -> GameState:
    player = s.players[e.seat]
    player = player.replace(hand=without_positions(player.hand, [e.position]))
    return s.replace(
        players=_set_player(s, e.seat, player),
        discard_pile=(*s.discard_pile, e.bean),
        hand_discarded=True,
    )


def _discards_matched(s: GameState, e: ev.DiscardsMatched) -> GameState:
    return s.replace(
        discard_pile=s.discard_pile[: len(s.discard_pile) - len(e.cards)],
        revealed=s.revealed + tuple(e.cards),
    )


def _cards_offered(s: GameState, e: ev.CardsOffered) -> GameState:
    return s.replace(revealed=(), duel_offer=tuple(e.cards), phase=Phase.DRAW)


_APPLY: dict[type[ev.Event], Callable[[Any, Any], GameState]] = {
    ev.GameStarted: _game_started,
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
    ev.DiscardsReshuffled: _discards_reshuffled,
    ev.TurnEnded: _turn_ended,
    ev.GameEnded: _game_ended,
    ev.OfferedCardDiscarded: _offered_card_discarded,
    ev.HandCardDiscarded: _hand_card_discarded,
    ev.DiscardsMatched: _discards_matched,
    ev.CardsOffered: _cards_offered,
}
