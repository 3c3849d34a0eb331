"""The commands route's narrow path: a move, answered without the framework's layers.

A seat sends `POST /api/games/<id>/commands` for every plant, offer, trade and harvest, and the
table's pages wait for each answer; a command is the service's hottest request by far. Through
Flask, flask-smorest and webargs, the layers around a command's own work (its token, its body,
its rules and store work, its answer) took about 0.15 ms of a 0.52 ms request in one process,
where the rules and the store took about 0.27 (docs/performance.md, "A narrow path for
commands").

`CommandPath` sits in front of the app and answers the plain form of that request itself, doing
exactly what the route does (`api.games.command_request`, `authorized_command` and `executed`
are the route's own code) and nothing of the framework's. Every other request goes to the app, and so
does every command request that is not plain, before anything is stored or answered:

- anything but a canonical `/api/games/<lowercase UUID>/commands` POST with no query string and
  a Host header; an `X-Auditor-Token`;
- an `If-Match` or an `Idempotency-Key` that is none (`api.games.command_request` reads them
  for both paths);
- a body that is not plainly JSON of at most MAX_BODY_BYTES with its Content-Length (chunked,
  compressed, another media type), one that breaks off or stops arriving (the app gets the bytes
  read so far and then the same failure, `_Replayed`), one that is not JSON with one meaning, or
  one the command's schema would not load unchanged (`FastLoader`). The app gets a copy of the
  environ with the body to read again; the server's own keeps the server's body object, which
  tells the server whether the body was read to its end;
- an unknown game, a token that is not this game's, a command its caller may not give or that
  is no command: the checks that refuse these only read, so the app repeats them and answers.

So every refusal of a request's form, credentials or body has one answer, the app's. Once the
command runs without an `Idempotency-Key`, the request has been taken: a refusal of the rules, a
lost race or a store that is down from there on is answered by the app's own error handlers
and after-request hooks in a request context of its own (`_answer_error`), not by running the
command again. With a key, a refusal and a key used before are the app's (`_kept_under_the_key`):
nothing was stored, running the command again is what the key makes safe, and the answers kept
under a key have one implementation, the route's. The tests send the same requests both ways
and compare the answers byte for byte (tests/api/test_command_path.py).
"""

from __future__ import annotations

import io
import re
from collections.abc import Callable, Iterable
from functools import lru_cache
from typing import Any
from uuid import UUID

from flask import Flask
from werkzeug.wsgi import ClosingIterator

from domain import json_text
from domain.application import KeyUsed
from domain.rules.errors import BohnanzaError, Conflict

from . import games, schemas
from .blueprint import FastLoader, unreadable
from .errors import ApiError
from .security import VARY_CREDENTIALS
from .services import Services

WSGIApp = Callable[[dict[str, Any], Callable[..., Any]], Iterable[bytes]]

PATH = re.compile(
    r"/api/games/([0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12})/commands\Z"
)
"""The commands route's path, its game id spelled as the service spells ids."""
LEFT_TO_THE_APP = frozenset(
    ("HTTP_X_AUDITOR_TOKEN", "HTTP_TRANSFER_ENCODING", "HTTP_CONTENT_ENCODING")
)
"""Headers whose requests the app answers: an auditor's secret, and bodies sent in a coding."""
JSON = "application/json"
GAME_IDS_KEPT = 4096
"""Game ids the narrow path keeps parsed (`_game_id`)."""


