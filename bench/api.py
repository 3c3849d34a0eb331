"""API benchmark: every figure is printed beside its baseline measured in the same run.

    .venv/bin/python -m bench.api [--commands 200] [--repeats 5] [--postgres-url URL]
                                  [--only round-trip|throughput]

1. Round trip on SQLite: one command over HTTP to a real gunicorn on loopback, configured as
   `bohnanza serve` runs it (one worker process of the service's worker class, with threads; one
   SQLite file; the read models kept in the process), beside the same command through the
   Application directly (on its own SQLite file). Both replay the same bot game's commands,
   alternately, on two copies of the game. The client is libcurl (pycurl) on one kept-alive
   connection: its own work is C, so the figure is the server's and the loopback's, not a Python
   client library's. Target: ≤ 2× (median against median, the median of `--repeats` games). The
   same passes then run with the standard library's `http.client`, whose own Python work (the
   answer's headers are parsed by the `email` package) adds about 0.1 ms to every request; its
   ratio is printed beside, without the target. Then the floor any endpoint pays before its
   own work, beside each command: after the command's request and the command directly, the same
   request goes to an empty endpoint in front of the app (a bare WSGI function: it reads the
   JSON body and answers `{"ok": true}`), then the command runs directly on a second copy, so
   that each request meets the server as the others do (idle for a millisecond, its caches
   cooled by the client's work).
   A second pass with libcurl sends the commands with `Prefer: return=minimal`, whose answer
   leaves out the caller's view. A command's own work, request by request (the request less the
   command directly and the empty endpoint's request beside it; the median of those differences),
   is printed against issue 25's target of 0.2 ms, with the view and without.
   The passes run in two layouts, alternately: (a) client and server share the machine's CPUs as
   the scheduler places them, which on a 2-core machine often puts the server on the core the
   client has just used, so each fills the other's caches; (b) where the machine allows (Linux, 2
   CPUs or more), the client and its direct commands on one CPU and the server on another, as
   when they run on different machines. Last, (c) the same requests in one process: the app's
   WSGI function called directly, no gunicorn and no sockets (far less noisy; see `in_process`),
   with and without the view in the answer.
2. Throughput on PostgreSQL: commands/s from 8 concurrent HTTP clients, each replaying its own
   game, against gunicorn with several workers configured as docker-compose.yml runs the API
   (a separate projector follows the store), beside the library's raw append rate: 8 threads
   inserting the same games' pre-built stored events with the library's own recorder
   (`eventsourcing`'s PostgreSQL application recorder, none of this service's), one command's
   events per `insert_events` (its default: a pipeline of four statements in a transaction).
   Printed beside it, not as the baseline: the same with the library's own insert function
   (`POSTGRES_ENABLE_DB_FUNCTIONS=y`: one statement, as this service's command sends, though
   without the table's lock). The HTTP clients are libcurl, as in the round trip (httpx took
   0.6 ms of CPU a request more, on the same two CPUs as the server). They run three passes:
   each game's commands on one kept-alive connection (a worker process of the server keeps it,
   so it stores all of that game's commands), the same with an `Idempotency-Key` on each
   command, and each seat of a game on a connection of its own, as players at their own
   devices (a game's commands are then spread over the worker processes, each command mostly
   finding the game moved on by another). A throw-away database is created and dropped on the
   server at `--postgres-url` (default `$BOHNANZA_TEST_POSTGRES_URL` or the local server).

Timings are medians (these machines are noisy); the sides of the first ratio alternate command by
command, and the two sides of the second are each run `--repeats` times.
"""

from __future__ import annotations

import argparse
import http.client
import io
import itertools
import json
import os
import secrets
import statistics
import tempfile
import threading
import time
import uuid
from collections.abc import Callable, Iterable, Iterator, Sequence
from concurrent.futures import ThreadPoolExecutor
from contextlib import contextmanager
from dataclasses import dataclass, field
from functools import partial
from typing import Any, Protocol
from urllib.parse import urlsplit, urlunsplit

import httpx
import orjson
import psycopg
import pycurl
from eventsourcing.application import Application
from eventsourcing.persistence import StoredEvent
from flask import Flask
from psycopg import sql
from werkzeug.test import EnvironBuilder

from api.app import create_app
from bench.support import cpu_seconds, own_cpu_seconds
from domain.application import Bohnanza
from domain.bots import simulate
from domain.rules import events as ev
from domain.rules.commands import Command
from domain.rules.transcript import commands_from_facts
from domain.storage import persistence_env
from tests.e2e.server import gunicorn

