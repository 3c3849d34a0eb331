"""Games: create, list, summarise, view, play (commands) and the per-viewer event feed.

Views are thin: schema in, one service call, schema out. Who may see and do what comes from the
bearer token alone (a seat's token or the host's), never from a query parameter.
"""

from __future__ import annotations

import base64
import hmac
import re
from collections.abc import Callable
from datetime import datetime
from functools import lru_cache
from typing import Any
from uuid import UUID

from flask import Response, after_this_request, current_app, g, jsonify, request
from marshmallow import Schema

from domain.application import AlreadyApplied, KeyUsed, RecordedFact
from domain.ids import new_game_id
from domain.request_keys import AppliedRequest
from domain.rules import events as ev
from domain.rules.commands import Command, Correct, Deal, NoteHand, Undo, parse_command
from domain.rules.errors import BohnanzaError, Conflict
from domain.rules.legal import Legal
from domain.rules.state import KNOWN_HANDS, TABLETOP, UNKNOWN_HANDS, GameState
from projections import queries
from projections.views import (
    AUDITOR_VIEWER,
    HOST_VIEWER,
    PUBLIC_VIEWER,
    Viewer,
    feed_item,
    may_audit,
    render,
    render_legal,
    render_result,
)
from replays import forks

from . import schemas
from .blueprint import Blueprint
from .creation_keys import NO_CALLER, store_key
from .errors import (
    ApiError,
    bad_header,
    documented,
    error_response,
    forbidden,
    query_error,
    the_request,
    unauthorized,
)
from .openapi import game_links
from .security import HOST, AnswerGone, Caller, IssuedTokens, KeyReused, Replay, key_covers
from .services import Services

blp = Blueprint(
    "games",
    __name__,
    url_prefix="/api",
    description="Create games, see them as a seat, the host or the public, and play commands.",
)

ERRORS = (400, 401, 403, 404, 408, 409, 412, 413, 415, 422)
BEARER = re.compile(r"Bearer\s+(\S+)\Z", re.IGNORECASE)
VERSION = r"0|[1-9][0-9]{0,11}"
VERSION_TAG = re.compile(rf'(?:(?:W/)?"({VERSION})"|({VERSION}))\Z')
"""`"12"`, `W/"12"` or `12`: ASCII digits without leading zeros, so that one version has one
spelling (`"06"` is no version, as it is no step or note number in a URL)."""
IDEMPOTENCY_KEY = re.compile(r"[!-+\--~]{1,128}\Z")
"""1 to 128 visible ASCII characters but the comma (a UUID, say). A server joins two
Idempotency-Key headers into one value with a comma; without the comma, that value is no key
and such a request is refused rather than taken for a third key."""
READ_MODEL_WAIT_SECONDS = 5.0
SEAT_TOKEN = [{"bearer": []}]
"""OpenAPI security: a seat's (or the host's) token is required."""
SEAT_TOKEN_OR_NONE = [{"bearer": []}, {}]
"""OpenAPI security: a token is optional (without one, the public's view)."""
TOKEN_AUDITOR_OR_NONE = [{"bearer": []}, {"auditor": []}, {"bearer": [], "auditor": []}, {}]
"""OpenAPI security: a token is optional, and the server's auditor secret opens what is shown
only after the end (every card) while the game runs."""
AUDITOR_OR_NONE = [{"auditor": []}, {}]
"""OpenAPI security: open once the game is over; before, the server's auditor secret opens it."""


def services() -> Services:
    return current_app.extensions["bohnanza"].get()


def caller_for(game_id: UUID) -> Caller | None:
    """The token's holder in this game, None without a token; 401 for a bad token. Resolved
    once per request (`game_and_credentials_checked` does it first)."""
    callers = g.setdefault("callers", {})
    if game_id not in callers:
        callers[game_id] = _resolve_caller(the_request().environ, game_id)
    return callers[game_id]


def _resolve_caller(environ: dict[str, Any], game_id: UUID) -> Caller | None:
    header = environ.get("HTTP_AUTHORIZATION")
    if header is None:
        return None
    match = BEARER.match(header.strip())
    if match is None:
        raise unauthorized("Authorization must be 'Bearer <token>'")
    caller = services().tokens.resolve(game_id, match.group(1))
    if caller is None:
        raise unauthorized("this token does not belong to this game")
    return caller


