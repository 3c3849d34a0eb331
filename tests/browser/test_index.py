"""The index page: the stored games, with a way into each."""

from __future__ import annotations

import json
import re
import uuid
from typing import Any
from urllib.parse import parse_qs, urlsplit

import pytest

from .conftest import Pages, Site, screenshot

pytestmark = [pytest.mark.browser, pytest.mark.slow]


def test_the_index_lists_the_games_and_opens_a_replay(pages: Pages, site: Site) -> None:
    page = pages.open("/")
    row = page.locator(f"tr[data-game='{site.finished.id}']")

    assert "Ana, Ben, Cleo, Dan" in row.inner_text()
    assert "won by" in row.inner_text()
    screenshot(page, "index-1280x800", full_page=False)
    row.get_by_role("link", name="Replay").click()
    page.wait_for_selector("main[data-ready=true]")

    assert page.url == f"{site.base}/games/{site.finished.id}/replay?step=1&perspective=public"
    assert page.inner_text("#where").startswith("Step 1 of")


def test_the_index_shows_more_games_a_page_at_a_time(pages: Pages, site: Site) -> None:
    listed = site.get("/api/games")["games"]
    finished = next(game for game in listed if game["game_id"] == site.finished.id)
    first, second = ({**finished, "game_id": str(uuid.UUID(int=n))} for n in (1, 2))
    answers = {
        "0": {"games": [first], "total": 2, "next_offset": 1},
        "1": {"games": [second], "total": 2, "next_offset": None},
    }

    def answer(route: Any) -> None:
        offset = parse_qs(urlsplit(route.request.url).query).get("offset", ["0"])[0]
        route.fulfill(status=200, content_type="application/json", body=json.dumps(answers[offset]))

    page = pages.open("/")
    page.route(re.compile(r"/api/games(\?.*)?$"), answer)
    pages.goto(page, "/")
    assert "Showing 1 of 2 games." in page.inner_text("#games")
    page.get_by_role("button", name="More games").click()
    page.wait_for_selector(f"tr[data-game='{second['game_id']}']")

    assert page.locator("#games tbody tr").count() == 2
    assert page.get_by_role("button", name="More games").count() == 0
    assert "Showing 2 of 2 games." in page.inner_text("#games")


def test_a_copy_of_a_game_links_to_the_game_it_copies(pages: Pages, site: Site) -> None:
    listed = site.get("/api/games")["games"]
    finished = next(game for game in listed if game["game_id"] == site.finished.id)
    copy = {**finished, "game_id": str(uuid.UUID(int=3)), "duplicate_of": site.finished.id}
    page = pages.open("/")
    page.route(
        re.compile(r"/api/games(\?.*)?$"),
        lambda route: route.fulfill(
            status=200,
            content_type="application/json",
            body=json.dumps({"games": [copy], "total": 1, "next_offset": None}),
        ),
    )
    pages.goto(page, "/")

    row = page.locator(f"tr[data-game='{copy['game_id']}']")
    assert "a copy of game" in row.inner_text()
    original = row.get_by_role("link", name=f"game {site.finished.id[:8]}")
    assert original.get_attribute("href") == f"/games/{site.finished.id}/replay"
