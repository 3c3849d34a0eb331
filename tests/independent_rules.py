"""A second implementation of the rules, written from docs/rules.md alone, to play against the
engine (tests/unit/test_rules_differential.py, and over the API tests/api/test_differential.py).

It covers every preset and player count, the bean duel (§11) included, with the options of §15
(bean protection, tie-breaks, reshuffle timing and an empty reshuffle, house rules H1–H3, the
duel's three), in digital games and in tabletop games: with known hands (the recorder names the
cards dealt, revealed and drawn, §3, §10.1) and with unknown hands (each pile's unseen beans, a
card named as the table sees it, §4.4; not a seat's notes of its own hand, nor the hands shown
after the end). It is written the plain way on purpose — one mutable table, one method per command,
nothing shared with domain/rules but the command classes it reads — so that a misreading of the
rules in one is unlikely to be repeated in the other. The bean table and the player-count table are
copied from docs/rules.md §1.1 and §2, not imported.

Where docs/rules.md left a choice open, the first games played against the engine showed it, and
the docs now say what the engine does: the order in which paid coins land on the discard pile
(§9.3), and that a plant may leave out the bean of cards that are all one kind (§5.3.2, §11.2).

What it cannot know of a digital game it takes from the game, after checking it: the shuffled
deck (GameStarted, which must hold exactly the preset's cards) and each reshuffled pile's order
(the engine's DiscardsReshuffled, which must hold exactly the discard pile's cards).
"""

from __future__ import annotations

import copy
from collections import Counter
from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import Any

from domain.rules import commands as cmd

UNSEEN = "?"
"""A card nobody has seen (the engine's spelling, in commands and piles)."""

METERS: dict[str, tuple[int | None, ...]] = {  # docs/rules.md §1.1: fewest cards for 1–4 coins
    "coffee": (4, 7, 10, 12),
    "wax": (4, 7, 9, 11),
    "blue": (4, 6, 8, 10),
    "chili": (3, 6, 8, 9),
    "stink": (3, 5, 7, 8),
    "green": (3, 5, 6, 7),
    "soy": (2, 4, 6, 7),
    "black-eyed": (2, 4, 5, 6),
    "red": (2, 3, 4, 5),
    "garden": (None, 2, 3, None),
    "cocoa": (None, 2, 3, 4),
}
COUNTS = {
    "coffee": 24,
    "wax": 22,
    "blue": 20,
    "chili": 18,
    "stink": 16,
    "green": 14,
    "soy": 12,
    "black-eyed": 10,
    "red": 8,
    "garden": 6,
    "cocoa": 4,
}
BASE = ("blue", "chili", "stink", "green", "soy", "black-eyed", "red", "garden")


class Illegal(Exception):
    """The command is against the rules here and now."""


def payout(bean: str, cards: int) -> int:
    """§1.2: the highest level whose minimum the field reaches."""
    return max(
        (level for level, least in enumerate(METERS[bean], 1) if least and cards >= least),
        default=0,
    )


@dataclass
class Setup:
    """§2: what a preset and a player count give."""

    beans: tuple[str, ...]
    hand_sizes: list[int]
    """By seat number."""
    fields: int
    field_price: int | None
    """None: no third field for sale."""
    reveals: int
    draws: int
    ends_on: int
    tie_break: tuple[str, ...]
    """§10.7's criteria, tried in order."""
    options: dict[str, Any] = field(default_factory=dict)
    """§15's options, as given (each absent one at its default)."""

    def option(self, name: str, default: Any) -> Any:
        return self.options.get(name, default)


def setup(preset: str, players: int, start: int, options: dict[str, Any]) -> Setup:
    found = _setup(preset, players, start)
    found.options = dict(options)
    found.tie_break = tuple(options.get("tie_break", found.tie_break))
    if players == 2 and options.get("duel_start_fields", 2) == 3:
        found.fields, found.field_price = 3, None  # §11.1: nothing for sale then
    return found


