"""Notes on a replay's steps: their authors edit and delete them on the page; no one else can."""

from __future__ import annotations

from typing import Any

import pytest

from .conftest import Pages, Site, axe_violations

pytestmark = [pytest.mark.browser, pytest.mark.slow]


def note(
    site: Site, step: int, text: str, headers: dict[str, str] | None = None, **body: Any
) -> dict[str, Any]:
    response = site.client.post(
        f"/api/games/{site.finished.id}/annotations",
        json={"step": step, "text": text, "visibility": "public", **body},
        headers=headers or {},
    )
    assert response.status_code == 201, response.get_json()
    return response.get_json()


def plantings(site: Site) -> list[int]:
    """Steps everyone sees whole (a bean planted): notes on them are everyone's to read."""
    steps = site.get(f"/api/games/{site.finished.id}/steps")["steps"]
    return [step["position"] for step in steps if step["kind"] == "BeanPlanted"]


def open_as_ben(pages: Pages, site: Site, step: int) -> Any:
    path = f"/games/{site.finished.id}/replay?step={step}#token={site.finished.seat_tokens[1]}"
    page = pages.open(path)
    page.wait_for_function(
        "() => document.querySelector('#step-heading').textContent.includes('seen by Ben')"
    )
    return page


def ben_notes(pages: Pages, site: Site, planting: int, text: str) -> tuple[Any, int, Any]:
    """Ben's replay at one of the plantings, with a note he just added there: the page, the
    step and the note."""
    step = plantings(site)[planting]
    page = open_as_ben(pages, site, step)
    page.fill("#note-text", text)
    page.click("#add-note")
    mine = page.locator("#notes .note", has_text=text)
    mine.wait_for()
    return page, step, mine


def test_a_seat_edits_its_own_note_on_the_page(pages: Pages, site: Site) -> None:
    page, step, mine = ben_notes(pages, site, 10, "Planting the Wax here was rash")

    mine.get_by_role("button", name="Edit").click()
    page.fill("#notes textarea", "Planting the Wax here was right after all")
    page.locator("#notes select").select_option("!")
    assert axe_violations(page) == []  # the note's edit form, open
    page.get_by_role("button", name="Save").click()

    page.wait_for_selector("#notes .note-text:text('right after all')")
    page.reload()
    page.wait_for_selector("main[data-ready=true]")
    edited = page.locator("#notes .note", has_text="Planting the Wax")
    edited.wait_for()
    assert edited.locator(".note-text").inner_text() == "Planting the Wax here was right after all"
    assert "!" in edited.locator(".note-glyph").inner_text()
    assert "!" in page.inner_text(f"#step-{step} .glyph")


def test_a_seat_deletes_its_own_note_after_saying_so(pages: Pages, site: Site) -> None:
    page, _, mine = ben_notes(pages, site, 11, "A note Ben will take back")

    mine.get_by_role("button", name="Delete").click()
    page.click("#confirm-yes")

    page.wait_for_selector("#notes :text('No notes on this step.')")
    page.reload()
    page.wait_for_selector("main[data-ready=true]")
    page.wait_for_selector("#notes :text('No notes on this step.')")


def test_no_one_but_its_author_is_offered_to_change_a_note(pages: Pages, site: Site) -> None:
    step = plantings(site)[12]
    note(site, step, "Cleo's public note", headers=site.finished.seat(2))
    note(site, step, "A kibitzer's note", author="Kibitzer")

    as_ben = open_as_ben(pages, site, step)
    as_public = pages.open(f"/games/{site.finished.id}/replay?step={step}")
    as_public.wait_for_selector("#notes .note")

    for page in (as_ben, as_public):
        assert page.locator("#notes .note").count() == 2
        assert page.locator("#notes button.edit-note").count() == 0
        assert page.locator("#notes button.delete-note").count() == 0