PLAYERS = 4
CLIENTS = 8
DEFAULT_POSTGRES_URL = "postgresql://postgres@127.0.0.1:5432/postgres"


@dataclass(frozen=True)
class BotGame:
    """A complete greedy-bot game: how it started and the commands that played it."""

    started: ev.GameStarted
    commands: list[Command]

    @classmethod
    def simulated(cls, seed: int) -> BotGame:
        facts = simulate("rio-grande", PLAYERS, bot="greedy", seed=seed)
        started = facts[0]
        assert isinstance(started, ev.GameStarted)
        return cls(started, commands_from_facts(facts, tabletop=False))

    def request(self) -> dict[str, object]:
        """The body of POST /api/games that starts this very game."""
        return {
            "seats": list(self.started.seats),
            "seed": self.started.seed,
            "start_seat": self.started.start_seat,
        }

    def start(self, app: Bohnanza) -> uuid.UUID:
        outcome = app.start_game(
            self.started.seats, start_seat=self.started.start_seat, seed=self.started.seed
        )
        return outcome.game_id


class HttpGame:
    """A game created over HTTP, with its seats' tokens, played command by command."""

    def __init__(self, client: httpx.Client, game: BotGame) -> None:
        created = client.post("/api/games", json=game.request())
        created.raise_for_status()
        body = created.json()
        self.url = f"/api/games/{body['game_id']}/commands"
        self.tokens = [f"Bearer {seat['token']}" for seat in body["seats"]]

    def play_with(
        self,
        connection: Connection | Sequence[Connection],
        command: Command,
        path: str | None = None,
        key: str | None = None,
    ) -> None:
        """The command through a plain keep-alive connection (to `path` if given; with an
        `Idempotency-Key` if `key`); given a connection for each seat, through the seat's."""
        body = command.to_dict()
        seat = body.pop("seat")
        if isinstance(connection, Sequence):
            connection = connection[seat]
        status, text = connection.post(path or self.url, json.dumps(body), self.tokens[seat], key)
        if status != 200:
            raise RuntimeError(f"{body} was answered {status}: {text!r}")


class Connection(Protocol):
    """One keep-alive HTTP connection to the server, posting JSON bodies."""

    name: str

    def post(
        self, path: str, body: str, authorization: str, key: str | None = None
    ) -> tuple[int, bytes]: ...

    def close(self) -> None: ...


class LibcurlConnection:
    """libcurl (pycurl), one handle reused so that its connection stays open: the client's own
    work is C, so the round trip it measures is the server's and the loopback's."""

    name = "libcurl"

    def __init__(self, base: str, *headers: str) -> None:
        self.base = base
        self.headers = list(headers)
        """Sent with every request, besides each request's own."""
        self.curl = pycurl.Curl()
        self.curl.setopt(pycurl.POST, 1)
        self.curl.setopt(pycurl.TCP_NODELAY, 1)

    def post(
        self, path: str, body: str, authorization: str, key: str | None = None
    ) -> tuple[int, bytes]:
        answer = io.BytesIO()
        headers = [f"Authorization: {authorization}", "Content-Type: application/json"]
        headers += self.headers
        if key is not None:
            headers.append(f"Idempotency-Key: {key}")
        self.curl.setopt(pycurl.URL, self.base + path)
        self.curl.setopt(pycurl.HTTPHEADER, headers)
        self.curl.setopt(pycurl.POSTFIELDS, body)
        self.curl.setopt(pycurl.WRITEDATA, answer)
        self.curl.perform()
        return self.curl.getinfo(pycurl.RESPONSE_CODE), answer.getvalue()

    def close(self) -> None:
        self.curl.close()


class StdlibConnection:
    """The standard library's `http.client`: what a plain Python client pays on top, in Python
    (it parses the answer's status line and headers with the `email` package)."""

    name = "http.client"

    def __init__(self, base: str) -> None:
        self.connection = http.client.HTTPConnection(*urlsplit(base).netloc.split(":"))

    def post(
        self, path: str, body: str, authorization: str, key: str | None = None
    ) -> tuple[int, bytes]:
        headers = {"Authorization": authorization, "Content-Type": "application/json"}
        if key is not None:
            headers["Idempotency-Key"] = key
        self.connection.request("POST", path, body, headers)
        answer = self.connection.getresponse()
        return answer.status, answer.read()

    def close(self) -> None:
        self.connection.close()


