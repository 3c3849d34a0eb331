"""The read models' SQL tables (SQLAlchemy Core), the same on SQLite and PostgreSQL.

Every table is named `projection_…`, beside the event store's own tables in the same database.
`projection_tracking` holds, per projection, the id of the last event notification it has
processed; a projection writes its rows and that position in one transaction.
"""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Any

from sqlalchemy import (
    JSON,
    BigInteger,
    Boolean,
    Column,
    DateTime,
    Dialect,
    Float,
    ForeignKey,
    Index,
    Integer,
    MetaData,
    String,
    Table,
    TypeDecorator,
    Uuid,
    desc,
)


class UTCDateTime(TypeDecorator[datetime]):
    """A timezone-aware UTC datetime on every database (SQLite would hand back a naive one)."""

    impl = DateTime(timezone=True)
    cache_ok = True

    def process_bind_param(self, value: datetime | None, dialect: Dialect) -> datetime | None:
        if value is None:
            return None
        if value.tzinfo is None:
            raise ValueError(f"a naive datetime cannot be stored as UTC: {value}")
        return value.astimezone(UTC)

    def process_result_value(self, value: Any, dialect: Dialect) -> datetime | None:
        if value is None:
            return None
        if value.tzinfo is None:
            return value.replace(tzinfo=UTC)
        return value.astimezone(UTC)


metadata = MetaData()

tracking = Table(
    "projection_tracking",
    metadata,
    Column("name", String(64), primary_key=True),
    Column("position", BigInteger, nullable=False, comment="id of the last notification processed"),
)

games = Table(
    "projection_games",
    metadata,
    Column("game_id", Uuid, primary_key=True),
    Column("preset", String(32), nullable=False),
    Column("players", Integer, nullable=False),
    Column("mode", String(16), nullable=False),
    Column("sandbox", Boolean, nullable=False, comment="a what-if fork: in no standing"),
    Column("seats", JSON, nullable=False, comment="seat names, clockwise"),
    Column("coins_visible", Boolean, nullable=False, comment="ruleset coin_counts_visible"),
    Column("status", String(16), nullable=False, comment="in-progress or ended"),
    Column("started_at", UTCDateTime, nullable=False),
    Column("ended_at", UTCDateTime, nullable=True),
    Column("turns", Integer, nullable=False, comment="the turn being played, or the last one"),
    Column("winners", JSON, nullable=True, comment="winning seats once ended"),
    Column("decided_by", String(32), nullable=True, comment="tie-break that decided, if any"),
    Column(
        "digest", String(64), nullable=False, comment="of the facts read so far: equal for copies"
    ),
    Column(
        "duplicate_of", Uuid, nullable=True, comment="an earlier ended game with the same facts"
    ),
    Index("ix_projection_games_digest", "digest"),
    # The list, newest first, filtered by status and/or preset: each filter one index range in
    # the list's order, so a page (and a deep one, by keyset) reads only its own rows.
    Index("ix_projection_games_started", "started_at", "game_id"),
    Index("ix_projection_games_status_started", "status", "started_at", "game_id"),
    Index("ix_projection_games_preset_started", "preset", "started_at", "game_id"),
    Index("ix_projection_games_status_preset_started", "status", "preset", "started_at", "game_id"),
)

game_counts = Table(
    "projection_game_counts",
    metadata,
    Column("status", String(16), primary_key=True, comment="in-progress, ended, or * for both"),
    Column("preset", String(32), primary_key=True, comment="a preset, or * for all of them"),
    Column("games", Integer, nullable=False),
)
"""How many games the list holds by status and preset: its total without counting its rows."""

scoreboard = Table(
    "projection_scoreboard",
    metadata,
    Column("game_id", Uuid, ForeignKey(games.c.game_id), primary_key=True),
    Column("seat", Integer, primary_key=True),
    Column("name", String(64), nullable=False, index=True),
    Column("coins", Integer, nullable=False, comment="real coins; hide per games.coins_visible"),
    Column("coins_earned", Integer, nullable=False),
    Column("harvests", Integer, nullable=False),
    Column("trades", Integer, nullable=False, comment="accepted trades, cards both ways"),
    Column("donations", Integer, nullable=False, comment="gave cards, got none"),
    Column("donations_received", Integer, nullable=False, comment="got cards, gave none"),
    Column("offers_made", Integer, nullable=False),
    Column("offers_received", Integer, nullable=False),
    Column("accepted", Integer, nullable=False, comment="offers to this seat it accepted"),
    Column("declined", Integer, nullable=False, comment="offers to this seat it declined"),
    Column("planted", Integer, nullable=False),
    Column("winner", Boolean, nullable=False),
)

leaderboard = Table(
    "projection_leaderboard",
    metadata,
    Column("name", String(64), primary_key=True),
    Column("preset", String(32), primary_key=True, comment="a preset, or * for all of them"),
    Column("players", Integer, primary_key=True, comment="a player count, or 0 for all"),
    Column("games", Integer, nullable=False, comment="ended games"),
    Column("wins", Integer, nullable=False, comment="shared wins count for each winner"),
    Column("total_score", Integer, nullable=False),
    Column("best_score", Integer, nullable=False),
    Column("harvests", Integer, nullable=False),
    Column("coins_earned", Integer, nullable=False),
    Column("accepted", Integer, nullable=False, comment="offers to the player it accepted"),
    Column("declined", Integer, nullable=False, comment="offers to the player it declined"),
    Column("donations", Integer, nullable=False, comment="gave cards, got none"),
    Column("donations_received", Integer, nullable=False, comment="got cards, gave none"),
    Column("win_rate", Float, nullable=False, comment="wins / games, kept for the ranking"),
    Column("average_score", Float, nullable=False, comment="total_score / games"),
    Index(
        "ix_projection_leaderboard_rank",
        "preset",
        "players",
        desc("wins"),
        desc("win_rate"),
        desc("average_score"),
        "name",
    ),
)

insights = Table(
    "projection_insights",
    metadata,
    Column("game_id", Uuid, primary_key=True),
    Column(
        "numbers",
        JSON,
        nullable=False,
        comment="projections.insights.Numbers, as the table saw them",
    ),
)