def game_and_credentials_checked() -> None:
    """Before any API request about one game, whatever its route would answer otherwise: 404 for
    an unknown game (before any 401 or 422), then 401 for a credential that is not a good one. A
    token must be this game's and an auditor's secret the server's, so that a client with a
    wrong credential learns it at once instead of getting the public answer as if it had sent
    none."""
    req = the_request()
    game_id = (req.view_args or {}).get("game_id")
    if not isinstance(game_id, UUID) or not req.path.startswith("/api/"):
        return
    services().views.started(game_id)
    environ = req.environ
    g.callers = {game_id: _resolve_caller(environ, game_id)}  # what `caller_for` answers
    if "HTTP_X_AUDITOR_TOKEN" in environ and not _auditor_rights():
        raise unauthorized("X-Auditor-Token is not this server's auditor secret")


def _auditor_rights() -> bool:
    secret = current_app.config.get("AUDITOR_TOKEN")
    header = request.headers.get("X-Auditor-Token")
    if not secret or not header:
        return False
    return hmac.compare_digest(header.encode(), str(secret).encode())


def open_to_all(game_id: UUID) -> bool:
    """Whether every card of the game is open to everyone: it has ended, and so has every game it
    was forked from. A fork holds its parent's hands up to the step it was made at, and its own
    end does not end the parent."""
    service = services()

    def over(game: UUID) -> bool:
        return service.views.view(game, PUBLIC_VIEWER)[0].is_over

    return over(game_id) and all(map(over, forks.ancestors(service.app, game_id)))


def viewer_for(
    game_id: UUID, caller: Caller | None, *, perspective: str | None = None, seat: int | None = None
) -> Viewer:
    """The viewer a request may be: its own seat, the host, the public, or (allowed) an auditor."""
    if perspective == "auditor":
        if not may_audit(open_to_all(game_id), auditor_rights=_auditor_rights()):
            raise forbidden(
                "everything is shown only once the game is over (for a fork: once every game it "
                "was forked from is over too)"
            )
        return AUDITOR_VIEWER
    if caller is None:
        if seat is not None:
            raise unauthorized("a seat's view needs that seat's token")
        return PUBLIC_VIEWER
    if caller.role == HOST:
        return HOST_VIEWER if seat is None else _seat_for_host(game_id, seat)
    if seat is not None and seat != caller.seat:
        raise forbidden(f"this token is seat {caller.seat}'s; it cannot see seat {seat}'s hand")
    assert caller.seat is not None
    return Viewer.of_seat(caller.seat)


def _seat_for_host(game_id: UUID, seat: int) -> Viewer:
    """A seat's view, for the host of a tabletop game with known hands (who entered every hand
    there). With unknown hands a seat's view holds what that seat noted of its own hand, which
    is its alone; the host's own view has every card the table has seen."""
    started = services().views.started(game_id)
    if started.mode != TABLETOP:
        raise forbidden(f"in a digital game only seat {seat}'s own token may see its hand")
    if started.hands == UNKNOWN_HANDS:
        raise forbidden(
            f"with unknown hands only seat {seat}'s own token may see its view: it holds what "
            "that seat noted of its hand; the host's own view shows every card the table has seen"
        )
    if seat >= len(started.seats):
        raise query_error("seat", f"The game's seats are 0 to {len(started.seats) - 1}.")
    return Viewer.of_seat(seat)


def wait_for_read_models(position: int | None, *, whole_store: bool = False) -> None:
    """Before reading the read models: catch them up if this process keeps them, and (read your
    writes) wait until they have processed `position`, a store position a write answered with,
    or with `whole_store` everything the store holds now; 422 for a position the store has not
    reached, 503 if they lag behind."""
    service = services()
    service.before_read()
    if position is None and not whole_store:
        return
    latest = service.app.position()
    if position is not None and position > latest:
        raise query_error("after_position", f"The store's latest position is {latest}.")
    if whole_store:
        position = latest
    assert position is not None
    try:
        service.projector.wait(position, timeout=READ_MODEL_WAIT_SECONDS)
    except TimeoutError:
        raise ApiError(
            503,
            "read_models_behind",
            f"The read models have not reached position {position} yet; try again shortly.",
        ) from None


