"""The Flask application factory: `create_app(config=None)`.

Production: `gunicorn 'api.app:create_app()'` with several workers; each worker builds its own
services (event store connection pool, projector) on its first request, after the fork.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable, Mapping
from datetime import timedelta
from types import FunctionType
from typing import Any

from apispec import APISpec
from eventsourcing.persistence import PersistenceError
from flask import Flask, Response, request
from flask_smorest import Api
from sqlalchemy.exc import DBAPIError
from werkzeug.routing import IntegerConverter, Map

from domain.deadline import deadline

from . import errors, games, live, meta, records, replays, stats
from .command_path import CommandPath
from .encoding import OrjsonProvider
from .openapi import (
    SECURITY_SCHEMES,
    ClosedSchemas,
    CommandTypes,
    NoteForOneSeat,
    OperationIds,
    refine_field_documents,
)
from .record_document import RecordDocument
from .schemas import ErrorSchema
from .security import CREDENTIAL_KEYS, CREDENTIALS, VARY_CREDENTIALS
from .services import Services
from .settings import Settings
from .web import web

MAX_BODY_BYTES = 64 * 1024
BUILD_ATTEMPTS = 3
CACHING = (
    "Caching: an answer to a request that carries a credential (`Authorization` or "
    "`X-Auditor-Token`, good or not) says `Cache-Control: private, no-store`, errors included: "
    "it is the caller's alone, and no cache, the browser's included, may keep it. Other answers "
    "carry no `Cache-Control`, `Expires` or `Last-Modified` (a command's `ETag` names the game's "
    "version, for `If-Match`), so a cache keeps none of them unless it guesses a freshness of "
    "its own; they change as the game does. Every answer under `/api/` says `Vary: "
    "Authorization, X-Auditor-Token`, so that a cache that does keep a public answer gives it "
    "only to requests without credentials. The errors the server answers itself, before any "
    "header is read (400, 414, 417, 431, 501), say `Cache-Control: no-store`."
)
"""What the OpenAPI document says about caching (`not_cached_for_others`)."""


class BohnanzaApi(Api):
    """flask-smorest's Api with the service's error envelope as the documented error schema.

    No catch-all "default" response: each endpoint documents every status it answers."""

    ERROR_SCHEMA = ErrorSchema
    DEFAULT_ERROR_RESPONSE_NAME = None

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        self._undocumented: list[Callable[[], None]] = []
        """What the document still lacks, in the order it would have been added."""
        self._documenting = threading.RLock()
        self._completing = threading.local()
        """Whether this thread is completing the document (and so reads it as it stands)."""
        super().__init__(*args, **kwargs)

    @property
    def spec(self) -> APISpec:
        """The OpenAPI document, completed on first use: its default responses (an error schema
        for every HTTP status) and its blueprints' operations cost more than the rest of the
        app's creation (about 0.1 s, apispec copying every schema), which a worker, a command
        line or a test that never serves the document need not pay. (What completes it reads
        `spec` too: it gets the document as it stands.)"""
        if self._undocumented and not getattr(self._completing, "now", False):
            with self._documenting:  # another thread asking meanwhile waits for the whole
                self._completing.now = True
                try:
                    while self._undocumented:
                        self._undocumented.pop(0)()
                finally:
                    self._completing.now = False
        return self._spec

    @spec.setter
    def spec(self, spec: APISpec) -> None:
        self._spec = spec

    def register_blueprint(self, blp: Any, *, parameters: Any = None, **options: Any) -> None:
        """flask-smorest's, with the blueprint's operations documented when the document is
        first used (`spec`); its tag is added now, so the tags keep their order."""
        name = options.get("name", blp.name)
        self._app.extensions["flask-smorest"]["blp_name_to_api"][name] = self
        self._app.register_blueprint(blp, **options)
        self._undocumented.append(
            lambda: blp.register_views_in_doc(
                self, self._app, self._spec, name=name, parameters=parameters
            )
        )
        self._spec.tag({"name": name, "description": blp.description})

    def _register_responses(self) -> None:
        """flask-smorest's default responses, registered when the document is first used."""
        self._undocumented.append(super()._register_responses)

    def _register_etag_headers(self) -> None:
        """flask-smorest's ETag parameters, registered when the document is first used: they
        read `spec`, which would complete the document (the default responses first) at once."""
        self._undocumented.append(super()._register_etag_headers)

    def _register_pagination_header(self) -> None:
        """No endpoint pages the flask-smorest way (the game list pages by offset): no
        pagination header in the document."""