def _setup(preset: str, players: int, start: int) -> Setup:
    if preset == "rio-grande" and players == 2:  # §11.1: the bean duel
        beans = tuple(bean for bean in COUNTS if bean not in ("garden", "cocoa"))
        return Setup(
            beans=beans,
            hand_sizes=[5, 5],
            fields=2,
            field_price=3,
            reveals=3,
            draws=2,
            ends_on=1,
            tie_break=("most-hand-cards",),
        )
    if preset == "rio-grande":
        removed = {3: ("cocoa",), 4: ("coffee",), 5: ("coffee",)}.get(players, ("cocoa", "garden"))
        sizes = [5] * players
        if players >= 6:  # 3, 4, 5, then 6 each, clockwise from the start player
            for step in range(players):
                sizes[(start + step) % players] = min(3 + step, 6)
        return Setup(
            beans=tuple(bean for bean in COUNTS if bean not in removed),
            hand_sizes=sizes,
            fields=3 if players == 3 else 2,
            field_price=None if players == 3 else (2 if players >= 6 else 3),
            reveals=2,
            draws=4 if players >= 6 else 3,
            ends_on=2 if players == 3 else 3,
            tie_break=("most-hand-cards",),
        )
    if preset in ("amigo-1997", "amigo"):
        amigo = preset == "amigo"
        return Setup(
            beans=BASE,
            hand_sizes=[5] * players,
            fields=3 if amigo and players == 3 else 2,
            field_price=None if amigo else 3,
            reveals=2,
            draws=3,
            ends_on=3,
            tie_break=("seat-distance",) if amigo else ("most-hand-cards",),
        )
    raise ValueError(f"no setup for {preset}")


def _named(bean: str | None, cards: list[str]) -> str:
    """The bean a plant from `cards` names: it may be left out when they are all one bean."""
    if bean is None and len(set(cards)) == 1:
        bean = cards[0]
    if bean is None or bean not in cards:
        raise Illegal("no such card to plant")
    return bean


class Card:
    """A card in a hand: an object of its own, so that an offer follows it when others move. With
    unknown hands (§4.4) a card nobody has seen has no bean, only the draw pile it came from."""

    def __init__(self, bean: str | None, pile: int | None = None) -> None:
        self.bean = bean
        self.pile = pile
        self.drawn_from = pile
        """The draw pile an unseen card came from, kept once the card is named."""

    def __str__(self) -> str:
        """The card as the engine writes it: its bean, or "?" and its pile's number."""
        return self.bean if self.bean is not None else f"?{self.pile}"


@dataclass
class OpenOffer:
    proposer: int
    to: int
    hand: list[Card]
    revealed: list[str]
    wants: list[str]
    trade_area: list[str]


@dataclass
class Seat:
    hand: list[Card]
    fields: list[list[Any]]
    """[bean or None, count] each."""
    trade_area: list[str] = field(default_factory=list)
    coins: list[str] = field(default_factory=list)
    bought: bool = False


