"""The insights projection: how each game was played, told by its numbers.

A game's facts hold every offer, acceptance, refusal and donation, which no other record of a
card game keeps. This read model counts them per seat, beside the harvests, the beans lost
unplanted, the third fields and the turns where the lead changed: one row per game
(`projection_insights`), its numbers kept current fact by fact and rebuilt from the store like
the other read models, exactly once (projections/runner.py).

The row holds the numbers as the whole table saw them. Every fact counted here is public at the
table but one: coins. Offers and trades are made aloud, and the hand cards an offer names
(`TradeOffered.hand`, the proposer's secret) are not read; harvests are public, but a ruleset
with `coin_counts_visible=false` keeps each seat's coin total its own while the game runs. So a
viewer reads the numbers through `Numbers.seen_by`, which blanks another seat's coins, its
coin-counted harvests and the lead while that viewer may not see them, as `projections.views`
redacts the facts themselves.

A correction of a tabletop game (`EntriesCorrected`) changes facts already counted: the game's
numbers are counted again from its corrected facts (its history read from the store up to the
correction), as the scoreboards are.
"""

from __future__ import annotations

import dataclasses
from collections import Counter
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field
from itertools import groupby
from operator import attrgetter
from typing import Any
from uuid import UUID

from sqlalchemy import Connection, Engine, Table, bindparam, insert, select, update

from domain.encoding import topics_of
from domain.rules import events as ev
from domain.rules.errata import effective
from domain.rules.rulesets import Ruleset

from .scoreboards import CHUNK, ProjectionError
from .tables import insights as insight_rows
from .tracking import GameHistory, Recorded
from .views import Viewer, sees_everything


@dataclass(slots=True)
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
        """The seat's numbers as the API and `bohnanza stats --json` tell them."""
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
    """A game's numbers as one viewer may read them."""

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


# --- one game's numbers, counted fact by fact --------------------------------------------------