class CountConverter(IntegerConverter):
    """`<count:n>`: a number counted from 1 (a step, a note), written without leading zeros.

    The pattern itself refuses 0, so such a URL matches no route, whatever the method: a 404.
    With `int(min=1)` the pattern matched and the converter refused afterwards, and where one
    path has a route per method (a note's PATCH and DELETE) Werkzeug answered some methods 405.
    """

    regex = r"[1-9][0-9]*"

    def __init__(self, url_map: Map, *args: Any, **kwargs: Any) -> None:
        kwargs.setdefault("min", 1)  # also what the OpenAPI document says
        super().__init__(url_map, *args, **kwargs)


class ServiceFlask(Flask):
    """Flask, remembering which of its functions are coroutines: `ensure_sync` asks
    `inspect.iscoroutinefunction` each time, and flask-smorest's wrappers call it for every
    layer of every request."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self._synced: dict[Callable[..., Any], Callable[..., Any]] = {}

    def ensure_sync(self, func: Callable[..., Any]) -> Callable[..., Any]:
        if type(func) is not FunctionType:  # e.g. a bound method, made anew on each access
            return super().ensure_sync(func)
        synced = self._synced.get(func)
        if synced is None:
            synced = self._synced[func] = super().ensure_sync(func)
        return synced


class LazyServices:
    """Builds the process's services on first use (after a server forks), once, thread-safely."""

    def __init__(self, config: Mapping[str, Any]) -> None:
        self._config = config
        self._services: Services | None = None
        self._lock = threading.Lock()

    def get(self) -> Services:
        if self._services is None:
            with self._lock:
                if self._services is None:
                    self._services = self._build()
        return self._services

    def _build(self) -> Services:
        # Workers starting together on a fresh database race to create the API's and the read
        # models' tables; the losers fail (PostgreSQL has no atomic CREATE … IF NOT EXISTS) and
        # find them made. (The event store's own are made one process at a time, under a lock:
        # domain/storage.py.)
        attempt = 1
        while True:
            try:
                return Services(
                    self._config["DATABASE_URL"],
                    inline_projections=self._config["INLINE_PROJECTIONS"],
                    in_flight_limit=timedelta(
                        seconds=self._config["IDEMPOTENCY_IN_FLIGHT_SECONDS"]
                    ),
                    answers_kept=timedelta(hours=self._config["IDEMPOTENCY_ANSWERS_KEPT_HOURS"]),
                    database_deadline=self._config["DATABASE_DEADLINE_SECONDS"],
                )
            except (PersistenceError, DBAPIError):
                if attempt == BUILD_ATTEMPTS:
                    raise
                time.sleep(0.05 * attempt)
                attempt += 1

    def close(self) -> None:
        if self._services is not None:
            self._services.close()
            self._services = None


def not_cached_for_others(response: Response) -> Response:
    """After every request: an answer to a request carrying a credential is not kept by any
    cache (a shared cache may not keep it anyway, RFC 9111 §3.5, but a browser's may, and it
    holds a hand or every card), errors included; an API answer varies with the credentials."""
    environ = request.environ
    if any(key in environ for key in CREDENTIAL_KEYS):
        response.headers["Cache-Control"] = "private, no-store"
    if environ.get("PATH_INFO", "").startswith("/api/"):
        # getlist, not `in`: werkzeug answers `in` by raising (and building) a KeyError when
        # the header is absent, which is every API answer but a few.
        if response.headers.getlist("Vary"):
            response.vary.update(CREDENTIALS)
        else:  # the common case, without parsing and writing a header set
            response.headers["Vary"] = VARY_CREDENTIALS
    return response


