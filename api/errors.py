"""One JSON error envelope, `{code, status, message, errors}`, for every failure (ARCHITECTURE §10).

Every exception the service raises on purpose maps to an HTTP status here, in one place. A store
that cannot be reached is a 503 the client may retry. Anything else is a bug: it is logged (without
request bodies or tokens) and answered with a plain 500.
"""

from __future__ import annotations

import logging
import re
import zlib
from collections.abc import Mapping
from copy import deepcopy
from typing import Any

from eventsourcing.persistence import ConnectionUnavailableError, InterfaceError, OperationalError
from flask import Flask, Request, Response, current_app, jsonify, request
from gunicorn.http.errors import NoMoreData, ParseException
from sqlalchemy import exc as sql_errors
from werkzeug.exceptions import ClientDisconnected, HTTPException, RequestEntityTooLarge
from werkzeug.exceptions import NotFound as NoSuchPath
from werkzeug.routing import BaseConverter
from werkzeug.sansio.utils import get_content_length

from domain.deadline import DeadlinePassed
from domain.limits import RECORD_BYTES, LimitReached
from domain.rules.errata import CorrectionRefused
from domain.rules.errors import (
    BohnanzaError,
    Conflict,
    Forbidden,
    InvalidInput,
    InvalidRuleset,
    InvalidSetup,
    MalformedCommand,
    NotFound,
    RuleViolation,
)
from domain.storage import first_line
from replays.games import AlreadyImported
from replays.record import IllegalRecord, RecordError

from .bodies import bound_chunks
from .schemas import ErrorSchema
from .security import AnswerGone, KeyInFlight, KeyReused, Secrets

log = logging.getLogger(__name__)

RETRY_AFTER_SECONDS = 1
UNAVAILABLE = (
    DeadlinePassed,
    OperationalError,
    InterfaceError,
    ConnectionUnavailableError,
    sql_errors.OperationalError,
    sql_errors.InterfaceError,
    sql_errors.TimeoutError,
)
"""The store is down, restarting or out of connections: nothing the client did wrong."""


class ApiError(Exception):
    """An error raised by the API layer itself (authentication, permissions, preconditions)."""

    def __init__(self, status: int, code: str, message: str, **extra: Any) -> None:
        super().__init__(message)
        self.status = status
        self.code = code
        self.message = message
        self.extra = extra


SCHEMA_MISMATCH = "The request does not match the schema; see errors for each field."
"""The message of every 422 with field messages."""


def query_error(field: str, message: str) -> ApiError:
    """A 422 for a query parameter the schema accepts but the request cannot have."""
    return ApiError(422, "validation_error", SCHEMA_MISMATCH, errors={"query": {field: [message]}})


def bad_header(name: str, message: str) -> ApiError:
    """A 400 for a request header the request cannot have, named under `errors.headers`."""
    return ApiError(400, "bad_request", message, errors={"headers": {name: [message]}})


def unauthorized(message: str) -> ApiError:
    return ApiError(401, "unauthorized", message)


def forbidden(message: str) -> ApiError:
    return ApiError(403, "forbidden", message)


def envelope(
    status: int, code: str, message: str, errors: dict[str, Any] | None = None, **extra: Any
) -> Response:
    body = {"code": code, "status": status, "message": message, "errors": errors or {}, **extra}
    response = jsonify(body)
    response.status_code = status
    if status == 401:
        response.headers["WWW-Authenticate"] = 'Bearer realm="bohnanza"'
    if status == 503:
        response.headers["Retry-After"] = str(RETRY_AFTER_SECONDS)
    return response


HTTP_CODES = {
    400: "bad_request",
    403: "forbidden",
    404: "not_found",
    405: "method_not_allowed",
    406: "not_acceptable",
    408: "request_timeout",
    413: "payload_too_large",
    414: "uri_too_long",
    415: "unsupported_media_type",
    417: "expectation_failed",
    422: "validation_error",
    429: "too_many_requests",
    431: "request_header_fields_too_large",
    500: "internal_error",
    501: "not_implemented",
    503: "unavailable",
}
"""The envelope's `code` for an HTTP status the web framework or the server itself answers."""


