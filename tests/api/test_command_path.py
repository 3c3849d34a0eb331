"""The commands' narrow path (api/command_path.py) answers exactly as the framework does.

Two apps on stores of their own play the same games with the same requests: one as it is
served, one with the narrow path taken out so that Flask's route answers every command. Each
pair of answers must be the same bytes (status, headers in order, body, the game's id aside).
The narrow path must also be the one that answered the plain requests, and must leave the rest
to the app before anything is stored."""

from __future__ import annotations

import io
import json
from collections.abc import Callable, Iterator
from dataclasses import dataclass, replace
from typing import Any
from uuid import UUID

import pytest
from eventsourcing.persistence import OperationalError
from flask import Flask
from flask.testing import FlaskClient

from api import games
from api.app import within_database_deadline
from api.command_path import CommandPath
from domain.bots import simulate
from domain.rules import events as ev
from domain.rules.transcript import commands_from_facts

from .conftest import web_app
from .support import CreatedGame, create_game

Answer = tuple[int, list[tuple[str, str]], bytes]


@dataclass
class Side:
    """One app, its client and its copy of the game."""

    app: Flask
    client: FlaskClient
    game: CreatedGame

    def headers(self, who: int | str | None, extra: dict[str, str]) -> dict[str, str]:
        if who is None:
            return dict(extra)
        return self.game.host(**extra) if who == "host" else self.game.seat(int(who), **extra)

    def send(self, who: int | str | None, body: bytes, path: str, **options: Any) -> Answer:
        headers = self.headers(who, options.pop("headers", {}))
        options.setdefault("content_type", "application/json")
        url = self.game.url + path if path.startswith("/") else path
        response = self.client.post(url, data=body, headers=headers, **options)
        data = response.get_data().replace(self.game.id.lower().encode(), b"<game>")
        response.close()  # as a server does once the answer is sent
        return response.status_code, list(response.headers.items()), data


@dataclass
class Twins:
    """The served app (`narrow`) and the same app without its narrow path (`framework`); how
    many requests the narrow app's framework answered."""

    narrow: Side
    framework: Side
    framework_calls: list[int]

    def send(
        self,
        who: int | str | None,
        body: dict[str, Any] | bytes,
        path: str = "/commands",
        **options: Any,
    ) -> Answer:
        """The same request to both; the narrow app's answer, asserted equal to the other's."""
        raw = body if isinstance(body, bytes) else json.dumps(body).encode()
        environ = options.pop("environ", dict)  # overrides of the environ, made for each side
        answers = [
            side.send(who, raw, path, environ_overrides=environ(), **options)
            for side in (self.narrow, self.framework)
        ]
        assert answers[0] == answers[1]
        return answers[0]

    def by_the_framework(self, send: Callable[[], Answer]) -> Answer:
        """`send()`, asserting that the narrow app left the request to its framework."""
        before = self.framework_calls[0]
        answer = send()
        assert self.framework_calls[0] == before + 1, "the narrow path answered it"
        return answer

    def by_the_narrow_path(self, send: Callable[[], Answer]) -> Answer:
        before = self.framework_calls[0]
        answer = send()
        assert self.framework_calls[0] == before, "the framework answered it"
        return answer


def the_narrow_path(app: Flask) -> CommandPath:
    path = app.wsgi_app.__wrapped__  # type: ignore[attr-defined]  # within_database_deadline's
    assert isinstance(path, CommandPath)
    return path


def framework_only(app: Flask) -> None:
    """The app without its narrow path: every command answered by Flask's route."""
    app.wsgi_app = within_database_deadline(  # type: ignore[method-assign]
        the_narrow_path(app).framework, app.config["DATABASE_DEADLINE_SECONDS"]
    )


def counted(path: CommandPath) -> list[int]:
    calls = [0]
    framework = path.framework

    def answer(environ: dict[str, Any], start_response: Callable[..., Any]) -> Any:
        calls[0] += 1
        return framework(environ, start_response)

    path.framework = answer
    return calls


