"""A witness for a game with unknown hands: the same game with every card nobody saw given a bean.

A game whose hands the recorder never saw names a hand card only when the table shows it (RULES
§4.4). Its facts say that an assignment of beans to the cards nobody saw exists; `witness` builds
one. It follows every card dealt or drawn unseen from the moment it enters a hand to the moment
the table names it (a plant from the front, an offer or a trade, the duel's hand discard, the
hands shown at the end); a card never named gets a bean its draw pile still hides at the end. The witness is the
game's facts as a game with *known* hands would have them: the deal and the draws name these
beans, and the seats' private notes and the hands shown are left out (a game with known hands has
neither). Re-deciding the witness's commands as such a game (`transcript.redecide`) and auditing
it checks every name the table gave against one consistent deck: the proof that the recorded game
could have happened.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass, replace

from . import events as ev
from .evolve import scan
from .state import KNOWN_HANDS, UNKNOWN_HANDS, UNSEEN, GameState, pile_of


@dataclass(frozen=True, slots=True)
class _Card:
    """A hand card by where it entered the game: fact `index`, and `slot` within that fact (a
    deal's cards, seat by seat, front first)."""

    index: int
    slot: int


def witness(facts: Sequence[ev.Event]) -> list[ev.Event] | None:
    """The facts of a game with unknown hands (as corrected: no `EntriesCorrected` among them) as
    a game with known hands, every card nobody saw given a bean; None for any other game."""
    first = facts[0]
    assert isinstance(first, ev.GameStarted), "a game's facts start with GameStarted"
    if first.hands != UNKNOWN_HANDS:
        return None
    if any(isinstance(fact, ev.EntriesCorrected) for fact in facts):
        raise ValueError("witness takes a game as corrected, not its stream")
    hands: dict[int, list[_Card]] = {}
    piles: dict[_Card, int] = {}
    named: dict[_Card, str] = {}
    state: GameState | None = None
    for index, (fact, state) in enumerate(zip(facts, scan(facts), strict=True)):
        if isinstance(fact, ev.CardsDealt):
            slot = 0
            for seat, hand in enumerate(fact.hands):
                hands[seat] = []
                for _ in hand:
                    hands[seat].append(_Card(index, slot))
                    slot += 1
        elif isinstance(fact, ev.CardDrawn):
            hands[fact.seat].append(_Card(index, 0))
        elif isinstance(fact, ev.BeanPlanted) and fact.source == "hand":
            named[hands[fact.seat].pop(0)] = fact.bean
        elif isinstance(fact, ev.HandCardDiscarded):
            named[hands[fact.seat].pop(fact.position)] = fact.bean
        elif isinstance(fact, ev.TradeOffered):  # an offer shows its hand cards to the table
            for position, bean in zip(sorted(fact.hand), fact.cards, strict=False):
                named.setdefault(hands[fact.proposer][position], bean)
        elif isinstance(fact, ev.TradeAccepted):
            sides = (
                (fact.proposer, fact.proposer_hand, fact.to_acceptor),
                (fact.acceptor, fact.acceptor_hand, fact.to_proposer),
            )
            for seat, positions, given in sides:
                for position, bean in zip(sorted(positions), given, strict=False):
                    named[hands[seat][position]] = bean  # hand cards are given first, in order
                gone = set(positions)
                hands[seat] = [card for p, card in enumerate(hands[seat]) if p not in gone]
        elif isinstance(fact, ev.HandShown):
            for card, bean in zip(hands[fact.seat], fact.cards, strict=True):
                named[card] = bean
        _note_piles(state, fact, hands, piles)
    assert state is not None
    _name_the_rest(state, hands, piles, named)
    return _rewritten(facts, named)


def _note_piles(
    after: GameState,
    fact: ev.Event,
    hands: dict[int, list[_Card]],
    piles: dict[_Card, int],
) -> None:
    """The draw pile each card that just entered a hand unseen came from (the folded hand says)."""
    if isinstance(fact, ev.CardsDealt):
        for seat, cards in hands.items():
            for card, held in zip(cards, after.players[seat].hand, strict=True):
                pile = pile_of(held)
                if pile is not None:
                    piles[card] = pile
    elif isinstance(fact, ev.CardDrawn):
        pile = pile_of(after.players[fact.seat].hand[-1])
        if pile is not None:
            piles[hands[fact.seat][-1]] = pile


def _name_the_rest(
    state: GameState,
    hands: dict[int, list[_Card]],
    piles: dict[_Card, int],
    named: dict[_Card, str],
) -> None:
    """Each card still unseen at the end gets a bean its draw pile still hides."""
    left = [Counter(pool) for pool in state.pools]
    for seat in sorted(hands):
        for card in hands[seat]:
            if card in named or card not in piles:
                continue
            pool = left[piles[card]]
            bean = next((bean for bean in state.ruleset.beans if pool[bean] > 0), None)
            if bean is None:
                raise ValueError(
                    f"draw pile {piles[card]} hides no bean for a card {state.name(seat)} holds"
                )
            pool[bean] -= 1
            named[card] = bean


def _rewritten(facts: Sequence[ev.Event], named: dict[_Card, str]) -> list[ev.Event]:
    out: list[ev.Event] = []
    for index, fact in enumerate(facts):
        if isinstance(fact, ev.GameStarted):
            out.append(replace(fact, hands=KNOWN_HANDS))
        elif isinstance(fact, ev.CardsDealt):
            slot = 0
            dealt = []
            for hand in fact.hands:
                dealt.append([named.get(_Card(index, slot + k), UNSEEN) for k in range(len(hand))])
                slot += len(hand)
            out.append(ev.CardsDealt(dealt))
        elif isinstance(fact, ev.CardDrawn):
            out.append(ev.CardDrawn(fact.seat, named.get(_Card(index, 0), UNSEEN)))
        elif not isinstance(fact, ev.HandNoted | ev.HandShown):
            out.append(fact)
    return out
