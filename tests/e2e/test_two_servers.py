"""Two API servers on one PostgreSQL, as several nodes behind a proxy would run (docs/scaling.md):
two gunicorn masters, each with its own workers, and one projector process beside them. A
game's seats send their commands to either server in turn: nothing is lost or stored twice,
either server's view of the game holds every command the other stored, and the read models
both serve reach each command within the bound the scaling notes give."""

from __future__ import annotations

import subprocess
import sys
import time
from collections.abc import Iterator
from typing import Any

import httpx
import pytest

from tests.conftest import PostgresTestDatabase

from .server import ROOT, gunicorn

pytestmark = [pytest.mark.postgres, pytest.mark.slow]  # real servers

SEATS = ["Ana", "Ben", "Cleo"]
READ_MODEL_BOUND_SECONDS = 2.0
"""How far the read models may lag a command another server stored, read without
`after_position`: the projector's poll (0.5 s), a batch, and a margin for a busy machine."""


@pytest.fixture(scope="module")
def servers(postgres_database: PostgresTestDatabase) -> Iterator[tuple[str, str]]:
    url = postgres_database.new_store_url()
    projector = subprocess.Popen(
        [sys.executable, "-m", "api.cli", "--database-url", url, "projections", "follow"],
        cwd=ROOT,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    try:
        with (
            gunicorn(url, workers=2, inline_projections=False) as first,
            gunicorn(url, workers=2, inline_projections=False) as second,
        ):
            yield first, second
    finally:
        projector.terminate()
        projector.wait(timeout=30)


def bearer(token: str) -> dict[str, str]:
    return {"Authorization": f"Bearer {token}"}


def play_through_both(
    servers: tuple[str, str], turns: int
) -> tuple[dict[str, Any], list[int], float]:
    """Create a game on the first server and play `turns` turns, each command sent to the other
    server than the one before; the game's creation answer, each command's store position and
    when the last was answered (`time.monotonic`). After each command the server that did not
    store it shows the game at least that far."""
    game = httpx.post(f"{servers[0]}/api/games", json={"seats": SEATS, "seed": 3}).json()
    path = f"/api/games/{game['game_id']}"
    positions: list[int] = []
    sent = 0
    with httpx.Client() as client:
        while (summary := client.get(servers[sent % 2] + path).json())["turn"] <= turns:
            token = game["seats"][summary["active_seat"]]["token"]
            legal = client.get(f"{servers[sent % 2]}{path}/legal", headers=bearer(token))
            commands = legal.json()["commands"]
            choice = next(
                (c for c in commands if c["type"] in ("reveal", "end-trading", "draw")),
                commands[0],
            )
            stored_by, other = servers[(sent + 1) % 2], servers[sent % 2]
            answer = client.post(
                f"{stored_by}{path}/commands",
                json={**choice, "expected_version": summary["version"]},
                headers=bearer(token),
            )
            assert answer.status_code == 200, answer.text
            body = answer.json()
            positions.append(body["position"])
            seen = client.get(f"{other}{path}/view", headers=bearer(token)).json()
            assert seen["version"] >= body["version"]  # views fold the store: never stale
            sent += 1
            answered = time.monotonic()
    return game, positions, answered


def test_a_games_commands_sent_to_two_servers_in_turn_are_each_stored_once(
    servers: tuple[str, str],
) -> None:
    game, positions, _ = play_through_both(servers, turns=3)

    path = f"/api/games/{game['game_id']}"
    versions = {httpx.get(base + path).json()["version"] for base in servers}
    events = httpx.get(f"{servers[1]}{path}/events", params={"limit": 500}).json()["items"]
    assert len(versions) == 1
    assert [event["position"] for event in events] == list(range(1, versions.pop() + 1))
    assert positions == sorted(positions)


def test_either_servers_read_models_reach_a_command_the_other_stored_within_the_bound(
    servers: tuple[str, str],
) -> None:
    game, positions, answered = play_through_both(servers, turns=1)

    lags = {}
    for base in servers:  # without after_position: as fresh as the projector has made them
        while True:
            listed = httpx.get(f"{base}/api/games", params={"limit": 5}).json()["games"]
            mine = next((g for g in listed if g["game_id"] == game["game_id"]), None)
            if mine is not None and mine["turns"] == 2:
                lags[base] = time.monotonic() - answered
                break
            assert time.monotonic() - answered < READ_MODEL_BOUND_SECONDS, lags
            time.sleep(0.02)
    print(f"read models caught up {max(lags.values()) * 1000:.0f} ms after the last command")
    path = f"/api/games/{game['game_id']}/scoreboard"
    for base in servers:  # with it: read your writes, whichever server stored them
        waited = httpx.get(base + path, params={"after_position": positions[-1]}, timeout=10)
        assert waited.status_code == 200
