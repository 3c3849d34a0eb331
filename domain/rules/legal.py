"""legal_commands(state, seat): what a seat may do now, for bots, user interfaces and tests.

Every listed command is accepted by `decide`. Trade offers cannot be listed one by one (any cards
for any beans), so `Legal.offer` describes their range instead (and `Legal.offers` each seat's, for
the host of a tabletop game); tabletop chance steps (the cards seen on a reveal or a draw) are
described by `Legal.chance`.
"""

from __future__ import annotations

import itertools
from collections import Counter
from collections.abc import Iterator
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from . import commands as cmd
from .decide import drawable
from .state import DIGITAL, GameState, Offer, Phase, pile_of
from .table import (
    buy_field_blocker,
    harvestable_fields,
    plant_targets,
    possible_beans,
    protection_blocker,
)
from .values import replaceable


@replaceable
@dataclass(frozen=True, slots=True)
class OfferRange:
    """The offers `seat` may make now: to these seats, any non-empty mix of these cards, for any
    beans in play."""

    seat: int
    to: tuple[int, ...]
    hand: tuple[int, ...]
    revealed: tuple[str, ...]
    trade_area: tuple[str, ...]
    wants: tuple[str, ...]
    hand_beans: tuple[tuple[str, ...], ...] = ()
    """A game with unknown hands: the beans each hand card may be (an offer names them)."""

    if TYPE_CHECKING:

        @staticmethod
        def build(*values: Any) -> OfferRange: ...


@dataclass(frozen=True, slots=True)
class ChanceStep:
    """A tabletop step waiting for the cards seen at the table: `count` cards for `kind`."""

    kind: str
    """"deal", "reveal" or "draw"."""
    seat: int | None
    count: int
    hands: tuple[int, ...] | None = None
    """The deal: how many cards each seat is dealt, by seat (they add up to `count`)."""


@replaceable
@dataclass(frozen=True, slots=True)
class Legal:
    commands: tuple[cmd.Command, ...]
    offer: OfferRange | None = None
    """A seat's own offer range."""
    chance: ChanceStep | None = None
    offers: tuple[OfferRange, ...] = ()
    """Every offer range the caller may enter: a seat's own (as `offer`); for the host of a
    tabletop game, each seat's that may offer now."""

    if TYPE_CHECKING:

        @staticmethod
        def build(*values: Any) -> Legal: ...

    def __iter__(self) -> Iterator[cmd.Command]:
        return iter(self.commands)

    def __len__(self) -> int:
        return len(self.commands)

    def __bool__(self) -> bool:
        return bool(self.commands or self.offers or self.chance)


def host_legal_commands(state: GameState) -> Legal:
    """Everything the host of a tabletop game may enter now: each seat's commands and offer
    range (the host acts for any seat), and the chance step the table is waiting for."""
    if state.mode == DIGITAL or state.phase is Phase.ENDED:
        return Legal(())
    seats = [legal_commands(state, seat) for seat in range(len(state.players))]
    commands = tuple(command for legal in seats for command in legal)
    offers = tuple(offer for legal in seats for offer in legal.offers)
    return Legal(commands, None, chance_step(state), offers)


def chance_step(state: GameState) -> ChanceStep | None:
    """The tabletop chance step the game is waiting for, if any (None in digital games)."""
    if state.mode == DIGITAL:
        return None
    rules = state.ruleset
    if state.phase is Phase.DEAL:
        players = len(state.players)
        hands = tuple(rules.deal[(seat - state.start_seat) % players] for seat in range(players))
        return ChanceStep("deal", None, sum(hands), hands)
    player = state.players[state.active]
    if state.phase is Phase.PLANT and (state.planted or not player.hand):
        return ChanceStep("reveal", state.active, drawable(state, rules.reveal))
    if state.phase is Phase.DRAW and not state.hands_unknown:
        return ChanceStep("draw", state.active, drawable(state, rules.draw))
    return None


def seats_name_pile_cards(state: GameState) -> bool:
    """Whether a seat's own token may name the cards its reveals and draws turn up (who enters a
    legal command is the service's question, not the rules'). Only with unknown hands, where
    every card the game knows was shown to the table, so that a check of a named card uses
    nothing a seat may not know. With known hands the host entered every hand, and only the host
    names the cards that come off the pile: a refused card would tell a seat where the other
    copies are (RULES §4.4)."""
    return state.mode == DIGITAL or state.hands_unknown


