"""Reading a replay: steps by turn and phase with offer talk folded, controls that stay at hand on
a phone, a turn scrubber, the keys shown, a coin chart to point at (and as a table), the record
offered only when it is open, the same words in the headline and the list, and a game still
being played followed as it happens."""

from __future__ import annotations

from random import Random
from typing import Any
from uuid import UUID

import pytest

from domain.bots import BOTS, Table, play_stored

from .conftest import PHONE, Game, Pages, Site, screenshot

pytestmark = [pytest.mark.browser, pytest.mark.slow]

OFFER_TALK = {"TradeOffered", "TradeDeclined", "TradeWithdrawn"}


def steps(site: Site, game_id: str | None = None, **request: Any) -> list[dict[str, Any]]:
    return site.get(f"/api/games/{game_id or site.finished.id}/steps", **request)["steps"]


def open_replay(pages: Pages, game_id: str, query: str = "", **options: Any) -> Any:
    return pages.open(f"/games/{game_id}/replay{query}", **options)


def wait_for_step(page: Any, position: int) -> None:
    page.wait_for_selector(f"#step-list li.current[data-position='{position}']")
    page.wait_for_function(
        "p => document.querySelector('#step-heading').textContent.startsWith(`Step ${p}:`)",
        arg=position,
    )


def first_run(site: Site) -> list[dict[str, Any]]:
    """The first run of at least four offers and refusals in one phase of the finished game."""
    run: list[dict[str, Any]] = []
    for step in steps(site):
        same_phase = run and (run[-1]["turn"], run[-1]["phase"]) == (step["turn"], step["phase"])
        if step["kind"] in OFFER_TALK and (not run or same_phase):
            run.append(step)
        elif len(run) >= 4:
            return run
        else:
            run = [step] if step["kind"] in OFFER_TALK else []
    raise AssertionError("no run of offers in the finished game")


def test_the_steps_are_grouped_by_turn_and_phase(pages: Pages, site: Site) -> None:
    every = steps(site)
    page = open_replay(pages, site.finished.id, "?step=1")

    turn_9 = page.locator("#step-list .turn-group[data-turn='9']")
    actor = next(s["actor"] for s in every if s["turn"] == 9 and s["actor"] is not None)
    assert (
        turn_9.locator(".turn-head").inner_text()
        == f"Turn 9 · {['Ana', 'Ben', 'Cleo', 'Dan'][actor]}"
    )
    phases = turn_9.locator(".phase-head").all_inner_texts()
    assert phases[:2] == ["Phase 1 · planting", "Phase 2 · trading"]
    assert page.locator("#step-list li[data-position]").count() == len(every)
    assert page.locator("#step-list .turn-group").count() == every[-1]["turn"] + 1


def test_a_run_of_offers_and_refusals_folds_and_opens_on_its_steps(
    pages: Pages, site: Site
) -> None:
    run = first_run(site)
    page = open_replay(pages, site.finished.id, "?step=1")
    folded = page.locator(f"#step-list details.run[data-first='{run[0]['position']}']")

    offers = sum(step["kind"] == "TradeOffered" for step in run)
    assert folded.locator("summary").inner_text().startswith(f"{offers} offer")
    assert "no trade" in folded.locator("summary").inner_text()
    assert folded.get_attribute("open") is None

    page.goto(f"{site.base}/games/{site.finished.id}/replay?step={run[1]['position']}")
    wait_for_step(page, run[1]["position"])

    assert folded.get_attribute("open") is not None


def test_the_step_buttons_stay_in_sight_on_a_phone(pages: Pages, site: Site) -> None:
    page = open_replay(pages, site.finished.id, "?step=100", viewport=PHONE)
    wait_for_step(page, 100)

    page.evaluate("() => window.scrollTo(0, document.body.scrollHeight)")
    box = page.locator("#next").bounding_box()

    assert box["y"] >= 0
    assert box["y"] + box["height"] <= PHONE["height"]
    page.click("#next")
    wait_for_step(page, 101)
    screenshot(page, "replay-scrolled-390x844", full_page=False)


