"""The index page: the stored games, with a way into each."""

from __future__ import annotations

import pytest

from .conftest import Pages, Site, screenshot

pytestmark = pytest.mark.browser


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
