"""The web pages as the server sends them (no browser needed): local assets only, a strict content
security policy, the bean table from the rules, and nothing of it in the API's OpenAPI."""

from __future__ import annotations

import re
from collections.abc import Iterator

import pytest
from flask import Flask
from flask.testing import FlaskClient

from api.app import create_app
from domain.rules.beans import BEANS

ANY_GAME = "0b0b0b0b-0000-4000-8000-000000000000"
PAGES = ["/", "/record", "/import", f"/games/{ANY_GAME}/replay", f"/play/{ANY_GAME}"]


@pytest.fixture
def client() -> Iterator[FlaskClient]:
    app: Flask = create_app({"DATABASE_URL": "memory://", "TESTING": True})
    try:
        yield app.test_client()
    finally:
        app.extensions["bohnanza"].close()


@pytest.mark.parametrize("path", PAGES)
def test_each_page_is_a_shell_loading_its_module_from_the_app(
    client: FlaskClient, path: str
) -> None:
    response = client.get(path)

    assert response.status_code == 200
    html = response.get_data(as_text=True)
    links = re.findall(r'(?:src|href)="([^"]+)"', html)
    assert links
    assert all(re.match(r"(/(?!/)|#)", link) for link in links), links
    assert re.search(r'<script type="module" src="/assets/js/\w+\.js">', html)
    for link in links:
        if link.startswith("/assets/"):
            assert client.get(link).status_code == 200, link


@pytest.mark.parametrize("path", PAGES)
def test_each_page_forbids_scripts_and_styles_from_anywhere_else(
    client: FlaskClient, path: str
) -> None:
    policy = client.get(path).headers["Content-Security-Policy"]

    assert "default-src 'self'" in policy
    assert "script-src 'self'" in policy
    assert "unsafe-inline" not in policy


def test_the_bean_table_for_the_pages_is_the_rules_own(client: FlaskClient) -> None:
    beans = client.get("/beans.json").get_json()["beans"]

    assert [bean["id"] for bean in beans] == list(BEANS)
    for bean in beans:
        assert tuple(bean["meter"]) == BEANS[bean["id"]].meter
        assert bean["label"] == BEANS[bean["id"]].label
        assert bean["count"] == BEANS[bean["id"]].count


def test_the_pages_are_not_part_of_the_api_document(client: FlaskClient) -> None:
    paths = client.get("/openapi.json").get_json()["paths"]

    assert all(path.startswith("/api/") for path in paths)


def test_an_unknown_game_id_in_a_page_path_is_not_found(client: FlaskClient) -> None:
    response = client.get("/games/not-a-game/replay")

    assert response.status_code == 404


def test_the_site_icon_is_served_for_pages_that_name_none(client: FlaskClient) -> None:
    response = client.get("/favicon.ico")

    assert response.status_code == 200
    assert response.mimetype == "image/svg+xml"