CONNECTIONS: tuple[Callable[[str], Connection], ...] = (LibcurlConnection, StdlibConnection)
"""The clients of the round trip; the first one's ratio is the one held to the target."""


# --- 1. round trip on SQLite ---------------------------------------------------------------------


FLOOR_PATH = "/bench/floor"
OWN_WORK_MS = 0.2
"""Issue 25's target for a command's own HTTP work: the request less the command itself and the
floor (the body's schema, the token, the caller's view and events, their JSON)."""


def own_work(ms: float) -> str:
    """A command's own HTTP work beside its target."""
    verdict = "met" if ms <= OWN_WORK_MS else "NOT met"
    return f"{ms:.3f} ms, target ≤ {OWN_WORK_MS} ms: {verdict}"


def app_with_floor(config: dict[str, object] | None = None) -> Flask:
    """The service's app (`create_app()`, as gunicorn serves it) with one empty endpoint in front
    of it, `POST /bench/floor`: a bare WSGI function that reads the JSON body and answers a
    constant. What it costs over HTTP is what gunicorn, loopback and the client cost any request
    before the service's own work. (Until the commands took a path of their own past the
    framework, api/command_path.py, the floor was an empty Flask route: the framework's dispatch
    was on every request's path then, commands' included.)"""
    app = create_app(config)
    served = app.wsgi_app

    def floor_or_app(environ: dict[str, Any], start_response: Callable[..., Any]) -> Any:
        if environ.get("PATH_INFO") != FLOOR_PATH:
            return served(environ, start_response)
        orjson.loads(environ["wsgi.input"].read(int(environ.get("CONTENT_LENGTH") or 0)))
        start_response("200 OK", FLOOR_HEADERS)
        return [FLOOR_ANSWER]

    app.wsgi_app = floor_or_app  # type: ignore[method-assign]
    return app


FLOOR_ANSWER = b'{"ok":true}\n'
FLOOR_HEADERS = [("Content-Type", "application/json"), ("Content-Length", str(len(FLOOR_ANSWER)))]


@dataclass
class Pass:
    """One game's commands, each sent as a request, then run directly on a copy of the game; then
    the same request sent to the empty endpoint, followed by the command directly on a second
    copy (so that each request meets the server as the others do, its caches cooled by the
    client's work). The four sides' times, in seconds, command by command."""

    request: list[float] = field(default_factory=list)
    direct: list[float] = field(default_factory=list)
    floor: list[float] = field(default_factory=list)
    floor_direct: list[float] = field(default_factory=list)

    @property
    def ratio(self) -> float:
        return statistics.median(self.request) / statistics.median(self.direct)

    @property
    def floor_ratio(self) -> float:
        return statistics.median(self.floor) / statistics.median(self.floor_direct)

    @property
    def own(self) -> float:
        """The command's own work in this pass, in seconds: the median, over its commands, of each
        request less the same command directly and the empty endpoint's request beside it."""
        return statistics.median(
            request - direct - floor
            for request, direct, floor in zip(self.request, self.direct, self.floor, strict=True)
        )

    def measure(self, *steps: Callable[[], object]) -> None:
        """Time one command's four steps, one after the other: its request, the command
        directly, the same request to the empty endpoint, the command directly on a second copy."""
        marks = [time.perf_counter()]
        for step in steps:
            step()
            marks.append(time.perf_counter())
        request, direct, floor, floor_direct = itertools.pairwise(marks)
        self.request.append(request[1] - request[0])
        self.direct.append(direct[1] - direct[0])
        self.floor.append(floor[1] - floor[0])
        self.floor_direct.append(floor_direct[1] - floor_direct[0])


def cpu_pair() -> tuple[int, int] | None:
    """Two CPUs this process may use, one for the client and one for the server; None where
    processes cannot be kept on CPUs (not Linux) or there is only one."""
    if not hasattr(os, "sched_setaffinity"):
        return None
    cpus = sorted(os.sched_getaffinity(0))
    return (cpus[0], cpus[1]) if len(cpus) >= 2 else None


@contextmanager
def on_cpus(cpus: set[int] | None) -> Iterator[None]:
    """Keep this (single-threaded) client on `cpus` for the block; anywhere if None."""
    if cpus is None:
        yield
        return
    before = os.sched_getaffinity(0)
    os.sched_setaffinity(0, cpus)
    try:
        yield
    finally:
        os.sched_setaffinity(0, before)


Passes = dict[str, Pass]
"""One server's passes, by client."""

