"""Helpers for the HTTP API tests: games created through the API, tokens as headers, the error
envelope, and a viewer's view folded from its own event feed."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

import jsonschema
from flask.testing import FlaskClient

from domain.rules import events as ev
from domain.rules.state import GameState
from projections.views import Viewer, ViewFold

SEATS = ["Ana", "Ben", "Cleo"]
SEED = 7
"""Seat 0 (Ana) starts; her front card is a Chili."""


def bearer(token: str) -> dict[str, str]:
    return {"Authorization": f"Bearer {token}"}


@dataclass(frozen=True)
class CreatedGame:
    """A game as POST /api/games answered it: its id and every token."""

    id: str
    seat_tokens: list[str]
    host_token: str
    document: dict[str, Any]

    @property
    def url(self) -> str:
        return f"/api/games/{self.id}"

    def seat(self, seat: int, **headers: str) -> dict[str, str]:
        """Headers for a request with this seat's token (plus any others, `_` for `-`)."""
        return {**bearer(self.seat_tokens[seat]), **_headers(headers)}

    def host(self, **headers: str) -> dict[str, str]:
        return {**bearer(self.host_token), **_headers(headers)}


def _headers(headers: Mapping[str, str]) -> dict[str, str]:
    return {name.replace("_", "-"): value for name, value in headers.items()}


def create_game(client: FlaskClient, **body: Any) -> CreatedGame:
    """A new game (by default three seats, digital, seed 7), created through the API."""
    request = {"seats": SEATS, "seed": SEED, **body}
    if request.get("mode") == "tabletop":
        request.pop("seed")
    response = client.post("/api/games", json=request)
    assert response.status_code == 201, response.get_json()
    document = response.get_json()
    return CreatedGame(
        document["game_id"],
        [seat["token"] for seat in document["seats"]],
        document["host_token"],
        document,
    )


def command(client: FlaskClient, game: CreatedGame, headers: dict[str, str], **body: Any) -> Any:
    """POST one command; the test client's response."""
    return client.post(f"{game.url}/commands", json=body, headers=headers)


ENVELOPE = jsonschema.Draft202012Validator(
    {
        "type": "object",
        "required": ["code", "status", "message", "errors"],
        "properties": {
            "code": {"type": "string"},
            "status": {"type": "integer"},
            "message": {"type": "string", "minLength": 1},
            "errors": {"type": "object"},
            "rule": {"type": "string"},
            "current_version": {"type": ["integer", "null"]},
            "first_illegal_step": {"type": "object"},
            "game_id": {"type": "string", "format": "uuid"},
            "illegal_entry": {"type": ["integer", "null"]},
        },
        "additionalProperties": False,
    }
)
"""The error envelope, as api/schemas.py ErrorSchema documents it."""


def assert_envelope(response: Any, status: int, code: str) -> dict[str, Any]:
    """The response is the error envelope with this status and code; its body."""
    body = response.get_json()
    ENVELOPE.validate(body)
    assert response.status_code == status, body
    assert body["code"] == code, body
    assert body["status"] == status
    return body


def version_of(client: FlaskClient, game: CreatedGame) -> int:
    return client.get(game.url).get_json()["version"]


@dataclass
class Feed:
    """A viewer's view, folded from the redacted feed the API gives its token (or no token)."""

    viewer: Viewer
    headers: dict[str, str]
    fold: ViewFold = field(init=False)
    seen: int = 0

    def __post_init__(self) -> None:
        self.fold = ViewFold(self.viewer)

    def refresh(self, client: FlaskClient, game: CreatedGame) -> GameState:
        """The viewer's view now, after reading the feed items it has not seen yet."""
        while True:
            page = client.get(
                f"{game.url}/events",
                query_string={"after": self.seen, "limit": 500},
                headers=self.headers,
            ).get_json()
            for item in page["items"]:
                self.fold.apply(ev.event_from_payload(item["type"], item["event"]))
                self.seen = item["position"]
            if page["next_after"] is None:
                break
        assert self.fold.state is not None
        return self.fold.state


def _json_schema(node: Any) -> Any:
    """An OpenAPI 3.0 schema as JSON Schema: `nullable: true` becomes a null alternative."""
    if isinstance(node, list):
        return [_json_schema(item) for item in node]
    if not isinstance(node, dict):
        return node
    converted = {key: _json_schema(value) for key, value in node.items() if key != "nullable"}
    if not node.get("nullable"):
        return converted
    if "type" in converted:
        return {**converted, "type": [converted["type"], "null"]}
    return {"anyOf": [converted, {"type": "null"}]}


def documented_schema(client: FlaskClient, component: str) -> jsonschema.Draft202012Validator:
    """A validator for one of the OpenAPI document's schemas (e.g. "CommandResult"), as the
    app serves the document (the same for every app of a test run: it is asked once)."""
    schema = {"$ref": f"#/components/schemas/{component}", "components": _components(client)}
    return jsonschema.Draft202012Validator(schema)


_COMPONENTS: list[dict[str, Any]] = []


def _components(client: FlaskClient) -> dict[str, Any]:
    if not _COMPONENTS:
        document = client.get("/openapi.json").get_json()
        _COMPONENTS.append(_json_schema(document["components"]))
    return _COMPONENTS[0]
