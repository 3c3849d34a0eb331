"""A seat's table tells its player what the table waits for and helps with the moves: the status
line, the your-turn notice, new cards marked, counter-offers, tap to plant, and a question before
a harvest that earns nothing."""

from __future__ import annotations

from typing import Any

import pytest

from .conftest import PHONE, Game, Pages, Site, axe_violations, screenshot

pytestmark = [pytest.mark.browser, pytest.mark.slow]

PREFERENCE = ("draw", "reveal", "end-trading", "plant")


def command(site: Site, game: Game, seat: int, **body: Any) -> dict[str, Any]:
    response = site.client.post(
        f"/api/games/{game.id}/commands", json=body, headers=game.seat(seat)
    )
    assert response.status_code == 200, response.get_json()
    return response.get_json()


def play_until(site: Site, game: Game, done: Any) -> None:
    """Play the first legal command by PREFERENCE (the active seat first) until `done(summary)`."""
    for _ in range(300):
        summary = site.get(f"/api/games/{game.id}")
        if done(summary):
            return
        seats = [summary["active_seat"]] + [s for s in range(3) if s != summary["active_seat"]]
        for seat in seats:
            legal = site.get(f"/api/games/{game.id}/legal", headers=game.seat(seat))["commands"]
            chosen = next((c for kind in PREFERENCE for c in legal if c["type"] == kind), None)
            if chosen:
                command(site, game, seat, **{k: v for k, v in chosen.items() if k != "seat"})
                break
    raise AssertionError("the game never got there")


def table_of(pages: Pages, game: Game, seat: int, **options: Any) -> Any:
    return pages.open(f"/play/{game.id}#token={game.seat_tokens[seat]}", **options)


def wait_for_version(page: Any, version: int) -> None:
    page.wait_for_function(
        "v => Number(document.querySelector('main').dataset.version) >= v", arg=version
    )


def test_the_status_line_says_the_table_waits_for_a_seat_planting_traded_cards(
    pages: Pages, site: Site
) -> None:
    game = site.new_game()  # Ana starts; she turns up Chili and Garden
    command(site, game, 0, type="plant", field=0)
    command(site, game, 0, type="reveal")
    command(site, game, 0, type="offer", to=1, revealed=["garden"], wants=[])
    command(site, game, 1, type="accept", offer=1)
    command(site, game, 0, type="end-trading")
    last = command(site, game, 0, type="plant", field=0, bean="chili")

    page = table_of(pages, game, 0)
    wait_for_version(page, last["version"])

    status = page.inner_text("#turn-status")
    assert "Waiting for Ben to plant the traded cards; then you draw." in status
    assert "your turn" in status
    assert page.locator("#actions button.legal[data-command-type='draw']").count() == 0
    screenshot(page, "seat-table-waiting-1366x850", full_page=False)


def test_the_status_line_says_why_the_front_card_cannot_be_planted(
    pages: Pages, site: Site
) -> None:
    game = site.new_game(seed=4)  # Ana's fields hold Stink, Green and Garden when Blue is in front
    play_until(site, game, lambda s: s["turn"] == 4)

    page = table_of(pages, game, 0)

    assert "Your turn, Ana: plant your front card (Blue)." in page.inner_text("#turn-status")
    why = page.inner_text("#turn-status .why")
    assert "Your front card (Blue) fits none of your fields: harvest a field" in why
    assert "RULES §7.3" in why
    assert page.get_attribute("#turn-status .why a", "href") == "/rules#s7.3"
    assert page.locator("#actions button.legal[data-command-type='plant']").count() == 0


def test_the_tab_title_says_when_the_table_comes_to_the_seat(pages: Pages, site: Site) -> None:
    game = site.new_game()
    bens = table_of(pages, game, 1)
    assert not bens.title().startswith("▶")
    bens.check("#turn-sound")

    play_until(site, game, lambda s: s["active_seat"] == 1)

    bens.wait_for_function("() => document.title.startsWith('▶ Your move')")
    assert "Your turn, Ben" in bens.inner_text("#turn-status")
    bens.reload()
    bens.wait_for_selector("main[data-ready=true]")
    assert bens.is_checked("#turn-sound")


def test_the_cards_a_seat_draws_are_marked_new(pages: Pages, site: Site) -> None:
    game = site.new_game()
    anas = table_of(pages, game, 0)
    play_until(site, game, lambda s: s["phase"] == "draw")
    wait_for_version(anas, site.get(f"/api/games/{game.id}")["version"])
    assert anas.locator(".seat[data-seat='0'] .new-card").count() == 0

    anas.click("#actions button.legal[data-command-type='draw']")

    new = anas.locator(".seat[data-seat='0'] .open-hand .new-card")
    new.first.wait_for()
    assert new.count() == 3
    hand = anas.locator(".seat[data-seat='0'] .open-hand .card")
    assert anas.evaluate("n => n.classList.contains('new-card')", hand.last.element_handle())
    assert "(new)" in new.first.inner_text()