MINIMAL = "return=minimal"
"""The `Prefer` header's value that asks for a command's answer without the caller's view
(docs/reference/http-api.md)."""
MINIMAL_PASS = "libcurl, return=minimal"


def round_trip(game: BotGame, repeats: int) -> None:
    pair = cpu_pair()
    layouts = {"shared": None, "pinned": pair} if pair else {"shared": None}
    runs: dict[str, list[Passes]] = {layout: [] for layout in layouts}
    for _ in range(repeats):  # the layouts alternate, so that the machine's moods hit both
        for layout, cpus in layouts.items():
            runs[layout].append(_round_trips(game, cpus))
    print(
        f"1. one command's round trip on SQLite ({len(game.commands)} commands a game, {repeats} games)"
    )
    for layout, cpus in layouts.items():
        if cpus is None:
            print("   a) client and server share the machine's CPUs, as the scheduler places them")
        else:
            print(
                f"   b) client on CPU {cpus[0]}, server on CPU {cpus[1]}: each keeps its own core"
                " and caches, as on two machines"
            )
        for number, connection in enumerate(CONNECTIONS):
            target = "   target ≤ 2×" if number == 0 else ""
            print(f"   client: {connection.name} — {_first_paragraph(connection.__doc__)}")
            _report_round_trips([passes[connection.name] for passes in runs[layout]], target)
            if number == 0:
                _report_minimal([passes[MINIMAL_PASS] for passes in runs[layout]])
    if pair is None:
        print("   (b, the client and the server on CPUs of their own, needs Linux and 2 CPUs)")


def _first_paragraph(text: str | None) -> str:
    return " ".join((text or "").split("\n\n")[0].split())


def _report_round_trips(runs: list[Pass], target: str) -> None:
    direct_ms, http_ms = _report(runs, "HTTP to gunicorn")
    ratios = _ratios(pass_.ratio for pass_ in runs)
    print(f"   ratio                  {http_ms / direct_ms:>9.2f} ×   ({ratios}){target}")
    print("   the floor, beside each command on the same server: its request to an empty endpoint")
    floor_direct_ms, floor_ms = _report(runs, "HTTP, empty endpoint", floor=True)
    floor_ratios = _ratios(pass_.floor_ratio for pass_ in runs)
    print(f"   ratio                  {floor_ms / floor_direct_ms:>9.2f} ×   ({floor_ratios})")
    print(f"   so the command's own HTTP work is {_own_work(runs)}:")
    print("   the body's schema, the token, the caller's view and events, their JSON")
    print(
        f"   with no work of its own, a command would still take {1 + floor_ms / direct_ms:.2f} ×"
        " the baseline over HTTP"
    )


def _report_minimal(runs: list[Pass]) -> None:
    """The same client's commands sent with `Prefer: return=minimal` (no view in the answer, in a
    pass of their own on the same server, each beside its request to the empty endpoint)."""
    print(f"   the same commands with `Prefer: {MINIMAL}` (the answer without the caller's view):")
    direct_ms, http_ms = _report(runs, "HTTP, minimal answer")
    _report(runs, "HTTP, empty endpoint", floor=True)
    print(
        f"   ratio                  {http_ms / direct_ms:>9.2f} ×   ({_ratios(p.ratio for p in runs)})"
    )
    print(f"   so its own HTTP work is {_own_work(runs)}")


def _own_work(runs: list[Pass]) -> str:
    """A command's own work, request by request, against its target: each request less the same
    command directly and the empty endpoint's request beside it, the median of a game's commands
    (then the median of the games'). Paired like this, the figure does not move with the
    machine's moods between passes, as a difference of three separate medians would."""
    own = [pass_.own for pass_ in runs]
    games = ", ".join(f"{seconds * 1000:.3f}" for seconds in own)
    return f"{own_work(statistics.median(own) * 1000)} (per game: {games} ms)"


def _report(passes: list[Pass], label: str, *, floor: bool = False) -> tuple[float, float]:
    """Print both sides' medians (the median of the games' medians) and p90s, of the commands'
    requests or (`floor`) of the empty endpoint's; return the medians."""

    def sides(pass_: Pass) -> tuple[list[float], list[float]]:
        return (pass_.floor_direct, pass_.floor) if floor else (pass_.direct, pass_.request)

    direct_ms = statistics.median(statistics.median(sides(p)[0]) for p in passes) * 1000
    http_ms = statistics.median(statistics.median(sides(p)[1]) for p in passes) * 1000
    direct_p90 = _p90(t for p in passes for t in sides(p)[0])
    http_p90 = _p90(t for p in passes for t in sides(p)[1])
    print(
        f"   Application.execute    {direct_ms:>9.3f} ms median   {direct_p90:>7.3f} ms p90  (baseline)"
    )
    print(f"   {label:<22} {http_ms:>9.3f} ms median   {http_p90:>7.3f} ms p90")
    return direct_ms, http_ms


