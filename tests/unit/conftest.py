"""Fixtures shared by the unit tests."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest
from click.testing import CliRunner, Result

from api.cli import main


@pytest.fixture
def run(tmp_path: Path) -> Callable[..., Result]:
    """Run `bohnanza …` in-process against a SQLite file of this test's own."""
    runner = CliRunner()
    url = f"sqlite:///{tmp_path}/cli.sqlite3"

    def invoke(*args: str) -> Result:
        return runner.invoke(main, ["--database-url", url, *args], catch_exceptions=False)

    return invoke
