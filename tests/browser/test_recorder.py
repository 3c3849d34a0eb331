"""The tabletop recorder: create a game, then enter the deal and each move as the table plays."""

from __future__ import annotations

from typing import Any

import pytest

from .conftest import PHONE, Pages, Site, screenshot

pytestmark = [pytest.mark.browser, pytest.mark.slow]

DEAL = [
    ["chili", "wax", "wax", "blue", "green"],
    ["blue", "stink", "soy", "wax", "red"],
    ["green", "green", "garden", "coffee", "chili"],
]
"""Ana's, Ben's and Cleo's opening hands, front card first."""


class Recorder:
    """The recorder page of one tabletop game, and the game as the API shows its host."""

    def __init__(self, page: Any, site: Site) -> None:
        self.page = page
        self.site = site
        self.game_id = page.evaluate("new URLSearchParams(location.hash.slice(1)).get('game')")
        self.token = page.evaluate(
            "id => JSON.parse(localStorage.getItem(`bohnanza.tokens.${id}`)).host", self.game_id
        )

    def view(self) -> dict[str, Any]:
        return self.site.get(
            f"/api/games/{self.game_id}/view", headers={"Authorization": f"Bearer {self.token}"}
        )

    def enter(self, action: Any) -> None:
        """Do something on the page and wait until the table shows its outcome."""
        before = self.page.locator("#log li").count() and self.page.inner_text("#log li >> nth=0")
        action()
        self.page.wait_for_function(
            "before => document.querySelector('#entry-message .refusal') || "
            "document.querySelector('#log li')?.textContent !== before",
            arg=before,
        )

    def bean(self, bean: str) -> None:
        self.page.click(f".palette button[data-bean='{bean}']")


@pytest.fixture
def recorder(pages: Pages, site: Site) -> Recorder:
    """A tabletop game of Ana, Ben and Cleo created on the recorder page, its DEAL entered."""
    page = pages.open("/record")
    page.fill("#seats", "Ana, Ben, Cleo")
    page.select_option("#ruleset", "rio-grande")
    page.click("#create")
    page.wait_for_selector("#entry-status")
    recorder = Recorder(page, site)
    for hand in DEAL:
        for bean in hand:
            recorder.bean(bean)
    recorder.enter(lambda: page.click("#enter-deal"))
    return recorder


def test_the_host_enters_the_deal_and_sees_every_hand(recorder: Recorder) -> None:
    page = recorder.page

    for seat, hand in enumerate(DEAL):
        shown = page.eval_on_selector_all(
            f"#table .seat[data-seat='{seat}'] .hand [data-bean]",
            "es => es.map(e => e.dataset.bean)",
        )
        assert shown == hand
    assert [seat["hand"] for seat in recorder.view()["seats"]] == DEAL
    assert "Ana plants the front card (Chili)" in page.inner_text("#what-now")


def test_an_illegal_entry_is_refused_at_once_with_its_rules_section(recorder: Recorder) -> None:
    page = recorder.page
    version = recorder.view()["version"]

    recorder.enter(lambda: [page.keyboard.press("5"), page.keyboard.press("7")])

    refusal = page.inner_text("#entry-message .refusal")
    assert "RULES §5.1.2" in refusal
    assert "Ana must first plant the front card (Chili)" in refusal
    assert recorder.view()["version"] == version
    assert page.locator("#buffer [data-bean]").count() == 0
    screenshot(page, "recorder-refusal", full_page=False)


def test_a_whole_turn_is_recorded_with_a_trade(recorder: Recorder) -> None:
    page = recorder.page

    recorder.enter(lambda: page.keyboard.press("q"))
    assert page.locator("#table .seat[data-seat='0'] .field[data-bean='chili']").count() == 1
    recorder.bean("stink")
    recorder.enter(lambda: recorder.bean("soy"))
    page.click("[data-key='give-up-0']")
    recorder.bean("wax")
    page.click("[data-key='offer-to-1']")
    recorder.enter(lambda: page.click("#make-offer"))
    recorder.enter(lambda: page.click("#open-offers .accept"))
    recorder.enter(lambda: page.keyboard.press("t"))
    recorder.enter(lambda: page.keyboard.press("w"))
    page.click("[data-key='source-soy']")
    recorder.enter(lambda: page.keyboard.press("e"))
    assert page.get_attribute("[data-key='seat-1']", "aria-pressed") == "true"
    recorder.enter(lambda: page.keyboard.press("q"))
    screenshot(page, "recorder-1280x800", full_page=False)
    for bean in ("coffee", "wax"):
        recorder.bean(bean)
    recorder.enter(lambda: recorder.bean("blue"))

    view = recorder.view()
    assert (view["turn"], view["active_seat"], view["phase"]) == (2, 1, "plant")
    assert view["seats"][0]["fields"] == [
        {"bean": "chili", "count": 1},
        {"bean": "wax", "count": 1},
        {"bean": "soy", "count": 1},
    ]
    assert view["seats"][0]["hand"] == ["wax", "wax", "blue", "green", "coffee", "wax", "blue"]
    assert view["seats"][1]["fields"][0] == {"bean": "stink", "count": 1}
    assert "Ben is active" in page.inner_text("#table .status")
    assert page.locator("#entry-message .refusal").count() == 0
    screenshot(page, "recorder-full-page")
    page.set_viewport_size(PHONE)
    assert page.evaluate("document.documentElement.scrollWidth") <= PHONE["width"]
    screenshot(page, "recorder-390x844", full_page=False)


def test_a_seat_other_than_the_active_one_is_offered_only_the_active_seat_to_trade_with(
    recorder: Recorder,
) -> None:
    page = recorder.page
    recorder.enter(lambda: page.keyboard.press("q"))
    recorder.bean("stink")
    recorder.enter(lambda: recorder.bean("soy"))

    page.click("[data-key='seat-2']")

    recipients = page.eval_on_selector_all(
        "#trade [data-key^='offer-to-']", "es => es.map(e => e.dataset.key)"
    )
    assert recipients == ["offer-to-0"]
    assert page.get_attribute("[data-key='offer-to-0']", "aria-pressed") == "true"
    assert page.locator("#trade [data-key^='give-up-']").count() == 0
    assert page.locator("#trade [data-key^='give-hand-']").count() == len(DEAL[2])