def _ratios(ratios: Iterable[float]) -> str:
    return "per game: " + ", ".join(f"{ratio:.2f}" for ratio in ratios)


def _p90(times: Iterable[float]) -> float:
    return statistics.quantiles(list(times), n=10)[-1] * 1000


def _round_trips(game: BotGame, cpus: tuple[int, int] | None) -> Passes:
    """On one server, for each client in turn: the game's commands, each over HTTP, then
    directly, then to the empty endpoint, then directly on a second copy (`_alternate`). With
    `cpus`, the client (and its direct commands) runs on the first, the server on the second. The
    same pass runs once first and is not counted: on a new server and a new SQLite file both sides
    are slower for a while (the files grow, the server's first requests load code), which would
    otherwise favour whichever client runs first."""
    client_cpus, server_cpus = (None, None) if cpus is None else ({cpus[0]}, {cpus[1]})
    passes: Passes = {}
    with tempfile.TemporaryDirectory() as tmp:
        served = f"sqlite:///{tmp}/served.sqlite3"
        with (
            gunicorn(
                served,
                "--threads",
                "8",
                workers=1,
                app="bench.api:app_with_floor()",
                cpus=server_cpus,
            ) as base,
            on_cpus(client_cpus),
            # A new connection for each game it creates: between two creations the client is
            # idle for about as long as the server keeps an idle connection open (2 s), and a
            # request sent as the server closes it is lost ("Server disconnected").
            httpx.Client(
                base_url=base, timeout=30.0, limits=httpx.Limits(max_keepalive_connections=0)
            ) as client,
            Bohnanza.from_url(f"sqlite:///{tmp}/direct.sqlite3") as app,
        ):
            for number, connect in enumerate((CONNECTIONS[0], *CONNECTIONS)):
                connection = connect(base)
                command = _alternate(game, app, HttpGame(client, game), connection)
                connection.close()
                if number == 1:  # the answer without the view, on the same server
                    minimal = LibcurlConnection(base, f"Prefer: {MINIMAL}")
                    passes[MINIMAL_PASS] = _alternate(game, app, HttpGame(client, game), minimal)
                    minimal.close()
                if number > 0:  # the first game only warms both sides up
                    passes[connection.name] = command
    return passes


def _alternate(game: BotGame, app: Bohnanza, remote: HttpGame, connection: Connection) -> Pass:
    """Each of the game's commands over HTTP, then directly on a new copy of the game; then the
    same request to the empty endpoint, then the command directly on a second copy."""
    times = Pass()
    local, second = game.start(app), game.start(app)
    for command in game.commands:
        times.measure(
            partial(remote.play_with, connection, command),
            partial(app.execute, local, command),
            partial(remote.play_with, connection, command, FLOOR_PATH),
            partial(app.execute, second, command),
        )
    return times


def in_process(games: list[BotGame]) -> None:
    """c) The command route's own work in one process, no gunicorn and no sockets: the app's WSGI
    function called with each request's environ built beforehand, each command's request beside
    the command directly on a store of its own and the same request to the empty endpoint. Far less
    noisy than over HTTP, so the figure to compare when a change touches the request's Python (it
    leaves out what only a server between requests pays: caches cooled by gunicorn's own work)."""
    passes: list[Pass] = []
    minimal: list[Pass] = []
    with tempfile.TemporaryDirectory() as tmp:
        # No read models kept in the process: their catch-up runs in a thread of its own, off
        # the request's path, and would only add noise here.
        app = app_with_floor(
            {"DATABASE_URL": f"sqlite:///{tmp}/served.sqlite3", "INLINE_PROJECTIONS": False}
        )
        try:
            with Bohnanza.from_url(f"sqlite:///{tmp}/direct.sqlite3") as direct:
                for number, game in enumerate((games[0], *games)):
                    command = _in_process_pass(app, direct, game)
                    short = _in_process_pass(app, direct, game, prefer=MINIMAL)
                    if number > 0:  # the first game only warms both sides up
                        passes.append(command)
                        minimal.append(short)
        finally:
            app.extensions["bohnanza"].close()
    print(
        f"   c) in one process, the app's WSGI function called directly ({len(passes)} games,"
        " the same commands)"
    )
    _report(passes, "WSGI, the command")
    _report(passes, "WSGI, empty endpoint", floor=True)
    print(f"   so the command's own work is {_own_work(passes)}")
    _report(minimal, "WSGI, minimal answer")
    _report(minimal, "WSGI, empty endpoint", floor=True)
    print(
        f"   with `Prefer: {MINIMAL}` (no view in the answer), the command's own work is"
        f" {_own_work(minimal)}"
    )


