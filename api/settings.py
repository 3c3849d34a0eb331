"""Configuration, read from the environment in this one place (ARCHITECTURE §2)."""

from __future__ import annotations

import os
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path

from domain.storage import default_database_url


@dataclass(frozen=True, slots=True)
class Settings:
    database_url: str
    """`BOHNANZA_DATABASE_URL`; default: a SQLite file in the data directory."""
    data_dir: Path
    """`BOHNANZA_DATA_DIR`; default: `$XDG_DATA_HOME/bohnanza` (~/.local/share/bohnanza)."""

    @classmethod
    def from_env(cls, environ: Mapping[str, str] = os.environ) -> Settings:
        xdg = environ.get("XDG_DATA_HOME") or str(Path.home() / ".local" / "share")
        data_dir = Path(environ.get("BOHNANZA_DATA_DIR") or Path(xdg) / "bohnanza")
        url = environ.get("BOHNANZA_DATABASE_URL") or default_database_url(data_dir)
        return cls(database_url=url, data_dir=data_dir)
