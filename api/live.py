"""Following a game live: `GET /api/games/{id}/live`, the caller's view pushed as server-sent
events (the streams themselves: api/live_hub.py)."""

from __future__ import annotations

import re
from typing import Any
from uuid import UUID

from flask import Response, request

from . import schemas
from .blueprint import Blueprint
from .errors import ApiError, bad_header, documented
from .games import TOKEN_AUDITOR_OR_NONE, caller_for, services, viewer_for
from .live_hub import HEARTBEAT_SECONDS, TooManyStreams

blp = Blueprint(
    "live",
    __name__,
    url_prefix="/api",
    description="Follow a game as it is played: the caller's view, pushed as it changes.",
)

LAST_EVENT_ID = re.compile(r"(?:0|[1-9][0-9]{0,11})\Z")
STREAM_DOCUMENT = {
    "description": "A stream of server-sent events (text/event-stream). Each `update` event's "
    "`id` is the game's version and its `data` a JSON object: `version`, `steps` (the steps "
    "since the version the client had, each as `GET …/steps` lists it for the same caller) and "
    "`view` (the caller's view, as `GET …/view` answers it). The first event is the view now; "
    "the next follow the game. Comment lines keep an idle stream open every "
    f"{HEARTBEAT_SECONDS:.0f} s. Once the game has ended, an `end` event closes the stream.",
    "content": {
        "text/event-stream": {
            "schema": {
                "description": "One event of the stream",
                "type": "object",
                "required": ["data"],
                "properties": {
                    "event": {"type": "string", "enum": ["update", "end"]},
                    "id": {"type": "string", "description": "The game's version (an update's)"},
                    "data": {
                        "type": "string",
                        "description": "An update's: JSON, `{version, steps, view}` (a StepList's "
                        "steps, a View); the end's: `{}`",
                    },
                    "retry": {"type": "integer", "description": "Milliseconds before reconnecting"},
                },
            }
        }
    },
}


@blp.route("/games/<uuid:game_id>/live", methods=["GET"])
@blp.arguments(schemas.LiveQuerySchema, location="query")
@blp.doc(
    security=TOKEN_AUDITOR_OR_NONE,
    responses={"200": STREAM_DOCUMENT},
    parameters=[
        {
            "in": "header",
            "name": "Last-Event-ID",
            "required": False,
            "schema": {"type": "string", "pattern": r"^(0|[1-9][0-9]{0,11})$"},
            "description": "The version of the last event received: the stream resumes after it "
            "(what an EventSource sends when it reconnects; `after` does the same)",
        }
    ],
)
@documented(blp, 400, 401, 403, 404, 422)
def follow_game(query: dict[str, Any], game_id: UUID) -> Response:
    """Follow the game: the caller's view now, then each change as it happens.

    Every event is what the caller may see, as `GET …/view` and `GET …/steps` would answer it at
    that version: a seat's token, its seat's; none, the public's. Many followers of one game as
    the same viewer share each message, so they add no work per command but the copying."""
    viewer = viewer_for(game_id, caller_for(game_id), perspective=query.get("perspective"))
    after = query.get("after")
    resumed = request.headers.get("Last-Event-ID")
    if resumed is not None:
        if not LAST_EVENT_ID.match(resumed.strip()):
            raise bad_header("Last-Event-ID", "Last-Event-ID must be a game version, e.g. 12")
        after = int(resumed)
    try:
        stream = services().live.subscribe(game_id, viewer, after)
    except TooManyStreams as error:
        raise ApiError(503, "too_many_streams", f"{error}; try again shortly") from None
    response = Response(stream, mimetype="text/event-stream", direct_passthrough=True)
    response.headers["Cache-Control"] = "no-store"
    response.headers["X-Accel-Buffering"] = "no"  # a proxy passes each event on at once
    return response
