"""Following a game live (GET …/live): each viewer's stream is what that viewer may see, the same
documents as its view and its step list, and many followers share each message."""

from __future__ import annotations

import json
import random
import time
from collections.abc import Iterator
from typing import Any
from uuid import UUID

import pytest
from flask import Flask
from flask.testing import FlaskClient

from api import live_hub
from domain.bots import BOTS, Table
from domain.rules.evolve import fold
from projections.views import PUBLIC_VIEWER, Viewer, render
from replays.steps import Replay

from .support import CreatedGame, assert_envelope, bearer, command, create_game


class Follower:
    """One open stream read through the test client: its events, parsed."""

    def __init__(self, client: FlaskClient, game: CreatedGame, **request: Any) -> None:
        self.response = client.get(f"{game.url}/live", buffered=False, **request)
        assert self.response.status_code == 200, self.response.get_data()
        assert self.response.mimetype == "text/event-stream"
        self.chunks = iter(self.response.response)

    def next_event(self) -> tuple[str, dict[str, Any]]:
        """The next event (its name and data), past comments and the retry line."""
        while True:
            chunk = next(self.chunks).decode()
            events = [block for block in chunk.split("\n\n") if block and "data:" in block]
            if events:
                return parse(events[0])

    def update_at(self, version: int) -> list[dict[str, Any]]:
        """Every update up to the one at `version`."""
        updates = []
        while not updates or updates[-1]["version"] < version:
            name, data = self.next_event()
            assert name == "update"
            updates.append(data)
        return updates

    def close(self) -> None:
        self.response.close()


def parse(block: str) -> tuple[str, dict[str, Any]]:
    fields = dict(line.split(": ", 1) for line in block.splitlines() if ": " in line)
    return fields.get("event", "message"), json.loads(fields["data"])


@pytest.fixture
def fast_hub(web: Flask) -> live_hub.LiveHub:
    """The app's hub, asking the store for news every 10 ms and beating every second."""
    hub = web.extensions["bohnanza"].get().live
    hub.poll_seconds = 0.01
    hub.heartbeat_seconds = 1.0
    return hub


@pytest.fixture
def followers() -> Iterator[list[Follower]]:
    opened: list[Follower] = []
    yield opened
    for follower in opened:
        follower.close()


def follow(followers: list[Follower], client: FlaskClient, game: CreatedGame, **kw: Any) -> Any:
    follower = Follower(client, game, **kw)
    followers.append(follower)
    return follower


def test_the_first_event_is_the_callers_view_now(
    client: FlaskClient, game: CreatedGame, fast_hub: Any, followers: list[Follower]
) -> None:
    public = follow(followers, client, game)
    ben = follow(followers, client, game, headers=game.seat(1))

    assert public.next_event() == (
        "update",
        {"version": 2, "steps": [], "first_step": None, "view": view(client, game)},
    )
    _name, data = ben.next_event()
    assert data["view"] == view(client, game, game.seat(1))
    assert data["view"]["seats"][1]["hand"] is not None
    assert data["view"]["seats"][0]["hand"] is None


def view(client: FlaskClient, game: CreatedGame, headers: dict[str, str] | None = None) -> Any:
    return client.get(f"{game.url}/view", headers=headers or {}).get_json()


def test_a_command_reaches_every_follower_with_the_steps_it_made(
    client: FlaskClient, game: CreatedGame, fast_hub: Any, followers: list[Follower]
) -> None:
    public = follow(followers, client, game)
    public.next_event()

    command(client, game, game.seat(0), type="plant", field=0).close()

    (update,) = public.update_at(3)
    assert [step["summary"] for step in update["steps"]] == [
        "T1 Ana plants Chili from the hand in field 1"
    ]
    assert update["view"] == view(client, game)


@pytest.mark.parametrize("resume", ["query", "header"])
def test_a_follower_coming_back_gets_the_steps_it_missed(
    client: FlaskClient, game: CreatedGame, fast_hub: Any, followers: list[Follower], resume: str
) -> None:
    for body in ({"type": "plant", "field": 0}, {"type": "reveal"}):
        assert command(client, game, game.seat(0), **body).status_code == 200
    request: dict[str, Any] = (
        {"query_string": {"after": 2}} if resume == "query" else {"headers": {"Last-Event-ID": "2"}}
    )

    _name, data = follow(followers, client, game, **request).next_event()

    assert [step["position"] for step in data["steps"]] == [3, 4]
    assert data["steps"] == client.get(f"{game.url}/steps").get_json()["steps"][2:4]


def test_every_event_of_a_whole_game_is_what_its_follower_may_see(
    web: Flask, client: FlaskClient, fast_hub: Any, followers: list[Follower]
) -> None:
    game = create_game(client)
    viewers = {"public": (PUBLIC_VIEWER, {}), "Ben": (Viewer.of_seat(1), game.seat(1))}
    streams = {name: follow(followers, client, game, headers=h) for name, (_, h) in viewers.items()}
    seen: dict[str, list[dict[str, Any]]] = {
        name: [s.next_event()[1]] for name, s in streams.items()
    }
    app = web.extensions["bohnanza"].get().app
    table = Table([BOTS["greedy"]() for _ in range(3)], random.Random(3))
    state = app.state(UUID(game.id))
    while not state.is_over:
        for _ in range(random.Random(len(seen["public"])).randint(1, 40)):
            if not state.is_over:
                state = fold(app.execute(UUID(game.id), table.next_command(state)).facts, state)
        version = len(app.facts(UUID(game.id)))
        for name, stream in streams.items():
            seen[name] += stream.update_at(version)

    replay = Replay(app.facts(UUID(game.id)))
    for name, (viewer, headers) in viewers.items():
        for update in seen[name]:
            folded = replay.view_at(update["version"], viewer)
            assert update["view"] == {**render(folded, viewer), "version": update["version"]}
        steps = client.get(f"{game.url}/steps", headers=headers).get_json()["steps"]
        assert [step for update in seen[name] for step in update["steps"]] == steps[2:]
        assert streams[name].next_event() == ("end", {})
    assert any("draws a card" in step["summary"] for step in steps)
    bens_draws = [
        s["summary"] for u in seen["Ben"] for s in u["steps"] if "Ben draws" in s["summary"]
    ]
    assert bens_draws
    assert not [line for line in bens_draws if "a card" in line]
    assert all(update["view"]["seats"][0]["hand"] is None for update in seen["public"][:-1])


