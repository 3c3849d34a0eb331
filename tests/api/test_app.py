"""The Flask subclass the app is built on, and what creating the app costs (api/app.py)."""

from __future__ import annotations

import asyncio
from typing import Any

import pytest
from flask import Flask
from flask_smorest.spec import APISpecMixin

from api.app import ServiceFlask, create_app


def test_a_plain_function_is_looked_at_once_and_returned_as_it_is() -> None:
    app = ServiceFlask(__name__)

    def view() -> str:
        return "ok"

    assert app.ensure_sync(view) is view
    assert app.ensure_sync(view) is view
    assert list(app._synced) == [view]


def test_a_coroutine_function_gets_what_flask_gives_it() -> None:
    async def view() -> str:
        await asyncio.sleep(0)
        return "ok"

    answers = []
    for app in (Flask(__name__), ServiceFlask(__name__)):
        try:
            answers.append(app.ensure_sync(view)())
        except RuntimeError as error:  # without Flask's "async" extra, Flask refuses it
            answers.append(str(error))
    assert answers[0] == answers[1]


def test_bound_methods_made_anew_on_each_access_are_not_remembered() -> None:
    app = ServiceFlask(__name__)

    class Views:
        def view(self) -> str:
            return "ok"

    views = Views()
    for _ in range(3):
        assert app.ensure_sync(views.view)() == "ok"
    assert app._synced == {}


def test_creating_the_app_leaves_the_openapi_document_to_its_first_reader(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """A worker, a command line or a test that never serves the document does not build it
    (about a third of creating the app)."""
    built: list[str] = []
    for step in ("_register_responses", "_register_etag_headers"):
        original = getattr(APISpecMixin, step)

        def counted(api: Any, step: str = step, original: Any = original) -> None:
            built.append(step)
            original(api)

        monkeypatch.setattr(APISpecMixin, step, counted)
    app = create_app({"DATABASE_URL": "memory://", "TESTING": True})
    try:
        assert built == []

        document = app.test_client().get("/openapi.json").get_json()

        assert built == ["_register_responses", "_register_etag_headers"]
        assert "/api/games/{game_id}/commands" in document["paths"]
    finally:
        app.extensions["bohnanza"].close()