def legal_commands(state: GameState, seat: int) -> Legal:
    """Everything `seat` may do now."""
    if state.phase in (Phase.ENDED, Phase.DEAL):
        return Legal(())
    commands: list[cmd.Command] = [cmd.Harvest(seat, i) for i in harvestable_fields(state, seat)]
    if buy_field_blocker(state, seat) is None:
        commands.append(cmd.BuyField(seat))
    offer = None
    chance = None
    active = seat == state.active
    phase = state.phase
    player = state.players[seat]
    if phase is Phase.PLANT and active:
        if state.planted < 2 and player.hand and not state.hand_discarded:
            front = player.hand[0]
            if pile_of(front) is None:
                commands += _plants(state, seat, front, bean_named=False)
            else:  # nobody has seen it: the plant names the bean the table sees
                for bean in possible_beans(state, front):
                    commands += _plants(state, seat, bean)
        if state.planted or not player.hand:
            if state.mode == DIGITAL:
                commands.append(cmd.Reveal(seat))
            else:
                chance = chance_step(state)
            if state.ruleset.duel and not state.hand_discarded:
                commands += _hand_discards(state, seat)
    elif phase is Phase.RESOLVE_OFFER and active:
        for bean in _distinct(state.duel_offer):
            commands += _plants(state, seat, bean)
            commands.append(cmd.DiscardOffered(seat, bean))
    elif phase is Phase.TRADE and state.ruleset.trading:
        if active:
            commands.append(cmd.EndTrading(seat))
        for open_offer in state.offers:
            if open_offer.to == seat:
                commands += _acceptances(state, seat, open_offer)
                commands.append(cmd.Decline(seat, open_offer.id))
            if open_offer.proposer == seat:
                commands.append(cmd.Withdraw(seat, open_offer.id))
        offer = _offer_range(state, seat)
    elif phase is Phase.PLANT_TRADED:
        for bean in _distinct(player.trade_area):
            commands += _plants(state, seat, bean)
    elif phase is Phase.PLANT_DRAWN and active:
        for bean in _distinct(state.revealed):
            commands += _plants(state, seat, bean)
        commands.append(cmd.OfferRest(seat))
    elif phase is Phase.DRAW and active:
        if state.mode == DIGITAL or state.hands_unknown:  # no card to name
            commands.append(cmd.Draw(seat))
        else:
            chance = chance_step(state)
    return Legal.build(tuple(commands), offer, chance, () if offer is None else (offer,))


def _distinct(cards: tuple[str, ...]) -> list[str]:
    return list(dict.fromkeys(cards))


def _hand_discards(state: GameState, seat: int) -> list[cmd.Command]:
    """The duel's hand discards: each position, naming the bean of a card nobody has seen."""
    commands: list[cmd.Command] = []
    for position, card in enumerate(state.players[seat].hand):
        if pile_of(card) is None:
            commands.append(cmd.DiscardFromHand(seat, position))
        else:
            commands += [
                cmd.DiscardFromHand(seat, position, bean) for bean in possible_beans(state, card)
            ]
    return commands


def _plants(
    state: GameState, seat: int, bean: str, *, bean_named: bool = True
) -> list[cmd.Command]:
    targets = plant_targets(state, seat, bean)
    if state.ruleset.implicit_harvest:
        fields = state.players[seat].fields
        targets += [
            i
            for i, field in enumerate(fields)
            if i not in targets and protection_blocker(state, seat, i) is None
        ]
    named = bean if bean_named else None
    return [cmd.Plant(seat, field, named) for field in sorted(targets)]


def _offer_range(state: GameState, seat: int) -> OfferRange:
    active = seat == state.active
    others = tuple(other for other in range(len(state.players)) if other != seat)
    player = state.players[seat]
    return OfferRange.build(  # seat, to, hand, revealed, trade_area, wants, hand_beans
        seat,
        others if active else (state.active,),
        tuple(range(len(player.hand))),
        state.revealed if active else (),
        player.trade_area if state.ruleset.allow_retrade else (),
        state.ruleset.beans,
        tuple(possible_beans(state, card) for card in player.hand) if state.hands_unknown else (),
    )


