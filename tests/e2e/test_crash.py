"""End to end: a gunicorn worker on PostgreSQL dies in the middle of a command, and the client
retries with its Idempotency-Key (issue item 4): the command is stored exactly once, and the
retry gets the answer the first request would have given."""

from __future__ import annotations

import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest

from tests.conftest import PostgresTestDatabase

from .crashing_app import AFTER_STORING, BEFORE_STORING
from .server import gunicorn
from .test_gunicorn import bearer, event_count, new_game

pytestmark = [pytest.mark.postgres, pytest.mark.slow]  # real servers

PLANT = {"type": "plant", "field": 0}
RETRY_SECONDS = 60.0


@pytest.fixture(scope="module")
def base_url(postgres_database: PostgresTestDatabase, tmp_path: Path) -> Iterator[str]:
    """One worker that dies once per crash key (gunicorn starts another), on PostgreSQL."""
    env = {"BOHNANZA_TEST_CRASH_DIR": str(tmp_path)}
    app = "tests.e2e.crashing_app:app()"
    with gunicorn(postgres_database.new_store_url(), workers=1, app=app, env=env) as url:
        yield url


@pytest.fixture(scope="module")
def tmp_path(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return tmp_path_factory.mktemp("crashes")


def send(base_url: str, game: dict[str, Any], key: str) -> httpx.Response:
    return httpx.post(
        f"{base_url}{game['links']['commands']}",
        json=PLANT,
        headers=bearer(game["seats"][0]["token"], **{"Idempotency-Key": key}),
        timeout=30.0,
    )


def retry_until_answered(base_url: str, game: dict[str, Any], key: str) -> httpx.Response:
    """Send again until the restarted worker answers (a keyed command claims nothing, so the
    first answer the restarted worker gives is the one: never a 409 for a key in use)."""
    deadline = time.monotonic() + RETRY_SECONDS
    while time.monotonic() < deadline:
        try:
            response = send(base_url, game, key)
        except httpx.TransportError:
            response = None
        if response is not None:
            return response
        time.sleep(0.2)
    pytest.fail(f"no answer to {key} within {RETRY_SECONDS}s")


@pytest.mark.parametrize(
    ("crash", "answered_from_the_store"),
    [(AFTER_STORING, True), (BEFORE_STORING, False)],
    ids=["after-storing", "before-storing"],
)
def test_a_command_retried_after_its_worker_died_is_stored_once_and_answered_in_full(
    base_url: str, crash: str, answered_from_the_store: bool
) -> None:
    game = new_game(base_url)
    key = f"{crash}-1"

    with pytest.raises(httpx.TransportError):
        send(base_url, game, key)
    retry = retry_until_answered(base_url, game, key)
    again = send(base_url, game, key)

    assert retry.status_code == 200, retry.text
    assert ("Idempotent-Replayed" in retry.headers) == answered_from_the_store
    assert retry.json()["version"] == 3
    assert [item["type"] for item in retry.json()["events"]] == ["BeanPlanted"]
    assert again.json() == retry.json()
    assert again.headers["Idempotent-Replayed"] == "true"
    assert event_count(base_url, game) == 3