def create_app(config: Mapping[str, Any] | None = None) -> Flask:
    """The web application; `config` overrides settings read from the environment."""
    app = ServiceFlask(__name__, static_folder=None)  # the pages' files: api/web.py serves them
    app.url_map.converters["count"] = CountConverter
    app.url_map.merge_slashes = False  # `//` names no resource: a 404, not a redirect page
    app.json = OrjsonProvider(app)
    settings = Settings.from_env()
    app.config.update(
        DATABASE_URL=settings.database_url,
        INLINE_PROJECTIONS=settings.inline_projections,
        AUDITOR_TOKEN=settings.auditor_token,
        DATABASE_DEADLINE_SECONDS=settings.database_deadline_seconds,
        IDEMPOTENCY_IN_FLIGHT_SECONDS=settings.idempotency_in_flight_seconds,
        IDEMPOTENCY_ANSWERS_KEPT_HOURS=settings.idempotency_answers_kept_hours,
        MAX_CONTENT_LENGTH=MAX_BODY_BYTES,
        PROVIDE_AUTOMATIC_OPTIONS=False,  # OPTIONS is a 405 with Allow, like any other method
        API_TITLE="Bohnanza records",
        API_VERSION="1",
        OPENAPI_VERSION="3.0.3",
        OPENAPI_URL_PREFIX="/",
        OPENAPI_JSON_PATH="openapi.json",
        OPENAPI_SWAGGER_UI_PATH="/docs",
        OPENAPI_SWAGGER_UI_URL="/docs/static/",
    )
    app.config.update(config or {})
    api = BohnanzaApi(
        app,
        spec_kwargs={
            "extra_plugins": [
                OperationIds(),
                ClosedSchemas(),
                CommandTypes(),
                NoteForOneSeat(),
                RecordDocument(),
            ],
            "info": {
                "description": "Play, record and replay games of Bohnanza. Rule violations "
                "cite sections of the rules reference, served at `/rules` (`RULES §8.3` is "
                "`/rules#s8.3`). Authenticate as a seat or host with "
                "`Authorization: Bearer <token>`. Credentials sent with a request about a game must "
                "be good ones: another game's token, or a wrong `X-Auditor-Token`, is a 401 on "
                "every route under `/api/games/{game_id}`, those open to the public included.\n\n"
                + CACHING
            },
            "components": {"securitySchemes": SECURITY_SCHEMES},
        },
    )
    refine_field_documents(api.ma_plugin.converter)
    for blueprint in (games.blp, live.blp, replays.blp, records.blp, stats.blp, meta.blp):
        api.register_blueprint(blueprint)
    meta.secure_the_docs(app, api._make_doc_blueprint_name())
    app.register_blueprint(meta.assets)
    app.register_blueprint(web)  # the web pages: not part of the API, so not in the OpenAPI
    errors.register(app)
    app.before_request(
        games.game_and_credentials_checked
    )  # after the hooks that refuse a request's form
    app.after_request(not_cached_for_others)
    app.extensions["bohnanza"] = LazyServices(app.config)
    app.wsgi_app = within_database_deadline(  # type: ignore[method-assign]
        CommandPath(app, app.wsgi_app), app.config["DATABASE_DEADLINE_SECONDS"]
    )
    return app


def within_database_deadline(wsgi_app: Callable[..., Any], seconds: float) -> Callable[..., Any]:
    """`wsgi_app`, each request's database work waiting at most `seconds` in all before it is
    a 503 (domain/deadline.py). A streamed answer's later parts (a live stream) are outside it:
    the live hub's thread writes them."""

    def serve(environ: dict[str, Any], start_response: Callable[..., Any]) -> Any:
        with deadline(seconds):
            return wsgi_app(environ, start_response)

    serve.__wrapped__ = wsgi_app  # type: ignore[attr-defined]  # what it wraps, as functools does
    return serve