def test_an_offer_is_answered_with_a_counter_offer(pages: Pages, site: Site) -> None:
    game = site.new_game()  # Ben holds Stink, Coffee, Blue, Red, Coffee; Ana Wax behind her Chili
    command(site, game, 0, type="plant", field=0)
    command(site, game, 0, type="reveal")
    offer = command(site, game, 1, type="offer", to=0, hand=[0], wants=["chili"])
    anas = table_of(pages, game, 0)
    wait_for_version(anas, offer["version"])

    anas.click("[data-offer='1'] button.counter")
    assert "Counter-offer to #1" in anas.inner_text("#offer-form")
    assert anas.get_attribute("[data-key='offer-to-1']", "aria-pressed") == "true"
    assert anas.locator("#wanted [data-key^='wanted-']").all_inner_texts()[0].startswith("Stink")
    anas.click("[data-key='give-hand-0']")  # a Wax from her hand instead of the Chili asked for
    assert axe_violations(anas) == []  # the counter-offer form, open
    anas.click("#make-offer")

    anas.wait_for_selector("#table .offers [data-offer='2']")
    view = site.get(f"/api/games/{game.id}/view", headers=game.seat(0))
    assert [(o["id"], o["to"], o["wants"]) for o in view["offers"]] == [(2, 1, ["stink"])]
    steps = [s["summary"] for s in site.get(f"/api/games/{game.id}/steps")["steps"]]
    assert any(line.endswith("#1 Ana declines") for line in steps)


def test_a_card_tapped_then_a_field_tapped_is_planted_there(pages: Pages, site: Site) -> None:
    game = site.new_game()
    anas = table_of(pages, game, 0, viewport=PHONE)

    anas.click(".seat[data-seat='0'] .open-hand button.card.tappable")
    anas.click(".seat[data-seat='0'] .field[data-path='/seats/0/fields/1'] .plant-here")

    anas.wait_for_selector(
        ".seat[data-seat='0'] .field[data-path='/seats/0/fields/1'][data-bean='chili']"
    )
    fields = site.get(f"/api/games/{game.id}/view")["seats"][0]["fields"]
    assert [f["bean"] for f in fields] == [None, "chili", None]
    screenshot(anas, "seat-table-tap-to-plant-390x844", full_page=False)


def test_a_harvest_worth_no_coin_asks_first(pages: Pages, site: Site) -> None:
    game = site.new_game()
    command(site, game, 0, type="plant", field=0)  # a lone Chili: harvested now it earns nothing
    anas = table_of(pages, game, 0)

    anas.click("#actions button.legal[data-command-type='harvest']")
    anas.wait_for_selector("dialog.confirm[open]")
    assert "Harvest field 1 for 0 coins?" in anas.inner_text("dialog.confirm")
    assert axe_violations(anas) == []  # the confirmation, open
    anas.click("#confirm-no")
    assert site.get(f"/api/games/{game.id}/view")["seats"][0]["fields"][0]["count"] == 1

    anas.click("#actions button.legal[data-command-type='harvest']")
    anas.click("#confirm-yes")

    anas.wait_for_selector(".seat[data-seat='0'] .field[data-path='/seats/0/fields/0'].empty")
    assert site.get(f"/api/games/{game.id}/view")["seats"][0]["fields"][0]["count"] == 0


def test_the_seats_table_fits_a_phone_with_its_status_line(pages: Pages, site: Site) -> None:
    game = site.new_game()
    page = table_of(pages, game, 1, viewport=PHONE)

    assert "Waiting for Ana to plant from the hand" in page.inner_text("#turn-status")
    assert page.evaluate("document.documentElement.scrollWidth") <= PHONE["width"]
    screenshot(page, "seat-table-390x844", full_page=False)


def test_an_acceptance_that_names_many_cards_wraps_within_a_phones_width(
    pages: Pages, site: Site
) -> None:
    game = site.new_game()  # Ana starts; she turns up Chili and Garden; Ben holds Stink, Coffee…
    command(site, game, 0, type="plant", field=0)
    command(site, game, 0, type="reveal")
    wants = ["stink", "coffee", "blue", "red"]
    command(site, game, 0, type="offer", to=1, revealed=["chili", "garden"], wants=wants)
    page = table_of(pages, game, 1, viewport=PHONE)

    accept = page.locator("#actions button.legal[data-command-type='accept'] >> nth=0")
    assert "Stink" in accept.inner_text()
    assert "Red" in accept.inner_text()
    assert page.evaluate("document.documentElement.scrollWidth") <= PHONE["width"]
    # Measured in one step in the page: the live stream's first message may draw the moves again
    # between a locator's finding the button and its measuring it (a detached button has no box).
    right = page.evaluate(
        "s => document.querySelector(s).getBoundingClientRect().right",
        "#actions button.legal[data-command-type='accept']",
    )
    assert right <= PHONE["width"]
