"""Answers with credentials are not cached: an answer to a request carrying a token or the
auditor's secret says `Cache-Control: private, no-store`, whatever it is (errors included), and
an API answer varies with the credentials (api/app.py, `not_cached_for_others`)."""

from __future__ import annotations

import uuid
from collections.abc import Callable
from typing import Any

import pytest
from flask import Flask, Response
from flask.testing import FlaskClient

from api import games as games_module

from .support import CreatedGame, bearer, command

UNKNOWN_GAME = f"/api/games/{uuid.UUID(int=1)}"
SECRET = "the-auditor-secret"

Ask = Callable[[FlaskClient, CreatedGame], Any]

WITH_CREDENTIALS: dict[str, tuple[Ask, int]] = {
    "a seat's view": (lambda c, g: c.get(f"{g.url}/view", headers=g.seat(0)), 200),
    "a command": (lambda c, g: command(c, g, g.seat(0), type="plant", field=0), 200),
    "a refused command": (lambda c, g: command(c, g, g.seat(1), type="plant", field=0), 409),
    "a public route with a token": (lambda c, g: c.get(g.url, headers=g.host()), 200),
    "the auditor's view": (
        lambda c, g: c.get(
            f"{g.url}/view?perspective=auditor", headers={"X-Auditor-Token": SECRET}
        ),
        200,
    ),
    "a wrong auditor secret": (
        lambda c, g: c.get(g.url, headers={"X-Auditor-Token": "not-the-secret"}),
        401,
    ),
    "another game's token": (
        lambda c, g: c.get(f"{UNKNOWN_GAME}", headers=g.seat(0)),
        404,
    ),
    "a token that is no bearer": (
        lambda c, g: c.get(f"{g.url}/view", headers={"Authorization": "Basic eDp5"}),
        401,
    ),
    "a body the schema refuses": (
        lambda c, g: command(c, g, g.seat(0), type="plant", field="first"),
        422,
    ),
    "a method the path does not have": (lambda c, g: c.put(g.url, headers=g.seat(0)), 405),
    "no such path": (lambda c, g: c.get("/api/nothing", headers=g.seat(0)), 404),
    "the service's health": (lambda c, g: c.get("/api/health", headers=g.seat(0)), 200),
    "a page": (lambda c, g: c.get("/", headers=g.seat(0)), 200),
    "a public file kept 5 minutes otherwise": (
        lambda c, g: c.get("/beans.json", headers={"X-Auditor-Token": SECRET}),
        200,
    ),
}


@pytest.mark.parametrize("case", list(WITH_CREDENTIALS))
def test_an_answer_to_a_request_with_a_credential_is_kept_by_no_cache(
    web: Flask, client: FlaskClient, game: CreatedGame, case: str
) -> None:
    web.config["AUDITOR_TOKEN"] = SECRET
    ask, status = WITH_CREDENTIALS[case]

    response = ask(client, game)

    assert response.status_code == status, response.get_json()
    assert response.headers["Cache-Control"] == "private, no-store"


def test_an_unexpected_error_with_a_credential_is_kept_by_no_cache(
    client: FlaskClient, game: CreatedGame, monkeypatch: pytest.MonkeyPatch
) -> None:
    def bug(*args: object) -> None:
        raise RuntimeError("a bug")

    monkeypatch.setattr(games_module, "_summary", bug)

    response = client.get(game.url, headers=bearer(game.seat_tokens[0]))

    assert response.status_code == 500
    assert response.headers["Cache-Control"] == "private, no-store"


@pytest.mark.parametrize(
    ("path", "cache_control"),
    [("/api/games/{id}", None), ("/api/rulesets", None), ("/beans.json", "public, max-age=300")],
)
def test_an_answer_without_credentials_keeps_its_own_caching_headers(
    client: FlaskClient, game: CreatedGame, path: str, cache_control: str | None
) -> None:
    response = client.get(path.format(id=game.id))

    assert response.status_code == 200
    assert response.headers.get("Cache-Control") == cache_control


def test_an_api_answer_that_varies_already_varies_with_the_credentials_too(
    web: Flask, client: FlaskClient
) -> None:
    @web.get("/api/test-varies")
    def varies() -> Response:
        response = Response("{}", content_type="application/json")
        response.vary.add("Accept-Encoding")
        return response

    answer = client.get("/api/test-varies")

    assert answer.headers["Vary"] == "Accept-Encoding, Authorization, X-Auditor-Token"


@pytest.mark.parametrize("headers", [{}, {"X-Auditor-Token": SECRET}], ids=["public", "auditor"])
def test_every_api_answer_varies_with_the_credentials(
    client: FlaskClient, game: CreatedGame, headers: dict[str, str]
) -> None:
    response = client.get(game.url, headers=headers)

    assert {"Authorization", "X-Auditor-Token"} <= set(response.vary)


def test_the_openapi_document_says_what_may_be_cached(client: FlaskClient) -> None:
    description = client.get("/openapi.json").get_json()["info"]["description"]

    assert "Cache-Control: private, no-store" in description
    assert "Vary: Authorization, X-Auditor-Token" in description
