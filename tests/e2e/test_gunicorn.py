"""End to end: a real gunicorn with three workers on PostgreSQL, driven by parallel clients
(issue items 4 and 6). Concurrent commands on one game apply once; one Idempotency-Key stores one
command however often and however concurrently it is sent; many games run in parallel."""

from __future__ import annotations

import json
import threading
from collections import Counter
from collections.abc import Callable, Iterator
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any, TypeVar

import httpx
import pytest

from tests.conftest import PostgresTestDatabase

from .server import gunicorn

pytestmark = [pytest.mark.postgres, pytest.mark.slow]  # real servers

CLIENTS = 8
SEATS = ["Ana", "Ben", "Cleo"]
T = TypeVar("T")


@pytest.fixture(scope="module")
def server_log(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """Where the module's gunicorn writes its output (access log included)."""
    return tmp_path_factory.mktemp("gunicorn") / "gunicorn.log"


@pytest.fixture(scope="module")
def base_url(postgres_database: PostgresTestDatabase, server_log: Path) -> Iterator[str]:
    """gunicorn with three workers serving the app on a fresh PostgreSQL schema, for this module."""
    with gunicorn(postgres_database.new_store_url(), workers=3, log=server_log) as url:
        yield url


def bearer(token: str, **headers: str) -> dict[str, str]:
    return {"Authorization": f"Bearer {token}", **headers}


def new_game(base_url: str, seed: int = 7) -> dict[str, Any]:
    response = httpx.post(f"{base_url}/api/games", json={"seats": SEATS, "seed": seed})
    assert response.status_code == 201, response.text
    return response.json()


def all_at_once(clients: int, send: Callable[[httpx.Client], T]) -> list[T]:
    """`send` from `clients` threads, each with its own connection, released together."""
    start = threading.Barrier(clients)

    def run(_: int) -> T:
        with httpx.Client(timeout=30.0) as client:
            start.wait()
            return send(client)

    with ThreadPoolExecutor(clients) as pool:
        return list(pool.map(run, range(clients)))


def event_count(base_url: str, game: dict[str, Any]) -> int:
    page = httpx.get(f"{base_url}/api/games/{game['game_id']}/events", params={"limit": 500})
    return len(page.json()["items"])


def test_cold_workers_on_a_fresh_database_all_answer_their_first_requests(
    postgres_database: PostgresTestDatabase,
) -> None:
    with gunicorn(postgres_database.new_store_url(), workers=4, warm=False) as url:
        statuses = all_at_once(
            4 * CLIENTS, lambda client: client.get(f"{url}/api/health").status_code
        )

    assert set(statuses) == {200}


def test_the_service_answers_health_and_its_openapi_document(base_url: str) -> None:
    assert httpx.get(f"{base_url}/api/health").json()["status"] == "ok"
    assert httpx.get(f"{base_url}/openapi.json").json()["info"]["title"] == "Bohnanza records"


def test_concurrent_commands_based_on_one_version_apply_exactly_once(base_url: str) -> None:
    for seed in range(5):
        game = new_game(base_url, seed=seed)
        url = f"{base_url}/api/games/{game['game_id']}/commands"
        token = game["seats"][0]["token"]

        statuses = all_at_once(
            CLIENTS,
            lambda client, url=url, token=token: (
                client.post(
                    url,
                    json={"type": "plant", "field": 0},
                    headers=bearer(token, **{"If-Match": '"2"'}),
                ).status_code
            ),
        )

        counts = Counter(statuses)
        assert counts[200] == 1, counts
        assert counts[200] + counts[412] + counts[409] == CLIENTS, counts
        assert event_count(base_url, game) == 3


def test_concurrent_commands_without_a_version_lose_and_duplicate_nothing(base_url: str) -> None:
    game = new_game(base_url)
    url = f"{base_url}/api/games/{game['game_id']}/commands"
    token = game["seats"][0]["token"]

    answers = all_at_once(
        CLIENTS,
        lambda client: client.post(url, json={"type": "plant", "field": 1}, headers=bearer(token)),
    )

    applied = [answer.json() for answer in answers if answer.status_code == 200]
    refused = [answer.json()["code"] for answer in answers if answer.status_code != 200]
    positions = [event["position"] for result in applied for event in result["events"]]
    assert applied
    assert set(refused) <= {"rule_violation", "conflict"}
    assert sorted(positions) == list(range(3, 3 + len(positions)))
    assert event_count(base_url, game) == 2 + len(positions)


def test_one_idempotency_key_sent_concurrently_and_again_stores_one_command(
    base_url: str,
) -> None:
    game = new_game(base_url)
    url = f"{base_url}/api/games/{game['game_id']}/commands"
    headers = bearer(game["seats"][0]["token"], **{"Idempotency-Key": "e2e-burst"})

    def send(client: httpx.Client) -> httpx.Response:
        return client.post(url, json={"type": "plant", "field": 0}, headers=headers)

    burst = all_at_once(CLIENTS, send)
    later = [send(httpx.Client()) for _ in range(3)]

    first = [r for r in burst if r.status_code == 200 and "Idempotent-Replayed" not in r.headers]
    assert len(first) == 1
    assert {(r.status_code, r.headers.get("Idempotent-Replayed")) for r in burst} <= {
        (200, None),
        (200, "true"),
    }
    assert all(r.status_code == 200 and r.headers["Idempotent-Replayed"] == "true" for r in later)
    assert all(r.json() == first[0].json() for r in later)
    assert event_count(base_url, game) == 3


def test_the_same_idempotency_key_with_another_body_is_refused(base_url: str) -> None:
    game = new_game(base_url)
    url = f"{base_url}/api/games/{game['game_id']}/commands"
    headers = bearer(game["seats"][0]["token"], **{"Idempotency-Key": "e2e-other"})

    first = httpx.post(url, json={"type": "plant", "field": 0}, headers=headers)
    other = httpx.post(url, json={"type": "plant", "field": 2}, headers=headers)

    assert first.status_code == 200
    assert (other.status_code, other.json()["code"]) == (422, "idempotency_key_reused")
    assert event_count(base_url, game) == 3


def _play_opening_turn(client: httpx.Client, base_url: str) -> tuple[str, int]:
    """Create a game and play the first seat's legal commands until its turn passes."""
    game = client.post(f"{base_url}/api/games", json={"seats": SEATS}).json()
    url = f"{base_url}/api/games/{game['game_id']}"
    active = client.get(url).json()["active_seat"]
    token = game["seats"][active]["token"]
    events = 2
    while client.get(url).json()["active_seat"] == active:
        legal = client.get(f"{url}/legal", headers=bearer(token)).json()["commands"]
        choice = next(
            (c for c in legal if c["type"] in ("reveal", "end-trading", "draw")), legal[0]
        )
        answer = client.post(f"{url}/commands", json=choice, headers=bearer(token))
        assert answer.status_code == 200, answer.text
        events += len(answer.json()["events"])
    return game["game_id"], events


def test_many_games_run_in_parallel_on_several_workers(base_url: str) -> None:
    played = all_at_once(CLIENTS, lambda client: _play_opening_turn(client, base_url))

    listed = httpx.get(f"{base_url}/api/games").json()["games"]
    assert {game_id for game_id, _ in played} <= {game["game_id"] for game in listed}
    for game_id, events in played:
        summary = httpx.get(f"{base_url}/api/games/{game_id}").json()
        assert (summary["version"], summary["turn"]) == (events, 2)


def test_the_workers_log_no_token(base_url: str, server_log: Path) -> None:
    game = new_game(base_url)
    token = game["seats"][0]["token"]
    httpx.get(f"{base_url}/api/games/{game['game_id']}/view", headers=bearer(token))
    httpx.get(f"{base_url}/api/games/{game['game_id']}/view", headers=bearer(token + "x"))

    assert server_log.exists()
    assert token not in server_log.read_text()


def chunked(document: dict[str, Any]) -> Iterator[bytes]:
    """The document's JSON in 4 KB chunks: httpx sends it without a Content-Length."""
    body = json.dumps(document).encode()
    for start in range(0, len(body), 4096):
        yield body[start : start + 4096]


@pytest.mark.parametrize(
    ("padding", "status"), [(1_000, 422), (60_000, 422), (70_000, 413), (300_000, 413)]
)
def test_a_chunked_body_is_read_whole_or_refused_as_too_large(
    base_url: str, padding: int, status: int
) -> None:
    document = {"seats": ["Ana", "Ben"], "options": {"no_such_option": "x" * padding}}

    response = httpx.post(
        f"{base_url}/api/games",
        content=chunked(document),
        headers={"Content-Type": "application/json"},
        timeout=30.0,
    )

    assert response.status_code == status, response.text
    assert response.json()["code"] == ("invalid_ruleset" if status == 422 else "payload_too_large")


def test_after_a_body_refused_unread_as_too_large_the_client_goes_on(base_url: str) -> None:
    oversize = b'{"seats": ["Ana", "Ben"], "padding": "' + b"x" * 200_000 + b'"}'

    with httpx.Client(base_url=base_url, timeout=30.0) as client:
        refused = client.post(
            "/api/games", content=oversize, headers={"Content-Type": "application/json"}
        )
        after = client.get("/api/health")

    assert refused.status_code == 413
    assert refused.json()["code"] == "payload_too_large"
    assert refused.headers["Connection"] == "close"
    assert after.status_code == 200
