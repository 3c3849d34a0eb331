"""Database outages staged through a proxy between a real gunicorn and PostgreSQL: every request
gets its answer within the documented bound while the database is gone, whether it began
before, at or during the outage, and the service answers as usual within a second of its
return."""

from __future__ import annotations

import threading
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from typing import Any
from urllib.parse import urlsplit, urlunsplit

import httpx
import pytest

from tests.conftest import PostgresTestDatabase

from .proxy import SwitchableProxy, proxy_to
from .server import gunicorn

pytestmark = [pytest.mark.postgres, pytest.mark.slow]  # real servers, outages of seconds

DEADLINE = 2.0
"""The server's BOHNANZA_DATABASE_DEADLINE_SECONDS here (5 s by default)."""
THREADS = 2
CLIENTS = 6
"""More clients than threads: some requests wait for a thread while the outage holds others."""
OUTAGE_SECONDS = 4.0


@dataclass(frozen=True)
class Answer:
    kind: str
    started: float
    took: float
    status: int | str


@pytest.fixture
def proxied(postgres_database: PostgresTestDatabase) -> Iterator[tuple[SwitchableProxy, str]]:
    """The service, one worker of two threads, on a fresh store reached through a proxy."""
    store = urlsplit(postgres_database.new_store_url())
    host, port = store.hostname or "127.0.0.1", store.port or 5432
    with proxy_to((host, port)) as proxy:
        url = urlunsplit(store._replace(netloc=f"{store.username}@127.0.0.1:{proxy.port}"))
        env = {"BOHNANZA_DATABASE_DEADLINE_SECONDS": str(DEADLINE)}
        with gunicorn(url, "--threads", str(THREADS), workers=1, env=env) as base:
            yield proxy, base


def requests_for(base: str) -> list[tuple[str, Callable[[httpx.Client], httpx.Response]]]:
    """A read, a command, a creation, the game list and the health check, each a client's."""
    created = httpx.post(f"{base}/api/games", json={"seats": ["Ana", "Ben", "Cleo"], "seed": 7})
    assert created.status_code == 201, created.text
    game = created.json()
    url, token = f"{base}/api/games/{game['game_id']}", game["seats"][1]["token"]
    seat = {"Authorization": f"Bearer {token}"}
    return [
        ("view", lambda client: client.get(f"{url}/view", headers=seat)),
        ("steps", lambda client: client.get(f"{url}/steps")),
        ("note", lambda client: client.get(f"{url}/annotations", headers=seat)),
        ("create", lambda client: client.post(f"{base}/api/games", json={"seats": ["A", "B"]})),
        ("list", lambda client: client.get(f"{base}/api/games")),
        ("health", lambda client: client.get(f"{base}/api/health")),
    ]


def during_an_outage(proxy: SwitchableProxy, base: str, stage: Callable[[], None]) -> tuple:
    """Clients send their requests over and over while `stage()` takes the database away for
    OUTAGE_SECONDS; every answer, the moments the outage began and ended."""
    answers: list[Answer] = []
    stop = threading.Event()

    def client(kind: str, send: Callable[[httpx.Client], httpx.Response]) -> None:
        with httpx.Client(timeout=60.0) as http:
            while not stop.is_set():
                started = time.monotonic()
                try:
                    status: int | str = send(http).status_code
                except httpx.HTTPError as error:
                    status = type(error).__name__
                answers.append(Answer(kind, started, time.monotonic() - started, status))
                time.sleep(0.02)

    threads = [
        threading.Thread(target=client, args=pair, daemon=True) for pair in requests_for(base)
    ]
    assert len(threads) == CLIENTS
    for thread in threads:
        thread.start()
    time.sleep(1.0)
    began = time.monotonic()
    stage()
    time.sleep(OUTAGE_SECONDS)
    proxy.restore()
    ended = time.monotonic()
    time.sleep(2.5)
    stop.set()
    for thread in threads:
        thread.join(timeout=60)
    return answers, began, ended


def slowest(answers: list[Answer], began: float, ended: float) -> list[Any]:
    """The answers to requests under way at some moment of the outage, slowest first."""
    touched = [a for a in answers if a.started < ended and a.started + a.took > began]
    return sorted(touched, key=lambda answer: -answer.took)


@pytest.mark.parametrize(
    ("stage", "bound"),
    [
        # Reset and refused: a request under way as it goes waits its deadline at most, and one
        # that waited for a thread meanwhile as much again (later ones are answered at once).
        ("cut", 2 * DEADLINE + 0.5),
        # Silent: a connection attempt waits its 2 s, a query on an open connection its deadline
        # and at most half of it again, and a request may wait for a thread that long first.
        ("hang", 2 * (DEADLINE + DEADLINE / 2) + 2.0),
    ],
)
def test_every_request_during_an_outage_is_answered_within_the_bound_and_then_as_usual(
    proxied: tuple[SwitchableProxy, str], stage: str, bound: float
) -> None:
    proxy, base = proxied

    answers, began, ended = during_an_outage(proxy, base, getattr(proxy, stage))

    under_way = slowest(answers, began, ended)
    assert under_way, "no request met the outage"
    assert under_way[0].took <= bound, under_way[:5]
    assert {a.status for a in under_way} <= {200, 201, 503}
    assert any(a.status == 503 for a in under_way)
    back = [a for a in answers if a.started >= ended + 1.0]  # the database back for a second
    assert back
    assert {a.status for a in back} <= {200, 201}


def test_connections_the_database_dropped_while_the_server_was_idle_cost_a_retry_not_an_error(
    proxied: tuple[SwitchableProxy, str],
) -> None:
    # The pool hands out connections unchecked (domain/storage.py): before each request every
    # connection it holds is reset, so each request's first call of the store meets a dead one.
    proxy, base = proxied
    with httpx.Client(base_url=base, timeout=30.0) as client:
        created = client.post("/api/games", json={"seats": ["Ana", "Ben", "Cleo"], "seed": 7})
        game = created.json()
        url = f"/api/games/{game['game_id']}"
        tokens = {seat["seat"]: f"Bearer {seat['token']}" for seat in game["seats"]}
        active = client.get(url).json()["active_seat"]
        seat = {"Authorization": tokens[active]}
        command = client.get(f"{url}/view", headers=seat).json()["legal"]["commands"][0]
        keyed = {**seat, "Idempotency-Key": "after-the-drop"}

        def after_a_drop(send: Callable[[], httpx.Response]) -> tuple[httpx.Response, float]:
            proxy.cut()
            proxy.restore()
            started = time.monotonic()
            return send(), time.monotonic() - started

        answers = [
            after_a_drop(lambda: client.get(f"{url}/events", headers=seat)),
            after_a_drop(lambda: client.post(f"{url}/commands", json=command, headers=keyed)),
            after_a_drop(lambda: client.post(f"{url}/commands", json=command, headers=keyed)),
            after_a_drop(lambda: client.post("/api/games", json={"seats": ["A", "B"]})),
        ]

        assert [answer.status_code for answer, _ in answers] == [200, 200, 200, 201]
        assert max(took for _, took in answers) < 3.0, answers  # 0.2 s a dead connection
        first, again = answers[1][0], answers[2][0]
        assert again.headers["Idempotent-Replayed"] == "true"
        assert again.json() == first.json()
        assert client.get(url).json()["version"] == first.json()["version"]  # stored once