def _http_error(error: HTTPException) -> Response:
    status = error.code or 500
    errors: dict[str, Any] = {}
    data = getattr(error, "data", None)  # flask-smorest/webargs put field messages here
    if isinstance(data, dict) and "messages" in data:
        errors = data["messages"]
    message = error.description or error.name
    if status == 422:
        message = SCHEMA_MISMATCH
    if status == 413:
        limit = request.max_content_length
        message = "The request body is too large" + (
            f": this route takes a body of up to {limit:,} bytes." if limit else "."
        )
    if status == 400 and "Invalid JSON" in str(errors):
        message = "The request body is not valid JSON."
    if isinstance(data, dict) and "message" in data:  # one of the body parser's own (a 400)
        message = data["message"]
    if status == 404 and request.url_rule is None:
        message = unrouted(request.path, current_app.url_map.converters) or message
    response = envelope(status, HTTP_CODES.get(status, "http_error"), message, errors)
    for name, value in error.get_headers():  # e.g. the methods a 405 allows
        if name.lower() != "content-type":
            response.headers[name] = value
    return response


_GAME_PATH = re.compile(r"/api/games/(?P<game>[^/]+)(?P<rest>/.*)?")
_NUMBERED = re.compile(r"/(?P<what>steps|annotations)/(?P<number>[^/]+)")
"""Where a game's path names a step or a note by number."""
_COUNTED = {
    "steps": "no step {!r}: steps are counted from 1 (step 1 is the game's start)",
    "annotations": "no note {!r}: a game's notes are counted from 1",
}


def unrouted(path: str, converters: Mapping[str, type[BaseConverter]]) -> str | None:
    """What a 404 for a path no route takes can say about it, where the path names a game by
    something that is no game id, or a step or a note by something that is no number counted
    from 1, as the routes' `uuid` and `count` converters read them (None for any other path:
    the general message)."""
    match = _GAME_PATH.fullmatch(path)
    if match is None:
        return None
    game = match["game"]
    if not re.fullmatch(converters["uuid"].regex, game):
        return f"no game {game[:40]!r}: a game's id is a UUID, as GET /api/games lists them"
    numbered = _NUMBERED.fullmatch(match["rest"] or "")
    if numbered is not None and not re.fullmatch(converters["count"].regex, numbered["number"]):
        said = _COUNTED[numbered["what"]].format(numbered["number"][:40])
        return f"{said}, written in the digits 0-9 without leading zeros"
    return None


def _bohnanza_error(error: BohnanzaError) -> Response:
    match error:
        case CorrectionRefused():  # the entry to change as well, as the correction names it
            return envelope(
                409, "rule_violation", str(error), rule=error.rule, illegal_entry=error.recorded
            )
        case RuleViolation():
            return envelope(409, "rule_violation", str(error), rule=error.rule)
        case InvalidSetup():
            return _cited(error, "invalid_setup", error.field)
        case MalformedCommand():
            return _cited(error, "malformed_command", "command")
        case InvalidRuleset():
            return _cited(error, "invalid_ruleset", error.field)
        case NotFound():
            return envelope(404, "not_found", str(error))
        case Forbidden():
            return envelope(403, "forbidden", str(error))
        case InvalidInput():
            return envelope(422, "invalid_input", str(error), {"json": {"_schema": [str(error)]}})
        case AlreadyImported():
            return envelope(409, "already_imported", str(error), game_id=str(error.game_id))
        case Conflict():
            return envelope(409, "conflict", str(error), current_version=error.current_version)
        case LimitReached():
            return envelope(409, "limit_reached", str(error))
        case IllegalRecord():
            failure = error.failure.to_dict()
            return envelope(
                422,
                "illegal_record",
                str(error),
                {"json": {error.path: [failure["message"]]}},
                first_illegal_step=failure,
            )
        case RecordError():
            return envelope(
                422, "invalid_record", str(error), {"json": {error.path: [error.message]}}
            )
        case KeyReused():
            return envelope(422, "idempotency_key_reused", str(error))
        case KeyInFlight():
            return envelope(409, "idempotency_key_in_flight", str(error))
        case AnswerGone():
            return envelope(410, "idempotency_answer_gone", str(error))
    return envelope(400, "bad_request", str(error))


def _cited(error: MalformedCommand | InvalidRuleset, code: str, field: str) -> Response:
    """A 422 naming the field to change, and the RULES section when the refusal cites one."""
    cites = {} if error.rule is None else {"rule": error.rule}
    return envelope(422, code, str(error), {"json": {field: [str(error)]}}, **cites)


def _api_error(error: ApiError) -> Response:
    return envelope(error.status, error.code, error.message, **error.extra)


def _unavailable(error: Exception) -> Response:
    log.warning("the store is unavailable: %s: %s", type(error).__name__, first_line(error))
    return envelope(503, "unavailable", "The store is unavailable just now; try again shortly.")


def _unexpected(error: Exception) -> Response:
    log.exception("unexpected error: %s", type(error).__name__)
    return envelope(500, "internal_error", "Something went wrong on our side; it has been logged.")


