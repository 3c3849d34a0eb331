"""What each viewer may see: redact first, fold second (ARCHITECTURE §6).

`redact(fact, viewer, mode)` keeps only what that viewer could see when the fact happened; another
player's drawn card becomes an UNKNOWN card ("?"), a reshuffled pile's order becomes that many
unknown cards. A viewer's view is the rules' own `fold` of its redacted facts: a `GameState` in
which every card the viewer may not know is UNKNOWN. It cannot leak what it never received.
`render(view, viewer)` turns such a state into the JSON a client gets.

`visible_part(state, viewer)` computes the same masked state directly from the full state. It
exists to cross-check the fold (the tests compare the two after every fact of hundreds of games)
and is never used to serve a client.

Viewers: a seat (one player), the public (spectators), the host (the table's recorder) and an
auditor (everything). In tabletop games the host entered every card and sees every hand; in
digital games the host sees what the public sees. An auditor sees the draw pile's order and the
seed: allowed only once the game is over, or to someone holding auditor rights (`may_audit`).
"""

from __future__ import annotations

import dataclasses
from collections import Counter
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass
from functools import lru_cache
from itertools import repeat
from typing import Any

from domain.rules import events as ev
from domain.rules.evolve import Folding
from domain.rules.legal import (
    Legal,
    OfferRange,
    host_legal_commands,
    legal_commands,
    seats_name_pile_cards,
)
from domain.rules.notation import describe
from domain.rules.rulesets import Ruleset
from domain.rules.state import (
    TABLETOP,
    UNKNOWN,
    GameState,
    Offer,
    Player,
    Result,
    is_hidden,
    note_of,
    pile_of,
)

SEAT = "seat"
PUBLIC = "public"
HOST = "host"
AUDITOR = "auditor"

SeatDocuments = dict[int, tuple[Player, bool, dict[str, Any]]]
"""Each seat's document as last rendered for one viewer of one game, with the `Player` it was
rendered from and whether it showed the coins."""


@dataclass(frozen=True, slots=True)
class Viewer:
    """Who is looking: a seat (with its number), the public, the host or an auditor."""

    kind: str
    seat: int | None = None

    def __post_init__(self) -> None:
        if self.kind not in (SEAT, PUBLIC, HOST, AUDITOR):
            raise ValueError(f"unknown viewer kind {self.kind!r}")
        if (self.kind == SEAT) != (self.seat is not None):
            raise ValueError("a seat viewer needs a seat number, other viewers none")

    @staticmethod
    def of_seat(seat: int) -> Viewer:
        """Seat `seat`'s viewer: one object per seat (a command's answer asks for its caller's)."""
        return _seat_viewer(seat)

    def __str__(self) -> str:
        return f"seat {self.seat}" if self.kind == SEAT else self.kind


@lru_cache(maxsize=16, typed=True)  # typed: seat 1, not True
def _seat_viewer(seat: int) -> Viewer:
    return Viewer(SEAT, seat)


PUBLIC_VIEWER = Viewer(PUBLIC)
HOST_VIEWER = Viewer(HOST)
AUDITOR_VIEWER = Viewer(AUDITOR)


def may_audit(game_over: bool, *, auditor_rights: bool = False) -> bool:
    """Everything (hands, deck order, seed) may be shown after the end, or with auditor rights."""
    return game_over or auditor_rights


def viewers(players: int) -> list[Viewer]:
    """Every kind of viewer of a game with this many seats."""
    return [
        *(Viewer.of_seat(seat) for seat in range(players)),
        PUBLIC_VIEWER,
        HOST_VIEWER,
        AUDITOR_VIEWER,
    ]


def sees_everything(viewer: Viewer, mode: str) -> bool:
    """Whether `viewer` knows every card of a game in `mode`: an auditor, or the host of a
    tabletop game, who entered them."""
    return viewer.kind == AUDITOR or (viewer.kind == HOST and mode == TABLETOP)


def _sees_hand(viewer: Viewer, mode: str, seat: int) -> bool:
    return sees_everything(viewer, mode) or viewer.seat == seat


def _unknown(cards: Iterable[Any]) -> list[str]:
    return [UNKNOWN for _ in cards]


def redact(fact: ev.Event, viewer: Viewer, mode: str) -> ev.Event:
    """`fact` as `viewer` saw it when it happened, in a game of this mode."""
    redaction = _REDACTIONS.get(type(fact))
    return fact if redaction is None else redaction(fact, viewer, mode)