def _document(game_id: UUID, viewer: Viewer) -> dict[str, Any]:
    view, version = services().views.view(game_id, viewer)
    return _view_document(view, viewer, version)


def _view_document(view: GameState, viewer: Viewer, version: int) -> dict[str, Any]:
    return {**render(view, viewer), "version": version}


def _summary(game_id: UUID) -> dict[str, Any]:
    facts = services().views.facts(game_id)
    state, version = services().views.view(game_id, PUBLIC_VIEWER)
    first = facts[0].fact
    assert isinstance(first, ev.GameStarted)
    return {
        "game_id": game_id,
        "ruleset": state.ruleset.preset,
        "players": state.ruleset.players,
        "mode": state.mode,
        "sandbox": first.sandbox,
        "seats": [player.name for player in state.players],
        "start_seat": state.start_seat,
        "status": "ended" if state.is_over else "in-progress",
        "phase": str(state.phase),
        "phase_text": state.phase_text,
        "turn": state.turn,
        "active_seat": state.active,
        "version": version,
        "started_at": facts[0].recorded_at,
        "result": render_result(state.result),
    }


def seat_tokens(names: list[str], issued: IssuedTokens) -> list[dict[str, Any]]:
    """Each seat's number, name and token, for the one answer that shows them."""
    return [
        {"seat": seat, "name": name, "token": token}
        for seat, (name, token) in enumerate(zip(names, issued.seats, strict=True))
    ]


@blp.route("/games", methods=["POST"])
@blp.arguments(schemas.GameCreateSchema())
@blp.response(201, schemas.GameCreatedSchema, headers=schemas.CREATED_RESPONSE_HEADERS)
@blp.doc(**game_links(201), parameters=schemas.CREATION_HEADERS)
@documented(blp, 400, 408, 409, 410, 413, 415, 422)
def create_game(body: dict[str, Any]) -> Response:
    """Create a game; the answer holds one secret token per seat and one for the host.

    Keep the tokens: they are shown only here (and, with an `Idempotency-Key`, to a retry with
    the same key and body). Send one as `Authorization: Bearer <token>`."""
    service = services()

    def create(game_id: UUID, issued: IssuedTokens, key: str | None) -> dict[str, Any]:
        outcome = service.app.start_game(
            body["seats"],
            preset=body["ruleset"],
            options=body["options"],
            start_seat=body["start_seat"],
            mode=body["mode"],
            seed=body.get("seed"),
            deck=body.get("deck"),
            game_id=game_id,
            hands=body["hands"],
            request_key=key,
        )
        started = outcome.facts[0]
        assert isinstance(started, ev.GameStarted)
        return _game_created(game_id, started, outcome.version, outcome.position, issued)

    def rebuild(game_id: UUID, issued: IssuedTokens, stored: AppliedRequest) -> dict[str, Any]:
        started = service.views.started(game_id)
        version, position = stored.last_version, service.app.position()
        return _game_created(game_id, started, version, position, issued)

    return created_once(
        schemas.GameCreatedSchema(),
        "games",
        body,
        game_id=new_game_id(),
        seats=len(body["seats"]),
        create=create,
        rebuild=rebuild,
    )


def _game_created(
    game_id: UUID,
    started: ev.GameStarted,
    version: int,
    position: int | None,
    issued: IssuedTokens,
) -> dict[str, Any]:
    """A new game's answer: where it is, its tokens and its ruleset."""
    base = f"/api/games/{game_id}"
    return {
        "game_id": game_id,
        "version": version,
        "position": position,
        "seats": seat_tokens(started.seats, issued),
        "host_token": issued.host,
        "ruleset": started.ruleset,
        "links": {
            "self": base,
            "view": f"{base}/view",
            "commands": f"{base}/commands",
            "events": f"{base}/events",
            "scoreboard": f"{base}/scoreboard",
        },
    }