def test_the_turn_scrubber_takes_a_tap_on_a_phone(pages: Pages, site: Site) -> None:
    every = steps(site)
    page = open_replay(pages, site.finished.id, "?step=1", viewport=PHONE)
    scrubber = page.locator("#turn-scrubber").bounding_box()
    assert scrubber["height"] >= 40
    assert scrubber["width"] >= 300

    last = every[-1]["turn"]
    page.mouse.click(
        scrubber["x"] + scrubber["width"] * 10 / last, scrubber["y"] + scrubber["height"] / 2
    )

    page.wait_for_function("() => !document.querySelector('#where').textContent.endsWith('turn 0')")
    turn = int(page.inner_text("#where").rsplit("turn ", 1)[1])
    assert abs(turn - 10) <= 1
    first = next(step["position"] for step in every if step["turn"] == turn)
    wait_for_step(page, first)


def test_the_keys_are_shown_and_the_question_mark_opens_their_list(
    pages: Pages, site: Site
) -> None:
    page = open_replay(pages, site.finished.id, "?step=3")
    keys = page.locator("#keys")
    assert keys.locator("summary").is_visible()
    assert "step" in keys.locator("summary").inner_text()
    assert not keys.locator("dl").is_visible()

    page.keyboard.press("?")

    assert keys.locator("dl").is_visible()
    assert "first step of the previous or next turn" in keys.inner_text()


def test_the_coin_chart_shows_the_coins_where_it_is_pointed_at_and_goes_there(
    pages: Pages, site: Site
) -> None:
    timeline = site.get(f"/api/games/{site.finished.id}/timeline")
    point = timeline["points"][12]
    page = open_replay(pages, site.finished.id, "?step=1")

    page.hover(f"#chart .turn-column[data-position='{point['position']}']")

    expected = ", ".join(f"{n} {c}" for n, c in zip(timeline["seats"], point["coins"], strict=True))
    assert page.inner_text("#chart .chart-readout") == f"Turn {point['turn']}: {expected}"
    page.click(f"#chart .turn-column[data-position='{point['position']}']")
    wait_for_step(page, point["position"])


def test_the_coin_chart_has_a_table_whose_turns_go_there(pages: Pages, site: Site) -> None:
    timeline = site.get(f"/api/games/{site.finished.id}/timeline")
    page = open_replay(pages, site.finished.id, "?step=1")

    page.click("#coin-table summary")
    rows = page.locator("#coin-table tbody tr")
    assert rows.count() == len(timeline["points"])
    assert rows.nth(5).locator("td").all_inner_texts() == [
        str(coins) for coins in timeline["points"][5]["coins"]
    ]
    rows.nth(5).locator("button").click()

    wait_for_step(page, timeline["points"][5]["position"])
    assert page.locator("#coin-table").get_attribute("open") is not None


def test_a_running_games_record_is_not_offered(pages: Pages, site: Site) -> None:
    running = site.new_game()
    page = open_replay(pages, running.id, "?step=2")

    assert page.locator("#export").count() == 0
    assert "The record opens once the game is over." in page.inner_text("#export-later")


def test_a_seats_list_and_headline_say_the_same_of_its_own_draw(pages: Pages, site: Site) -> None:
    bens = steps(site, headers=site.finished.seat(1))
    draw = next(s for s in bens if s["kind"] == "CardDrawn" and s["actor"] == 1 and s["turn"] > 3)
    page = open_replay(pages, site.finished.id, f"?step={draw['position']}")
    page.click(".token-form summary")
    page.fill("#token", site.finished.seat_tokens[1])
    page.click("#use-token")
    page.wait_for_function(
        "() => document.querySelector('#step-heading').textContent.includes('seen by Ben')"
    )

    headline = page.inner_text("#summary")
    listed = page.inner_text(f"#step-{draw['position']} .text")
    assert headline == draw["summary"]
    assert headline == f"T{draw['turn']} {listed}"
    assert "a card" not in listed


def test_a_tie_break_is_worded_as_people_say_it(pages: Pages, site: Site) -> None:
    last = steps(site)[-1]
    page = open_replay(pages, site.finished.id, f"?step={last['position']}")
    wait_for_step(page, last["position"])

    assert "tie broken by most hand cards" in page.inner_text("#table .status")
    assert "tie broken by most hand cards" in page.inner_text("#summary")
    assert "most-hand-cards" not in page.inner_text("main")