def _hand_noted(fact: ev.HandNoted, viewer: Viewer, mode: str) -> ev.Event:
    """A seat's own note, for its own eyes only."""
    if viewer.seat == fact.seat:
        return ev.HandKnown(fact.seat, list(fact.cards))
    return ev.HandNoted(fact.seat, _unknown(fact.cards))


def _game_started(fact: ev.GameStarted, viewer: Viewer, mode: str) -> ev.Event:
    if sees_everything(viewer, mode):
        return fact
    size = Ruleset.from_dict(fact.ruleset).deck_size
    return dataclasses.replace(fact, seed=None, deck=[UNKNOWN] * size)


def _cards_dealt(fact: ev.CardsDealt, viewer: Viewer, mode: str) -> ev.Event:
    if sees_everything(viewer, mode):
        return fact
    hands = [
        list(hand) if viewer.seat == seat else _unknown(hand)
        for seat, hand in enumerate(fact.hands)
    ]
    return ev.CardsDealt(hands)


def _card_drawn(fact: ev.CardDrawn, viewer: Viewer, mode: str) -> ev.Event:
    if viewer.seat == fact.seat or sees_everything(viewer, mode):
        return fact
    return ev.CardDrawn(fact.seat, UNKNOWN)


def _trade_offered(fact: ev.TradeOffered, viewer: Viewer, mode: str) -> ev.Event:
    """The offer without its hand positions, for all but its proposer."""
    if viewer.seat == fact.proposer or sees_everything(viewer, mode):
        return fact
    return ev.TradeOffered(
        offer=fact.offer,
        proposer=fact.proposer,
        to=fact.to,
        hand=[],
        revealed=fact.revealed,
        trade_area=fact.trade_area,
        cards=fact.cards,
        wants=fact.wants,
    )


def _discards_reshuffled(fact: ev.DiscardsReshuffled, viewer: Viewer, mode: str) -> ev.Event:
    if sees_everything(viewer, mode):
        return fact
    return ev.DiscardsReshuffled([UNKNOWN] * fact.size, fact.size)


def _entries_corrected(fact: ev.EntriesCorrected, viewer: Viewer, mode: str) -> ev.Event:
    return _correction_seen(fact, viewer)


_REDACTIONS: dict[type[ev.Event], Callable[[Any, Viewer, str], ev.Event]] = {
    ev.HandNoted: _hand_noted,
    ev.EntriesCorrected: _entries_corrected,
    ev.GameStarted: _game_started,
    ev.CardsDealt: _cards_dealt,
    ev.CardDrawn: _card_drawn,
    ev.TradeOffered: _trade_offered,
    ev.DiscardsReshuffled: _discards_reshuffled,
}
"""How each event type with secret fields is redacted (`redact`); the others are public."""


def _correction_seen(fact: ev.EntriesCorrected, viewer: Viewer) -> ev.EntriesCorrected:
    """A correction without the table it leads to (nobody's view is folded from it), and for
    anyone but the host and an auditor only which entries changed, not their cards."""
    if viewer.kind in (HOST, AUDITOR):
        return ev.EntriesCorrected(fact.changes, fact.replaced, None)
    changes = [
        {
            "entry": change["entry"],
            "action": change["action"],
            "command": None
            if change.get("command") is None
            else {
                key: change["command"][key] for key in ("type", "seat") if key in change["command"]
            },
        }
        for change in fact.changes
    ]
    replaced: list[dict[str, Any] | None] = [
        None if old is None else {key: old[key] for key in ("type", "seat") if key in old}
        for old in fact.replaced
    ]
    return ev.EntriesCorrected(changes, replaced, None)


class ViewFold:
    """One viewer's view of one game, kept current fact by fact (or rebuilt from the facts)."""

    def __init__(self, viewer: Viewer) -> None:
        self.viewer = viewer
        self.mode: str | None = None
        self._folding = Folding()
        self.seat_documents: SeatDocuments = {}
        """The seat documents last rendered from this fold's views (`render`'s `kept`)."""

    @property
    def state(self) -> GameState | None:
        """The view after the facts applied so far (None before the first)."""
        return self._folding.state

    def apply(self, fact: ev.Event) -> GameState:
        state = self.apply_all((fact,))
        assert state is not None
        return state

    def apply_all(self, facts: Iterable[ev.Event]) -> GameState | None:
        facts = list(facts)
        if not facts:
            return self.state
        if isinstance(facts[0], ev.GameStarted):
            self.mode = facts[0].mode
        assert self.mode is not None, "a game's facts start with GameStarted"
        return self._folding.fold(map(redact, facts, repeat(self.viewer), repeat(self.mode)))