class CommandPath:
    """WSGI: plain command requests answered here (see the module's docstring), the rest by
    `framework`, the app's own WSGI function."""

    def __init__(self, app: Flask, framework: WSGIApp) -> None:
        self.app = app
        self.framework = framework
        self.loader = FastLoader.of(schemas.CommandSchema())
        self.limit: int = app.config["MAX_CONTENT_LENGTH"]

    def __call__(self, environ: dict[str, Any], start_response: Callable[..., Any]) -> Any:
        game_id = self._plain(environ)
        if game_id is None:
            return self.framework(environ, start_response)
        raw, failed = _read(environ["wsgi.input"], int(environ["CONTENT_LENGTH"]))
        if failed is not None:  # the app meets the body as it broke off
            return self.framework(_with_body(environ, failed), start_response)
        body = self._loaded(raw)
        if body is None:
            return self._left(environ, start_response, raw)
        try:
            service: Services = self.app.extensions["bohnanza"].get()
            caller = service.tokens.resolve(game_id, _bearer(environ))
            if caller is None:  # no token of this game's, or no such game
                return self._left(environ, start_response, raw)
            expected, keyed = games.command_request(environ, caller, body)
            command = games.authorized_command(service, game_id, caller, body)
        except Exception:  # only read so far: the app checks again and answers
            return self._left(environ, start_response, raw)
        minimal = games.prefers_minimal(environ)
        try:
            document = games.executed(
                service, game_id, caller, command, minimal=minimal, expected=expected, keyed=keyed
            )
            data = self.app.json.encoded(document)  # type: ignore[attr-defined]
        except Exception as error:
            if keyed is not None and _kept_under_the_key(error):
                return self._left(environ, start_response, raw)
            return self._answer_error(environ, start_response, raw, error)
        return self._answer(start_response, service, game_id, data, document["version"], minimal)

    def _plain(self, environ: dict[str, Any]) -> UUID | None:
        """The game of a command request this path may answer, by its method, path and headers;
        None for any other request."""
        matched = PATH.match(environ.get("PATH_INFO", ""))
        if (
            matched is None
            or environ.get("REQUEST_METHOD") != "POST"
            or environ.get("QUERY_STRING")
            or "HTTP_HOST" not in environ
            or "HTTP_AUTHORIZATION" not in environ
            or not environ.keys().isdisjoint(LEFT_TO_THE_APP)
            or self.loader is None
        ):
            return None
        length = environ.get("CONTENT_LENGTH", "")
        kind = environ.get("CONTENT_TYPE", "")
        if kind != JSON:  # as clients send it, mostly; otherwise as the framework reads it
            kind = kind.partition(";")[0].strip().lower()
        digits = length.isascii() and length.isdigit()  # "²" is a digit to isdigit(), not to int()
        if not digits or not 0 < int(length) <= self.limit or kind != JSON:
            return None
        return _game_id(matched.group(1))

    def _loaded(self, raw: bytes) -> dict[str, Any] | None:
        """The body's fields as the route's schema loads them, for a body it would load
        unchanged (`FastLoader`); None for any other body."""
        assert self.loader is not None
        try:
            fields = json_text.loads_plain(raw)
            if fields is json_text.UNCLEAR:  # read the careful way, as the app reads it
                fields = json_text.loads(raw.decode())
                if unreadable(raw, fields):
                    return None
            body = self.loader(fields)
        except Exception:  # the app reads it again and answers
            return None
        return body

    def _left(self, environ: dict[str, Any], start_response: Callable[..., Any], raw: bytes) -> Any:
        """The request, body and all, answered by the app."""
        return self.framework(_with_body(environ, io.BytesIO(raw)), start_response)

    def _answer(
        self,
        start_response: Callable[..., Any],
        service: Services,
        game_id: UUID,
        data: bytes,
        version: int,
        minimal: bool,
    ) -> Any:
        """The route's 200 answer (`api.games._answer` and the after-request hooks): the same
        bytes and headers, in the same order. Live followers of the game are told once it is
        sent."""
        headers = [
            ("Content-Type", "application/json"),
            ("Content-Length", str(len(data))),
            ("ETag", f'"{version}"'),
        ]
        if minimal:
            headers.append(("Preference-Applied", "return=minimal"))
        headers += [("Cache-Control", "private, no-store"), ("Vary", VARY_CREDENTIALS)]
        start_response("200 OK", headers)
        if not service.live.follows(game_id):
            return [data]
        return ClosingIterator([data], lambda: service.live.nudge(game_id))

    def _answer_error(
        self,
        environ: dict[str, Any],
        start_response: Callable[..., Any],
        raw: bytes,
        error: Exception,
    ) -> Any:
        """An error raised once the command ran, answered as the app answers an error its view
        raises: its error handlers, then its after-request hooks (Flask's `full_dispatch_request`
        and `wsgi_app`), in a request context of its own."""
        app = self.app
        with app.request_context(_with_body(environ, io.BytesIO(raw))):
            try:  # called while `error` is being handled: a bare `raise` in Flask re-raises it
                response = app.finalize_request(app.handle_user_exception(error))
            except Exception as unhandled:
                response = app.handle_exception(unhandled)
            return response(environ, start_response)


@lru_cache(maxsize=GAME_IDS_KEPT)
def _game_id(text: str) -> UUID:
    """The game id in a command's path, parsed once per game rather than once per command: a
    UUID is parsed, hashed and compared in Python code, and one object a game also spares the
    comparisons in the caches keyed by it."""
    return UUID(text)


def _kept_under_the_key(error: Exception) -> bool:
    """Whether the route keeps this outcome of a keyed command under its key, or answers it from
    the key (`api.games.give_command`): a refusal, or a key used before. Nothing was stored, and
    the key makes running the command again safe, so the app runs it and keeps the answer. A
    lost race (tried afresh) and any other failure are answered here, as the route answers them."""
    if isinstance(error, Conflict):
        return False
    return isinstance(error, KeyUsed | ApiError | BohnanzaError)


def _bearer(environ: dict[str, Any]) -> str:
    """The token of `Authorization: Bearer <token>`; "" (no game's token) for another form."""
    matched = games.BEARER.match(environ["HTTP_AUTHORIZATION"].strip())
    return "" if matched is None else matched.group(1)


def _read(stream: Any, length: int) -> tuple[bytes, Any]:
    """The body's `length` bytes and None; or, if it broke off or a read failed, what the app is
    to read in its place: the bytes read so far, then the end or the same failure."""
    parts: list[bytes] = []
    got = 0
    try:
        while got < length:
            part = stream.read(length - got)
            if not part:
                return b"", io.BytesIO(b"".join(parts))
            parts.append(part)
            got += len(part)
    except Exception as failure:
        return b"", _Replayed(b"".join(parts), failure)
    return b"".join(parts), None


def _with_body(environ: dict[str, Any], body: Any) -> dict[str, Any]:
    """A copy of the request's environ whose body is `body` (what was read of it, to read
    again). The server's own environ keeps its body object, which tells it whether the body was
    read to its end (the service's worker closes the connection after an answer to one that was
    not, api/worker.py)."""
    return {**environ, "wsgi.input": body}


class _Replayed(io.RawIOBase):
    """A body that failed part way: the bytes read before, then the same failure."""

    def __init__(self, head: bytes, failure: Exception) -> None:
        self.head = io.BytesIO(head)
        self.failure = failure

    def readable(self) -> bool:
        return True

    def read(self, size: int = -1) -> bytes:
        data = self.head.read(size)
        if data:
            return data
        raise self.failure

    def readinto(self, buffer: Any) -> int:
        data = self.read(len(buffer))
        buffer[: len(data)] = data
        return len(data)
