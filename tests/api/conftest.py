"""Fixtures for the HTTP API tests: the Flask app on a fresh store and its test client."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import pytest
from flask import Flask
from flask.testing import FlaskClient

from api.app import create_app

from .support import CreatedGame, create_game


@contextmanager
def web_app(database_url: str, **config: object) -> Iterator[Flask]:
    """The web application on this store, its services closed at the end."""
    app = create_app({"DATABASE_URL": database_url, "TESTING": True, **config})
    try:
        yield app
    finally:
        app.extensions["bohnanza"].close()


@pytest.fixture
def web() -> Iterator[Flask]:
    """The web application on an empty in-memory store."""
    with web_app("memory://") as app:
        yield app


@pytest.fixture
def sqlite_web(tmp_path: Path) -> Iterator[Flask]:
    """The web application on an empty SQLite file."""
    with web_app(f"sqlite:///{tmp_path / 'api.sqlite3'}") as app:
        yield app


@pytest.fixture
def client(web: Flask) -> FlaskClient:
    return web.test_client()


@pytest.fixture
def game(client: FlaskClient) -> CreatedGame:
    """A new three-seat digital game (seed 7): Ana (seat 0) starts with a Chili in front."""
    return create_game(client)