class Table:
    """One game, as docs/rules.md tells it."""

    def __init__(
        self,
        preset: str,
        seats: int,
        start: int,
        deck: list[str] | None,
        options: dict[str, Any],
        *,
        unknown_hands: bool = False,
    ) -> None:
        """A digital game dealt from `deck` (top first), or with no deck a tabletop game waiting
        for its deal, or with `unknown_hands` one dealt unseen (§4.4)."""
        self.rules = setup(preset, seats, start, options)
        cards = [bean for bean in self.rules.beans for _ in range(COUNTS[bean])]
        if deck is not None and Counter(deck) != Counter(cards):
            raise AssertionError("the shuffled deck is not the preset's deck (§2)")
        self.tabletop = deck is None
        self.unknown_hands = unknown_hands
        self.pools: list[Counter[str]] = [Counter(cards)] if unknown_hands else []
        """With unknown hands: for each draw pile so far (0: the deck), its beans nobody has seen,
        in the pile or in hands (§4.4)."""
        self.protection = self.rules.option("bean_protection", "amigo")
        self.retrade = self.rules.option("allow_retrade", False)
        self.implicit_harvest = self.rules.option("implicit_harvest", False)
        self.failed_draw_ends = self.rules.option("end_trigger", "last-card") == "failed-draw"
        self.reshuffle_later = self.rules.option("reshuffle", "immediate") == "on-next-draw"
        self.empty_reshuffle_ends = self.rules.option("empty_reshuffle", "cascade") == "end-game"
        self.duel = seats == 2
        self.coins_out = self.rules.option("duel_coins_to", "out-of-game") == "out-of-game"
        self.buy_on_own_turn = self.rules.option("duel_buy_timing", "any-time") == "own-turn"
        self.duel_offer: list[str] = []
        """§11.2 step 1: the cards the last player left for the next."""
        self.removed: list[str] = []
        """Cards out of the game: the duel's third-field coins."""
        self.hand_discarded = False
        """§11.2 step 2: the duel's one hand discard is used (no more planting this turn)."""
        self.players = seats
        self.start = start
        self.draw_pile = cards if deck is None else list(deck)
        """Top first in a digital game; in a tabletop game the cards nobody saw, in no order."""
        self.discard: list[str] = []
        self.seats = [Seat([], [[None, 0] for _ in range(self.rules.fields)]) for _ in range(seats)]
        self.active = start
        self.phase = "deal" if self.tabletop and not unknown_hands else "plant"
        self.planted = 0
        self.revealed: list[str] = []
        self.offers: dict[int, OpenOffer] = {}
        self.next_offer = 1
        self.exhaustions = 0
        self.end_triggered = False
        self.failed = False
        """H3: a card was needed and none was left; the game ends at once."""
        self.reshuffle_due = False
        """Under `reshuffle=on-next-draw`: the pile ran out, and is made again when next needed."""
        self.scores: list[int] | None = None
        self.winners: list[int] | None = None
        self.decided_by: str | None = None
        self._reshuffles: Iterator[list[str]] = iter(())
        # §3.4: one card at a time, clockwise from the start player, skipping full hands.
        if unknown_hands:  # the deal is counted, not named
            for seat, size in zip(self.seats, self.rules.hand_sizes, strict=True):
                seat.hand = [Card(None, 0) for _ in range(size)]
            self.draw_pile = [UNSEEN] * (len(cards) - sum(self.rules.hand_sizes))
        while not self.tabletop and any(
            len(seat.hand) < size
            for seat, size in zip(self.seats, self.rules.hand_sizes, strict=True)
        ):
            for step in range(seats):
                number = (start + step) % seats
                if len(self.seats[number].hand) < self.rules.hand_sizes[number]:
                    self.seats[number].hand.append(Card(self.draw_pile.pop(0)))

    # --- commands ------------------------------------------------------------------------------

    def play(self, command: cmd.Command, reshuffles: list[list[str]]) -> None:
        """Play `command` (Illegal if the rules forbid it); `reshuffles`: the orders of the piles
        any reshuffle on the way makes, in turn."""
        if self.scores is not None:
            raise Illegal("the game is over")
        self._reshuffles = iter(reshuffles)
        handler = getattr(self, "_" + type(command).__name__.lower(), None)
        if handler is None:
            raise Illegal(f"{command.type}: not a command of the games this engine plays")
        seat = getattr(command, "seat", 0)  # the deal alone names no seat
        if not 0 <= seat < self.players:
            raise Illegal("no such seat")
        if self.phase == "deal" and not isinstance(command, cmd.Deal):
            raise Illegal("the cards have not been dealt yet")
        naming = isinstance(command, cmd.Reveal | cmd.Draw) and self.tabletop
        if not (naming or self.unknown_hands):
            handler(command)  # each checks everything before it moves a card
            return
        before = copy.deepcopy(self.__dict__)  # a card named wrongly may show only on the way
        try:
            handler(command)
        except Illegal:
            self.__dict__ = before
            raise

    def _deal(self, c: cmd.Deal) -> None:  # §3.4, tabletop
        if self.phase != "deal":
            raise Illegal("the deal is over")
        if [len(hand) for hand in c.hands] != self.rules.hand_sizes:
            raise Illegal("not the deal's hand sizes")
        if Counter(bean for hand in c.hands for bean in hand) - Counter(self.draw_pile):
            raise Illegal("cards the deck does not hold")
        for seat, hand in zip(self.seats, c.hands, strict=True):
            for bean in hand:
                self.draw_pile.remove(bean)
                seat.hand.append(Card(bean))
        self.phase = "plant"

    def _harvest(self, c: cmd.Harvest) -> None:  # §8
        fields = self.seats[c.seat].fields
        if not 0 <= c.field < len(fields) or fields[c.field][1] == 0:
            raise Illegal("no such field, or an empty one")
        if self.duel and c.seat != self.active:
            raise Illegal("in the duel only on one's own turn (§11.1)")
        self._protected(c.seat, c.field)
        self._sell(c.seat, c.field)

    def _buyfield(self, c: cmd.BuyField) -> None:  # §9
        seat, price = self.seats[c.seat], self.rules.field_price
        if price is None or seat.bought or len(seat.fields) >= 3 or len(seat.coins) < price:
            raise Illegal("no third field for this seat now")
        if self.duel and self.buy_on_own_turn and c.seat != self.active:
            raise Illegal("only on one's own turn (§11.5)")
        paid = seat.coins[len(seat.coins) - price :][::-1]  # one at a time, the topmost first
        del seat.coins[len(seat.coins) - price :]
        if self.duel and self.coins_out:
            self.removed += paid
        else:
            self.discard += paid
        seat.fields.append([None, 0])
        seat.bought = True

    def _plant(self, c: cmd.Plant) -> None:  # §5.1, §5.3, §7
        seat = self.seats[c.seat]
        if self.phase == "plant":
            if c.seat != self.active or self.planted >= 2 or not seat.hand or self.hand_discarded:
                raise Illegal("not a plant from the hand now")
            bean = self._named_card(seat.hand[0], c.bean)
            self._into(c.seat, c.field, bean)
            seat.hand.pop(0)
            self.planted += 1
        elif self.phase == "plant-traded":
            bean = _named(c.bean, seat.trade_area)
            self._into(c.seat, c.field, bean)
            seat.trade_area.remove(bean)
            self._trade_areas_planted()
        elif self.phase in ("resolve-offer", "plant-drawn") and c.seat == self.active:
            cards = self.duel_offer if self.phase == "resolve-offer" else self.revealed
            bean = _named(c.bean, cards)
            self._into(c.seat, c.field, bean)
            cards.remove(bean)
            self._duel_cards_resolved()
        else:
            raise Illegal("nothing to plant now")

    def _reveal(self, c: cmd.Reveal) -> None:  # §5.2.1, §10.4
        if self.phase != "plant" or c.seat != self.active:
            raise Illegal("not time to reveal")
        if self.planted == 0 and self.seats[c.seat].hand:
            raise Illegal("the front card must be planted first (§5.1.2)")
        self.revealed += self._cards(self.rules.reveals, c.cards, into_hand=False)
        if self.failed:
            self._end()
            return
        if not self.duel:
            self.phase = "trade"
            return
        while self.discard and self.discard[-1] in self.revealed:  # §11.2 step 3
            self.revealed.append(self.discard.pop())
        self.phase = "plant-drawn"
        self._duel_cards_resolved()

    def _offer(self, c: cmd.Offer) -> None:  # §6
        self._trading()
        if not 0 <= c.to < self.players or c.to == c.seat or self.active not in (c.seat, c.to):
            raise Illegal("trades are between the active player and one other (§6.1)")
        self._given(c.seat, c.revealed, c.trade_area)
        if not c.hand and not c.revealed and not c.trade_area and not c.wants:
            raise Illegal("an offer gives or asks for something (§6.5)")
        if any(bean not in self.rules.beans for bean in c.wants):
            raise Illegal("a bean not in play")
        cards = self._hand_cards(c.seat, c.hand, c.hand_beans)
        self.offers[self.next_offer] = OpenOffer(
            c.seat, c.to, cards, list(c.revealed), list(c.wants), list(c.trade_area)
        )
        self.next_offer += 1

    def _accept(self, c: cmd.Accept) -> None:  # §6.6, §14 E12
        self._trading()
        offer = self.offers.get(c.offer)
        if offer is None or offer.to != c.seat:
            raise Illegal("no such offer to this seat")
        self._given(c.seat, c.revealed, c.trade_area)
        cards = self._hand_cards(c.seat, c.hand, self._inferred(c, offer))
        given = [str(card) for card in cards] + list(c.revealed) + list(c.trade_area)
        if Counter(given) != Counter(offer.wants):
            raise Illegal("not exactly the beans asked for")
        del self.offers[c.offer]
        proposer, acceptor = self.seats[offer.proposer], self.seats[c.seat]
        received: list[list[str]] = [[], []]  # what each side gets, placed once both have given
        for seat, hand, face_up, area, gets in (
            (proposer, offer.hand, offer.revealed, offer.trade_area, received[0]),
            (acceptor, cards, list(c.revealed), list(c.trade_area), received[1]),
        ):
            for card in hand:
                seat.hand.remove(card)
                gets.append(card.bean)
            for bean in face_up:
                self.revealed.remove(bean)
                gets.append(bean)
            for bean in area:
                seat.trade_area.remove(bean)
                gets.append(bean)
        acceptor.trade_area += received[0]
        proposer.trade_area += received[1]
        moved = set(map(id, offer.hand + cards))
        for number, other in list(self.offers.items()):
            face_up_left = not Counter(other.revealed) - Counter(self.revealed)
            area_left = not Counter(other.trade_area) - Counter(
                self.seats[other.proposer].trade_area
            )
            if any(id(card) in moved for card in other.hand) or not face_up_left or not area_left:
                del self.offers[number]

    def _decline(self, c: cmd.Decline) -> None:  # §6.6
        self._close(c.offer, c.seat, "to")

    def _withdraw(self, c: cmd.Withdraw) -> None:
        self._close(c.offer, c.seat, "proposer")

    def _close(self, number: int, seat: int, role: str) -> None:
        """Offer `number` closed by `seat`, who must be its `role` ("to" or "proposer")."""
        self._trading()
        offer = self.offers.get(number)
        if offer is None or getattr(offer, role) != seat:
            raise Illegal(f"no open offer {number} with seat {seat} as its {role}")
        del self.offers[number]

    def _endtrading(self, c: cmd.EndTrading) -> None:  # §5.2.3
        self._trading()
        if c.seat != self.active:
            raise Illegal("only the active player ends trading")
        self.seats[self.active].trade_area += self.revealed
        self.revealed = []
        self.offers.clear()
        self.phase = "plant-traded"
        self._trade_areas_planted()

    def _draw(self, c: cmd.Draw) -> None:  # §5.4, §10.5
        if self.phase != "draw" or c.seat != self.active:
            raise Illegal("not time to draw")
        self.seats[self.active].hand += [
            Card(None, int(card[1:])) if card.startswith(UNSEEN) else Card(card)
            for card in self._cards(self.rules.draws, c.cards, into_hand=True)
        ]
        if self.end_triggered:
            self._end()
            return
        self.active = (self.active + 1) % self.players
        self.phase = "resolve-offer" if self.duel_offer else "plant"
        self.planted = 0
        self.hand_discarded = False

    def _discardoffered(self, c: cmd.DiscardOffered) -> None:  # §11.2 step 1
        if self.phase != "resolve-offer" or c.seat != self.active or c.bean not in self.duel_offer:
            raise Illegal("no such offered card to discard")
        self.duel_offer.remove(c.bean)
        self.discard.append(c.bean)
        self._duel_cards_resolved()

    def _discardfromhand(self, c: cmd.DiscardFromHand) -> None:  # §11.2 step 2
        hand = self.seats[c.seat].hand
        if not self.duel or self.phase != "plant" or c.seat != self.active:
            raise Illegal("not the duel's step 2")
        if self.hand_discarded or not self.planted:
            raise Illegal("one discard, after planting")
        if not 0 <= c.position < len(hand):
            raise Illegal("no such hand card")
        self._named_card(hand[c.position], c.bean)
        self.discard.append(str(hand.pop(c.position)))
        self.hand_discarded = True

    def _offerrest(self, c: cmd.OfferRest) -> None:  # §11.2 step 3
        if self.phase != "plant-drawn" or c.seat != self.active:
            raise Illegal("not the duel's step 3")
        self.duel_offer, self.revealed = self.revealed, []
        self._duel_cards_resolved()

    def _duel_cards_resolved(self) -> None:
        """Step 1 ends when no offered card is left, step 3 when no drawn card is (§11.2, §11.4)."""
        if self.phase == "resolve-offer" and not self.duel_offer:
            self.phase = "plant"
        elif self.phase == "plant-drawn" and not self.revealed:
            if self.end_triggered:
                self._end()
            else:
                self.phase = "draw"

    # --- the pieces ----------------------------------------------------------------------------

    def _trading(self) -> None:
        if self.phase != "trade":  # never in the duel
            raise Illegal("not the trading phase")

    def _hand_cards(
        self, seat: int, positions: tuple[int, ...], beans: tuple[str, ...] | None
    ) -> list[Card]:
        """The hand cards at `positions`, named as `beans` say (a card nobody has seen must be
        named, and is that bean from then on: §4.4)."""
        hand = self.seats[seat].hand
        if len(set(positions)) != len(positions) or not all(0 <= p < len(hand) for p in positions):
            raise Illegal("no such hand positions")
        cards = [hand[p] for p in positions]
        if beans is not None and len(beans) != len(cards):
            raise Illegal("one bean for each hand card")
        for number, card in enumerate(cards):
            self._named_card(card, None if beans is None else beans[number])
        return cards

    def _named_card(self, card: Card, bean: str | None) -> str:
        """The card's bean: `bean` checked against it, or naming it if nobody has seen it."""
        if card.bean is not None:
            if bean not in (None, card.bean):
                raise Illegal("the card is another bean")
            return card.bean
        assert card.pile is not None
        if bean is None or self.pools[card.pile][bean] <= 0:
            raise Illegal("a card nobody has seen is named, as a bean its pile still hides")
        self.pools[card.pile][bean] -= 1
        card.bean, card.pile = bean, None
        return bean

    def _inferred(self, c: cmd.Accept, offer: OpenOffer) -> tuple[str, ...] | None:
        """§6.6: the beans of an acceptance's unseen hand cards, when the wanted beans leave no
        choice that matters (all one bean, or all from one pile); None if they must be named."""
        hand = self.seats[c.seat].hand
        if c.hand_beans is not None or not all(0 <= p < len(hand) for p in c.hand):
            return c.hand_beans
        unseen = [p for p in c.hand if hand[p].bean is None]
        rest = Counter(offer.wants) - Counter(c.revealed) - Counter(c.trade_area)
        rest -= Counter(hand[p].bean for p in c.hand if p not in unseen)
        beans = list(rest.elements())
        piles = {hand[p].pile for p in unseen}
        if not unseen or len(beans) != len(unseen) or (len(set(beans)) > 1 and len(piles) > 1):
            return None
        named = dict(zip(unseen, beans, strict=True))
        return tuple(named.get(p) or str(hand[p]) for p in c.hand)

    def _given(self, seat: int, revealed: tuple[str, ...], area: tuple[str, ...]) -> None:
        """§6.3, §6.4, §12.1 H1: the face-up and trade-area cards a seat gives."""
        if revealed and seat != self.active:
            raise Illegal("only the active player gives face-up cards (§6.3)")
        if Counter(revealed) - Counter(self.revealed):
            raise Illegal("no such face-up cards")
        if area and not self.retrade:
            raise Illegal("received cards cannot be traded (§6.4)")
        if Counter(area) - Counter(self.seats[seat].trade_area):
            raise Illegal("no such trade-area cards")

    def _into(self, number: int, index: int, bean: str) -> None:  # §7.1, §12.1 H2
        fields = self.seats[number].fields
        if not 0 <= index < len(fields):
            raise Illegal("no such field")
        if fields[index][0] not in (None, bean):
            if not self.implicit_harvest:
                raise Illegal("a field of another bean")
            self._protected(number, index)
            self._sell(number, index)
        fields[index][0], fields[index][1] = bean, fields[index][1] + 1

    def _protected(self, number: int, index: int) -> None:  # §8.3
        counts = [count for _, count in self.seats[number].fields]
        if counts[index] != 1 or self.protection == "none":
            return
        if self.protection == "amigo" and any(count >= 2 for count in counts):
            raise Illegal("bean protection (§8.3)")
        if self.protection == "rg-literal" and any(count != 1 for count in counts):
            raise Illegal("bean protection, read literally (§8.3)")

    def _sell(self, number: int, index: int) -> None:  # §8.4
        seat = self.seats[number]
        bean, count = seat.fields[index]
        coins = payout(bean, count)
        seat.coins += [bean] * coins
        self.discard += [bean] * (count - coins)
        seat.fields[index] = [None, 0]

    def _trade_areas_planted(self) -> None:  # §5.3.4, §10.4
        if any(seat.trade_area for seat in self.seats):
            return
        if self.end_triggered:
            self._end()
        else:
            self.phase = "draw"

    def _cards(self, owed: int, named: tuple[str, ...] | None, *, into_hand: bool) -> list[str]:
        """The cards a reveal or a draw takes: `owed`, or fewer if the game ends on the way; in a
        tabletop game exactly those the recorder names, each one the pile holds (§4.4); with
        unknown hands a draw into a hand names none (or UNSEEN for each card), and takes unseen
        cards, each written UNSEEN and its pile's number."""
        unseen = self.unknown_hands and into_hand
        if unseen and named is not None and set(named) - {UNSEEN}:
            raise Illegal("cards drawn into a hand go there unseen (§4.4)")
        if not unseen and (named is None) == self.tabletop:
            raise Illegal("a tabletop game names the cards, a digital game does not")
        taken: list[str] = []
        while len(taken) < owed:
            name = named[len(taken)] if named and len(taken) < len(named) else None
            card = self._take(None if unseen else name)
            if card is None:
                break
            taken.append(card)
        if named is not None and len(named) != len(taken):
            raise Illegal(f"{len(named)} cards named where {len(taken)} are taken")
        return taken

    def _take(self, named: str | None = None) -> str | None:  # §10.1–§10.3, §10.9, §14 E6, H3
        """The top card of the draw pile (in a tabletop game the one `named`, or any), making a
        new pile when one is due; None when the end has come (and `failed` when, under H3, it
        came because no card was left)."""
        while not self.end_triggered:
            if self.reshuffle_due:
                self.reshuffle_due = False
                self._reshuffle()
            elif (
                not self.draw_pile
                and self.failed_draw_ends
                and self.exhaustions >= self.rules.ends_on
            ):
                self.end_triggered = self.failed = True
            elif not self.draw_pile:  # a pile made of no discards runs out again as it is needed
                self._exhausted()
            else:
                if self.unknown_hands:
                    pool = self.pools[-1]
                    if named is not None and pool[named] <= 0:
                        raise Illegal(f"the draw pile hides no {named} (§4.4)")
                    if named is not None:
                        pool[named] -= 1
                    self.draw_pile.pop()
                    card = f"{UNSEEN}{len(self.pools) - 1}" if named is None else named
                elif named is None:
                    card = self.draw_pile.pop(0)
                elif named in self.draw_pile:
                    card = named
                    self.draw_pile.remove(named)
                else:
                    raise Illegal(f"the draw pile holds no {named} (§4.4)")
                if not self.draw_pile:
                    self._exhausted()
                return card
        return None

    def _exhausted(self) -> None:
        self.exhaustions += 1
        if self.exhaustions >= self.rules.ends_on:
            self.end_triggered = not self.failed_draw_ends  # H3: nothing reshuffled, no end yet
        elif self.reshuffle_later:
            self.reshuffle_due = True
        else:
            self._reshuffle()

    def _reshuffle(self) -> None:
        if not self.discard and self.empty_reshuffle_ends:
            self.end_triggered = True
            return
        order = next(self._reshuffles, []) if self.discard and not self.tabletop else self.discard
        if Counter(order) != Counter(self.discard):
            raise AssertionError("the reshuffled pile is not the discard pile")
        if self.unknown_hands:  # its beans are known, not their order
            self.pools.append(Counter(self.discard))
            order = [UNSEEN] * len(self.discard)
        self.draw_pile, self.discard = list(order), []

    def _end(self) -> None:  # §10.6, §10.7
        for number, seat in enumerate(self.seats):
            for index, (_, count) in enumerate(seat.fields):
                if count:
                    self._sell(number, index)
        self.phase = "ended"
        self.scores = [len(seat.coins) for seat in self.seats]
        best = [n for n, score in enumerate(self.scores) if score == max(self.scores)]
        for criterion in self.rules.tie_break if len(best) > 1 else ():
            if criterion == "most-hand-cards":
                most = max(len(self.seats[n].hand) for n in best)
                best = [n for n in best if len(self.seats[n].hand) == most]
            elif criterion == "seat-distance":
                best = [max(best, key=lambda n: (n - self.start) % self.players)]
            if len(best) == 1:
                self.decided_by = criterion
                break
        if len(best) > 1:
            self.decided_by = "shared"
        self.winners = best