def command_requests(
    app: Flask, game: BotGame, prefer: str | None = None
) -> list[tuple[Command, dict[str, Any], dict[str, Any]]]:
    """The game started on the app, and each of its commands with the environ of its request
    (as the acting seat, with a `Prefer` header if `prefer`) and of the same request to the
    empty endpoint."""
    created = app.test_client().post("/api/games", json=game.request()).get_json()
    url = f"/api/games/{created['game_id']}/commands"
    tokens = [f"Bearer {seat['token']}" for seat in created["seats"]]
    requests = []
    for command in game.commands:
        body = command.to_dict()
        seat = body.pop("seat")
        command_request, floor_request = (
            EnvironBuilder(
                path=path,
                method="POST",
                data=json.dumps(body),
                content_type="application/json",
                headers={"Authorization": tokens[seat], **({"Prefer": prefer} if prefer else {})},
            ).get_environ()
            for path in (url, FLOOR_PATH)
        )
        requests.append((command, command_request, floor_request))
    return requests


def wsgi_caller(app: Flask, answered: list[str]) -> Callable[[dict[str, Any]], None]:
    """A call of the app's WSGI function with an environ, its answer read and closed as a
    server does; each answer's status is appended to `answered`."""

    def start_response(status: str, headers: object, exc_info: object = None) -> None:
        answered.append(status)

    def call(environ: dict[str, Any]) -> None:
        answer = app(environ, start_response)
        b"".join(answer)
        if hasattr(answer, "close"):  # WSGI: an answer with `close` is closed once sent
            answer.close()

    return call


def _in_process_pass(
    app: Flask, direct: Bohnanza, game: BotGame, prefer: str | None = None
) -> Pass:
    """The game's commands as requests to the app's WSGI function (with a `Prefer` header if
    `prefer`), each followed by the command directly on a new copy of the game, the same
    request to the empty endpoint and the command directly on a second copy."""
    requests = command_requests(app, game, prefer)
    local, second = game.start(direct), game.start(direct)
    times = Pass()
    answered: list[str] = []
    call = wsgi_caller(app, answered)
    for command, command_request, floor_request in requests:
        times.measure(
            partial(call, command_request),
            partial(direct.execute, local, command),
            partial(call, floor_request),
            partial(direct.execute, second, command),
        )
        if not all(status.startswith("200") for status in answered[-2:]):
            raise RuntimeError(f"{command.to_dict()} was answered {answered[-2:]}")
    return times


# --- 2. throughput on PostgreSQL -----------------------------------------------------------------


@contextmanager
def postgres_database(server_url: str) -> Iterator[str]:
    """A throw-away database on the server; its URL (without a schema)."""
    name = f"bohnanza_bench_{secrets.token_hex(4)}"
    with psycopg.connect(server_url, autocommit=True) as admin:
        admin.execute(sql.SQL("CREATE DATABASE {}").format(sql.Identifier(name)))
        try:
            yield urlunsplit(urlsplit(server_url)._replace(path=f"/{name}", query=""))
        finally:
            admin.execute(
                sql.SQL("DROP DATABASE IF EXISTS {} WITH (FORCE)").format(sql.Identifier(name))
            )


def new_schema(database_url: str, schema: str) -> str:
    with psycopg.connect(database_url, autocommit=True) as connection:
        connection.execute(sql.SQL("CREATE SCHEMA {}").format(sql.Identifier(schema)))
    return f"{database_url}?schema={schema}"


def concurrently(work: list[Callable[[], None]]) -> float:
    """Run each piece of work in its own thread, released together; the wall time."""
    start = threading.Barrier(len(work) + 1)

    def run(piece: Callable[[], None]) -> None:
        start.wait()
        piece()

    with ThreadPoolExecutor(len(work)) as pool:
        futures = [pool.submit(run, piece) for piece in work]
        start.wait()
        began = time.perf_counter()
        for future in futures:
            future.result()
        return time.perf_counter() - began


