"""The API's own tables: seat and host tokens (hashed) and idempotency records (of commands and of
requests that create a game).

These are primary data, not read models: they are never rebuilt from events. They live in the same
database as the events, through the same SQLAlchemy engine as the projections.
"""

from __future__ import annotations

from sqlalchemy import (
    JSON,
    Column,
    Engine,
    Index,
    Integer,
    MetaData,
    String,
    Table,
    Text,
    Uuid,
    or_,
)

from projections.tables import UTCDateTime

metadata = MetaData()

tokens = Table(
    "api_tokens",
    metadata,
    Column("digest", String(64), primary_key=True, comment="sha256 of the token; never the token"),
    Column("game_id", Uuid, nullable=False, index=True),
    Column("role", String(8), nullable=False, comment="seat or host"),
    Column("seat", Integer, nullable=True),
    Column("created_at", UTCDateTime, nullable=False),
)

idempotency = Table(
    "api_idempotency",
    metadata,
    Column("game_id", Uuid, primary_key=True),
    Column("key", String(128), primary_key=True),
    Column("caller", String(64), nullable=False, comment="digest of the caller's token"),
    Column("request", String(64), nullable=False, comment="sha256 of the canonical request"),
    Column(
        "status",
        Integer,
        nullable=True,
        comment="None while the first request ran, and once its command was stored "
        "(rows written before 5 Dec 2026 only: see OldCommandKeys)",
    ),
    Column("response", JSON, nullable=True),
    Column("created_at", UTCDateTime, nullable=False),
    Column("note", Text, nullable=True),
)


creations = Table(
    "api_creations",
    metadata,
    Column("scope", String(64), primary_key=True, comment="games, records or forks/<game id>"),
    Column("key", String(128), primary_key=True),
    Column("caller", String(64), nullable=False, comment="digest of the caller's token, or ''"),
    Column("request", String(64), nullable=False, comment="sha256 of the canonical request"),
    Column("game_id", Uuid, nullable=False, comment="the game the key creates"),
    Column("tokens", JSON, nullable=True, comment="its tokens, kept as long as its answer"),
    Column("status", Integer, nullable=True, comment="None while a request runs"),
    Column("response", JSON, nullable=True),
    Column("created_at", UTCDateTime, nullable=False),
)
"""Requests that create a game (a new game, an imported record, a fork) sent with an
Idempotency-Key: the game each key creates, its tokens and the answer (api/creation_keys.py)."""

creations_by_age = Index(
    "api_creations_kept_by_age",
    creations.c.created_at,
    sqlite_where=or_(creations.c.tokens.is_not(None), creations.c.response.is_not(None)),
    postgresql_where=or_(creations.c.tokens.is_not(None), creations.c.response.is_not(None)),
)
"""The keys whose tokens or answers are still kept, oldest first (what clearing them reads)."""


def create_missing(engine: Engine) -> None:
    """The API's tables."""
    metadata.create_all(engine)
