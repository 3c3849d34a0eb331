"""Schemathesis over the app's own OpenAPI document (issue item 6): every operation, about nine
hundred generated requests in all (EXAMPLES_PER_OPERATION each plus schemathesis' coverage cases),
deterministic (derandomized, no example database). No request may get a 5xx, and every answer
must match its documented status code, content type and schema.

Path parameters and tokens are aimed at real games most of the time (a finished one, a running
digital one, a tabletop one), and some commands are a seat's legal ones, so the checks reach past
404 and 401 into the views and the commands' results."""

from __future__ import annotations

import hashlib
import random
import uuid
from collections.abc import Iterator
from typing import Any

import hypothesis
import pytest
import schemathesis
from schemathesis.checks import not_a_server_error
from schemathesis.specs.openapi.checks import (
    content_type_conformance,
    response_schema_conformance,
    status_code_conformance,
)

from api.app import create_app
from domain.bots import BOTS, Table
from domain.rules.state import GameState

from .support import CreatedGame, command, create_game

pytestmark = pytest.mark.slow  # about nine hundred generated requests

EXAMPLES_PER_OPERATION = 25
CHECKS = [
    not_a_server_error,
    status_code_conformance,
    content_type_conformance,
    response_schema_conformance,
]


APP = create_app({"DATABASE_URL": "memory://", "TESTING": True})
"""Built at import, as schemathesis parametrizes at collection; its store opens on first use."""

schema = schemathesis.openapi.from_wsgi("/openapi.json", APP)
schema.config.generation.update(
    max_examples=EXAMPLES_PER_OPERATION, deterministic=True, database="none"
)


def _play_to_end(game: CreatedGame, seed: int) -> None:
    """Finish a game created through the API with greedy bots, through the application."""
    services = APP.extensions["bohnanza"].get()
    game_id = uuid.UUID(game.id)
    state: GameState = services.app.state(game_id)
    table = Table([BOTS["greedy"]() for _ in state.players], random.Random(seed))
    while not state.is_over:
        services.app.execute(game_id, table.next_command(state))
        state = services.app.state(game_id)
    services.catch_up()


@pytest.fixture(scope="module")
def games() -> Iterator[list[CreatedGame]]:
    """A finished, a running and a tabletop game in the app's store (closed at the end)."""
    client = APP.test_client()
    finished = create_game(client, seed=1)
    _play_to_end(finished, seed=1)
    running = create_game(client, seats=["Ana", "Ben", "Cleo", "Dan"], seed=2)
    tabletop = create_game(client, mode="tabletop")
    hands = [["wax"] * 5, ["blue"] * 5, ["chili"] * 5]
    assert command(client, tabletop, tabletop.host(), type="deal", hands=hands).status_code == 200
    yield [finished, running, tabletop]
    APP.extensions["bohnanza"].close()


def _aim(case: schemathesis.Case, games: list[CreatedGame]) -> None:
    """Point most cases at a seeded game and give most of them one of its tokens. The choice is
    a function of the generated case, so a derandomized run stays the same run."""
    game_id = case.path_parameters.get("game_id") if case.path_parameters else None
    choice = random.Random(hashlib.sha256(repr((game_id, case.query, case.body)).encode()).digest())
    if game_id is None:
        return
    if case.path.endswith("/live"):
        games = games[:1]  # a running game's stream goes on for as long as the game does
    pick = choice.randrange(len(games) + 1)
    if pick == len(games):
        return  # keep the generated id: most likely an unknown game
    game = games[pick]
    case.path_parameters["game_id"] = game.id
    seat = choice.randrange(len(game.seat_tokens) + 2)
    if seat == len(game.seat_tokens) + 1:
        return  # no token: the public
    token = game.host_token if seat == len(game.seat_tokens) else game.seat_tokens[seat]
    case.headers = {**(case.headers or {}), "Authorization": f"Bearer {token}"}
    if case.path.endswith("/commands") and seat < len(game.seat_tokens) and choice.random() < 0.5:
        legal = APP.test_client().get(f"{game.url}/legal", headers=game.seat(seat)).get_json()
        if legal["commands"]:
            case.body = choice.choice(legal["commands"])
            case.headers.pop("If-Match", None)


OPERATIONS = [result.ok() for result in schema.get_all_operations()]
"""Parametrized by hand, not with `schema.parametrize()`: that collects one item whose cases run
as subtests, which pytest-xdist workers do not report, so a parallel run would pass unchecked."""


@pytest.mark.parametrize(
    "operation", OPERATIONS, ids=[f"{op.method.upper()} {op.path}" for op in OPERATIONS]
)
def test_no_request_gets_a_server_error_and_every_answer_is_as_documented(
    operation: Any, games: list[CreatedGame]
) -> None:
    @hypothesis.given(case=operation.as_strategy())
    @hypothesis.settings(
        max_examples=EXAMPLES_PER_OPERATION,
        derandomize=True,
        database=None,
        deadline=None,
        suppress_health_check=list(hypothesis.HealthCheck),
    )
    def every_case(case: schemathesis.Case) -> None:
        _aim(case, games)
        case.call_and_validate(checks=CHECKS)

    every_case()


def test_every_operation_of_the_document_is_checked() -> None:
    paths = APP.test_client().get("/openapi.json").get_json()["paths"]
    methods = {"get", "post", "put", "patch", "delete"}
    documented = {(m, path) for path, item in paths.items() for m in item if m in methods}

    assert {(op.method, op.path) for op in OPERATIONS} == documented