def view_of(facts: Iterable[ev.Event], viewer: Viewer) -> GameState:
    """The viewer's view after `facts`: the fold of the facts redacted for that viewer."""
    view = ViewFold(viewer).apply_all(facts)
    assert view is not None, "a view needs at least the GameStarted fact"
    return view


def feed_item(
    position: int, fact: ev.Event, viewer: Viewer, started: ev.GameStarted
) -> dict[str, Any]:
    """One fact as the viewer saw it: its position, type, redacted payload and a line of text."""
    redacted = redact(fact, viewer, started.mode)
    return {
        "position": position,
        "type": redacted.kind,
        "event": redacted.payload(),
        "summary": describe(redacted, started.seats, show_hidden=True),
    }


def feed(facts: Iterable[ev.Event], viewer: Viewer, *, start: int = 1) -> Iterator[dict[str, Any]]:
    """The facts as the viewer saw them, with positions (1 = GameStarted), from `start` on."""
    started: ev.GameStarted | None = None
    for position, fact in enumerate(facts, start=1):
        if isinstance(fact, ev.GameStarted):
            started = fact
        assert started is not None, "a game's facts start with GameStarted"
        if position >= start:
            yield feed_item(position, fact, viewer, started)


def visible_part(state: GameState, viewer: Viewer) -> GameState:
    """The part of the full state the viewer may see, UNKNOWN elsewhere (the fold's cross-check)."""
    if sees_everything(viewer, state.mode):
        return state
    players = tuple(
        player
        if _sees_hand(viewer, state.mode, seat) or state.hands_unknown
        else player.replace(hand=(UNKNOWN,) * len(player.hand))
        for seat, player in enumerate(state.players)
    )
    offers = tuple(
        offer if offer.proposer == viewer.seat else offer.replace(hand=()) for offer in state.offers
    )
    return state.replace(
        seed=None,
        players=players,
        draw_pile=(UNKNOWN,) * len(state.draw_pile),
        offers=offers,
    )


def _render_unseen(view: GameState) -> list[dict[str, Any]]:
    """A game with unknown hands: for each draw pile it has had, the beans nobody has seen yet and
    where those cards are (public: every card named in such a game was shown to the table)."""
    in_hands = [0] * len(view.pools)
    for player in view.players:
        for card in player.hand:
            pile = pile_of(card)
            if pile is not None:
                in_hands[pile] += 1
    return [
        {
            "pile": pile,
            "beans": dict(Counter(beans)),
            "in_draw_pile": len(view.draw_pile) if pile == view.reshuffles else 0,
            "in_hands": in_hands[pile],
        }
        for pile, beans in enumerate(view.pools)
    ]


def render(view: GameState, viewer: Viewer, kept: SeatDocuments | None = None) -> dict[str, Any]:
    """The JSON a viewer gets for a view folded from its redacted facts. `kept`: the seat
    documents rendered last for this viewer from the same fold, used again for the seats that
    are the same `Player` objects (no fact has touched them since), and replaced for the rest;
    the documents are then shared between answers, so nothing may change them."""
    rules = view.ruleset
    over = view.is_over
    document: dict[str, Any] = {
        "viewer": {"kind": viewer.kind, "seat": viewer.seat},
        "ruleset": rules.preset,
        "players": rules.players,
        "mode": view.mode,
        "phase": str(view.phase),
        "phase_text": view.phase_text,
        "turn": view.turn,
        "active_seat": view.active,
        "start_seat": view.start_seat,
        "planted_this_turn": view.planted,
        "seats": _render_seats(view, viewer, kept),
        "draw_pile": {"size": len(view.draw_pile)},
        "discard_pile": {
            "size": len(view.discard_pile),
            "top": view.discard_pile[-1] if view.discard_pile else None,
        },
        "revealed": list(view.revealed),
        "offers": [_render_offer(offer) for offer in view.offers],
        "duel_offer": list(view.duel_offer),
        "removed_from_game": len(view.removed),
        "exhaustions": view.exhaustions,
        "game_ends_on_exhaustion": rules.end_on_exhaustion,
        "end_triggered": view.end_triggered,
        "result": render_result(view.result),
    }
    if rules.discard_pile_browsable or over or sees_everything(viewer, view.mode):
        document["discard_pile"]["cards"] = list(view.discard_pile)
    if view.hands_unknown:
        document["hands"] = "unknown"
        document["unseen"] = _render_unseen(view)
    elif sees_everything(viewer, view.mode):  # a tabletop host: the cards no one has seen yet
        document["draw_pile"]["cards"] = list(view.draw_pile)
    if viewer.kind == AUDITOR:
        document["seed"] = view.seed
    if viewer.kind == SEAT and viewer.seat is not None and not over:
        legal = legal_commands(view, viewer.seat)
        if legal.chance is not None and not seats_name_pile_cards(view):
            legal = dataclasses.replace(legal, chance=None)  # the host names those cards
        document["legal"] = render_legal(legal)
    elif viewer.kind == HOST and view.mode == TABLETOP and not over:
        document["legal"] = render_legal(host_legal_commands(view))
    return document


