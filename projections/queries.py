"""Reading the scoreboards projection: games, one game's scoreboard, the leaderboard.

Coins are shown as the rules let others see them: with the ruleset option
`coin_counts_visible=false` a running game's coin counts (and coins earned, from which they follow)
are hidden from everyone but their owner (and the host of a tabletop game, who entered every
card, as in the views); once the game is over they are public.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime
from uuid import UUID

from sqlalchemy import Connection, Engine, Row, Select, func, select, tuple_

from domain.rules.errors import NotFound

from .scoreboards import ALL_PLAYERS, ALL_PRESETS, ALL_STATUSES, ENDED, STANDING_SUMS, STATUSES
from .tables import game_counts as count_rows
from .tables import games as game_rows
from .tables import leaderboard as standing_rows
from .tables import scoreboard as seat_rows
from .views import PUBLIC_VIEWER, Viewer, sees_everything


@dataclass(frozen=True, slots=True)
class GameRecord:
    """One game as the games table holds it."""

    game_id: UUID
    preset: str
    players: int
    mode: str
    sandbox: bool
    """A what-if fork: listed, with a scoreboard, but in no standing."""
    duplicate_of: UUID | None
    """An earlier game with the very same facts (this one is a copy: in no standing)."""
    seats: list[str]
    coins_visible: bool
    status: str
    started_at: datetime
    ended_at: datetime | None
    turns: int
    winners: list[str]
    """Names of the winning seats (several on a shared win); empty while in progress."""
    decided_by: str | None
    scores: list[int | None]
    """Each seat's coins as the public may see them (None while a secret treasury runs)."""


@dataclass(frozen=True, slots=True)
class SeatScore:
    """One seat's line of a game's scoreboard; `coins` and `coins_earned` None when hidden."""

    seat: int
    name: str
    coins: int | None
    coins_earned: int | None
    harvests: int
    trades: int
    donations: int
    donations_received: int
    offers_made: int
    offers_received: int
    accepted: int
    """Offers made to this seat that it accepted."""
    declined: int
    planted: int
    winner: bool


@dataclass(frozen=True, slots=True)
class Standing:
    """A player's record over ended games."""

    name: str
    games: int
    wins: int
    total_score: int
    best_score: int
    harvests: int = 0
    coins_earned: int = 0
    accepted: int = 0
    """Offers made to the player that it accepted."""
    declined: int = 0
    donations: int = 0
    donations_received: int = 0

    @property
    def win_rate(self) -> float:
        return self.wins / self.games

    @property
    def average_score(self) -> float:
        return self.total_score / self.games

    @property
    def acceptance_rate(self) -> float | None:
        """The share of the offers made to the player that it accepted (None: none answered)."""
        answered = self.accepted + self.declined
        return self.accepted / answered if answered else None

    @property
    def coins_per_harvest(self) -> float | None:
        return self.coins_earned / self.harvests if self.harvests else None


def games(
    engine: Engine,
    *,
    status: str | None = None,
    player: str | None = None,
    preset: str | None = None,
) -> list[GameRecord]:
    """Games, oldest first, filtered by status, a seat's name and ruleset preset."""
    query = _filtered(status, player, preset)
    with engine.connect() as connection:
        rows = connection.execute(query.order_by(*_STARTED)).all()
        coins = _coins(connection, [row.game_id for row in rows])
    return [_game_record(row, coins) for row in rows]


Cursor = tuple[datetime, UUID]
"""Where a page of the list ends: its last game's start and id (the list's order)."""


def game_page(
    engine: Engine,
    *,
    limit: int,
    offset: int = 0,
    after: Cursor | None = None,
    status: str | None = None,
    player: str | None = None,
    preset: str | None = None,
) -> tuple[list[GameRecord], int, bool]:
    """At most `limit` games, newest first, filtered as `games` filters: those after the game
    `after` names (keyset: a deep page reads only its own rows), or after skipping `offset`;
    how many games the filters give in all, and whether more follow the page.

    The total is read from `projection_game_counts` (no rows counted), but for a player's games,
    counted through the scoreboard's index on names: as many as that player has."""
    query = _filtered(status, player, preset)
    if after is not None:
        query = query.where(tuple_(*_STARTED) < tuple_(*after))
    newest_first = [column.desc() for column in _STARTED]
    with engine.connect() as connection:
        rows = connection.execute(
            query.order_by(*newest_first).limit(limit + 1).offset(offset)
        ).all()
        more = len(rows) > limit
        rows = rows[:limit]
        if player is not None:
            counted = _filtered(status, player, preset).subquery()
            total = connection.execute(select(func.count()).select_from(counted)).scalar_one()
        else:
            total = (
                connection.scalar(
                    select(count_rows.c.games).where(
                        count_rows.c.status == (status or ALL_STATUSES),
                        count_rows.c.preset == (preset or ALL_PRESETS),
                    )
                )
                or 0
            )
        coins = _coins(connection, [row.game_id for row in rows])
    return [_game_record(row, coins) for row in rows], total, more


_STARTED = (game_rows.c.started_at, game_rows.c.game_id)
"""The order games were started in (the id settles a tie)."""


