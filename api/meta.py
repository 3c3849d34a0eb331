"""The service itself: health, the rulesets it knows, and the interactive API docs' assets."""

from __future__ import annotations

from typing import Any

import swagger_ui_bundle
from flask import Flask, Response, send_from_directory
from werkzeug.exceptions import NotFound

from domain.deadline import deadline
from domain.rules.rulesets import OPTIONS, PRESETS

from . import schemas
from .blueprint import Blueprint
from .errors import documented
from .games import services
from .web import secured

blp = Blueprint("service", __name__, url_prefix="/api", description="The service and its rulesets.")
assets = Blueprint("docs_assets", __name__)


HEALTH_DEADLINE_SECONDS = 2.0
"""How long the health check waits for the database in all: a load balancer's probe wants an
answer at once, and a database that cannot answer it within this is as good as down."""


@blp.route("/health", methods=["GET"])
@blp.response(200, schemas.HealthSchema)
@documented(blp)
def health() -> dict[str, Any]:
    """The store and the read models answer: how far each has come.

    `read_models` is the position every read model has processed (the lowest); how far it is
    behind `position` shows a projector that stopped or cannot keep up. Without the process
    keeping them itself (`BOHNANZA_INLINE_PROJECTIONS=false`), that is the projector's work."""
    with deadline(HEALTH_DEADLINE_SECONDS):
        slowest = min(services().projector.status(), key=lambda line: line.position)
    return {
        "status": "ok",
        "position": slowest.store_position,
        "read_models": slowest.position,
        "read_models_behind": slowest.behind,
    }


@blp.route("/rulesets", methods=["GET"])
@blp.response(200, schemas.RulesetsSchema)
@documented(blp, store=False)
def rulesets() -> dict[str, Any]:
    """Every preset and option a game may be created with (the engine's own data)."""
    return {
        "presets": [
            {
                "id": preset.id,
                "description": preset.description,
                "source": preset.source,
                "player_counts": list(preset.player_counts),
            }
            for preset in PRESETS.values()
        ],
        "options": [
            {
                "name": option.name,
                "description": option.description,
                "section": option.section,
                "values": list(option.choices),
                "duel_only": option.duel_only,
                "is_list": option.is_list,
            }
            for option in OPTIONS.values()
        ],
    }


DOCS_FILES = frozenset(
    {
        "swagger-ui.css",
        "swagger-ui-bundle.js",
        "swagger-ui-standalone-preset.js",
        "favicon-16x16.png",
        "favicon-32x32.png",
    }
)
"""The files of the Swagger UI bundle that the docs page loads; the bundle's own pages (a demo
that loads the Petstore from the internet, an OAuth redirect) are not served."""


@assets.route("/docs/static/<path:filename>")
def swagger_asset(filename: str) -> Response:
    """Swagger UI's files, served from the installed bundle (no CDN)."""
    if filename not in DOCS_FILES:
        raise NotFound()
    return send_from_directory(swagger_ui_bundle.swagger_ui_path, filename)


assets.after_request(secured)


def secure_the_docs(app: Flask, docs_blueprint: str) -> None:
    """The docs page (flask-smorest's blueprint `docs_blueprint`) and its files get the pages'
    headers (api/web.py), as they share the pages' origin and the tokens kept there."""
    app.after_request_funcs.setdefault(docs_blueprint, []).append(secured)