def command_batches(game: BotGame, commands: int) -> list[list[StoredEvent]]:
    """The stored events of the game's first commands, one list per command (in memory)."""
    with Bohnanza.from_url("memory://") as app:
        game_id = game.start(app)
        versions = [app.game(game_id).version]
        for command in game.commands[:commands]:
            versions.append(app.execute(game_id, command).version)
        stored = app.recorder.select_events(game_id)
    by_version = {event.originator_version: event for event in stored}
    return [
        [by_version[v] for v in range(before + 1, after + 1)]
        for before, after in itertools.pairwise(versions)
    ]


def library_application(database_url: str, *, functions: bool = False) -> Application[uuid.UUID]:
    """The library's own application on the store at `database_url`, with the library's own
    recorder (none of this service's: no request keys, no statements of its own) and a
    connection for each client; `functions`: inserting through the library's own function."""
    env = persistence_env(database_url)
    del env["APPLICATION_RECORDER_TOPIC"]
    return Application(
        env={
            **env,
            "POSTGRES_POOL_SIZE": str(CLIENTS),
            "POSTGRES_ENABLE_DB_FUNCTIONS": "y" if functions else "n",
        }
    )


def raw_appends(
    app: Application[uuid.UUID], batches: list[list[StoredEvent]]
) -> Callable[[], None]:
    """One client's raw appends: the batches, under a fresh aggregate id, one insert each."""
    originator = uuid.uuid4()
    mine = [
        [StoredEvent(originator, e.originator_version, e.topic, e.state) for e in batch]
        for batch in batches
    ]

    def append() -> None:
        for batch in mine:
            app.recorder.insert_events(batch)

    return append


def http_client_work(
    base: str, game: BotGame, commands: int, *, keyed: bool = False, by_seat: bool = False
) -> tuple[Callable[[], None], list[Connection]]:
    """One client's commands over HTTP on a libcurl connection (its own work is C, as in the
    round trip: the CPU the client takes from the machine's two is not the server's to use),
    each with an `Idempotency-Key` of its own if `keyed` (as a client that retries safely
    sends them); `by_seat`: each seat's commands on a connection of its own (as players at
    their own devices), which the server's processes accept as they come, so that a game's
    commands are spread over them. The game is created beforehand."""
    with httpx.Client(base_url=base, timeout=60.0) as client:
        remote = HttpGame(client, game)
    connections = [LibcurlConnection(base) for _ in range(PLAYERS if by_seat else 1)]
    connection = connections if by_seat else connections[0]
    prefix = secrets.token_hex(8)

    def play() -> None:
        for number, command in enumerate(game.commands[:commands]):
            remote.play_with(connection, command, key=f"{prefix}-{number}" if keyed else None)

    return play, connections


@dataclass
class CpuUse:
    """CPU seconds per command, by who spent them, summed over the runs."""

    server: float = 0.0
    postgres: float = 0.0
    client: float = 0.0

    def measured(self, run: Callable[[], float], commands: int, server: str) -> float:
        """Run `run` (it returns its wall time), adding the CPU each side spent per command;
        `server`: a string in the server processes' command line."""
        before = self._readings(server)
        wall = run()
        after = self._readings(server)
        self.server += (after[0] - before[0]) / commands
        self.postgres += (after[1] - before[1]) / commands
        self.client += (after[2] - before[2]) / commands
        return wall

    @staticmethod
    def _readings(server: str) -> tuple[float, float, float]:
        return (
            cpu_seconds(lambda command: "gunicorn" in command and server in command),
            cpu_seconds(lambda command: command.startswith("postgres")),
            own_cpu_seconds(),
        )

    def line(self, repeats: int) -> str:
        per = [part / repeats * 1000 for part in (self.server, self.postgres, self.client)]
        total = sum(per)
        ceiling = (os.cpu_count() or 1) / total * 1000 if total else 0.0
        return (
            f"server {per[0]:.2f} + PostgreSQL {per[1]:.2f} + client {per[2]:.2f} = {total:.2f} ms"
            f" (all {os.cpu_count()} CPUs busy: at most {ceiling:,.0f} commands/s)"
        )


