"""How a game was played, told by its numbers: the negotiation and the harvests of each seat.

A game's facts hold every offer, acceptance, refusal and donation, which no other record of a
card game keeps. `insights` counts them per seat, beside the harvests, the beans lost unplanted,
the third fields and the turns where the lead changed.

Everything is counted from the facts as one viewer saw them (`projections.views.redact`), so a
statistic can hold nothing that viewer could not have read off the table: offers and trades are
public at the table, hand positions are not (and are not used); coin totals follow the game's
`coin_counts_visible` rule, so while a game with secret coins runs, another seat's coins and the
lead are not told.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from typing import Any

from domain.rules import events as ev
from domain.rules.errata import effective
from domain.rules.rulesets import Ruleset
from projections.views import Viewer, redact, sees_everything


@dataclass
class SeatInsights:
    """One seat's numbers. Coin figures are None where the viewer may not see that seat's coins."""

    seat: int
    name: str
    offers_made: int = 0
    offers_received: int = 0
    offers_accepted: int = 0
    """Offers this seat made that were accepted."""
    accepted: int = 0
    """Offers made to this seat that it accepted."""
    declined: int = 0
    """Offers made to this seat that it declined."""
    withdrawn: int = 0
    """Offers this seat made and took back."""
    trades: int = 0
    """Accepted offers with cards going both ways, either side."""
    donations_given: int = 0
    donations_received: int = 0
    cards_given: dict[str, int] = field(default_factory=dict)
    cards_got: dict[str, int] = field(default_factory=dict)
    harvests: int = 0
    coins_earned: int | None = 0
    wasted_harvests: list[dict[str, Any]] = field(default_factory=list)
    """Harvests with beans beyond the beanometer tier they reached: bean, count, coins, wasted."""
    discarded_unplanted: int = 0
    """Cards this seat sent to the discard pile without planting them (the duel's discards)."""
    third_field_turn: int | None = None

    @property
    def coins_per_harvest(self) -> float | None:
        if self.coins_earned is None or not self.harvests:
            return None
        return round(self.coins_earned / self.harvests, 2)

    @property
    def acceptance_rate(self) -> float | None:
        """The share of the offers made to this seat that it accepted (None: none were made)."""
        answered = self.accepted + self.declined
        return round(self.accepted / answered, 3) if answered else None

    def to_dict(self) -> dict[str, Any]:
        return {
            "seat": self.seat,
            "name": self.name,
            "offers_made": self.offers_made,
            "offers_received": self.offers_received,
            "offers_accepted": self.offers_accepted,
            "accepted": self.accepted,
            "declined": self.declined,
            "withdrawn": self.withdrawn,
            "acceptance_rate": self.acceptance_rate,
            "trades": self.trades,
            "donations_given": self.donations_given,
            "donations_received": self.donations_received,
            "cards_given": dict(sorted(self.cards_given.items())),
            "cards_got": dict(sorted(self.cards_got.items())),
            "harvests": self.harvests,
            "coins_earned": self.coins_earned,
            "coins_per_harvest": self.coins_per_harvest,
            "wasted_harvests": list(self.wasted_harvests),
            "discarded_unplanted": self.discarded_unplanted,
            "third_field_turn": self.third_field_turn,
        }


@dataclass
class Insights:
    seats: list[SeatInsights]
    traded_with: list[list[int]]
    """`traded_with[a][b]`: accepted offers between seats a and b (trades and donations)."""
    lead_changes: list[dict[str, Any]] | None
    """Each turn at whose end the leaders (most coins) differed from the turn before: the turn
    and the leading seats. None while the viewer may not see every seat's coins."""
    over: bool

    def to_dict(self) -> dict[str, Any]:
        return {
            "over": self.over,
            "seats": [seat.to_dict() for seat in self.seats],
            "traded_with": [list(row) for row in self.traded_with],
            "lead_changes": self.lead_changes,
        }


def insights(stream: Sequence[ev.Event], viewer: Viewer) -> Insights:
    """The numbers of a game (its stream: as corrected, when it was corrected) as `viewer` may
    read them."""
    facts = effective(stream)
    first = facts[0]
    assert isinstance(first, ev.GameStarted), "a game's facts start with GameStarted"
    ruleset = Ruleset.from_dict(first.ruleset)
    mode = first.mode
    seen = [redact(fact, viewer, mode) for fact in facts]
    over = any(isinstance(fact, ev.GameEnded) for fact in seen)
    seats = [SeatInsights(seat, name) for seat, name in enumerate(first.seats)]
    shown = [
        ruleset.coin_counts_visible or over or viewer.seat == seat or sees_everything(viewer, mode)
        for seat in range(len(seats))
    ]
    _count(seen, seats, ruleset)
    matrix = _traded_with(seen, len(seats))
    leads = _lead_changes(seen, len(seats)) if all(shown) else None
    for seat, visible in zip(seats, shown, strict=True):
        if not visible:
            seat.coins_earned = None
            seat.wasted_harvests = [{**h, "coins": None} for h in seat.wasted_harvests]
    return Insights(seats, matrix, leads, over)


def _count(facts: Iterable[ev.Event], seats: list[SeatInsights], ruleset: Ruleset) -> None:
    offers: dict[int, ev.TradeOffered] = {}
    turn = 1
    for fact in facts:
        if isinstance(fact, ev.TradeOffered):
            offers[fact.offer] = fact
            seats[fact.proposer].offers_made += 1
            seats[fact.to].offers_received += 1
        elif isinstance(fact, ev.TradeAccepted):
            seats[fact.proposer].offers_accepted += 1
            seats[fact.acceptor].accepted += 1
            _moved(seats[fact.proposer], seats[fact.acceptor], fact.to_acceptor)
            _moved(seats[fact.acceptor], seats[fact.proposer], fact.to_proposer)
            if fact.to_acceptor and fact.to_proposer:
                seats[fact.proposer].trades += 1
                seats[fact.acceptor].trades += 1
            elif fact.to_acceptor:
                seats[fact.proposer].donations_given += 1
                seats[fact.acceptor].donations_received += 1
            elif fact.to_proposer:
                seats[fact.acceptor].donations_given += 1
                seats[fact.proposer].donations_received += 1
        elif isinstance(fact, ev.TradeDeclined):
            seats[fact.seat].declined += 1
        elif isinstance(fact, ev.TradeWithdrawn):
            seats[fact.seat].withdrawn += 1
        elif isinstance(fact, ev.FieldHarvested):
            _harvested(seats[fact.seat], fact, ruleset)
        elif isinstance(fact, ev.OfferedCardDiscarded | ev.HandCardDiscarded):
            seats[fact.seat].discarded_unplanted += 1
        elif isinstance(fact, ev.ThirdFieldBought):
            seats[fact.seat].third_field_turn = turn
        elif isinstance(fact, ev.TurnEnded):
            turn = fact.turn + 1


def _moved(giver: SeatInsights, taker: SeatInsights, beans: Sequence[str]) -> None:
    for bean, count in Counter(beans).items():
        giver.cards_given[bean] = giver.cards_given.get(bean, 0) + count
        taker.cards_got[bean] = taker.cards_got.get(bean, 0) + count


def _harvested(seat: SeatInsights, fact: ev.FieldHarvested, ruleset: Ruleset) -> None:
    seat.harvests += 1
    assert seat.coins_earned is not None
    seat.coins_earned += fact.coins
    meter = ruleset.meters[fact.bean]
    reached = max(
        (level for level in meter if level is not None and level <= fact.count), default=0
    )
    if fact.count > reached:  # beans past the tier reached (all of them when it pays nothing)
        seat.wasted_harvests.append(
            {
                "bean": fact.bean,
                "count": fact.count,
                "coins": fact.coins,
                "wasted": fact.count - reached,
            }
        )


def _traded_with(facts: Iterable[ev.Event], players: int) -> list[list[int]]:
    matrix = [[0] * players for _ in range(players)]
    for fact in facts:
        if isinstance(fact, ev.TradeAccepted):
            matrix[fact.proposer][fact.acceptor] += 1
            matrix[fact.acceptor][fact.proposer] += 1
    return matrix


def _lead_changes(facts: Iterable[ev.Event], players: int) -> list[dict[str, Any]]:
    """The turns at whose end the leading seats changed (coins earned minus coins paid)."""
    coins = [0] * players
    leaders: list[int] = []
    changes: list[dict[str, Any]] = []

    def settle(turn: int) -> None:
        nonlocal leaders
        top = max(coins)
        now = [seat for seat, count in enumerate(coins) if count == top] if top > 0 else []
        if now != leaders:
            changes.append({"turn": turn, "leaders": now, "coins": top})
            leaders = now

    for fact in facts:
        if isinstance(fact, ev.FieldHarvested):
            coins[fact.seat] += fact.coins
        elif isinstance(fact, ev.ThirdFieldBought):
            coins[fact.seat] -= len(fact.coins)
        elif isinstance(fact, ev.TurnEnded):
            settle(fact.turn)
        elif isinstance(fact, ev.GameEnded):
            settle(-1)  # the end, after the final harvests
    return changes