def test_followers_of_one_game_as_one_viewer_share_each_message(
    client: FlaskClient,
    game: CreatedGame,
    fast_hub: Any,
    followers: list[Follower],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    crowd = [follow(followers, client, game) for _ in range(20)]
    for follower in crowd:
        follower.next_event()
    rendered: list[Viewer] = []
    real_render = live_hub.render
    monkeypatch.setattr(
        live_hub, "render", lambda v, who: (rendered.append(who), real_render(v, who))[1]
    )

    command(client, game, game.seat(0), type="plant", field=0).close()
    updates = [follower.update_at(3) for follower in crowd]

    assert rendered == [PUBLIC_VIEWER]
    assert all(update == updates[0] for update in updates)


def test_an_ended_game_sends_its_last_view_and_ends_the_stream(
    web: Flask, client: FlaskClient, fast_hub: Any, followers: list[Follower]
) -> None:
    game = create_game(client)
    app = web.extensions["bohnanza"].get().app
    table = Table([BOTS["greedy"]() for _ in range(3)], random.Random(7))
    state = app.state(UUID(game.id))
    while not state.is_over:
        state = fold(app.execute(UUID(game.id), table.next_command(state)).facts, state)

    body = client.get(f"{game.url}/live").get_data(as_text=True)

    events = [parse(block) for block in body.split("\n\n") if "data:" in block]
    assert [name for name, _ in events] == ["update", "end"]
    assert events[0][1]["view"]["phase"] == "ended"
    assert fast_hub.streams() == 0


@pytest.mark.parametrize(
    ("request_", "status", "code"),
    [
        ({"headers": {"Last-Event-ID": "07"}}, 400, "bad_request"),
        ({"query_string": {"after": -1}}, 422, "validation_error"),
        ({"query_string": {"perspective": "auditor"}}, 403, "forbidden"),
        ({"headers": bearer("bzt_not-a-token")}, 401, "unauthorized"),
    ],
)
def test_a_follow_request_it_cannot_serve_is_refused_in_the_envelope(
    client: FlaskClient, game: CreatedGame, request_: dict[str, Any], status: int, code: str
) -> None:
    response = client.get(f"{game.url}/live", **request_)

    assert_envelope(response, status, code)


def test_an_unknown_game_cannot_be_followed(client: FlaskClient) -> None:
    response = client.get("/api/games/0b0b0b0b-0000-4000-8000-000000000000/live")

    assert response.status_code == 404


def test_streams_beyond_the_limit_are_refused_for_now(
    client: FlaskClient, game: CreatedGame, fast_hub: Any, followers: list[Follower]
) -> None:
    fast_hub.limit = 2
    follow(followers, client, game)
    follow(followers, client, game, headers=game.seat(0))

    response = client.get(f"{game.url}/live")

    assert_envelope(response, 503, "too_many_streams")
    assert response.headers["Retry-After"]


def test_a_follower_that_leaves_is_forgotten(
    client: FlaskClient, game: CreatedGame, fast_hub: Any
) -> None:
    follower = Follower(client, game)
    follower.next_event()
    assert fast_hub.streams() == 1

    follower.close()

    assert fast_hub.streams() == 0


def test_after_a_correction_a_follower_gets_every_step_of_the_game_as_corrected_again(
    client: FlaskClient, fast_hub: Any, followers: list[Follower]
) -> None:
    table = create_game(client, mode="tabletop", hands="unknown")
    for body in (
        {"type": "plant", "seat": 0, "field": 0, "bean": "blue"},
        {"type": "reveal", "cards": ["chili", "soy"]},
    ):
        assert command(client, table, table.host(), **body).status_code == 200
    public = follow(followers, client, table)
    public.next_event()

    command(client, table, table.host(), type="undo").close()

    (update,) = public.update_at(5)
    assert update["first_step"] == 1
    assert update["steps"] == client.get(f"{table.url}/steps").get_json()["steps"]
    assert [step["kind"] for step in update["steps"]][-1] == "BeanPlanted"
    assert update["view"]["revealed"] == []


def test_a_burst_of_commands_reaches_followers_as_one_message_after_the_first_went_at_once(
    client: FlaskClient, game: CreatedGame, fast_hub: Any, followers: list[Follower]
) -> None:
    fast_hub.interval_seconds = 1.0
    public = follow(followers, client, game)
    public.next_event()
    command(client, game, game.seat(0), type="plant", field=0).close()
    (first,) = public.update_at(3)

    for body in ({"type": "plant", "field": 1}, {"type": "reveal"}):
        time.sleep(0.2)  # time enough for the hub to send each on its own, were it not held
        assert command(client, game, game.seat(0), **body).status_code == 200
    (burst,) = public.update_at(5)

    assert [step["position"] for step in first["steps"]] == [3]
    assert [step["position"] for step in burst["steps"]] == [4, 5]
    assert burst["view"] == view(client, game)
