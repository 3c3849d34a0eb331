"""The import page: choose a record file, see the rules' verdict on it, import it, open the game."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from .conftest import PHONE, Pages, Site, axe_violations, screenshot

pytestmark = [pytest.mark.browser, pytest.mark.slow]


@pytest.fixture
def record_file(site: Site, tmp_path: Path) -> Any:
    """A record of a game played here, written to a file (with changes, if asked)."""

    def write(name: str, change: Any = None) -> Path:
        game = site.new_game(seed=11)
        for body in ({"type": "plant", "field": 0}, {"type": "reveal"}):
            response = site.client.post(
                f"/api/games/{game.id}/commands", json=body, headers=game.seat(0)
            )
            assert response.status_code == 200
        secret = {"X-Auditor-Token": "tests"}  # an unfinished game's record needs the secret
        site.app.config["AUDITOR_TOKEN"] = "tests"
        record = site.get(f"/api/games/{game.id}/record", headers=secret)
        if change:
            change(record)
        path = tmp_path / name
        path.write_text(json.dumps(record))
        return path

    yield write
    site.app.config["AUDITOR_TOKEN"] = None


def test_a_legal_record_is_checked_imported_and_opened(
    pages: Pages, site: Site, record_file: Any
) -> None:
    page = pages.open("/import")

    page.set_input_files("#record-file", str(record_file("legal.json")))

    page.wait_for_selector("#verdict.legal")
    assert "Legal: every move follows the rules" in page.inner_text("#verdict")
    assert "3 commands checked" in page.inner_text("#verdict")
    screenshot(page, "import-verdict-1366x850", full_page=False)
    assert axe_violations(page) == []  # the verdict shown
    page.click("#import")
    page.wait_for_selector("#imported")
    link = page.get_attribute("#open-game", "href")
    page.click("#open-game")
    page.wait_for_selector("main[data-ready=true]")

    game_id = link.split("/")[2]
    assert page.url.startswith(f"{site.base}/games/{game_id}/replay")
    tokens = page.evaluate(
        "id => JSON.parse(localStorage.getItem(`bohnanza.tokens.${id}`))", game_id
    )
    assert set(tokens) == {"seat-0", "seat-1", "seat-2", "host"}


def test_an_illegal_record_shows_the_rule_it_breaks_and_is_not_offered(
    pages: Pages, site: Site, record_file: Any
) -> None:
    def plant_twice(record: dict[str, Any]) -> None:
        record["commands"].insert(2, dict(record["commands"][1]))  # a second Chili to plant

    page = pages.open("/import", viewport=PHONE)

    page.set_input_files("#record-file", str(record_file("illegal.json", plant_twice)))

    page.wait_for_selector("#verdict.illegal")
    assert "RULES §" in page.inner_text("#verdict .rule")
    assert page.get_attribute("#verdict a.rule", "href").startswith("/rules#s")
    assert page.locator("#import").count() == 0
    screenshot(page, "import-illegal-390x844", full_page=False)
    assert axe_violations(page) == []


def test_a_file_that_is_not_a_record_is_refused_with_its_reason(
    pages: Pages, site: Site, tmp_path: Path
) -> None:
    not_json = tmp_path / "notes.json"
    not_json.write_text("Ana won, I think")
    not_a_record = tmp_path / "other.json"
    not_a_record.write_text(json.dumps({"format": "something else"}))
    page = pages.open("/import")

    page.set_input_files("#record-file", str(not_json))
    page.wait_for_selector("#result .refusal")
    assert "is not JSON" in page.inner_text("#result")
    page.set_input_files("#record-file", str(not_a_record))
    page.wait_for_selector("#result .refusal[data-code='validation_error']")