def throughput(server_url: str, games: list[BotGame], commands: int, repeats: int) -> None:
    batches = [command_batches(game, commands) for game in games]
    appended = sum(len(b) for b in batches)
    rates: dict[str, list[float]] = {
        "raw": [],
        "raw_function": [],
        "http": [],
        "keyed": [],
        "by_seat": [],
    }
    cpu = {name: CpuUse() for name in rates}
    with postgres_database(server_url) as database:
        raw_url = new_schema(database, "raw")
        raw_function_url = new_schema(database, "raw_function")
        with (
            gunicorn(
                new_schema(database, "api"), "--threads", "4", workers=4, inline_projections=False
            ) as base,
            library_application(raw_url) as raw,
            library_application(raw_function_url, functions=True) as raw_function,
        ):
            bind = urlsplit(base).netloc
            for _ in range(repeats):
                for name, library in (("raw", raw), ("raw_function", raw_function)):
                    work = [raw_appends(library, game_batches) for game_batches in batches]
                    wall = cpu[name].measured(lambda w=work: concurrently(w), appended, bind)
                    rates[name].append(appended / wall)
                for name in ("http", "keyed", "by_seat"):
                    clients = [
                        http_client_work(
                            base,
                            game,
                            commands,
                            keyed=name == "keyed",
                            by_seat=name == "by_seat",
                        )
                        for game in games
                    ]
                    plays = [play for play, _ in clients]
                    wall = cpu[name].measured(
                        lambda p=plays: concurrently(p), CLIENTS * commands, bind
                    )
                    rates[name].append(CLIENTS * commands / wall)
                    for _, connections in clients:
                        for client in connections:
                            client.close()
    raw_rate, raw_function_rate, http_rate, keyed_rate, by_seat_rate = (
        statistics.median(rates[name]) for name in rates
    )
    print()
    print(
        f"2. throughput on PostgreSQL: {CLIENTS} clients, each on its own game, "
        f"{commands} commands each, median of {repeats}"
    )
    print(
        f"   raw appends            {raw_rate:>9,.0f} commands/s  (baseline: the library's recorder,"
    )
    print(
        f"                          {'':>9}              {CLIENTS} threads, one command's events per insert)"
    )
    print(
        f"   (the same through the library's insert function: {raw_function_rate:,.0f} "
        f"commands/s, one statement an insert; HTTP's share of it {http_rate / raw_function_rate:.0%})"
    )
    print(
        f"   HTTP to gunicorn       {http_rate:>9,.0f} commands/s  (4 workers × 4 threads, "
        f"{CLIENTS} libcurl clients)"
    )
    print(f"   share of the raw rate  {http_rate / raw_rate:>9.0%}   target ≥ 60%")
    print(
        f"   the same, each command with an Idempotency-Key: {keyed_rate:,.0f} commands/s "
        f"({keyed_rate / raw_rate:.0%})"
    )
    print(
        f"   the same, each seat on a connection of its own: {by_seat_rate:,.0f} commands/s "
        f"({by_seat_rate / raw_rate:.0%}; a game's commands spread over the server's processes)"
    )
    print("   CPU a command took, by process (means over the runs; the client is this process):")
    print(f"     raw appends          {cpu['raw'].line(repeats)}")
    print(f"     raw, function        {cpu['raw_function'].line(repeats)}")
    print(f"     HTTP                 {cpu['http'].line(repeats)}")
    print(f"     HTTP, keyed          {cpu['keyed'].line(repeats)}")
    print(f"     HTTP, by seat        {cpu['by_seat'].line(repeats)}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--commands", type=int, default=200, help="commands per game")
    parser.add_argument("--repeats", type=int, default=5)
    parser.add_argument(
        "--postgres-url",
        default=os.environ.get("BOHNANZA_TEST_POSTGRES_URL", DEFAULT_POSTGRES_URL),
    )
    parser.add_argument(
        "--only", choices=("round-trip", "throughput"), help="run one of the two parts only"
    )
    args = parser.parse_args()
    games = [BotGame.simulated(seed) for seed in range(1, CLIENTS + 1)]
    commands = min(args.commands, *(len(game.commands) for game in games))
    print(f"games: rio-grande, {PLAYERS} players, greedy bots; {commands} commands each")
    print()
    if args.only != "throughput":
        round_trip(games[0], args.repeats)
        in_process(games[: args.repeats])
    if args.only == "round-trip":
        return
    try:
        throughput(args.postgres_url, games, commands, args.repeats)
    except psycopg.OperationalError as error:
        print(f"\n2. skipped: PostgreSQL is unreachable ({' '.join(str(error).split())})")


if __name__ == "__main__":
    main()