def _filtered(status: str | None, player: str | None, preset: str | None) -> Select:
    if status is not None and status not in STATUSES:
        raise ValueError(f"unknown status {status!r}; statuses: {', '.join(STATUSES)}")
    query = select(game_rows)
    if status is not None:
        query = query.where(game_rows.c.status == status)
    if preset is not None:
        query = query.where(game_rows.c.preset == preset)
    if player is not None:
        seated = select(seat_rows.c.game_id).where(seat_rows.c.name == player)
        query = query.where(game_rows.c.game_id.in_(seated))
    return query


def _coins(connection: Connection, game_ids: list[UUID]) -> dict[UUID, list[int]]:
    """Each of these games' coins by seat."""
    if not game_ids:
        return {}
    rows = connection.execute(
        select(seat_rows.c.game_id, seat_rows.c.coins)
        .where(seat_rows.c.game_id.in_(game_ids))
        .order_by(seat_rows.c.game_id, seat_rows.c.seat)
    ).all()
    coins: dict[UUID, list[int]] = {}
    for row in rows:
        coins.setdefault(row.game_id, []).append(row.coins)
    return coins


def _game_record(row: Row, coins: dict[UUID, list[int]]) -> GameRecord:
    public = row.coins_visible or row.status == ENDED
    return GameRecord(
        game_id=row.game_id,
        preset=row.preset,
        players=row.players,
        mode=row.mode,
        sandbox=row.sandbox,
        duplicate_of=row.duplicate_of,
        seats=list(row.seats),
        coins_visible=row.coins_visible,
        status=row.status,
        started_at=row.started_at,
        ended_at=row.ended_at,
        turns=row.turns,
        winners=[row.seats[seat] for seat in row.winners or ()],
        decided_by=row.decided_by,
        scores=[count if public else None for count in coins.get(row.game_id, [])],
    )


def scoreboard(engine: Engine, game_id: UUID, *, viewer: Viewer = PUBLIC_VIEWER) -> list[SeatScore]:
    """A game's scoreboard by seat as `viewer` may see it (as in its view: the owner, and who
    knows every card, see a secret treasury)."""
    with engine.connect() as connection:
        game = connection.execute(
            select(game_rows.c.coins_visible, game_rows.c.status, game_rows.c.mode).where(
                game_rows.c.game_id == game_id
            )
        ).first()
        if game is None:
            raise NotFound(f"no game {game_id} in the scoreboards")
        rows = connection.execute(
            select(seat_rows).where(seat_rows.c.game_id == game_id).order_by(seat_rows.c.seat)
        ).all()
    public = game.coins_visible or game.status == ENDED or sees_everything(viewer, game.mode)
    return [
        SeatScore(
            seat=row.seat,
            name=row.name,
            coins=row.coins if public or row.seat == viewer.seat else None,
            coins_earned=row.coins_earned if public or row.seat == viewer.seat else None,
            harvests=row.harvests,
            trades=row.trades,
            donations=row.donations,
            donations_received=row.donations_received,
            offers_made=row.offers_made,
            offers_received=row.offers_received,
            accepted=row.accepted,
            declined=row.declined,
            planted=row.planted,
            winner=row.winner,
        )
        for row in rows
    ]


def leaderboard(
    engine: Engine,
    *,
    preset: str | None = None,
    players: int | None = None,
    name_prefix: str | None = None,
    limit: int | None = None,
    offset: int = 0,
) -> list[Standing]:
    """The leaderboard over ended games (each game played once: no sandbox forks, no copies),
    overall or for one preset and/or player count, of the players whose names start with
    `name_prefix` if given: most wins first, then best win rate, then best average score, then
    the name; `limit` standings from `offset` (all of them without a limit).

    Each board is one range of the leaderboard's ranking index (the projection keeps a standing
    per player for every preset and player count, and for all of them: `scoreboards._scopes`),
    so its top costs the same however many players the store has."""
    query = leaderboard_query(
        preset=preset, players=players, name_prefix=name_prefix, limit=limit, offset=offset
    )
    with engine.connect() as connection:
        rows = connection.execute(query).all()
    return [
        Standing(
            row.name,
            row.games,
            row.wins,
            row.total_score,
            row.best_score,
            **{column: row._mapping[column] for column in STANDING_SUMS},
        )
        for row in rows
    ]


def leaderboard_query(
    *,
    preset: str | None = None,
    players: int | None = None,
    name_prefix: str | None = None,
    limit: int | None = None,
    offset: int = 0,
) -> Select:
    """The SQL of a leaderboard page (see `leaderboard`)."""
    query = (
        select(standing_rows)
        .where(
            standing_rows.c.preset == (ALL_PRESETS if preset is None else preset),
            standing_rows.c.players == (ALL_PLAYERS if players is None else players),
        )
        .order_by(*_RANKED)
        .offset(offset)
    )
    if name_prefix:
        query = query.where(
            standing_rows.c.name >= name_prefix,
            standing_rows.c.name < _after_prefix(name_prefix),
            # exact, whatever the database's collation orders between the bounds
            func.substr(standing_rows.c.name, 1, len(name_prefix)) == name_prefix,
        )
    if limit is not None:
        query = query.limit(limit)
    return query


_RANKED = (
    standing_rows.c.wins.desc(),
    standing_rows.c.win_rate.desc(),
    standing_rows.c.average_score.desc(),
    standing_rows.c.name,
)
"""The leaderboard's order, as its ranking index holds it."""


def _after_prefix(prefix: str) -> str:
    """A string past every string that starts with `prefix`, in code point order (for a range
    on an index, which LIKE would not use on every database)."""
    return prefix[:-1] + chr(ord(prefix[-1]) + 1)