@pytest.fixture
def twin_apps(tmp_path: Any) -> Iterator[tuple[Flask, Flask]]:
    with (
        web_app(f"sqlite:///{tmp_path / 'narrow.sqlite3'}") as narrow,
        web_app(f"sqlite:///{tmp_path / 'framework.sqlite3'}") as framework,
    ):
        framework_only(framework)
        yield narrow, framework


def twins_of(apps: tuple[Flask, Flask], **game: Any) -> Twins:
    sides = []
    for app in apps:
        client = app.test_client()
        sides.append(Side(app, client, create_game(client, **game)))
    return Twins(sides[0], sides[1], counted(the_narrow_path(apps[0])))


@pytest.fixture
def twins(twin_apps: tuple[Flask, Flask]) -> Twins:
    """A new three-seat digital game (seed 7) on both apps: Ana (seat 0) plants first."""
    return twins_of(twin_apps)


def bot_game_on(apps: tuple[Flask, Flask], *, seed: int, tabletop: bool) -> tuple[Twins, list[Any]]:
    """A three-seat bot game started on both apps (digital, or a table's record of it), and the
    commands that play it."""
    facts = simulate("rio-grande", 3, bot="greedy", seed=seed)
    started = facts[0]
    assert isinstance(started, ev.GameStarted)
    game: dict[str, Any] = {"mode": "tabletop"} if tabletop else {"seed": started.seed}
    twins = twins_of(apps, seats=list(started.seats), start_seat=started.start_seat, **game)
    return twins, commands_from_facts(facts, tabletop=tabletop)


ANA_PLANTS = {"type": "plant", "field": 0}
"""Ana's first command in the twins' game (seed 7: her front card is a Chili)."""
NO_SUCH_OFFER = {"type": "withdraw", "offer": 999}
"""A command the rules always refuse, and only once it runs: no seat has made offer 999."""


@pytest.mark.slow  # a whole game's 700-odd commands on two apps: 2–5 s
def test_a_whole_bot_game_is_answered_on_the_narrow_path_as_the_framework_answers_it(
    twin_apps: tuple[Flask, Flask],
) -> None:
    twins, commands = bot_game_on(twin_apps, seed=5, tabletop=False)
    version = twins.narrow.game.document["version"]

    for step, entry in enumerate(commands):
        body = entry.to_dict()
        seat = body.pop("seat")
        extra = {"Prefer": "return=minimal"} if step % 3 == 0 else {}
        if step % 4 == 1:
            extra["Idempotency-Key"] = f"step-{step}"
        if step % 7 == 2:
            extra["If-Match"] = f'"{version}"'
        status, _, answer = twins.by_the_narrow_path(
            lambda body=body, seat=seat, extra=extra: twins.send(seat, body, headers=extra)
        )
        assert status == 200, answer
        version = json.loads(answer)["version"]
        if step % 5 == 0:  # refused by the rules, once the command has run
            refused, _, _ = twins.by_the_narrow_path(
                lambda seat=seat: twins.send(seat, NO_SUCH_OFFER)
            )
            assert refused == 409

    assert json.loads(answer)["view"]["phase"] == "ended"


def test_a_tabletop_game_s_host_and_seats_are_answered_on_the_narrow_path_as_by_the_framework(
    twin_apps: tuple[Flask, Flask],
) -> None:
    twins, commands = bot_game_on(twin_apps, seed=11, tabletop=True)

    for step, entry in enumerate(commands[:120]):
        body = entry.to_dict()
        who: int | str = "host" if step % 2 or entry.type in ("deal", "reveal", "draw") else 0
        if who == 0:
            who = body.pop("seat")
        status, _, answer = twins.by_the_narrow_path(
            lambda body=body, who=who, step=step: twins.send(
                who, body, headers={"Idempotency-Key": f"t-{step}"} if step % 3 == 0 else {}
            )
        )
        assert status == 200, answer