def error_response(error: ApiError | BohnanzaError) -> Response:
    """The envelope for an error the service raised on purpose (also stored for idempotency)."""
    if isinstance(error, ApiError):
        return _api_error(error)
    return _bohnanza_error(error)


SERVER_REFUSALS = (400, 414, 417, 431, 501)
"""What the server answers itself, before the app sees the request (api/worker.py), on any
operation: a request that is not HTTP, a URL or headers over the server's limits, an `Expect`
it cannot meet, a transfer coding other than chunked."""


def documented(blueprint: Any, *codes: int, store: bool = True) -> Any:
    """Decorator: document the error envelope for these statuses on an endpoint, for the
    server's own refusals (`SERVER_REFUSALS`), which any endpoint may answer, and (unless it
    never reads the `store`) for 503, the store unavailable."""

    def decorate(view: Any) -> Any:
        # flask-smorest documents an alternative response by wrapping the view in a function
        # that only passes the call on, with a deep copy of the view's documentation so far
        # (its schemas' every field): for a dozen statuses on each of 27 endpoints, a fifth of
        # a process's start. Each status's entry is made on a bare function instead, and the
        # entries are added to the view's own documentation; no wrapper is kept, as each would
        # cost a context lookup on every request.
        doc = deepcopy(getattr(view, "_apidoc", {}))
        responses = doc.setdefault("response", {}).setdefault("responses", {})
        for code in sorted({*codes, *SERVER_REFUSALS, *([503] if store else [])}):
            entry = blueprint.alt_response(code, schema=ErrorSchema, description="Error")(_bare)
            responses.setdefault(code, []).extend(entry._apidoc["response"]["responses"][code])
        view._apidoc = doc
        return view

    return decorate


def _bare() -> None:
    """A function with no documentation, for `documented` to have one status documented on."""


BODY_METHODS = frozenset({"POST", "PUT", "PATCH"})


def refuse_requests_http_does_not_allow() -> None:
    """Before any request:
    - 400 for an HTTP/1.1 request without a Host header, as RFC 9112 §3.2 requires of a server
      (gunicorn passes such a request on).
    - 404 for a path that starts with `//`. Werkzeug reads `//api/health` as `/api/health`; like
      a `//` further in (`url_map.merge_slashes` is off), it names no resource here."""
    environ = request.environ
    if environ.get("SERVER_PROTOCOL") == "HTTP/1.1" and "HTTP_HOST" not in environ:
        raise bad_header("Host", "An HTTP/1.1 request must send a Host header (RFC 9112 §3.2).")
    if environ.get("PATH_INFO", "").startswith("//"):
        raise NoSuchPath()


def refuse_bodies_the_api_cannot_read() -> None:
    """Before an API request with a body:
    - 415 unless the body is JSON. Without this, a body sent as text or as a form would go
      unread, and the client would get a 422 for fields it did send.
    - 501 for a transfer coding other than chunked, 415 for a compressed body: neither is
      decoded, so the app would read bytes that are not the JSON sent. The routes that take
      records (`takes_records`) take bodies up to RECORD_BYTES, and gzipped ones too, gunzipped
      here within the same limit.
    - The body is read whole now (`_whole_body`): 400 if it breaks off or is shorter than its
      Content-Length (nothing is stored from half a body), 408 if it stops arriving.
    - 413 for a body sent without a Content-Length (chunked) that reaches the size limit, as
      soon as its chunk-size lines announce that much (`bound_chunks`), not once it is sent.
      Werkzeug refuses such a body only when it is read past the limit, and reading it whole
      stops at the limit, so the app would see the first 64 KB of a larger body and answer 400
      for JSON cut short. A chunked body of exactly the limit is refused too: nothing tells it
      apart from a longer one without reading on.
    A request no route takes (404, or 405 for a method its path does not allow) gets that
    answer first: its body is not read."""
    req = the_request()
    if req.method not in BODY_METHODS or not req.path.startswith("/api/"):
        return
    if req.routing_exception is not None:
        return
    environ = req.environ
    length = get_content_length(
        environ.get("CONTENT_LENGTH"), environ.get("HTTP_TRANSFER_ENCODING")
    )
    streamed = length is None and "HTTP_TRANSFER_ENCODING" in environ
    if (length or streamed) and not req.is_json:
        sent = req.mimetype or environ.get("CONTENT_TYPE", "").strip()[:100]
        raise ApiError(
            415,
            "unsupported_media_type",
            "The request body must be JSON, sent with Content-Type: application/json "
            f"({sent or 'no Content-Type'} was sent).",
        )
    if not (length or streamed):
        return
    transfer = environ.get("HTTP_TRANSFER_ENCODING", "chunked").replace(" ", "").lower()
    if transfer not in ("chunked", "identity"):
        raise ApiError(
            501,
            "not_implemented",
            f"Transfer-Encoding {transfer[:40]!r} is not supported: send the body as it is, "
            "with a Content-Length or chunked.",
        )
    app = current_app._get_current_object()  # type: ignore[attr-defined]
    large = getattr(app.view_functions.get(req.endpoint or ""), "takes_records", False)
    # The request's own limit, set once: each read of the body asks for it (Flask's default
    # looks up the app's setting every time).
    req.max_content_length = RECORD_BYTES if large else app.config["MAX_CONTENT_LENGTH"]
    coding = environ.get("HTTP_CONTENT_ENCODING", "identity").strip().lower()
    if coding != "identity" and not (large and coding == "gzip"):
        raise ApiError(
            415,
            "unsupported_media_type",
            f"The request body must be sent uncompressed{' or gzipped' if large else ''} "
            f"(Content-Encoding {coding[:40]!r} was sent).",
        )
    limit = req.max_content_length
    if streamed and limit is not None:
        bound_chunks(environ.get("wsgi.input"), limit)
    body = _whole_body()
    if length is not None and len(body) < length:  # the client closed its side early
        raise _unreadable_body(None)
    if streamed and limit is not None and len(body) >= limit:
        raise RequestEntityTooLarge()
    if coding == "gzip":
        req._cached_data = gunzipped(body, RECORD_BYTES)  # what the view reads