@blp.route("/games", methods=["GET"])
@blp.arguments(schemas.GamesQuerySchema(), location="query")
@blp.response(200, schemas.GameListSchema)
@documented(blp, 422)
def list_games(query: dict[str, Any]) -> dict[str, Any]:
    """List games, newest first, `limit` at a time: after the game a page's `next_cursor` names
    (`cursor`; a deep page costs what the first does), or from `offset` (`next_offset`, for a
    page number). Both are null on the last page.

    Filter by status, player name and ruleset; `total` counts the games the filters give.
    `after_position` waits for a write the caller just made."""
    service = services()
    wait_for_read_models(query.get("after_position"))
    limit, offset, cursor = query["limit"], query["offset"], query.get("cursor")
    if cursor is not None and offset:
        raise query_error("offset", "A page is asked for by cursor or by offset, not both.")
    records, total, more = queries.game_page(
        service.engine,
        limit=limit,
        offset=offset,
        after=None if cursor is None else _read_cursor(cursor),
        status=query.get("status"),
        player=query.get("player"),
        preset=query.get("ruleset"),
    )
    return {
        "games": [_record(record) for record in records],
        "total": total,
        "next_offset": offset + limit if more and cursor is None else None,
        "next_cursor": _cursor(records[-1]) if more else None,
    }


def _cursor(record: queries.GameRecord) -> str:
    """An opaque name for where a page ends: its last game's start and id."""
    text = f"{record.started_at.isoformat()}|{record.game_id}"
    return base64.urlsafe_b64encode(text.encode()).decode().rstrip("=")


def _read_cursor(cursor: str) -> queries.Cursor:
    try:
        text = base64.urlsafe_b64decode(cursor + "=" * (-len(cursor) % 4)).decode()
        started, game_id = text.split("|")
        when = datetime.fromisoformat(started)
        if when.tzinfo is None:
            raise ValueError("naive")
        return when, UUID(game_id)
    except ValueError:
        raise query_error(
            "cursor", "Not a cursor this list gave; start from the first page."
        ) from None


def _record(record: queries.GameRecord) -> dict[str, Any]:
    return {
        "game_id": record.game_id,
        "ruleset": record.preset,
        "players": record.players,
        "mode": record.mode,
        "sandbox": record.sandbox,
        "duplicate_of": record.duplicate_of,
        "seats": record.seats,
        "status": record.status,
        "started_at": record.started_at,
        "ended_at": record.ended_at,
        "turns": record.turns,
        "winners": record.winners,
        "decided_by": record.decided_by,
        "scores": record.scores,
    }


@blp.route("/games/<uuid:game_id>", methods=["GET"])
@blp.response(200, schemas.GameSummarySchema)
@documented(blp, 401, 404)
def game_summary(game_id: UUID) -> dict[str, Any]:
    """What anyone may know about a game: seats, ruleset, status, phase, result."""
    return _summary(game_id)


@blp.route("/games/<uuid:game_id>/view", methods=["GET"])
@blp.arguments(schemas.ViewQuerySchema(), location="query")
@blp.response(200, schemas.ViewSchema)
@blp.doc(security=SEAT_TOKEN_OR_NONE)
@documented(blp, 401, 403, 404, 422)
def game_view(query: dict[str, Any], game_id: UUID) -> dict[str, Any]:
    """The table as the caller may see it.

    A seat (its token) sees its own hand in order and its legal commands; the host of a tabletop
    game sees every hand, or with `seat` that seat's view; no token is the public view."""
    services().views.started(game_id)  # 404 before 401/403 for an unknown game
    viewer = viewer_for(
        game_id, caller_for(game_id), perspective=query.get("perspective"), seat=query.get("seat")
    )
    return _document(game_id, viewer)


