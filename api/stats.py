"""Scoreboards and the leaderboard, read from the projections (SQL read models)."""

from __future__ import annotations

from dataclasses import asdict
from typing import Any
from uuid import UUID

from projections import queries
from projections.insights import game_insights

from . import schemas
from .blueprint import Blueprint
from .errors import documented
from .games import (
    SEAT_TOKEN_OR_NONE,
    _summary,
    caller_for,
    services,
    viewer_for,
    wait_for_read_models,
)

blp = Blueprint(
    "stats",
    __name__,
    url_prefix="/api",
    description="Per-game scoreboards and numbers, and the cross-game leaderboard.",
)


@blp.route("/games/<uuid:game_id>/scoreboard", methods=["GET"])
@blp.arguments(schemas.PositionQuerySchema(), location="query")
@blp.response(200, schemas.ScoreboardSchema)
@blp.doc(security=SEAT_TOKEN_OR_NONE)
@documented(blp, 401, 404, 422)
def scoreboard(query: dict[str, Any], game_id: UUID) -> dict[str, Any]:
    """The game's scoreboard, per seat.

    Coins (as the ruleset lets the caller see them), harvests, trades, donations and cards
    planted. The seats come from the read models and the game from the store, so the answer
    waits (up to 5 s, then 503 `read_models_behind`) until the read models have what the store
    held when it was asked: a game just created or just ended is never missing or half-told."""
    service = services()
    summary = _summary(game_id)
    caller = caller_for(game_id)
    wait_for_read_models(query.get("after_position"), whole_store=True)
    seats = queries.scoreboard(service.engine, game_id, viewer=viewer_for(game_id, caller))
    return {"game": summary, "seats": [asdict(seat) for seat in seats]}


@blp.route("/games/<uuid:game_id>/stats", methods=["GET"])
@blp.arguments(schemas.PositionQuerySchema(), location="query")
@blp.response(200, schemas.GameInsightsSchema)
@blp.doc(security=SEAT_TOKEN_OR_NONE)
@documented(blp, 401, 404, 422)
def game_stats(query: dict[str, Any], game_id: UUID) -> dict[str, Any]:
    """The game's numbers per seat, as the caller may read them.

    Offers made, received, accepted, declined and withdrawn; trades and donations; the cards each
    seat gave and got; harvests, coins earned and the harvests past their beanometer tier; cards
    discarded unplanted; the turn a third field was bought; who traded with whom; the turns the
    lead changed. Read from the insights read model, which counts the facts as the table saw
    them; as the caller may read them (a seat's token: that seat; none: the public), so while a
    game with secret coin counts runs, another seat's coins and the lead are null. Like the
    scoreboard, the answer waits (up to 5 s, then 503 `read_models_behind`) until the read models
    have what the store held when it was asked."""
    _summary(game_id)  # a 404 for a game that does not exist
    viewer = viewer_for(game_id, caller_for(game_id))
    wait_for_read_models(query.get("after_position"), whole_store=True)
    found = game_insights(services().engine, game_id, viewer)
    assert found is not None, "the read models hold every game the store held when asked"
    return found.to_dict()


@blp.route("/leaderboard", methods=["GET"])
@blp.arguments(schemas.LeaderboardQuerySchema(), location="query")
@blp.response(200, schemas.LeaderboardSchema)
@documented(blp, 422)
def leaderboard(query: dict[str, Any]) -> dict[str, Any]:
    """Players by name over ended games, the best first, `limit` at a time from `offset`.

    Games, wins, win rate, average and best score; harvests, coins earned and coins per
    harvest; offers accepted and declined and the acceptance rate; donations given and
    received. Overall or for one ruleset and/or player count, of the players whose names
    start with `name` if given. Ranked by wins, then win rate, then average score, then name;
    the top of any board costs the same however many players there are."""
    service = services()
    wait_for_read_models(query.get("after_position"))
    limit, offset = query["limit"], query["offset"]
    standings = queries.leaderboard(
        service.engine,
        preset=query.get("ruleset"),
        players=query.get("players"),
        name_prefix=query.get("name"),
        limit=limit + 1,  # one more: is there a next page?
        offset=offset,
    )
    return {
        "ruleset": query.get("ruleset"),
        "players": query.get("players"),
        "name": query.get("name"),
        "standings": [
            {
                **asdict(standing),
                "win_rate": standing.win_rate,
                "average_score": standing.average_score,
                "acceptance_rate": standing.acceptance_rate,
                "coins_per_harvest": standing.coins_per_harvest,
            }
            for standing in standings[:limit]
        ],
        "next_offset": offset + limit if len(standings) > limit else None,
    }
