"""Live streams in a real gunicorn (api/worker.py hands them to the live hub): more followers than
the worker has threads, and commands are still answered and reach every follower."""

from __future__ import annotations

import json
import threading
from collections.abc import Iterator
from typing import Any

import httpx
import pytest

from domain.bots import simulate
from domain.rules.transcript import commands_from_facts

from .server import gunicorn

pytestmark = pytest.mark.slow  # real servers

FOLLOWERS = 8
THREADS = 2


@pytest.fixture(scope="module")
def base(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    store = tmp_path_factory.mktemp("live") / "live.sqlite3"
    with gunicorn(f"sqlite:///{store}", "--threads", str(THREADS), workers=1) as url:
        yield url


class Follower(threading.Thread):
    """Reads one stream in the background: the update events it got."""

    def __init__(self, base: str, game_id: str, headers: dict[str, str]) -> None:
        super().__init__(daemon=True)
        self.url = f"{base}/api/games/{game_id}/live"
        self.headers = headers
        self.updates: list[dict[str, Any]] = []
        self.got = threading.Condition()
        self.status: int | None = None
        self.framing: str | None = None
        self.client = httpx.Client(timeout=httpx.Timeout(30.0, connect=5.0))

    def run(self) -> None:
        try:
            with self.client.stream("GET", self.url, headers=self.headers) as response:
                self.status = response.status_code
                self.framing = response.headers.get("transfer-encoding")
                for line in response.iter_lines():
                    if line.startswith("data: "):
                        with self.got:
                            self.updates.append(json.loads(line[len("data: ") :]))
                            self.got.notify_all()
        except httpx.HTTPError:
            pass  # closed by the test

    def wait_for(self, version: int) -> dict[str, Any]:
        with self.got:
            assert self.got.wait_for(
                lambda: any(u.get("version") == version for u in self.updates), timeout=10
            ), self.updates
            return next(u for u in self.updates if u.get("version") == version)

    def stop(self) -> None:
        self.client.close()


def test_more_followers_than_threads_and_a_command_still_reaches_each_of_them(base: str) -> None:
    created = httpx.post(f"{base}/api/games", json={"seats": ["Ana", "Ben", "Cleo"], "seed": 7})
    game = created.json()
    tokens = [seat["token"] for seat in game["seats"]]
    followers = [Follower(base, game["game_id"], {}) for _ in range(FOLLOWERS)]
    followers.append(Follower(base, game["game_id"], {"Authorization": f"Bearer {tokens[1]}"}))
    for follower in followers:
        follower.start()
    try:
        for follower in followers:
            follower.wait_for(2)

        answer = httpx.post(
            f"{base}/api/games/{game['game_id']}/commands",
            json={"type": "plant", "field": 0},
            headers={"Authorization": f"Bearer {tokens[0]}"},
            timeout=5.0,
        )

        assert answer.status_code == 200
        updates = [follower.wait_for(3) for follower in followers]
        assert all(follower.status == 200 for follower in followers)
        assert all(follower.framing == "chunked" for follower in followers)
        public, bens = updates[0], updates[-1]
        assert all(update == public for update in updates[:-1])
        assert public["steps"][0]["summary"] == "T1 Ana plants Chili from the hand in field 1"
        assert public["view"]["seats"][1]["hand"] is None
        assert bens["view"]["seats"][1]["hand"] is not None
        assert httpx.get(f"{base}/api/games/{game['game_id']}", timeout=5.0).status_code == 200
    finally:
        for follower in followers:
            follower.stop()


def test_a_followers_stream_survives_between_commands(base: str) -> None:
    created = httpx.post(f"{base}/api/games", json={"seats": ["Ana", "Ben", "Cleo"], "seed": 7})
    game = created.json()
    token = game["seats"][0]["token"]
    follower = Follower(base, game["game_id"], {})
    follower.start()
    try:
        follower.wait_for(2)
        for version, body in ((3, {"type": "plant", "field": 0}), (4, {"type": "reveal"})):
            answer = httpx.post(
                f"{base}/api/games/{game['game_id']}/commands",
                json=body,
                headers={"Authorization": f"Bearer {token}"},
                timeout=5.0,
            )
            assert answer.status_code == 200
            assert follower.wait_for(version)["version"] == version
    finally:
        follower.stop()


def test_a_game_that_ends_ends_its_followers_streams_and_the_server_goes_on(base: str) -> None:
    facts = simulate("rio-grande", 3, bot="greedy", seed=3)
    started = facts[0]
    client = httpx.Client(base_url=base, timeout=10.0)
    created = client.post("/api/games", json={"seats": started.seats, "seed": started.seed})
    game_id, seats = created.json()["game_id"], created.json()["seats"]
    followers = [Follower(base, game_id, {}) for _ in range(3)]
    for follower in followers:
        follower.start()
    try:
        for follower in followers:
            follower.wait_for(2)

        for command in commands_from_facts(facts, tabletop=False):
            body = command.to_dict()
            token = seats[body.pop("seat")]["token"]
            answer = client.post(
                f"/api/games/{game_id}/commands",
                json=body,
                headers={"Authorization": f"Bearer {token}"},
            )
            assert answer.status_code == 200, answer.text

        for follower in followers:
            follower.join(timeout=15)
            assert not follower.is_alive()  # the server closed the stream after its end
            assert follower.updates[-1] == {}  # the end event
            assert follower.updates[-2]["view"]["phase"] == "ended"
        again = Follower(base, game_id, {})
        again.start()
        again.join(timeout=15)
        assert again.updates[-2]["view"]["phase"] == "ended"
    finally:
        for follower in followers:
            follower.stop()
        client.close()