@blp.route("/games/<uuid:game_id>/legal", methods=["GET"])
@blp.response(200, schemas.LegalSchema)
@blp.doc(security=SEAT_TOKEN)
@documented(blp, 401, 403, 404)
def legal_commands(game_id: UUID) -> dict[str, Any]:
    """The caller's legal commands now.

    A seat's, or with the host's token in a tabletop game, every seat's (the host acts for any
    seat) and the cards the table is waiting for (`chance`: the deal, the revealed cards, the
    cards drawn). `offers` gives the offers each may make: to whom, which cards, for what."""
    started = services().views.started(game_id)
    caller = caller_for(game_id)
    if caller is None:
        raise unauthorized("legal commands belong to a seat: send that seat's token")
    if caller.role == HOST:
        if started.mode != TABLETOP:
            raise forbidden("in digital games only a seat's own token can give commands")
        viewer = HOST_VIEWER
    else:
        assert caller.seat is not None
        viewer = Viewer.of_seat(caller.seat)
    return _document(game_id, viewer).get("legal") or render_legal(Legal(()))


def expected_version(environ: dict[str, Any], body: dict[str, Any]) -> int | None:
    """The version a command requires the game to be at: `If-Match` or the body's
    `expected_version` (taken out of the body), None for any; 400 for an If-Match that is no
    version, or for the two disagreeing."""
    header = environ.get("HTTP_IF_MATCH")
    from_body = body.pop("expected_version", None)
    if header is None or header.strip() == "*":  # "*": any current version will do
        return from_body
    match = VERSION_TAG.match(header.strip())
    if match is None:
        raise bad_header("If-Match", 'If-Match must be a game version, e.g. "12"')
    version = int(match.group(1) or match.group(2))
    if from_body is not None and from_body != version:
        raise ApiError(
            400, "bad_request", "If-Match and expected_version disagree; send one of them"
        )
    return version


SEATLESS = (Deal.type, Correct.type, Undo.type)
"""Commands of the host that act for no seat: the deal and corrections."""
CARDS_OFF_THE_PILE = ("reveal", "draw")


def _authorize_host(state: GameState, body: dict[str, Any]) -> None:
    """The host of a tabletop game acts for the seat it names; chance steps default to the
    active seat. A digital game's host cannot act (403), and a seat's notes are its own."""
    if state.mode != TABLETOP:
        raise forbidden("in digital games only a seat's own token can give commands")
    kind = body["type"]
    if kind == NoteHand.type:
        raise forbidden(
            "a seat notes its own hand from its own device (its token); the host cannot"
        )
    if "seat" not in body and kind not in SEATLESS:
        if kind not in ("reveal", "draw"):
            raise ApiError(
                422,
                "validation_error",
                "the host must name the seat it acts for",
                errors={"json": {"seat": ["Missing: the seat the host acts for"]}},
            )
        body["seat"] = state.active


def _authorize_seat(caller: Caller, started: ev.GameStarted, body: dict[str, Any]) -> None:
    """A seat acts for itself only (the body names it, or it was filled in). In a tabletop game
    with known hands, only the host names the cards that come off the pile: a seat's entry is
    refused before anything is checked, so that no answer tells a seat where the other copies of
    a card are (the host entered every hand). With unknown hands, every card the game knows was
    shown to the table, so a seat may enter its own reveals and draws."""
    kind = body["type"]
    if kind == Deal.type:
        raise forbidden("only the host of a tabletop game enters the dealt hands")
    if kind in (Correct.type, Undo.type):
        raise forbidden("only the host of a tabletop game corrects its record")
    if body["seat"] != caller.seat:
        raise forbidden(
            f"this token is seat {caller.seat}'s; it cannot act for seat {body['seat']}"
        )
    known = started.mode == TABLETOP and started.hands == KNOWN_HANDS  # seats_name_pile_cards
    if known and kind in CARDS_OFF_THE_PILE:
        raise forbidden(
            "in a tabletop game with known hands only the host names the cards that come off "
            "the pile: the host entered every hand, so a card a seat names could only be "
            "checked against cards that seat may not know"
        )