Request = Callable[[Twins], Answer]
LEFT_TO_THE_FRAMEWORK: dict[str, Request] = {
    "an If-Match that is no version": lambda t: t.send(0, ANA_PLANTS, headers={"If-Match": "2x"}),
    "If-Match and expected_version disagreeing": lambda t: t.send(
        0, {**ANA_PLANTS, "expected_version": 1}, headers={"If-Match": '"2"'}
    ),
    "an Idempotency-Key that is two": lambda t: t.send(
        0, ANA_PLANTS, headers={"Idempotency-Key": "k-1,k-2"}
    ),
    "a query string": lambda t: t.send(0, ANA_PLANTS, "/commands?x=1"),
    "an auditor's secret": lambda t: t.send(0, ANA_PLANTS, headers={"X-Auditor-Token": "x"}),
    "no token": lambda t: t.send(None, ANA_PLANTS),
    "a seat acting for another": lambda t: t.send(1, {**ANA_PLANTS, "seat": 0}),
    "the host of a digital game": lambda t: t.send("host", {**ANA_PLANTS, "seat": 0}),
    "a token that is not Bearer": lambda t: t.send(
        None, ANA_PLANTS, headers={"Authorization": f"Token {t.narrow.game.seat_tokens[0]}"}
    ),
    "a token of no game": lambda t: t.send(
        None, ANA_PLANTS, headers={"Authorization": "Bearer bzt_nothing"}
    ),
    "an unknown field": lambda t: t.send(0, {**ANA_PLANTS, "fields": 0}),
    "an unknown command": lambda t: t.send(0, {"type": "juggle"}),
    "a field of the wrong type": lambda t: t.send(0, {"type": "plant", "field": "0"}),
    "a key named twice": lambda t: t.send(0, b'{"type": "plant", "field": 0, "field": 1}'),
    "JSON that is not an object": lambda t: t.send(0, b"[1]"),
    "no JSON": lambda t: t.send(0, b"plant"),
    "bytes that are not UTF-8": lambda t: t.send(0, b'{"type": "plant\xff"}'),
    "NaN": lambda t: t.send(0, b'{"type": "plant", "field": NaN}'),
    "an infinity": lambda t: t.send(0, b'{"type": "plant", "field": Infinity}'),
    "a lone surrogate": lambda t: t.send(0, b'{"type": "plant", "bean": "\\ud800"}'),
    "a byte order mark": lambda t: t.send(0, b'\xef\xbb\xbf{"type": "plant", "field": 0}'),
    "an integer past 64 bits": lambda t: t.send(
        0, b'{"type": "plant", "field": 18446744073709551617}'
    ),
    "a colon inside a string": lambda t: t.send(0, b'{"type": "plant", "bean": "red:"}'),
    "a body of another type": lambda t: t.send(0, b"type=plant", content_type="text/plain"),
    "a chunked body": lambda t: t.send(0, ANA_PLANTS, headers={"Transfer-Encoding": "chunked"}),
    "a gzipped body": lambda t: t.send(0, ANA_PLANTS, headers={"Content-Encoding": "gzip"}),
    "a body over the limit": lambda t: t.send(0, {**ANA_PLANTS, "note": "x" * 70_000}),
    "an empty body": lambda t: t.send(0, b""),
}