def command(site: Site, game: Game, seat: int, **body: Any) -> dict[str, Any]:
    response = site.client.post(
        f"/api/games/{game.id}/commands", json=body, headers=game.seat(seat)
    )
    assert response.status_code == 200, response.get_json()
    return response.get_json()


def test_the_replay_of_a_running_game_follows_it_as_it_is_played(pages: Pages, site: Site) -> None:
    game = site.new_game()
    page = open_replay(pages, game.id, "?step=2")
    page.wait_for_selector("#live-status .live-badge.live")

    command(site, game, 0, type="plant", field=0)
    wait_for_step(page, 3)
    assert page.inner_text("#summary") == "T1 Ana plants Chili from the hand in field 1"
    assert page.locator("#table .seat[data-seat='0'] .field[data-bean='chili']").count() == 1
    assert page.locator("#table .open-hand").count() == 0

    page.click("#previous")
    wait_for_step(page, 2)
    command(site, game, 0, type="reveal")
    page.wait_for_function("() => document.querySelector('#where').textContent.includes('of 4')")
    wait_for_step(page, 2)  # reading an earlier step, the viewer stays there
    assert page.locator("#step-list li[data-position='4']").count() == 1


def test_a_running_game_opened_without_a_step_is_watched_from_its_newest_step(
    pages: Pages, site: Site
) -> None:
    game = site.new_game()
    command(site, game, 0, type="plant", field=0)
    page = open_replay(pages, game.id)
    page.wait_for_selector("#live-status .live-badge.live")
    wait_for_step(page, 3)

    command(site, game, 0, type="reveal")

    wait_for_step(page, 4)


def test_a_seat_follows_its_game_with_its_own_hand(pages: Pages, site: Site) -> None:
    game = site.new_game()
    page = open_replay(pages, game.id, f"?step=2#token={game.seat_tokens[1]}")
    page.wait_for_selector("#live-status .live-badge.live")

    command(site, game, 0, type="plant", field=0)

    wait_for_step(page, 3)
    hand = site.get(f"/api/games/{game.id}/view", headers=game.seat(1))["seats"][1]["hand"]
    shown = page.eval_on_selector_all(
        "#table .seat[data-seat='1'] .open-hand [data-bean]", "es => es.map(e => e.dataset.bean)"
    )
    assert shown == hand
    assert page.locator("#table .seat[data-seat='0'] .open-hand").count() == 0


def test_a_followed_game_that_ends_opens_its_record(pages: Pages, site: Site) -> None:
    game = site.new_game()
    page = open_replay(pages, game.id, "?step=2")
    page.wait_for_selector("#live-status .live-badge.live")
    store = site.app.extensions["bohnanza"].get().app
    bots = Table([BOTS["greedy"]() for _ in range(3)], Random(5))

    play_stored(store, UUID(game.id), bots)

    page.wait_for_selector("#live-status .live-badge.ended", timeout=20_000)
    page.wait_for_selector("#export")
    total = len(steps(site, game.id))
    assert page.inner_text("#where").startswith(f"Step {total} of {total}")  # it followed
    assert "Game over" in page.inner_text("#summary")
    assert page.locator("#step-list li[data-position]").count() == total
    assert not page.locator('#perspective option[value="auditor"]').is_disabled()


@pytest.mark.parametrize(
    "path", ["/games/{id}/replay?step=2", "/play/{id}#token={token}"], ids=["replay", "seat"]
)
def test_a_page_following_a_game_holds_one_stream_and_polls_nothing(
    pages: Pages, site: Site, path: str
) -> None:
    game = site.new_game()
    page = pages.open(
        path.format(id=game.id, token=game.seat_tokens[0]), ready="#live-status .live-badge.live"
    )
    asked_before = len(pages.requests)

    for body in ({"type": "plant", "field": 0}, {"type": "reveal"}):
        command(site, game, 0, **body)
    page.wait_for_timeout(2_500)  # longer than any polling interval a page might have used

    api = [url for url in pages.requests if "/api/" in url]
    streams = [url for url in api if url.split("?")[0].endswith("/live")]
    assert len(streams) == 1, streams
    assert [url for url in pages.requests[asked_before:] if "/api/" in url] == []