def _render_offer_range(offer: OfferRange) -> dict[str, Any]:
    return {
        "seat": offer.seat,
        "to": list(offer.to),
        "hand": list(offer.hand),
        "revealed": list(offer.revealed),
        "trade_area": list(offer.trade_area),
        "wants": list(offer.wants),
        "hand_beans": [list(beans) for beans in offer.hand_beans] if offer.hand_beans else None,
    }


def render_result(result: Result | None) -> dict[str, Any] | None:
    """A game's result as JSON (None while it runs)."""
    if result is None:
        return None
    return {
        "scores": list(result.scores),
        "hand_sizes": list(result.hand_sizes),
        "winners": list(result.winners),
        "decided_by": result.decided_by,
    }


def render_legal(legal: Legal) -> dict[str, Any]:
    """Legal commands as JSON: the commands, the range of offers (`offer`: a seat's own;
    `offers`: every range the caller may enter, by proposing seat), and the cards a tabletop game
    is waiting for (`chance`: the command type, the seat, how many cards; for the deal, how many
    each seat is dealt)."""
    chance = legal.chance
    own = None if legal.offer is None else _render_offer_range(legal.offer)
    return {
        "commands": [command.to_dict() for command in legal.commands],
        "offer": own,
        # A seat's only range is its own: rendered once, the same object in both places.
        "offers": [
            own if offer is legal.offer else _render_offer_range(offer) for offer in legal.offers
        ],
        "chance": None
        if chance is None
        else {
            "type": chance.kind,
            "seat": chance.seat,
            "count": chance.count,
            "hands": None if chance.hands is None else list(chance.hands),
        },
    }


def _render_seats(
    view: GameState, viewer: Viewer, kept: SeatDocuments | None
) -> list[dict[str, Any]]:
    """Each seat's public zones, and its hand and coins as far as the viewer may see them."""
    everything = sees_everything(viewer, view.mode)
    coins_shown = view.ruleset.coin_counts_visible or view.is_over or everything
    unknown = view.hands_unknown
    seats = []
    for seat, player in enumerate(view.players):
        if kept is not None:
            held = kept.get(seat)
            if held is not None and held[0] is player and held[1] == coins_shown:
                seats.append(held[2])
                continue
        own = viewer.seat == seat
        document = {
            "seat": seat,
            "name": player.name,
            "hand": _render_hand(player.hand, unknown, own, everything or own),
            "hand_size": len(player.hand),
            "fields": [{"bean": field.bean, "count": field.count} for field in player.fields],
            "trade_area": list(player.trade_area),
            "coins": len(player.coins) if coins_shown or own else None,
            "bought_third_field": player.bought_field,
        }
        if unknown:
            document["hand_piles"] = [pile_of(card) for card in player.hand]
        seats.append(document)
        if kept is not None:
            kept[seat] = (player, coins_shown, document)
    return seats


def _render_hand(
    hand: tuple[str, ...], unknown: bool, own: bool, sees: bool
) -> list[str | None] | None:
    """A hand as the viewer may see it, front first, or None (`own`: the viewer's own hand;
    `sees`: the viewer may see this hand). In a game with unknown hands a seat sees its own hand
    with null for each card it has not noted; anyone sees a hand whose every card the table has
    seen (shown at the end)."""
    if unknown:
        if own:
            return [note_of(card) if is_hidden(card) else card for card in hand]
        return None if any(map(is_hidden, hand)) else list(hand)
    # An empty hand holds no UNKNOWN card to tell, so the viewer's rights decide too: a hand
    # the viewer may not see is null, empty or not (its size is public anyway).
    if not sees or UNKNOWN in hand:
        return None
    return list(hand)


def _render_offer(offer: Offer) -> dict[str, Any]:
    return {
        "id": offer.id,
        "proposer": offer.proposer,
        "to": offer.to,
        "gives": list(offer.gives),
        "gives_from_hand": list(offer.hand),
        "gives_revealed": list(offer.revealed),
        "gives_from_trade_area": list(offer.trade_area),
        "wants": list(offer.wants),
    }