NARROW, FRAMEWORK = "the narrow path", "the framework"
ON_EITHER_PATH: dict[str, tuple[Request, int, str]] = {
    "an Idempotency-Key": (
        lambda t: t.send(0, ANA_PLANTS, headers={"Idempotency-Key": "k-1"}),
        200,
        NARROW,
    ),
    "If-Match of the game's version": (
        lambda t: t.send(0, ANA_PLANTS, headers={"If-Match": '"2"'}),
        200,
        NARROW,
    ),
    "If-Match: *": (lambda t: t.send(0, ANA_PLANTS, headers={"If-Match": "*"}), 200, NARROW),
    "JSON spaced out over lines": (
        lambda t: t.send(0, b' {\n  "type" : "plant" ,\n  "field" : 0\n} '),
        200,
        NARROW,
    ),
    "expected_version in the body": (
        lambda t: t.send(0, {**ANA_PLANTS, "expected_version": 2}),
        200,
        NARROW,
    ),
    "a stale If-Match": (lambda t: t.send(0, ANA_PLANTS, headers={"If-Match": '"1"'}), 412, NARROW),
    "a stale If-Match and a key (the refusal is kept under the key)": (
        lambda t: t.send(0, ANA_PLANTS, headers={"If-Match": '"1"', "Idempotency-Key": "k-1"}),
        412,
        FRAMEWORK,
    ),
}
"""Keyed and conditional commands: the request, its status, and which path answers it."""


@pytest.mark.parametrize("case", list(ON_EITHER_PATH))
def test_a_keyed_or_conditional_command_is_answered_as_by_the_framework(
    twins: Twins, case: str
) -> None:
    send, status, path = ON_EITHER_PATH[case]
    by = twins.by_the_narrow_path if path == NARROW else twins.by_the_framework

    answered, _, _ = by(lambda: send(twins))

    assert answered == status


def test_a_keyed_command_s_retry_reuse_and_refusal_are_the_framework_s_answers(
    twins: Twins,
) -> None:
    key = {"Idempotency-Key": "k-1"}
    first = twins.by_the_narrow_path(lambda: twins.send(0, ANA_PLANTS, headers=key))
    retry = twins.by_the_framework(lambda: twins.send(0, ANA_PLANTS, headers=key))
    reused = twins.by_the_framework(
        lambda: twins.send(0, {"type": "plant", "field": 1}, headers=key)
    )
    refused_key = {"Idempotency-Key": "k-2"}
    refused = twins.by_the_framework(lambda: twins.send(0, NO_SUCH_OFFER, headers=refused_key))
    refused_again = twins.by_the_framework(
        lambda: twins.send(0, NO_SUCH_OFFER, headers=refused_key)
    )

    assert (first[0], retry[0], reused[0], refused[0], refused_again[0]) == (
        200,
        200,
        422,
        409,
        409,
    )
    assert retry[2] == first[2]
    assert ("Idempotent-Replayed", "true") in retry[1]
    assert refused_again[2] == refused[2]
    assert ("Idempotent-Replayed", "true") in refused_again[1]


@pytest.mark.parametrize("case", list(LEFT_TO_THE_FRAMEWORK))
def test_a_command_request_that_is_not_plain_is_left_to_the_framework_before_anything_is_stored(
    twins: Twins, case: str
) -> None:
    twins.by_the_framework(lambda: LEFT_TO_THE_FRAMEWORK[case](twins))


def test_a_game_the_service_does_not_know_is_left_to_the_framework(twins: Twins) -> None:
    unknown = f"/api/games/{UUID(int=7)}/commands"

    status, _, _ = twins.by_the_framework(lambda: twins.send(0, ANA_PLANTS, unknown))

    assert status == 404


def test_a_game_id_in_capitals_is_left_to_the_framework(twins: Twins) -> None:
    for side in (twins.narrow, twins.framework):
        side.game = replace(side.game, id=side.game.id.upper())

    status, _, _ = twins.by_the_framework(lambda: twins.send(0, ANA_PLANTS))

    assert status == 200


class Broken(io.RawIOBase):
    """A request body whose reads give `head` and then raise `failure`."""

    def __init__(self, head: bytes, failure: Exception) -> None:
        self.rest = io.BytesIO(head)
        self.failure = failure

    def readable(self) -> bool:
        return True

    def readinto(self, buffer: Any) -> int:
        data = self.rest.read(len(buffer))
        if not data:
            raise self.failure
        buffer[: len(data)] = data
        return len(data)


