"""Configuration, read from the environment in this one place (ARCHITECTURE §2)."""

from __future__ import annotations

import os
from collections.abc import Mapping
from dataclasses import dataclass
from datetime import timedelta
from pathlib import Path

from domain.storage import default_database_url

from .creation_keys import ANSWERS_KEPT, IN_FLIGHT_LIMIT

TRUE = {"1", "true", "yes", "y", "on"}
READ_TIMEOUT_SECONDS = 15.0
DATABASE_DEADLINE_SECONDS = 5.0
HOUR = 3600.0
DAY = 86400.0
TEN_YEARS_IN_HOURS = 87600.0
"""The longest each setting may be (seconds, seconds, hours)."""


@dataclass(frozen=True, slots=True)
class Settings:
    database_url: str
    """`BOHNANZA_DATABASE_URL`; default: a SQLite file in the data directory."""
    data_dir: Path
    """`BOHNANZA_DATA_DIR`; default: `$XDG_DATA_HOME/bohnanza` (~/.local/share/bohnanza)."""
    inline_projections: bool = True
    """`BOHNANZA_INLINE_PROJECTIONS`: the web process keeps the read models current itself, in
    a background thread after commands and before reads (default). Set it to false when a
    separate `bohnanza projections follow` runs."""
    auditor_token: str | None = None
    """`BOHNANZA_AUDITOR_TOKEN`: a secret that grants the auditor's view of running games."""
    read_timeout_seconds: float = READ_TIMEOUT_SECONDS
    """`BOHNANZA_READ_TIMEOUT_SECONDS`: how long the server waits for the next byte of a request
    it has begun to read (its headers or its body) before it gives up on it (api/worker.py)."""
    database_deadline_seconds: float = DATABASE_DEADLINE_SECONDS
    """`BOHNANZA_DATABASE_DEADLINE_SECONDS`: how long a request may wait for the database in
    all (for connections, across retries) before it gets a 503; past it, a request still takes
    a connection that is ready, so a busy but healthy database is not cut off
    (domain/deadline.py)."""
    idempotency_in_flight_seconds: float = IN_FLIGHT_LIMIT.total_seconds()
    """`BOHNANZA_IDEMPOTENCY_IN_FLIGHT_SECONDS`: how long a command's first request with an
    Idempotency-Key counts as running; a retry within it gets 409, a retry after it runs the
    command again under the key (stored at most once: see api/security.py)."""
    idempotency_answers_kept_hours: float = ANSWERS_KEPT / timedelta(hours=1)
    """`BOHNANZA_IDEMPOTENCY_ANSWERS_KEPT_HOURS`: how long the answer to a command with an
    Idempotency-Key is kept for retries; after it, the key still refuses another request, and
    the same request runs again under it (see ANSWERS_KEPT in api/security.py)."""

    @classmethod
    def from_env(cls, environ: Mapping[str, str] = os.environ) -> Settings:
        xdg = environ.get("XDG_DATA_HOME") or str(Path.home() / ".local" / "share")
        data_dir = Path(environ.get("BOHNANZA_DATA_DIR") or Path(xdg) / "bohnanza")
        url = environ.get("BOHNANZA_DATABASE_URL") or default_database_url(data_dir)
        inline = environ.get("BOHNANZA_INLINE_PROJECTIONS", "true").strip().lower() in TRUE
        return cls(
            database_url=url,
            data_dir=data_dir,
            inline_projections=inline,
            auditor_token=environ.get("BOHNANZA_AUDITOR_TOKEN") or None,
            read_timeout_seconds=_positive(
                environ, "BOHNANZA_READ_TIMEOUT_SECONDS", READ_TIMEOUT_SECONDS, at_most=HOUR
            ),
            database_deadline_seconds=_positive(
                environ,
                "BOHNANZA_DATABASE_DEADLINE_SECONDS",
                DATABASE_DEADLINE_SECONDS,
                at_most=HOUR,
            ),
            idempotency_in_flight_seconds=_positive(
                environ,
                "BOHNANZA_IDEMPOTENCY_IN_FLIGHT_SECONDS",
                IN_FLIGHT_LIMIT.total_seconds(),
                at_most=DAY,
            ),
            idempotency_answers_kept_hours=_positive(
                environ,
                "BOHNANZA_IDEMPOTENCY_ANSWERS_KEPT_HOURS",
                ANSWERS_KEPT / timedelta(hours=1),
                at_most=TEN_YEARS_IN_HOURS,
                unit="hours",
            ),
        )


def _positive(
    environ: Mapping[str, str], name: str, default: float, at_most: float, unit: str = "seconds"
) -> float:
    """A number of `unit` above 0 and at most `at_most` from the environment (beyond a sane
    limit the dates computed from it overflow); a clear error for anything else."""
    text = environ.get(name)
    if not text:
        return default
    try:
        value = float(text)
    except ValueError:
        value = -1.0
    if not 0 < value <= at_most:
        raise ValueError(
            f"{name} must be a number of {unit} above 0 and at most {at_most:,g}, not {text!r}"
        )
    return value
