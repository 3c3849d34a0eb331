"""The replay viewer: a stored complete game, step by step, as a chosen viewer saw it."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any
from uuid import UUID

import pytest

from domain.rules.beans import BEANS, coins_for
from replays.forks import create_fork

from .conftest import PHONE, Pages, Site, screenshot

pytestmark = [pytest.mark.browser, pytest.mark.slow]


def replay_path(site: Site, step: int | None = None, perspective: str | None = None) -> str:
    query = "&".join(
        f"{name}={value}"
        for name, value in (("step", step), ("perspective", perspective))
        if value is not None
    )
    return f"/games/{site.finished.id}/replay" + (f"?{query}" if query else "")


def steps(site: Site) -> list[dict[str, Any]]:
    return site.get(f"/api/games/{site.finished.id}/steps")["steps"]


def a_draw_by_ana(site: Site) -> int:
    """A step in mid-game where Ana (seat 0) draws a card nobody else may know."""
    return next(
        step["position"]
        for step in steps(site)
        if step["kind"] == "CardDrawn" and step["actor"] == 0 and step["turn"] >= 9
    )


def face_up_cards(view: dict[str, Any]) -> list[str]:
    """Every card a rendered view lets its viewer know, as the table draws them (a field once)."""
    cards = [view["discard_pile"]["top"]] if view["discard_pile"]["top"] else []
    for seat in view["seats"]:
        cards += [field["bean"] for field in seat["fields"] if field["bean"]]
        cards += seat["trade_area"] + (seat["hand"] or [])
    cards += view["revealed"] + view["duel_offer"]
    for offer in view["offers"]:
        cards += offer["gives"] + offer["wants"]
    return sorted(cards)


def cards_on_page(page: Any) -> list[str]:
    return sorted(
        page.eval_on_selector_all("#table [data-bean]", "es => es.map(e => e.dataset.bean)")
    )


def wait_for_step(page: Any, position: int) -> None:
    page.wait_for_selector(f"#step-list li.current[data-position='{position}']")
    page.wait_for_function(
        "p => document.querySelector('#step-heading').textContent.startsWith(`Step ${p}:`)",
        arg=position,
    )


def test_the_viewer_shows_the_table_at_the_step_asked_for(pages: Pages, site: Site) -> None:
    position = a_draw_by_ana(site) - 3
    expected = site.get(f"/api/games/{site.finished.id}/steps/{position}")

    page = pages.open(replay_path(site, position))
    wait_for_step(page, position)

    assert page.inner_text("#summary") == expected["summary"]
    assert page.locator("#table .seat").count() == 4
    for seat in expected["view"]["seats"]:
        shown = page.locator(f"#table .seat[data-seat='{seat['seat']}'] .field")
        assert shown.count() == len(seat["fields"])
        for index, field in enumerate(seat["fields"]):
            if field["bean"] is None:
                continue
            box = shown.nth(index)
            assert BEANS[field["bean"]].label in box.inner_text()
            pays = coins_for(BEANS[field["bean"]].meter, field["count"])
            assert box.locator(".field-pays").get_attribute("data-pays") == str(pays)
    screenshot(page, "replay-1366x850", full_page=False)
    screenshot(page, "replay-1366-full-page")


def test_the_buttons_and_the_arrow_keys_step_forward_and_back(pages: Pages, site: Site) -> None:
    page = pages.open(replay_path(site, 5))
    wait_for_step(page, 5)

    page.click("#next")
    wait_for_step(page, 6)
    page.keyboard.press("ArrowRight")
    wait_for_step(page, 7)
    page.keyboard.press("ArrowLeft")
    wait_for_step(page, 6)
    page.click("#previous")
    wait_for_step(page, 5)
    page.keyboard.press("End")
    wait_for_step(page, len(steps(site)))
    page.keyboard.press("Home")
    wait_for_step(page, 1)

    assert page.inner_text("#summary") == steps(site)[0]["summary"]


def test_a_seats_perspective_shows_its_own_hand_and_no_hidden_card(
    pages: Pages, site: Site
) -> None:
    position = a_draw_by_ana(site)
    url = f"/api/games/{site.finished.id}/steps/{position}"
    public = site.get(url)["view"]
    bens = site.get(url, headers=site.finished.seat(1))["view"]
    everything = site.get(url, query_string={"perspective": "auditor"})["view"]
    page = pages.open(replay_path(site, position))
    wait_for_step(page, position)
    assert cards_on_page(page) == face_up_cards(public)

    page.click(".token-form summary")
    page.fill("#token", site.finished.seat_tokens[1])
    page.click("#use-token")
    page.wait_for_selector("#table .seat[data-seat='1'] .open-hand")

    assert "Ben's view" in page.inner_text("#step-heading")
    assert "Ana draws a card" in page.inner_text("#summary")
    ben_hand = page.eval_on_selector_all(
        "#table .seat[data-seat='1'] .hand [data-bean]", "es => es.map(e => e.dataset.bean)"
    )
    assert ben_hand == everything["seats"][1]["hand"]
    for seat in (0, 2, 3):
        hand = page.locator(f"#table .seat[data-seat='{seat}'] .hand")
        assert hand.locator("[data-bean]").count() == 0
        assert hand.locator(".backs").get_attribute("data-count") == str(
            everything["seats"][seat]["hand_size"]
        )
    assert cards_on_page(page) == face_up_cards(bens)
    assert page.locator(".pile-order").count() == 0


def test_the_auditor_perspective_is_not_offered_while_the_game_is_running(
    pages: Pages, site: Site
) -> None:
    running = site.new_game()
    page = pages.open(f"/games/{running.id}/replay?step=2")

    auditor = page.locator('#perspective option[value="auditor"]')

    assert auditor.is_disabled()
    assert "once the game is over" in auditor.inner_text()


def test_an_ended_fork_offers_the_auditor_perspective_once_the_game_it_came_from_is_over(
    pages: Pages, site: Site
) -> None:
    running = site.new_game()
    fork = create_fork(site.store, UUID(running.id), 2)
    site.play_to_its_end(fork.game_id, 2)
    page = pages.open(f"/games/{fork.game_id}/replay?step=2")

    auditor = page.locator('#perspective option[value="auditor"]')

    assert auditor.is_disabled()
    assert "once the game it was forked from is over" in auditor.inner_text()


def test_a_forks_replay_names_the_game_it_came_from_and_puts_both_outcomes_side_by_side(
    pages: Pages, site: Site
) -> None:
    parent = site.ended_game(3)
    fork = create_fork(site.store, parent, 40)
    page = pages.open(f"/games/{fork.game_id}/replay", viewport=PHONE)

    origin = page.locator("#forked-from a")
    assert origin.get_attribute("href") == f"/games/{parent}/replay?step={fork.step}"
    outcomes = page.inner_text("#outcomes")
    assert "This fork so far" in outcomes
    assert "(won)" in outcomes  # the game it came from is over
    assert "not known yet: the fork is still being played" in outcomes
    assert page.evaluate("document.documentElement.scrollWidth") == PHONE["width"]

    # Played to its end while the page follows it: the outcomes change without a reload.
    site.play_to_its_end(fork.game_id, 4)
    page.wait_for_function(
        "() => document.querySelector('#outcomes dt')?.textContent === 'This fork'"
    )
    assert page.locator("#outcomes dd").last.inner_text() in (
        "the same winners",
        "different winners",
    )


def test_a_forked_games_replay_links_to_each_fork_and_an_unforked_one_says_nothing_of_forks(
    pages: Pages, site: Site
) -> None:
    parent = site.ended_game(5)
    unforked = pages.open(f"/games/{parent}/replay")
    assert unforked.locator("#lineage").is_hidden()

    forks = [create_fork(site.store, parent, step) for step in (12, 30)]
    page = pages.open(f"/games/{parent}/replay")

    links = page.locator("#forks a")
    assert page.inner_text("#forks").startswith("2 what-if forks of this game")
    assert [(links.nth(i).get_attribute("href"), links.nth(i).inner_text()) for i in range(2)] == [
        (f"/games/{fork.game_id}/replay", f"from step {fork.step}") for fork in forks
    ]


def test_fork_from_this_step_opens_the_new_fork_on_the_recorder_as_its_host(
    pages: Pages, site: Site
) -> None:
    parent = site.ended_game(7)
    page = pages.open(f"/games/{parent}/replay?step=25", viewport=PHONE)
    wait_for_step(page, 25)

    page.click("#fork-here")
    page.wait_for_url("**/record#game=*")
    page.wait_for_selector("main[data-ready=true]")

    fork = site.get(f"/api/games/{parent}/forks")["forks"]
    assert len(fork) == 1
    assert fork[0]["step"] <= 25  # taken back to the last whole command
    assert page.url.endswith(f"/record#game={fork[0]['game_id']}")
    assert page.inner_text("h1").startswith("Recording:")
    assert page.locator("#fork-here").count() == 0  # the recorder, not the replay
    origin = page.locator("#forked-from a")  # the recorder says what it records
    assert origin.get_attribute("href") == f"/games/{parent}/replay?step={fork[0]['step']}"


def test_a_game_not_open_to_all_offers_no_fork(pages: Pages, site: Site) -> None:
    running = site.new_game()
    page = pages.open(f"/games/{running.id}/replay?step=2")

    assert page.locator("#fork-here").count() == 0
    assert page.locator("#export-later").is_visible()


def test_a_link_to_the_auditor_perspective_of_a_running_game_is_refused(
    pages: Pages, site: Site
) -> None:
    running = site.new_game()
    page = pages.open(f"/games/{running.id}/replay?step=2&perspective=auditor")

    refusal = page.wait_for_selector("#message .refusal")
    assert "once the game is over" in refusal.inner_text()
    assert page.input_value("#perspective") == "public"
    assert page.locator("#table .open-hand").count() == 0


def test_an_annotation_added_in_the_viewer_is_there_after_a_reload(
    pages: Pages, site: Site
) -> None:
    position = a_draw_by_ana(site) - 1
    page = pages.open(replay_path(site, position))
    wait_for_step(page, position)

    page.fill("#note-text", "Ben should have kept the Wax for his second field")
    page.select_option("#note-glyph", "?!")
    page.fill("#note-author", "Kibitzer")
    page.click("#add-note")
    page.wait_for_selector("#notes .note")
    page.reload()
    page.wait_for_selector("main[data-ready=true]")
    wait_for_step(page, position)

    note = page.wait_for_selector("#notes .note")
    assert "Ben should have kept the Wax" in note.inner_text()
    assert "?!" in note.inner_text()
    assert "Kibitzer (guest)" in note.inner_text()
    assert "?!" in page.inner_text(f"#step-{position} .glyph")


def test_a_link_opens_the_viewer_at_its_step_and_perspective(pages: Pages, site: Site) -> None:
    page = pages.open(replay_path(site, 123, "auditor"))
    wait_for_step(page, 123)

    assert "Auditor" in page.inner_text("#step-heading")
    assert page.locator("#table .hidden-hand").count() == 0
    page.keyboard.press("ArrowRight")
    wait_for_step(page, 124)
    link = page.get_attribute("#deep-link", "href")
    assert link == site.base + replay_path(site, 124, "auditor")
    assert page.url == link


def test_a_link_to_a_seats_perspective_without_its_token_shows_the_public_view(
    pages: Pages, site: Site
) -> None:
    page = pages.open(replay_path(site, 40, "seat-2"))
    wait_for_step(page, 40)

    assert "needs that seat's token" in page.inner_text("#message")
    assert page.input_value("#perspective") == "public"
    assert page.locator("#table .open-hand").count() == 0


def test_jump_to_turn_goes_to_the_first_step_of_that_turn(pages: Pages, site: Site) -> None:
    first = next(step["position"] for step in steps(site) if step["turn"] == 10)
    page = pages.open(replay_path(site))

    page.fill("#turn", "10")
    page.click("#go-turn")

    wait_for_step(page, first)
    assert "turn 10" in page.inner_text("#where")


def test_the_coin_chart_draws_each_seats_coins_over_the_turns(pages: Pages, site: Site) -> None:
    timeline = site.get(f"/api/games/{site.finished.id}/timeline")
    page = pages.open(replay_path(site, len(steps(site))))

    lines = page.locator("#chart polyline.line")
    assert lines.count() == 4
    for seat, name in enumerate(timeline["seats"]):
        points = lines.nth(seat).get_attribute("points").split()
        assert len(points) == len(timeline["points"])
        assert f"{name} {timeline['points'][-1]['coins'][seat]}" in page.inner_text("#chart")
    assert page.locator("#chart line.now").count() == 1


def test_the_record_is_exported_as_a_json_download(pages: Pages, site: Site) -> None:
    page = pages.open(replay_path(site, 10))

    with page.expect_download() as download:
        page.click("#export")

    record = json.loads(Path(download.value.path()).read_text())
    assert record["format"] == "bohnanza-record/1"
    assert record["header"]["seats"] == ["Ana", "Ben", "Cleo", "Dan"]


def test_a_finished_game_is_downloaded_as_a_bg_stats_or_a_boardgamegeek_play(
    pages: Pages, site: Site
) -> None:
    page = pages.open(replay_path(site, 10))

    with page.expect_download() as download:
        page.click("#export-bgstats")
    document = json.loads(Path(download.value.path()).read_text())
    assert download.value.suggested_filename.endswith(".bgsplay")
    assert [p["name"] for p in document["players"]] == ["Ana", "Ben", "Cleo", "Dan"]
    assert document["plays"][0]["uuid"] == site.finished.id
    with page.expect_download() as download:
        page.click("#export-bgg")
    assert '<plays total="1">' in Path(download.value.path()).read_text()


def test_a_running_game_offers_no_play_to_download(pages: Pages, site: Site) -> None:
    game = site.new_game()
    page = pages.open(f"/games/{game.id}/replay")
    assert page.locator("#export-bgstats").count() == 0


def test_the_viewer_fits_a_phone_screen(pages: Pages, site: Site) -> None:
    position = a_draw_by_ana(site)
    page = pages.open(replay_path(site, position), viewport=PHONE)
    wait_for_step(page, position)

    assert page.evaluate("document.documentElement.scrollWidth") <= PHONE["width"]
    screenshot(page, "replay-390x844", full_page=False)
    screenshot(page, "replay-390-full-page")


def test_the_step_buttons_are_reached_and_pressed_with_the_keyboard(
    pages: Pages, site: Site
) -> None:
    page = pages.open(replay_path(site, 20))
    wait_for_step(page, 20)

    for _ in range(12):
        page.keyboard.press("Tab")
        if page.evaluate("document.activeElement.id") == "next":
            break
    page.keyboard.press("Enter")

    wait_for_step(page, 21)


def test_the_game_in_numbers_shows_each_seats_negotiation_as_the_api_counts_it(
    pages: Pages, site: Site
) -> None:
    page = pages.open(f"/games/{site.finished.id}/replay?step=1", viewport=PHONE)
    assert page.locator("#numbers-seats").count() == 0  # loaded only when opened

    page.click("#numbers summary")
    page.wait_for_selector("#numbers[data-loaded=true]")

    stats = site.get(f"/api/games/{site.finished.id}/stats")
    rows = page.locator("#numbers-seats tbody tr")
    assert rows.count() == len(stats["seats"]) == 4
    for seat in stats["seats"]:
        cells = page.locator(f"#numbers-seats tr[data-seat='{seat['seat']}'] td").all_inner_texts()
        assert cells[0].startswith(f"{seat['offers_made']} (")
        assert cells[6] == str(seat["coins_earned"])
    matrix = page.locator("#numbers-matrix tbody tr").first.locator("td").all_inner_texts()
    assert matrix == ["–", *(str(count) for count in stats["traded_with"][0][1:])]
    assert "The lead changed hands" in page.inner_text("#numbers-lead")
    assert page.locator("#numbers-chart svg g").count() == 4
    page.locator("#numbers").scroll_into_view_if_needed()
    screenshot(page, "replay-numbers-390x844", full_page=False)
