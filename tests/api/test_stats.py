"""`GET /api/games/{id}/stats`: a game's numbers per seat, as the caller may read them."""

from __future__ import annotations

import random
import uuid

from flask import Flask
from flask.testing import FlaskClient

from domain.bots import BOTS, Table, play_stored
from projections.insights import insights
from projections.views import PUBLIC_VIEWER

from .support import assert_envelope, create_game, documented_schema


def bots(players: int = 3, seed: int = 4) -> Table:
    return Table([BOTS["greedy"]() for _ in range(players)], random.Random(seed))


def test_a_finished_games_numbers_are_its_facts_counted_for_the_public(
    web: Flask, client: FlaskClient
) -> None:
    game = create_game(client)
    app = web.extensions["bohnanza"].get().app
    play_stored(app, uuid.UUID(game.id), bots())

    answer = client.get(f"{game.url}/stats")

    assert answer.status_code == 200
    body = answer.get_json()
    documented_schema(client, "GameInsights").validate(body)
    assert body == insights(app.facts(uuid.UUID(game.id)), PUBLIC_VIEWER).to_dict()
    assert body["over"] is True
    assert sum(seat["offers_made"] for seat in body["seats"]) > 0


def test_while_a_game_with_secret_coins_runs_a_seat_reads_only_its_own_coins(
    web: Flask, client: FlaskClient
) -> None:
    game = create_game(client, options={"coin_counts_visible": False})
    app = web.extensions["bohnanza"].get().app
    table, game_id = bots(), uuid.UUID(game.id)
    while not any(seat.coins for seat in app.state(game_id).players):
        app.execute(game_id, table.next_command(app.state(game_id)))

    public = client.get(f"{game.url}/stats").get_json()
    assert [seat["coins_earned"] for seat in public["seats"]] == [None, None, None]
    assert public["lead_changes"] is None
    for seat in range(3):
        mine = client.get(f"{game.url}/stats", headers=game.seat(seat)).get_json()
        shown = [other["coins_earned"] is not None for other in mine["seats"]]
        assert shown == [other == seat for other in range(3)]
        assert mine["lead_changes"] is None


def test_the_numbers_of_a_game_that_does_not_exist_are_a_404(client: FlaskClient) -> None:
    assert_envelope(client.get(f"/api/games/{uuid.uuid4()}/stats"), 404, "not_found")
