"""Records and disputes over HTTP: export a game, import a record (an import is an audit), verify a
game or a record under any ruleset, and audit a stored game's invariants.

A record names every card of the game, so exporting, verifying or auditing a stored game is open
once the game is over (or with the server's auditor secret), like the auditor's view.
"""

from __future__ import annotations

from typing import Any
from uuid import UUID

from flask import Response, jsonify

from domain.request_keys import AppliedRequest
from domain.rules.errors import Forbidden
from replays import annotations, games
from replays.exports import NotAPlay, Play, bgg, bgstats
from replays.record import parse_record
from replays.record import schema as published_schema
from replays.verify import what_if

from . import schemas
from .blueprint import Blueprint
from .errors import ApiError, documented, takes_records
from .games import (
    AUDITOR_OR_NONE,
    TOKEN_AUDITOR_OR_NONE,
    _auditor_rights,
    caller_for,
    created_once,
    open_to_all,
    seat_tokens,
    services,
    viewer_for,
)
from .openapi import game_links
from .security import IssuedTokens

blp = Blueprint(
    "records",
    __name__,
    url_prefix="/api",
    description="The portable game record (bohnanza-record/1 and /2): export, import, verify, audit.",
)


def _play(game_id: UUID) -> Play:
    """The game as a play to log: 409 `not_a_play` for a running game or a what-if fork."""
    views = services().views
    try:
        return Play.stored(game_id, views.facts(game_id), views.corrected(game_id))
    except NotAPlay as error:
        raise ApiError(409, "not_a_play", str(error)) from None


@blp.route("/games/<uuid:game_id>/plays/bgstats", methods=["GET"])
@blp.response(200, schemas.BGStatsSchema)
@documented(blp, 404, 409)
def bgstats_play(game_id: UUID) -> dict[str, Any]:
    """The finished game as a BG Stats play.

    A BG Stats import document (`players`, `locations`, `games`, `plays`, as BG Stats writes its
    own export files) holding this one play: its date (when the game started, UTC), its length,
    each player's score, the winners, the start player and the turn order, and a comment naming
    the edition and the game. A running game or a what-if fork is no play: 409 `not_a_play`."""
    return bgstats([_play(game_id)])


@blp.route("/games/<uuid:game_id>/plays/bgg", methods=["GET"])
@blp.doc(
    responses={
        "200": {
            "description": "BoardGameGeek's play log, as its XML API2 lists plays",
            "content": {"application/xml": {"schema": {"type": "string"}}},
        }
    }
)
@documented(blp, 404, 409)
def bgg_play(game_id: UUID) -> Response:
    """The finished game as a BoardGameGeek play.

    The `<plays>` document BoardGameGeek's XML API2 returns for a play log, with this one play:
    Bohnanza (object id 11), the date, the length, each player's name, start position, score and
    win. A running game or a what-if fork is no play: 409 `not_a_play`."""
    return Response(bgg([_play(game_id)]), mimetype="application/xml")


def _open_record(game_id: UUID) -> None:
    if not (open_to_all(game_id) or _auditor_rights()):
        raise Forbidden(
            "a record shows every card: it is open once the game is over (for a fork: once every "
            "game it was forked from is over too)"
        )


@blp.route("/games/<uuid:game_id>/record", methods=["GET"])
@blp.arguments(schemas.ExportQuerySchema, location="query")
@blp.response(200, schemas.RecordDocumentSchema)
@documented(blp, 401, 403, 404, 422)
@blp.doc(security=TOKEN_AUDITOR_OR_NONE)
def export_record(query: dict[str, Any], game_id: UUID) -> dict[str, Any]:
    """Export the game as a portable record.

    A `bohnanza-record/1` or `/2` document (its JSON Schema: record_schema), with the notes
    the caller may read: their visibility decides, not their step, since the record shows every
    card (a public note on another seat's draw is in everyone's export)."""
    _open_record(game_id)
    viewer = viewer_for(game_id, caller_for(game_id))
    facts = services().views.replay(game_id).facts
    notes = annotations.notes_for(services().app, game_id, facts, viewer, every_card_shown=True)
    return games.export_game(
        services().app,
        game_id,
        annotations=[note.to_record() for note in notes],
        place=query.get("place"),
        tags=query.get("tags"),
    )