@blp.route("/games/<uuid:game_id>/commands", methods=["POST"])
@blp.arguments(schemas.CommandSchema())
@blp.response(200, schemas.CommandResultSchema, headers=schemas.COMMAND_RESPONSE_HEADERS)
@blp.doc(security=SEAT_TOKEN, parameters=schemas.COMMAND_HEADERS)
@documented(blp, *ERRORS, 410)
def give_command(body: dict[str, Any], game_id: UUID) -> Response:
    """Give a command as the token's seat (the host of a tabletop game may act for any seat).

    Send `If-Match: "<version>"` (or `expected_version`) to refuse it with 412 if the game has
    moved on, and an `Idempotency-Key` header to make a retry safe: the same key and body get
    the first answer again and store nothing new (the key covers the body and the expected
    version: another body or another If-Match with the same key is a 422)."""
    service = services()
    caller = caller_for(game_id)  # the game is known (game_and_credentials_checked)
    if caller is None:
        raise unauthorized("commands need a seat's (or the host's) token")
    expected, keyed = command_request(the_request().environ, caller, body)
    if keyed is None:
        return _answer(200, _execute(service, game_id, caller, body, expected))
    key, covers = keyed
    try:
        document = _execute(service, game_id, caller, body, expected, keyed)
        return _answer(200, document)
    except KeyUsed as used:  # a retry: the key's row in the store says what its first use did
        return _answer_of_used_key(service, caller, covers, used)
    except Conflict:  # lost races, nothing decided: a retry with the key is tried afresh
        raise
    except (ApiError, BohnanzaError) as error:
        status, document = _error_document(error)
    try:
        service.app.answered(game_id, key, covers, Replay(status, document).kept())
    except KeyUsed as used:  # an attempt racing this one used the key first
        return _answer_of_used_key(service, caller, covers, used)
    return _answer(status, document)


def command_request(
    environ: dict[str, Any], caller: Caller, body: dict[str, Any]
) -> tuple[int | None, tuple[str, str] | None]:
    """What a command's request asks beside the command: the version it requires (`If-Match`
    or the body's `expected_version`, taken out of the body) and, with an Idempotency-Key, the
    key and what it covers. A seat's body gets its seat (named or not, the same command).
    400 for an If-Match or a key that is none."""
    expected = expected_version(environ, body)
    key = idempotency_key(environ)
    if caller.role != HOST:
        body.setdefault("seat", caller.seat)
    if key is None:
        return expected, None
    return expected, (key, key_covers(caller, {"command": body, "expected_version": expected}))


def _answer_of_used_key(service: Services, caller: Caller, covers: str, used: KeyUsed) -> Response:
    """The answer to a command whose key an earlier attempt used, as the key's row in the store
    says: the command it stored, rebuilt from the store, or the answer it kept. Another request
    with the key is refused."""
    applied, key = used.applied, used.request_key
    if applied.covers not in (None, covers):  # None: a key stored before 5 Dec 2026
        raise KeyReused(
            f"Idempotency-Key {key!r} was already used for a different request in this game"
        )
    if isinstance(used, AlreadyApplied):
        return _answer(200, _stored_answer(service, used.game_id, caller, applied), replayed=True)
    if applied.answer is None:
        raise AnswerGone(
            f"the command sent with Idempotency-Key {key!r} was stored by a version of the "
            "service that kept its answer for a day only, and the answer is gone; the game's "
            "view shows where the game is now"
        )
    kept = Replay.of_kept(applied.answer)
    return _answer(kept.status, kept.response, replayed=True)


def idempotency_key(environ: dict[str, Any] | None = None) -> str | None:
    """The request's (or `environ`'s) Idempotency-Key, None without one; 400 for one that is no
    key."""
    key = (the_request().environ if environ is None else environ).get("HTTP_IDEMPOTENCY_KEY")
    if key is not None and not IDEMPOTENCY_KEY.match(key):
        raise bad_header(
            "Idempotency-Key",
            "Idempotency-Key must be one key: 1 to 128 visible ASCII characters, no comma",
        )
    return key


Create = Callable[[UUID, IssuedTokens, str | None], dict[str, Any]]
"""Stores a new game under this id with these tokens (and this key in the event store, if one),
and answers what the request answers."""
Rebuild = Callable[[UUID, IssuedTokens, AppliedRequest], dict[str, Any]]
"""The answer of a game an earlier attempt stored (the versions it stored), with its tokens."""


