"""Game ids: UUIDs whose first 48 bits are the time of their making (UUID version 7, RFC 9562).

A new game's id is still unguessable (74 random bits) and still a UUID, but ids made later sort
later. Both stores keep their events under a unique index on (game id, version); with random
ids (version 4) each game's events went into that index at a random place, splitting pages all
over it, so that it stayed about two thirds full. With ids in time order the games being played
sit together at the index's end, whose pages fill up. The time in an id is when the game was
made, which the game's start already tells everyone.
"""

from __future__ import annotations

import secrets
import time
from uuid import UUID

_VERSION = 0x7
_VARIANT = 0b10


def new_game_id() -> UUID:
    """A new id: 48 bits of Unix time in milliseconds, the version, 74 random bits, the variant."""
    milliseconds = time.time_ns() // 1_000_000 & (1 << 48) - 1
    random = secrets.randbits(74)
    return UUID(
        int=milliseconds << 80
        | _VERSION << 76
        | (random >> 62) << 64
        | _VARIANT << 62
        | random & (1 << 62) - 1
    )


def as_uuid(value: UUID | str) -> UUID:
    """A stored game id as a UUID (stores hand back a UUID or its text)."""
    return value if isinstance(value, UUID) else UUID(value)
