"""Every record the service writes is taken back: the longest games with many notes, exported by
the API and by the command line, import through the API, plain or gzipped; a body is never
expanded past the limit; and what a game may hold is bounded (domain/limits.py)."""

from __future__ import annotations

import gzip
import json
import time
from collections.abc import Iterator
from pathlib import Path
from uuid import UUID

import pytest
from click.testing import CliRunner
from flask import Flask
from flask.testing import FlaskClient

from api.app import MAX_BODY_BYTES
from api.cli import main
from domain import limits
from domain.bots import simulate
from replays.games import import_record
from replays.record import export_record

from .conftest import web_app
from .support import assert_envelope, bearer, create_game

pytestmark = pytest.mark.slow  # the longest bot game, with 150 notes, over and over

LONGEST = ("rio-grande", 7, "random", 13)
"""The longest of 90 bot games of 5-7 players: 1,273 facts."""
NOTES = 150
NOTE = "Ü ist kein Schreibfehler; 🫘 " * 140  # 4,060 characters, some of them 4 bytes in UTF-8


@pytest.fixture(scope="module")
def longest() -> list:
    preset, players, bot, seed = LONGEST
    return simulate(preset, players, bot=bot, seed=seed)


@pytest.fixture
def noted(sqlite_web: Flask, longest: list) -> tuple[Flask, str, str]:
    """The longest bot game stored with NOTES public notes of 4,000 characters; its id and its
    host's token."""
    app = sqlite_web.extensions["bohnanza"].get().app
    imported = import_record(app, export_record(longest))
    client = sqlite_web.test_client()
    game_id = str(imported.game_id)
    token = issued_host_token(sqlite_web, imported.game_id)
    for step in range(1, NOTES + 1):
        note = {"step": step, "text": NOTE[:4000], "visibility": "public"}
        added = client.post(f"/api/games/{game_id}/annotations", json=note, headers=bearer(token))
        assert added.status_code == 201, added.get_json()
    return sqlite_web, game_id, token


def issued_host_token(web: Flask, game_id: UUID) -> str:
    """Tokens for a game stored without the API, as the API issues them: the host's."""
    return web.extensions["bohnanza"].get().tokens.issue(game_id, seats=7).host


@pytest.fixture
def fresh() -> Iterator[FlaskClient]:
    """A service on an empty store to import into."""
    with web_app("memory://") as web:
        yield web.test_client()


def test_the_longest_game_with_many_notes_exported_by_the_api_imports_back(noted, fresh) -> None:
    web, game_id, _ = noted
    record = web.test_client().get(f"/api/games/{game_id}/record").get_json()
    body = json.dumps(record).encode()
    assert len(body) > MAX_BODY_BYTES
    assert len(record["annotations"]) == NOTES

    imported = fresh.post("/api/records", data=body, content_type="application/json")

    assert imported.status_code == 201, imported.get_json()
    assert imported.get_json()["notes"] == NOTES


@pytest.mark.parametrize("gzipped", [False, True], ids=["plain", "gzipped"])
def test_the_longest_game_with_many_notes_exported_by_the_command_line_imports_back(
    noted, fresh, tmp_path: Path, gzipped: bool
) -> None:
    web, game_id, _ = noted
    path = tmp_path / "record.json"
    exported = CliRunner().invoke(
        main, ["--database-url", web.config["DATABASE_URL"], "export", game_id, "-o", str(path)]
    )
    assert exported.exit_code == 0, exported.output
    body = path.read_bytes()
    headers = {"Content-Encoding": "gzip"} if gzipped else {}

    imported = fresh.post(
        "/api/records",
        data=gzip.compress(body) if gzipped else body,
        content_type="application/json",
        headers=headers,
    )

    assert imported.status_code == 201, imported.get_json()
    assert imported.get_json()["notes"] == NOTES
    verified = fresh.post(
        "/api/records/verification",
        data=gzip.compress(json.dumps({"record": json.loads(body)}).encode()),
        content_type="application/json",
        headers={"Content-Encoding": "gzip"},
    )
    assert verified.status_code == 200, verified.get_json()


