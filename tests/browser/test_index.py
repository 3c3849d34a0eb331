"""The home page: the stored games with their scores, a page at a time, filtered by status,
player and ruleset, with a way into each."""

from __future__ import annotations

import json
import re
import uuid
from typing import Any
from urllib.parse import parse_qs, urlsplit

import pytest

from .conftest import PHONE, Pages, Site, screenshot

pytestmark = [pytest.mark.browser, pytest.mark.slow]


def listed(site: Site) -> dict[str, Any]:
    games = site.get("/api/games", query_string={"status": "ended"})["games"]
    return next(game for game in games if game["game_id"] == site.finished.id)


def answering(
    page: Any, pages: dict[str, dict[str, Any]], asked: list[dict[str, list[str]]]
) -> None:
    """Answer GET /api/games from `pages` by offset, noting each query."""

    def answer(route: Any) -> None:
        query = parse_qs(urlsplit(route.request.url).query)
        asked.append(query)
        body = pages[query.get("offset", ["0"])[0]]
        route.fulfill(status=200, content_type="application/json", body=json.dumps(body))

    page.route(re.compile(r"/api/games(\?.*)?$"), answer)


def test_the_index_lists_the_games_with_their_scores_and_opens_a_replay(
    pages: Pages, site: Site
) -> None:
    game = listed(site)
    page = pages.open("/?status=ended")  # the session's other tests add games newer than it
    row = page.locator(f"tr[data-game='{site.finished.id}']")

    for name, coins in zip(game["seats"], game["scores"], strict=True):
        assert f"{name} {coins}" in row.inner_text()
    assert row.locator(".scores .winner").all_inner_texts()[0].startswith(game["winners"][0])
    assert "won by Ana (tie broken by most hand cards)" in row.inner_text()
    screenshot(page, "index-1366x850", full_page=False)
    row.get_by_role("link", name="Replay").click()
    page.wait_for_selector("main[data-ready=true]")

    assert page.url == f"{site.base}/games/{site.finished.id}/replay?step=1&perspective=public"
    assert page.inner_text("#where").startswith("Step 1 of")


def test_the_index_shows_the_games_a_page_at_a_time(pages: Pages, site: Site) -> None:
    game = listed(site)
    copies = [{**game, "game_id": str(uuid.UUID(int=n))} for n in range(1, 46)]
    answers = {
        "0": {"games": copies[:20], "total": 45, "next_offset": 20},
        "20": {"games": copies[20:40], "total": 45, "next_offset": 40},
    }
    asked: list[dict[str, list[str]]] = []
    page = pages.open("/")
    answering(page, answers, asked)
    pages.goto(page, "/")
    assert "Games 1–20 of 45 · page 1 of 3" in page.inner_text("#page-status")

    page.get_by_role("link", name="Older ›").click()
    page.wait_for_selector("main[data-ready=true]")

    assert page.url == f"{site.base}/?page=2"
    assert "Games 21–40 of 45 · page 2 of 3" in page.inner_text("#page-status")
    assert asked[-1]["offset"] == ["20"]
    assert asked[-1]["limit"] == ["20"]
    assert page.get_by_role("link", name="‹ Newer").get_attribute("href") == "/"


def test_the_index_filters_by_status_player_and_ruleset(pages: Pages, site: Site) -> None:
    asked: list[dict[str, list[str]]] = []
    page = pages.open("/")
    answering(page, {"0": {"games": [], "total": 0, "next_offset": None}}, asked)
    pages.goto(page, "/")

    page.select_option("#filter-status", "ended")
    page.fill("#filter-player", "Ana")
    page.select_option("#filter-ruleset", "amigo")
    page.click("#apply-filters")
    page.wait_for_selector("main[data-ready=true]")

    assert page.url == f"{site.base}/?status=ended&player=Ana&ruleset=amigo"
    assert {key: asked[-1][key] for key in ("status", "player", "ruleset")} == {
        "status": ["ended"],
        "player": ["Ana"],
        "ruleset": ["amigo"],
    }
    assert page.input_value("#filter-player") == "Ana"
    assert "No games match these filters." in page.inner_text("#games")


def test_the_filters_find_the_stored_games(pages: Pages, site: Site) -> None:
    page = pages.open("/?status=ended&player=Dan")

    rows = page.locator("#games tbody tr")
    assert rows.count() >= 1
    assert all("Dan" in text for text in rows.all_inner_texts())
    assert page.locator(f"tr[data-game='{site.finished.id}']").count() == 1


def test_a_copy_of_a_game_links_to_the_game_it_copies(pages: Pages, site: Site) -> None:
    copy = {**listed(site), "game_id": str(uuid.UUID(int=3)), "duplicate_of": site.finished.id}
    page = pages.open("/")
    answering(page, {"0": {"games": [copy], "total": 1, "next_offset": None}}, [])
    pages.goto(page, "/")

    row = page.locator(f"tr[data-game='{copy['game_id']}']")
    assert "a copy of game" in row.inner_text()
    original = row.get_by_role("link", name=f"game {site.finished.id[-8:]}")
    assert original.get_attribute("href") == f"/games/{site.finished.id}/replay"


def test_the_index_fits_a_phone(pages: Pages, site: Site) -> None:
    page = pages.open("/", viewport=PHONE)

    assert page.evaluate("document.documentElement.scrollWidth") <= PHONE["width"]
    screenshot(page, "index-390x844", full_page=False)


def test_the_players_over_ended_games_are_listed_with_their_trading(
    pages: Pages, site: Site
) -> None:
    board = {s["name"]: s for s in site.get("/api/leaderboard")["standings"]}
    page = pages.open("/")
    rows = page.locator("#standings-table tbody tr")

    assert rows.count() == min(len(board), 20) > 0
    assert page.locator("#more-standings").count() == (len(board) > 20)
    ana = page.locator("#standings-table tbody tr", has=page.locator("th", has_text="Ana"))
    cells = ana.locator("td").all_inner_texts()
    assert cells[:2] == [str(board["Ana"]["games"]), str(board["Ana"]["wins"])]
    rate = board["Ana"]["acceptance_rate"]
    assert cells[5] == ("–" if rate is None else f"{round(rate * 100)}%")
    ana.get_by_role("link", name="Ana").click()
    page.wait_for_selector("main[data-ready=true]")
    assert page.url == f"{site.base}/?player=Ana"
    page.locator("#players").scroll_into_view_if_needed()
    screenshot(page, "index-players-1366x850", full_page=False)


def test_the_index_shows_the_best_twenty_players_and_says_where_the_rest_are(
    pages: Pages, site: Site
) -> None:
    one = site.get("/api/leaderboard")["standings"][0]
    best = [{**one, "name": f"Player {n:02}"} for n in range(20)]
    asked: list[dict[str, list[str]]] = []

    def answer(route: Any) -> None:
        asked.append(parse_qs(urlsplit(route.request.url).query))
        body = {
            "ruleset": None,
            "players": None,
            "name": None,
            "standings": best,
            "next_offset": 20,
        }
        route.fulfill(status=200, content_type="application/json", body=json.dumps(body))

    page = pages.open("/")
    page.route(re.compile(r"/api/leaderboard(\?.*)?$"), answer)
    pages.goto(page, "/")

    assert asked[-1]["limit"] == ["20"]
    assert page.locator("#standings-table tbody tr").count() == 20
    assert "The best 20 players" in page.inner_text("#more-standings")