def created_once(
    schema: Schema,
    scope: str,
    fingerprint: Any,
    *,
    game_id: UUID,
    seats: int,
    create: Create,
    rebuild: Rebuild,
    caller: str = NO_CALLER,
) -> Response:
    """A request that creates a game (`scope`: what it creates): the 201 answer. With an
    Idempotency-Key it creates the game once and gives the same answer (tokens included) to
    every attempt with the key and the same `fingerprint` (api/creation_keys.py)."""
    service = services()
    key = idempotency_key()
    if key is None:
        with service.tokens.issued_for(game_id, seats) as issued:
            document = create(game_id, issued, None)
        service.after_write()
        return _answer(201, schema.dump(document))
    begun = service.creations.begin(scope, key, caller, fingerprint, game_id=game_id, seats=seats)
    if isinstance(begun, Replay):
        return _answer(begun.status, begun.response, replayed=True)
    replayed = False
    try:
        status, document = 201, schema.dump(create(begun.game_id, begun.issued, store_key(key)))
    except AlreadyApplied as already:  # an earlier attempt stored it, then stopped
        replayed = True
        status, document = 201, schema.dump(rebuild(begun.game_id, begun.issued, already.applied))
    except (ApiError, BohnanzaError) as error:
        if type(error) is Conflict:  # lost races (a fork's), nothing decided: a retry runs afresh
            service.creations.release(scope, key)
            raise
        status, document = _error_document(error)
    except BaseException:
        service.creations.release(scope, key)
        raise
    service.creations.finish(scope, key, status, document, begun.issued)
    service.after_write()
    return _answer(status, document, replayed=replayed)


def _error_document(error: ApiError | BohnanzaError) -> tuple[int, dict[str, Any]]:
    response = error_response(error)
    return response.status_code, response.get_json()


def _answer(status: int, document: dict[str, Any], *, replayed: bool = False) -> Response:
    """A command's or a creation's answer, already in its final JSON form (a result or an error
    envelope, as documented; the tests check both against the OpenAPI document), so that it can
    be stored for idempotency as it is and no schema is applied to an error."""
    response = jsonify(document)
    response.status_code = status
    if status == 200:
        response.headers["ETag"] = f'"{document["version"]}"'
    if replayed:
        response.headers["Idempotent-Replayed"] = "true"
    if status == 200 and "events" in document and "view" not in document:
        # A command's answer that left the view out: it did so because the request preferred.
        response.headers["Preference-Applied"] = "return=minimal"
    return response


def _execute(
    service: Services,
    game_id: UUID,
    caller: Caller,
    body: dict[str, Any],
    expected: int | None,
    keyed: tuple[str, str] | None = None,
) -> dict[str, Any]:
    """Run the command and answer it; `keyed`: its Idempotency-Key and what the key covers."""
    command = authorized_command(service, game_id, caller, body)
    document = executed(
        service, game_id, caller, command, minimal=prefers_minimal(), expected=expected, keyed=keyed
    )
    _nudge_followers_after_answer(service, game_id)
    return document


def authorized_command(
    service: Services, game_id: UUID, caller: Caller, body: dict[str, Any]
) -> Command:
    """The command the body gives, if its caller may give it (403 if not, 422 for a body that is
    no command). Reads only: nothing is stored before `executed`."""
    if caller.role == HOST:
        _authorize_host(service.views.view(game_id, HOST_VIEWER)[0], body)
    else:
        _authorize_seat(caller, service.views.started(game_id), body)
    return parse_command(body)


def executed(
    service: Services,
    game_id: UUID,
    caller: Caller,
    command: Command,
    *,
    minimal: bool,
    expected: int | None = None,
    keyed: tuple[str, str] | None = None,
) -> dict[str, Any]:
    """The command run on the game and stored, and its answer (without the caller's view if
    `minimal`); `expected`: the version the request requires (412 if the game moved on);
    `keyed`: its Idempotency-Key and what the key covers."""
    try:
        key, covers = keyed or (None, None)
        outcome = service.app.execute(
            game_id, command, expected_version=expected, request_key=key, request_covers=covers
        )
    except Conflict as conflict:
        if expected is None:
            raise
        raise ApiError(
            412, "precondition_failed", str(conflict), current_version=conflict.current_version
        ) from None
    recorded = outcome.recorded()
    service.views.record(game_id, recorded)
    service.after_write()
    return _command_answer(
        service, game_id, caller, outcome.version, outcome.position, recorded, minimal=minimal
    )