def the_request() -> Request:
    """The request being answered, looked up once (each use of Flask's `request` looks it up
    again): for the code every request runs."""
    return request._get_current_object()  # type: ignore[attr-defined]


def takes_records(view: Any) -> Any:
    """Decorator, under `@blp.route`: the view takes a record's body, larger than other
    bodies (up to RECORD_BYTES, as sent and once gunzipped) and gzipped if its sender likes."""
    view.takes_records = True
    return view


def gunzipped(body: bytes, limit: int) -> bytes:
    """A gzipped body (one member or several, RFC 1952) as it was before: 413 once it would
    be more than `limit` bytes (read no further, however much it would expand to), 400 if it
    is not gzip or breaks off."""
    out = bytearray()
    rest = body
    try:
        while rest:
            member = zlib.decompressobj(wbits=16 + zlib.MAX_WBITS)
            out += member.decompress(rest, limit + 1 - len(out))
            if len(out) > limit or member.unconsumed_tail:
                raise RequestEntityTooLarge()
            if not member.eof:
                raise ApiError(400, "bad_request", "The gzipped request body breaks off.")
            rest = member.unused_data
    except zlib.error as error:
        raise ApiError(
            400, "bad_request", f"The request body is not valid gzip: {error}."
        ) from None
    return bytes(out)


def _whole_body() -> bytes:
    """The request body, read now and kept for the view, so that a body that breaks off is
    answered here: 400 for one that is not valid HTTP (a bad chunk size, a chunk without its
    end) or that ends early, 408 for one that stops arriving (the worker gives up waiting after
    `BOHNANZA_READ_TIMEOUT_SECONDS`, api/worker.py). The connection closes after either answer."""
    try:
        return request.get_data(cache=True)
    except (ParseException, NoMoreData, BlockingIOError, TimeoutError, ClientDisconnected) as error:
        # Werkzeug reports a failed read of a body of known length as ClientDisconnected,
        # raised while handling the server's own error.
        cause = error.__context__ if isinstance(error, ClientDisconnected) else error
        raise _unreadable_body(cause) from None


def _unreadable_body(cause: BaseException | None) -> ApiError:
    if isinstance(cause, BlockingIOError | TimeoutError):
        log.warning("gave up a request body that stopped arriving (408 %s)", request.path)
        return ApiError(
            408, "request_timeout", "The request body stopped arriving; send the request again."
        )
    if isinstance(cause, ParseException):  # e.g. a trailer line, quoted: secrets hidden
        detail = Secrets(current_app.config.get("AUDITOR_TOKEN")).redacted(str(cause))[:200]
        return ApiError(400, "bad_request", f"The request body is not valid HTTP: {detail}")
    return ApiError(400, "bad_request", "The request body ended before the length it announced.")


def register(app: Flask) -> None:
    """Install the envelope for every error the app can raise."""
    app.before_request(refuse_requests_http_does_not_allow)
    app.before_request(refuse_bodies_the_api_cannot_read)
    app.register_error_handler(HTTPException, _http_error)
    app.register_error_handler(BohnanzaError, _bohnanza_error)
    app.register_error_handler(ApiError, _api_error)
    for unavailable in UNAVAILABLE:
        app.register_error_handler(unavailable, _unavailable)
    app.register_error_handler(Exception, _unexpected)