@dataclass(slots=True)
class Numbers:
    """One game's numbers as the whole table saw them, and what counting on needs: its
    beanometers, the turn being played, the coins each seat holds and who leads.

    Kept in the read model as a plain dict (`to_row`, `from_row`), counted on fact by fact
    (`apply`)."""

    mode: str
    coins_visible: bool
    """The ruleset's `coin_counts_visible`: whether the table sees coins while the game runs."""
    meters: dict[str, list[int | None]]
    seats: list[SeatInsights]
    traded_with: list[list[int]]
    turn: int = 1
    over: bool = False
    coins: list[int] = field(default_factory=list)
    """Each seat's coins now (earned minus paid for third fields): who leads."""
    leaders: list[int] = field(default_factory=list)
    lead_changes: list[dict[str, Any]] = field(default_factory=list)

    @classmethod
    def start(cls, fact: ev.GameStarted) -> Numbers:
        ruleset = Ruleset.from_dict(fact.ruleset)
        players = len(fact.seats)
        return cls(
            mode=fact.mode,
            coins_visible=ruleset.coin_counts_visible,
            meters={bean: list(meter) for bean, meter in ruleset.meters.items()},
            seats=[SeatInsights(seat, name) for seat, name in enumerate(fact.seats)],
            traded_with=[[0] * players for _ in range(players)],
            coins=[0] * players,
        )

    @classmethod
    def count(cls, facts: Sequence[ev.Event]) -> Numbers:
        """The numbers of a game as corrected (`effective` of its stream), from its start."""
        first = facts[0]
        if not isinstance(first, ev.GameStarted):
            raise ValueError("a game's facts start with GameStarted")
        numbers = cls.start(first)
        for fact in facts[1:]:
            numbers.apply(fact)
        return numbers

    def apply(self, fact: ev.Event) -> None:
        """Count one fact (any fact: those that change no number are passed over)."""
        count = _COUNT.get(type(fact))
        if count is not None:
            count(self, fact)

    def seen_by(self, viewer: Viewer) -> Insights:
        """The numbers as `viewer` may read them: while the game runs with secret coin counts,
        another seat's coins (and the coins of its over-tier harvests) and the lead are None."""
        sees_all = sees_everything(viewer, self.mode)
        shown = [
            self.coins_visible or self.over or viewer.seat == seat.seat or sees_all
            for seat in self.seats
        ]
        seats = [
            seat
            if visible
            else dataclasses.replace(
                seat,
                coins_earned=None,
                wasted_harvests=[{**h, "coins": None} for h in seat.wasted_harvests],
            )
            for seat, visible in zip(self.seats, shown, strict=True)
        ]
        leads = [dict(change) for change in self.lead_changes] if all(shown) else None
        return Insights(seats, [list(row) for row in self.traded_with], leads, self.over)

    # --- the read model's row ---

    def to_row(self) -> dict[str, Any]:
        """The numbers as the read model's row keeps them: JSON, each seat as an array of its
        values in `SeatInsights` field order, each over-tier harvest as [bean, count, coins,
        wasted] (key names repeated per seat and harvest had been two thirds of the row)."""
        row = {name: getattr(self, name) for name in _NUMBERS_FIELDS}
        row["seats"] = [
            [
                [[h[key] for key in _HARVEST_KEYS] for h in seat.wasted_harvests]
                if name == "wasted_harvests"
                else getattr(seat, name)
                for name in _SEAT_FIELDS
            ]
            for seat in self.seats
        ]
        return row

    @classmethod
    def from_row(cls, row: dict[str, Any]) -> Numbers:
        seats = []
        for values in row["seats"]:
            seat = SeatInsights(**dict(zip(_SEAT_FIELDS, values, strict=True)))
            seat.wasted_harvests = [
                dict(zip(_HARVEST_KEYS, harvest, strict=True)) for harvest in seat.wasted_harvests
            ]
            seats.append(seat)
        return cls(**{**row, "seats": seats})

    # --- one method per fact that changes a number ---

    def _offered(self, fact: ev.TradeOffered) -> None:
        self.seats[fact.proposer].offers_made += 1
        self.seats[fact.to].offers_received += 1

    def _accepted(self, fact: ev.TradeAccepted) -> None:
        proposer, acceptor = self.seats[fact.proposer], self.seats[fact.acceptor]
        proposer.offers_accepted += 1
        acceptor.accepted += 1
        _moved(proposer, acceptor, fact.to_acceptor)
        _moved(acceptor, proposer, fact.to_proposer)
        if fact.to_acceptor and fact.to_proposer:
            proposer.trades += 1
            acceptor.trades += 1
        elif fact.to_acceptor:
            proposer.donations_given += 1
            acceptor.donations_received += 1
        elif fact.to_proposer:
            acceptor.donations_given += 1
            proposer.donations_received += 1
        self.traded_with[fact.proposer][fact.acceptor] += 1
        self.traded_with[fact.acceptor][fact.proposer] += 1

    def _declined(self, fact: ev.TradeDeclined) -> None:
        self.seats[fact.seat].declined += 1

    def _withdrawn(self, fact: ev.TradeWithdrawn) -> None:
        self.seats[fact.seat].withdrawn += 1

    def _harvested(self, fact: ev.FieldHarvested) -> None:
        seat = self.seats[fact.seat]
        seat.harvests += 1
        assert seat.coins_earned is not None, "the read model's numbers hide no coins"
        seat.coins_earned += fact.coins
        self.coins[fact.seat] += fact.coins
        reached = max(
            (
                level
                for level in self.meters[fact.bean]
                if level is not None and level <= fact.count
            ),
            default=0,
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

    def _discarded(self, fact: ev.OfferedCardDiscarded | ev.HandCardDiscarded) -> None:
        self.seats[fact.seat].discarded_unplanted += 1

    def _bought_field(self, fact: ev.ThirdFieldBought) -> None:
        self.seats[fact.seat].third_field_turn = self.turn
        self.coins[fact.seat] -= len(fact.coins)

    def _turn_ended(self, fact: ev.TurnEnded) -> None:
        self._settle(fact.turn)
        self.turn = fact.turn + 1

    def _ended(self, fact: ev.GameEnded) -> None:
        self._settle(-1)  # the end, after the final harvests
        self.over = True

    def _settle(self, turn: int) -> None:
        """Note a change of leaders (most coins, none while nobody has any) at a turn's end."""
        top = max(self.coins)
        now = [seat for seat, count in enumerate(self.coins) if count == top] if top > 0 else []
        if now != self.leaders:
            self.lead_changes.append({"turn": turn, "leaders": now, "coins": top})
            self.leaders = now


_NUMBERS_FIELDS = tuple(f.name for f in dataclasses.fields(Numbers))
_SEAT_FIELDS = tuple(f.name for f in dataclasses.fields(SeatInsights))
_HARVEST_KEYS = ("bean", "count", "coins", "wasted")


def _moved(giver: SeatInsights, taker: SeatInsights, beans: Sequence[str]) -> None:
    for bean, count in Counter(beans).items():
        giver.cards_given[bean] = giver.cards_given.get(bean, 0) + count
        taker.cards_got[bean] = taker.cards_got.get(bean, 0) + count


_COUNT: dict[type[ev.Event], Callable[[Numbers, Any], None]] = {
    ev.TradeOffered: Numbers._offered,
    ev.TradeAccepted: Numbers._accepted,
    ev.TradeDeclined: Numbers._declined,
    ev.TradeWithdrawn: Numbers._withdrawn,
    ev.FieldHarvested: Numbers._harvested,
    ev.OfferedCardDiscarded: Numbers._discarded,
    ev.HandCardDiscarded: Numbers._discarded,
    ev.ThirdFieldBought: Numbers._bought_field,
    ev.TurnEnded: Numbers._turn_ended,
    ev.GameEnded: Numbers._ended,
}
"""The facts that change a number, after a game's start."""


def insights(stream: Sequence[ev.Event], viewer: Viewer) -> Insights:
    """The numbers of a game counted straight from its stream (corrections applied), as `viewer`
    may read them: what the read model holds, counted without it (the tests compare the two)."""
    return Numbers.count(effective(stream)).seen_by(viewer)


# --- the projection --------------------------------------------------------------------------

_OF_GAMES = select(insight_rows).where(insight_rows.c.game_id.in_(bindparam("ids", expanding=True)))
_OF_GAME = select(insight_rows.c.numbers).where(insight_rows.c.game_id == bindparam("id"))
_UPDATE = update(insight_rows).where(insight_rows.c.game_id == bindparam("key_game_id"))
_GAME_NUMBER = attrgetter("game_id.int")


class GameInsights:
    """Each game's numbers (`Numbers`), one row per game."""

    name = "insights"
    topics: tuple[str, ...] = topics_of(ev.GameStarted, ev.EntriesCorrected, *_COUNT)
    tables: tuple[Table, ...] = (insight_rows,)

    def __init__(self, history: GameHistory | None = None) -> None:
        self.history = history

    def prepare(self, connection: Connection, batch: Sequence[Recorded]) -> _Counted:
        """A batch of facts counted into the rows of the games it touches, each written once."""
        runs = _runs(batch)
        starts: dict[UUID, bool] = {}  # whether the game's first fact in the batch starts it
        for game_id, run in runs:
            starts.setdefault(game_id, type(run[0].fact) is ev.GameStarted)
        stored = _load(connection, {game_id for game_id, new in starts.items() if not new})
        new: dict[UUID, Numbers] = {}
        for game_id, run in runs:
            numbers = stored.get(game_id) or new.get(game_id)
            for recorded in run:
                fact = recorded.fact
                if numbers is None:
                    if not isinstance(fact, ev.GameStarted):
                        raise ProjectionError(f"game {game_id} has a {fact.kind} before its start")
                    numbers = new[game_id] = Numbers.start(fact)
                elif isinstance(fact, ev.EntriesCorrected):
                    numbers = self._corrected(recorded)
                    (new if game_id in new else stored)[game_id] = numbers
                else:
                    numbers.apply(fact)
        return _Counted(new, stored)

    def _corrected(self, r: Recorded) -> Numbers:
        if self.history is None:
            raise ProjectionError(f"game {r.game_id} was corrected: its history is needed")
        return Numbers.count(self.history(r.game_id, r.version))


@dataclass(frozen=True, slots=True)
class _Counted:
    """A batch's numbers: of the games it started, and of those it continued."""

    new: dict[UUID, Numbers]
    stored: dict[UUID, Numbers]

    def write(self, connection: Connection) -> None:
        if self.new:
            connection.execute(
                insert(insight_rows),
                [{"game_id": key, "numbers": value.to_row()} for key, value in self.new.items()],
            )
        if self.stored:
            connection.execute(
                _UPDATE,
                [
                    {"key_game_id": key, "numbers": value.to_row()}
                    for key, value in self.stored.items()
                ],
            )


def _runs(batch: Iterable[Recorded]) -> list[tuple[UUID, list[Recorded]]]:
    """The runs of consecutive facts of one game, each with its game's id."""
    runs = [list(run) for _, run in groupby(batch, key=_GAME_NUMBER)]
    return [(run[0].game_id, run) for run in runs]


def _load(connection: Connection, game_ids: set[UUID]) -> dict[UUID, Numbers]:
    keys = sorted(game_ids)
    stored: dict[UUID, Numbers] = {}
    for start in range(0, len(keys), CHUNK):
        for row in connection.execute(_OF_GAMES, {"ids": keys[start : start + CHUNK]}):
            stored[row.game_id] = Numbers.from_row(row.numbers)
    missing = game_ids - stored.keys()
    if missing:
        raise ProjectionError(f"facts of games never started: {sorted(map(str, missing))}")
    return stored


def game_insights(engine: Engine, game_id: UUID, viewer: Viewer) -> Insights | None:
    """A game's numbers from the read model as `viewer` may read them (None: not counted yet)."""
    with engine.connect() as connection:
        row = connection.scalar(_OF_GAME, {"id": game_id})
    return None if row is None else Numbers.from_row(row).seen_by(viewer)