def _nudge_followers_after_answer(service: Services, game_id: UUID) -> None:
    """Once the answer has gone out, tell the game's live followers (api/live_hub.py) that it
    moved on: the command's caller, who waits for that answer, comes first. (Nothing to do when
    no stream of this process follows the game.)"""
    if not service.live.follows(game_id):
        return

    @after_this_request
    def nudge(response: Response) -> Response:
        response.call_on_close(lambda: service.live.nudge(game_id))
        return response


def _commanding_viewer(caller: Caller) -> Viewer:
    return HOST_VIEWER if caller.role == HOST else Viewer.of_seat(caller.seat or 0)


@lru_cache(maxsize=4096)
def _id_text(game_id: UUID) -> str:
    """A game's id as text, made once per game rather than on every command's answer (`str` of
    a UUID formats it in Python code)."""
    return str(game_id)


def _command_answer(
    service: Services,
    game_id: UUID,
    caller: Caller,
    version: int,
    position: int | None,
    recorded: list[RecordedFact],
    *,
    minimal: bool,
) -> dict[str, Any]:
    """A command's answer: the game's new version and position, the command's facts as the
    caller saw them, and, unless `minimal` (the request says `Prefer: return=minimal`,
    `prefers_minimal`), the caller's view at that version."""
    viewer = _commanding_viewer(caller)
    started = service.views.started(game_id)
    answer = {
        "game_id": _id_text(game_id),
        "version": version,
        "position": position,
        "events": [feed_item(fact.version, fact.fact, viewer, started) for fact in recorded],
    }
    if not minimal:
        answer["view"] = service.views.document_at(game_id, viewer, version)
    return answer


def _stored_answer(
    service: Services, game_id: UUID, caller: Caller, applied: AppliedRequest
) -> dict[str, Any]:
    """The answer a command's first request would have given, rebuilt from the facts it stored
    (that request's server stopped before answering): the same events and the caller's view at
    the same version (as this request prefers it). Its `position` is the store's latest, which
    is at or after the command's own, so reading one's writes with it still works."""
    facts = service.views.facts(game_id)[applied.first_version - 1 : applied.last_version]
    version, position = applied.last_version, service.app.position()
    return _command_answer(
        service, game_id, caller, version, position, facts, minimal=prefers_minimal()
    )


def prefers_minimal(environ: dict[str, Any] | None = None) -> bool:
    """Whether the request (this one, or the one `environ` describes) asks for a command's
    answer without the caller's view: `Prefer: return=minimal` (RFC 7240 §4.2). The first
    `return` preference counts; preferences the service does not know, and values it does not
    know, are ignored, as the RFC asks."""
    header = (the_request().environ if environ is None else environ).get("HTTP_PREFER")
    if header is None:
        return False
    for preference in header.split(","):
        name, _, value = preference.split(";", 1)[0].partition("=")
        if name.strip().lower() == "return":
            return value.strip().strip('"').lower() == "minimal"
    return False


@blp.route("/games/<uuid:game_id>/events", methods=["GET"])
@blp.arguments(schemas.EventsQuerySchema(), location="query")
@blp.response(200, schemas.EventPageSchema)
@blp.doc(security=SEAT_TOKEN_OR_NONE)
@documented(blp, 401, 404, 422)
def event_feed(query: dict[str, Any], game_id: UUID) -> dict[str, Any]:
    """The caller's redacted event feed, from position `after` + 1, `limit` items a page."""
    facts = services().views.facts(game_id)
    viewer = viewer_for(game_id, caller_for(game_id))
    after, limit = query["after"], query["limit"]
    first = facts[0].fact
    assert isinstance(first, ev.GameStarted)
    page = facts[after : after + limit]
    items = [feed_item(recorded.version, recorded.fact, viewer, first) for recorded in page]
    more = after + limit < len(facts)
    return {"items": items, "next_after": after + limit if more else None, "version": len(facts)}
