"""Every page of the app, checked with axe-core (package.json's version, installed by npm): no
serious or critical violation, at the desktop and the phone size, in the states a visitor meets
them in. A screenshot of each is kept in test-artifacts/screenshots/<page>-<size>.png.

The API docs are Swagger UI's own markup inside the site's page: axe checks the page around it
(header, landmark, heading), not Swagger UI's."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest

from replays.forks import create_fork

from .conftest import DESKTOP, PHONE, READY, Game, Pages, Site, axe_violations, screenshot

pytestmark = [pytest.mark.browser, pytest.mark.slow]

SIZES = {"phone": PHONE, "desktop": DESKTOP}


def trading(site: Site) -> Game:
    """A game in phase 2: Ana has turned up two cards and may offer them."""
    game = site.new_game()
    for body in ({"type": "plant", "field": 0}, {"type": "reveal"}):
        response = site.client.post(
            f"/api/games/{game.id}/commands", json=body, headers=game.seat(0)
        )
        assert response.status_code == 200
    return game


def running_replay(site: Site) -> str:
    return f"/games/{trading(site).id}/replay?step=4"


def finished_replay(site: Site) -> str:
    return f"/games/{site.finished.id}/replay?step=200"


def fork_replay(site: Site) -> str:
    """A what-if fork of an ended game: its page names the game it came from, both outcomes."""
    return f"/games/{create_fork(site.store, site.ended_game(9), 30).game_id}/replay"


def seat_table(site: Site) -> str:
    game = trading(site)
    return f"/play/{game.id}#token={game.seat_tokens[0]}"


def waiting_table(site: Site) -> str:
    game = trading(site)
    return f"/play/{game.id}#token={game.seat_tokens[2]}"


LIVE = "main[data-ready=true] #live-status .live-badge.live"
"""A page following its game: ready once its stream is open (the network never falls idle)."""

PAGES: dict[str, tuple[Callable[[Site], str], str, list[str]]] = {
    "index": (lambda site: "/", READY, []),
    "replay": (finished_replay, READY, []),
    "replay-live": (running_replay, LIVE, []),
    "replay-fork": (fork_replay, LIVE, []),
    "play-trading": (seat_table, LIVE, []),
    "play-waiting": (waiting_table, LIVE, []),
    "record": (lambda site: "/record", READY, []),
    "import": (lambda site: "/import", READY, []),
    "rules": (lambda site: "/rules#s14-E6", READY, []),
    "docs": (lambda site: "/docs", ".swagger-ui .opblock", ["#swagger-ui-container"]),
}


LONG_PAGES = {"rules"}
"""Pages screenshot as the window shows them, not whole: the rulebook is 27,000 pixels tall at
the phone size, and saving it whole took 1.2–1.5 s a size, for a picture nobody reads."""


@pytest.mark.parametrize("name", PAGES)
def test_a_page_has_no_serious_accessibility_violation(pages: Pages, site: Site, name: str) -> None:
    """At the phone size as loaded, then at the desktop size (one load: the layout follows the
    window through CSS alone)."""
    path, ready, excluded = PAGES[name]
    page = pages.open(path(site), viewport=PHONE, ready=ready)
    found = {}
    for size, viewport in SIZES.items():
        page.set_viewport_size(viewport)
        found[size] = axe_violations(page, exclude=excluded)
        screenshot(page, f"{name}-{size}", full_page=name not in LONG_PAGES)

    assert found == {"phone": [], "desktop": []}


def test_the_replays_folded_offers_coin_table_and_numbers_opened_have_none_either(
    pages: Pages, site: Site
) -> None:
    page: Any = pages.open(finished_replay(site))
    page.click("#coin-table summary")
    page.click("#keys summary")
    page.locator("#step-list details.run summary").first.click()
    page.click("#numbers summary")
    page.wait_for_selector("#numbers[data-loaded=true]")

    assert axe_violations(page) == []