@blp.route("/records", methods=["POST"])
@takes_records
@blp.arguments(schemas.RecordDocumentSchema)
@blp.response(201, schemas.ImportedSchema, headers=schemas.CREATED_RESPONSE_HEADERS)
@blp.doc(**game_links(201), parameters=schemas.CREATION_HEADERS + schemas.RECORD_BODY_HEADERS)
@documented(blp, 400, 408, 409, 410, 413, 415, 422)
def import_record(document: dict[str, Any]) -> Response:
    """Import a record as a new game.

    Every command is decided again by the engine. A legal record becomes a new game (with its
    notes) and tokens for it; an illegal one is refused with its first illegal step and nothing
    is stored. A resolved ruleset must be what its preset and options resolve to (games are
    listed and ranked under the preset's name): one that is not is a 422 naming the fields that
    differ. The record of an ended game is stored once: the same game imported again
    (whatever its notes or layout) is a 409 `already_imported` whose `game_id` is the game it
    became (a retry with the `Idempotency-Key` of the import that stored it gets that import's
    answer). A record that stops before the end is a new game each time (its hidden cards must
    not decide its id). The body may be gzipped (`Content-Encoding: gzip`) and is taken up to
    16 MiB, as sent and once gunzipped: every record the service exports fits."""
    service = services()
    prepared = games.prepare_import(document)

    def create(game_id: UUID, issued: IssuedTokens, key: str | None) -> dict[str, Any]:
        imported = games.store_import(service.app, prepared, game_id=game_id, request_key=key)
        return _imported(imported.game_id, imported.outcome.version, issued)

    def rebuild(game_id: UUID, issued: IssuedTokens, stored: AppliedRequest) -> dict[str, Any]:
        return _imported(game_id, stored.last_version, issued)

    def _imported(game_id: UUID, version: int, issued: IssuedTokens) -> dict[str, Any]:
        return {
            "game_id": game_id,
            "version": version,
            "seats": seat_tokens(list(prepared.record.seats), issued),
            "host_token": issued.host,
            "notes": len(prepared.record.annotations),
        }

    return created_once(
        schemas.ImportedSchema(),
        "records",
        document,
        game_id=prepared.game_id,
        seats=len(prepared.record.seats),
        create=create,
        rebuild=rebuild,
    )


@blp.route("/records/schema.json", methods=["GET"])
@blp.response(200, schemas.JsonSchemaSchema)
@documented(blp, store=False)
def record_schema() -> Response:
    """The JSON Schema of the record format.

    Draft 2020-12, of `bohnanza-record/1` and `/2`: what export_record answers and what
    import_record and verify_record accept."""
    return jsonify(published_schema())  # as it is: no schema of ours applies to it


@blp.route("/records/verification", methods=["POST"])
@takes_records
@blp.arguments(schemas.RecordVerificationSchema)
@blp.response(200, schemas.ReportSchema)
@blp.doc(parameters=schemas.RECORD_BODY_HEADERS)
@documented(blp, 400, 408, 413, 415, 422)
def verify_record(body: dict[str, Any]) -> dict[str, Any]:
    """Check an uploaded record, under its own ruleset or another.

    Under its own ruleset, or under `ruleset` and with `options` changed from its own (its
    other options stay): the verdict, the first illegal step (position, command, RULES section
    and sentence, the table before it) or, when legal, the scores and winners it gives beside
    the recorded ones."""
    record = parse_record(body["record"])
    return what_if(record, body.get("ruleset"), body.get("options")).to_dict()


@blp.route("/games/<uuid:game_id>/verification", methods=["POST"])
@blp.arguments(schemas.VerificationSchema)
@blp.response(200, schemas.ReportSchema)
@documented(blp, 400, 401, 403, 404, 408, 413, 415, 422)
@blp.doc(security=AUDITOR_OR_NONE)
def verify_game(body: dict[str, Any], game_id: UUID) -> dict[str, Any]:
    """Check a stored game under its own ruleset, or under `ruleset` and with `options` changed
    from its own (its other options stay: a what-if)."""
    _open_record(game_id)
    return games.verify_game(
        services().app, game_id, body.get("ruleset"), body.get("options")
    ).to_dict()


@blp.route("/games/<uuid:game_id>/audit", methods=["GET"])
@blp.response(200, schemas.AuditSchema)
@documented(blp, 401, 403, 404)
@blp.doc(security=AUDITOR_OR_NONE)
def audit(game_id: UUID) -> dict[str, Any]:
    """Audit a stored game: every invariant it breaks.

    Every card accounted for, hand order, one bean per field, beanometer payouts, scores equal
    coins, the end when the ruleset says, and any fact the rules would not have decided; empty
    for a sound game."""
    _open_record(game_id)
    problems = games.audit_stored_game(services().app, game_id)
    return {
        "sound": not problems,
        "problems": [
            {"position": p.position, "fact": p.fact, "message": p.message} for p in problems
        ],
    }
