"""The web pages: the games, a replay viewer, a tabletop recorder, a seat's live table and a
record's import (ARCHITECTURE §10).

Each page is a small HTML shell that loads a JavaScript module from `static/js/`; the module talks
to the JSON API only, so what a browser can show is exactly what the API lets its token see.
Tokens never travel in a page's URL path or query (they would land in logs): a link carries one
in its fragment (`/play/<id>#token=…`), the page keeps it in the browser's storage and sends it
as `Authorization: Bearer`. Nothing is loaded from anywhere but this app.
"""

from __future__ import annotations

from typing import Any
from uuid import UUID

from flask import Blueprint, Response, jsonify, render_template

from domain.rules.beans import BEANS

web = Blueprint(
    "web",
    __name__,
    template_folder="templates",
    static_folder="static",
    static_url_path="/assets",
)

CONTENT_SECURITY_POLICY = (
    "default-src 'self'; script-src 'self'; style-src 'self'; img-src 'self' data:; "
    "connect-src 'self'; object-src 'none'; base-uri 'none'; form-action 'self'; "
    "frame-ancestors 'none'"
)
"""Pages load scripts, styles and images from this app only, and run no inline script."""


def secured(response: Response) -> Response:
    """A page's headers: nothing loaded or framed from elsewhere, no Referer, no sniffing (also
    the interactive API docs' page and files, api/meta.py)."""
    response.headers["Content-Security-Policy"] = CONTENT_SECURITY_POLICY
    response.headers["Referrer-Policy"] = "no-referrer"
    response.headers["X-Content-Type-Options"] = "nosniff"
    return response


def _page(template: str, **context: Any) -> Response:
    response = secured(Response(render_template(template, **context)))
    response.headers["Cache-Control"] = "no-store"
    return response


@web.route("/")
def index() -> Response:
    """The stored games, with links to replay or play them, and to record a new one."""
    return _page("index.html", title="Games", module="index.js")


@web.route("/games/<uuid:game_id>/replay")
def replay(game_id: UUID) -> Response:
    """Step through a game; `?step=K&perspective=P` opens it at step K as P."""
    return _page("replay.html", title="Replay", module="replay.js", game_id=game_id)


@web.route("/record")
def record() -> Response:
    """Create a tabletop game and enter what happens at the table."""
    return _page("record.html", title="Record a table", module="record.js")


@web.route("/import")
def import_page() -> Response:
    """Upload a game's record: see the verdict, import it, open the game."""
    return _page("import.html", title="Import a record", module="import.js")


@web.route("/play/<uuid:game_id>")
def play(game_id: UUID) -> Response:
    """One seat's live table; the seat's token comes in the fragment (`#token=…`)."""
    return _page("play.html", title="Live table", module="play.js", game_id=game_id)


@web.route("/rules")
def rules() -> Response:
    """The rules reference (docs/rules.md), an anchor per section (`/rules#s8.3`, `#s14-E6`):
    where the pages link the section a refusal cites. Served without a script."""
    from .rulebook import rules_page  # Markdown's parser loads with the first request, not the CLI

    response = secured(Response(render_template("rules.html", title="Rules", page=rules_page())))
    response.headers["Cache-Control"] = "public, max-age=300"
    return response


@web.route("/beans.json")
def beans() -> Response:
    """Every bean type with its card count and beanometer, straight from the rules' own table
    (RULES §1), so that no page keeps a copy of the numbers."""
    response = jsonify(
        {
            "beans": [
                {
                    "id": bean.id,
                    "label": bean.label,
                    "german": bean.german,
                    "count": bean.count,
                    "meter": list(bean.meter),
                }
                for bean in BEANS.values()
            ]
        }
    )
    response.headers["Cache-Control"] = "public, max-age=300"
    return response


@web.route("/favicon.ico")
def favicon() -> Response:
    """The card back, for pages that name no icon (the API docs) and browsers asking anyway."""
    response = web.send_static_file("card-back.svg")
    response.headers["Cache-Control"] = "public, max-age=86400"
    return response