def test_a_gzipped_body_that_expands_past_the_limit_is_a_413_without_being_expanded(
    fresh,
) -> None:
    bomb = gzip.compress(b" " * (2 * limits.RECORD_BYTES))  # 32 MiB of spaces in 32 KB
    started = time.monotonic()

    answer = fresh.post("/api/records", data=bomb, content_type="application/json", headers=GZIP)

    body = assert_envelope(answer, 413, "payload_too_large")
    assert f"{limits.RECORD_BYTES:,} bytes" in body["message"]
    assert time.monotonic() - started < 2.0


GZIP = {"Content-Encoding": "gzip"}


@pytest.mark.parametrize(
    ("data", "says"),
    [(b'{"format": "bohnanza-record/1"}', "not valid gzip"), (gzip.compress(b"{}")[:-6], "breaks")],
    ids=["not-gzip", "cut-short"],
)
def test_a_body_said_to_be_gzipped_that_is_not_is_a_400(fresh, data: bytes, says: str) -> None:
    answer = fresh.post("/api/records", data=data, content_type="application/json", headers=GZIP)

    assert says in assert_envelope(answer, 400, "bad_request")["message"]


def test_other_routes_take_no_gzipped_body_and_keep_their_limit(fresh) -> None:
    gzipped = fresh.post(
        "/api/games", data=gzip.compress(b"{}"), content_type="application/json", headers=GZIP
    )
    large = fresh.post(
        "/api/games", data=b" " * (MAX_BODY_BYTES + 1), content_type="application/json"
    )

    assert_envelope(gzipped, 415, "unsupported_media_type")
    assert_envelope(large, 413, "payload_too_large")


def test_a_game_at_the_limit_of_optional_facts_takes_no_offer_but_goes_on(
    client, monkeypatch: pytest.MonkeyPatch
) -> None:
    game = create_game(client)
    monkeypatch.setattr(limits, "OPTIONAL_UNTIL", 3)
    planted = client.post(
        f"{game.url}/commands", json={"type": "plant", "field": 0}, headers=game.seat(0)
    )
    client.post(f"{game.url}/commands", json={"type": "reveal"}, headers=game.seat(0))

    offer = client.post(
        f"{game.url}/commands",
        json={"type": "offer", "to": 1, "revealed": [], "hand": [0], "wants": []},
        headers=game.seat(0),
    )

    assert planted.status_code == 200
    body = assert_envelope(offer, 409, "limit_reached")
    assert "no more offers" in body["message"]
    ended = client.post(f"{game.url}/commands", json={"type": "end-trading"}, headers=game.seat(0))
    assert ended.status_code == 200, ended.get_json()


def test_a_game_at_its_most_notes_takes_no_more(client, monkeypatch: pytest.MonkeyPatch) -> None:
    game = create_game(client)
    monkeypatch.setattr(limits, "MAX_NOTES", 2)
    note = {"step": 1, "text": "A fine deal.", "visibility": "public"}
    answers = [
        client.post(f"{game.url}/annotations", json=note, headers=game.host()) for _ in range(3)
    ]

    assert [answer.status_code for answer in answers[:2]] == [201, 201]
    assert "at most 2 notes" in assert_envelope(answers[2], 409, "limit_reached")["message"]


def test_a_command_longer_than_a_record_line_may_be_is_refused_and_stores_nothing(client) -> None:
    game = create_game(client)
    client.post(f"{game.url}/commands", json={"type": "plant", "field": 0}, headers=game.seat(0))
    client.post(f"{game.url}/commands", json={"type": "reveal"}, headers=game.seat(0))
    before = len(client.get(f"{game.url}/steps").get_json()["steps"])

    offer = client.post(
        f"{game.url}/commands",
        json={"type": "offer", "to": 1, "hand": [0], "wants": ["blue"] * 200},
        headers=game.seat(0),
    )

    assert "at most 1,024 bytes" in assert_envelope(offer, 409, "limit_reached")["message"]
    assert len(client.get(f"{game.url}/steps").get_json()["steps"]) == before


def test_a_record_with_a_command_longer_than_a_line_may_be_is_a_422_at_that_command(
    fresh, longest: list
) -> None:
    document = export_record(longest)
    offers = [i for i, command in enumerate(document["commands"]) if command["type"] == "offer"]
    document["commands"][offers[0]]["wants"] = ["blue"] * 200

    answer = fresh.post("/api/records", json=document)

    body = assert_envelope(answer, 422, "invalid_record")
    assert "at most 1,024 bytes" in body["message"], body
