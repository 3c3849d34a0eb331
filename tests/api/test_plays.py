"""Finished games as plays for BG Stats and BoardGameGeek, over the API."""

from __future__ import annotations

import random
import uuid
from xml.etree import ElementTree

from flask import Flask
from flask.testing import FlaskClient

from domain.bots import BOTS, Table, play_stored
from tests.unit.test_exports import BGSTATS_FILE

from .support import assert_envelope, create_game, documented_schema


def finished(web: Flask, client: FlaskClient) -> tuple[str, dict]:
    game = create_game(client)
    app = web.extensions["bohnanza"].get().app
    table = Table([BOTS["greedy"]() for _ in range(3)], random.Random(4))
    play_stored(app, uuid.UUID(game.id), table)
    return game.url, client.get(game.url).get_json()


def test_a_finished_game_is_a_bg_stats_play_with_its_scores_and_winners(
    web: Flask, client: FlaskClient
) -> None:
    url, summary = finished(web, client)

    answer = client.get(f"{url}/plays/bgstats")

    assert answer.status_code == 200
    document = answer.get_json()
    documented_schema(client, "BGStats").validate(document)
    BGSTATS_FILE.validate(document)
    (play,) = document["plays"]
    assert play["uuid"] == str(summary["game_id"])
    names = {player["id"]: player["name"] for player in document["players"]}
    scores = {names[s["playerRefId"]]: int(s["score"]) for s in play["playerScores"]}
    assert scores == dict(zip(summary["seats"], summary["result"]["scores"], strict=True))
    winners = [names[s["playerRefId"]] for s in play["playerScores"] if s["winner"]]
    assert winners == [summary["seats"][seat] for seat in summary["result"]["winners"]]


def test_a_finished_game_is_a_boardgamegeek_play_in_its_xml(
    web: Flask, client: FlaskClient
) -> None:
    url, summary = finished(web, client)

    answer = client.get(f"{url}/plays/bgg")

    assert answer.status_code == 200
    assert answer.mimetype == "application/xml"
    play = ElementTree.fromstring(answer.data).find("play")
    assert play is not None
    assert play.find("item").get("objectid") == "11"
    players = play.findall("players/player")
    assert [p.get("name") for p in players] == summary["seats"]
    assert [int(p.get("score")) for p in players] == summary["result"]["scores"]
    assert [p.get("win") == "1" for p in players] == [
        seat in summary["result"]["winners"] for seat in range(3)
    ]


def test_a_running_game_is_no_play_to_log(client: FlaskClient) -> None:
    game = create_game(client)
    for kind in ("bgstats", "bgg"):
        body = assert_envelope(client.get(f"{game.url}/plays/{kind}"), 409, "not_a_play")
        assert "not over" in body["message"]


def test_the_play_of_a_game_that_does_not_exist_is_a_404(client: FlaskClient) -> None:
    assert_envelope(client.get(f"/api/games/{uuid.uuid4()}/plays/bgg"), 404, "not_found")