def _acceptances(state: GameState, seat: int, offer: Offer) -> list[cmd.Command]:
    """Every way `seat` can give exactly what `offer` wants (in a game with unknown hands: from
    which zones, with unseen hand cards taken by `_unseen_acceptances`)."""
    if state.hands_unknown:
        return _unseen_acceptances(state, seat, offer)
    player = state.players[seat]
    revealed = Counter(state.revealed) if seat == state.active else Counter()
    area = Counter(player.trade_area) if state.ruleset.allow_retrade else Counter()
    per_bean: list[list[tuple[tuple[int, ...], int, int]]] = []
    for bean, need in Counter(offer.wants).items():
        positions = [i for i, card in enumerate(player.hand) if card == bean]
        ways = []
        for from_revealed in range(min(need, revealed[bean]) + 1):
            for from_area in range(min(need - from_revealed, area[bean]) + 1):
                from_hand = need - from_revealed - from_area
                ways += [
                    (chosen, from_revealed, from_area)
                    for chosen in itertools.combinations(positions, from_hand)
                ]
        if not ways:
            return []
        per_bean.append(ways)
    beans = list(Counter(offer.wants))
    result: list[cmd.Command] = []
    for combo in itertools.product(*per_bean):
        hand = tuple(sorted(pos for chosen, _, _ in combo for pos in chosen))
        given_revealed = tuple(
            b for b, (_, n, _) in zip(beans, combo, strict=True) for _ in range(n)
        )
        given_area = tuple(b for b, (_, _, n) in zip(beans, combo, strict=True) for _ in range(n))
        result.append(cmd.Accept(seat, offer.id, hand, given_revealed, given_area))
    return result


def _unseen_acceptances(state: GameState, seat: int, offer: Offer) -> list[cmd.Command]:
    """A game with unknown hands: every split of the wanted beans between the face-up cards, the
    trade area and the hand, the hand's part given by unseen cards from the oldest draw pile that
    may still hold each bean (unseen cards of one pile are alike: another choice among them would
    be the same game)."""
    player = state.players[seat]
    revealed = Counter(state.revealed) if seat == state.active else Counter()
    area = Counter(player.trade_area) if state.ruleset.allow_retrade else Counter()
    wants = Counter(offer.wants)
    splits: list[list[tuple[str, int, int, int]]] = []
    for bean, need in wants.items():
        ways = []
        for from_revealed in range(min(need, revealed[bean]) + 1):
            for from_area in range(min(need - from_revealed, area[bean]) + 1):
                ways.append((bean, from_revealed, from_area, need - from_revealed - from_area))
        splits.append(ways)
    result: list[cmd.Command] = []
    left = _unnamed(state, offer)
    if left is None:  # the offer's own unseen cards can no longer be what it named
        return []
    for combo in itertools.product(*splits):
        wanted = [(bean, n) for bean, _, _, n in combo if n]
        hand = _unseen_cards_for(state, seat, wanted, left)
        if hand is None:
            continue
        positions = tuple(position for position, _ in hand)
        beans = tuple(bean for _, bean in hand)
        result.append(
            cmd.Accept(
                seat,
                offer.id,
                positions,
                tuple(b for b, n, _, _ in combo for _ in range(n)),
                tuple(b for b, _, n, _ in combo for _ in range(n)),
                beans,
            )
        )
    return result


def _unnamed(state: GameState, offer: Offer) -> dict[int, Counter[str]] | None:
    """For each draw pile, the beans it has not shown that `offer`'s unseen hand cards do not
    name either (they are named when the offer is accepted, RULES §4.4); None if the offer names
    more of a bean than its pile still hides."""
    left = {pile: Counter(beans) for pile, beans in enumerate(state.pools)}
    hand = state.players[offer.proposer].hand
    for position, bean in zip(offer.hand, offer.gives, strict=False):
        pile = pile_of(hand[position])
        if pile is not None:
            if left[pile][bean] == 0:
                return None
            left[pile][bean] -= 1
    return left


def _unseen_cards_for(
    state: GameState, seat: int, wanted: list[tuple[str, int]], pools: dict[int, Counter[str]]
) -> list[tuple[int, str]] | None:
    """Hand positions (with their beans) that may give `wanted` beans, oldest pile first, from
    what `pools` still hide; None if the hand cannot."""
    hand = state.players[seat].hand
    free = [position for position, card in enumerate(hand) if pile_of(card) is not None]
    left = {pile: Counter(beans) for pile, beans in pools.items()}
    chosen: list[tuple[int, str]] = []
    for bean, count in wanted:
        for _ in range(count):
            position = next((p for p in free if left[pile_of(hand[p]) or 0][bean] > 0), None)
            if position is None:
                return None
            free.remove(position)
            left[pile_of(hand[position]) or 0][bean] -= 1
            chosen.append((position, bean))
    return chosen