@pytest.mark.parametrize(
    ("failure", "status"),
    [(TimeoutError("timed out"), 408), (ConnectionResetError("reset"), 400)],
    ids=["stops arriving", "breaks off"],
)
def test_a_body_that_fails_part_way_is_answered_as_the_framework_answers_it(
    twins: Twins, failure: Exception, status: int
) -> None:
    body = json.dumps(ANA_PLANTS).encode()

    def send() -> Answer:
        return twins.send(0, body, environ=lambda: {"wsgi.input": Broken(body[:5], failure)})

    answered, _, _ = twins.by_the_framework(send)

    assert answered == status


@pytest.mark.parametrize("length", ["²", "+29", "29 ", "-1", ""])
def test_a_content_length_that_is_not_plain_digits_is_left_to_the_framework(
    twins: Twins, length: str
) -> None:
    body = json.dumps(ANA_PLANTS).encode()

    twins.by_the_framework(lambda: twins.send(0, body, environ=lambda: {"CONTENT_LENGTH": length}))


def test_a_body_shorter_than_its_length_is_left_to_the_framework(twins: Twins) -> None:
    body = json.dumps(ANA_PLANTS).encode()

    status, _, _ = twins.by_the_framework(
        lambda: twins.send(0, body, environ=lambda: {"CONTENT_LENGTH": str(len(body) + 10)})
    )

    assert status == 400


def test_a_store_that_fails_as_the_command_runs_is_answered_by_the_app_and_not_run_again(
    twins: Twins, monkeypatch: pytest.MonkeyPatch
) -> None:
    runs = []
    for side in (twins.narrow, twins.framework):
        application = side.app.extensions["bohnanza"].get().app

        def unreachable(*args: Any, **kwargs: Any) -> Any:
            runs.append(args)
            raise OperationalError("connection refused")

        monkeypatch.setattr(application, "execute", unreachable)

    status, headers, _ = twins.by_the_narrow_path(lambda: twins.send(0, ANA_PLANTS))

    assert status == 503
    assert ("Retry-After", "1") in headers
    assert len(runs) == 2  # once on each app


def test_the_narrow_path_answers_a_plain_command_without_the_framework(twins: Twins) -> None:
    status, headers, _ = twins.by_the_narrow_path(
        lambda: twins.send(0, ANA_PLANTS, headers={"Prefer": "return=minimal"})
    )

    assert status == 200
    assert ("Preference-Applied", "return=minimal") in headers


def test_the_game_s_live_followers_are_told_once_the_answer_is_sent_on_both_paths(
    twins: Twins, monkeypatch: pytest.MonkeyPatch
) -> None:
    nudged: list[tuple[str, UUID]] = []
    for name, side in (("narrow", twins.narrow), ("framework", twins.framework)):
        live = side.app.extensions["bohnanza"].get().live
        monkeypatch.setattr(live, "follows", lambda game_id: True)
        monkeypatch.setattr(
            live, "nudge", lambda game_id, name=name: nudged.append((name, game_id))
        )

    twins.by_the_narrow_path(lambda: twins.send(0, ANA_PLANTS))

    assert nudged == [
        ("narrow", UUID(twins.narrow.game.id)),
        ("framework", UUID(twins.framework.game.id)),
    ]


@pytest.mark.parametrize("headers", [{}, {"Idempotency-Key": "k-1"}], ids=["plain", "keyed"])
def test_a_failure_after_the_command_is_stored_is_the_app_s_500_and_the_command_is_stored_once(
    twins: Twins, monkeypatch: pytest.MonkeyPatch, headers: dict[str, str]
) -> None:
    def broken(*args: Any, **kwargs: Any) -> Any:
        raise RuntimeError("the answer could not be made")

    monkeypatch.setattr(games, "_command_answer", broken)

    status, _, answer = twins.by_the_narrow_path(lambda: twins.send(0, ANA_PLANTS, headers=headers))

    assert status == 500
    assert json.loads(answer)["code"] == "internal_error"
    for side in (twins.narrow, twins.framework):
        assert side.client.get(side.game.url).get_json()["version"] == 3  # the plant, once
