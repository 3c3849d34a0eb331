"""A seat's live table: its own view, only its legal moves, kept current as others act."""

from __future__ import annotations

from typing import Any

import pytest

from domain.bots import simulate
from domain.rules import commands as cmd
from domain.rules import events as ev
from domain.rules.transcript import commands_from_facts, redecide

from .conftest import PHONE, Game, Pages, Site, screenshot

pytestmark = [pytest.mark.browser, pytest.mark.slow]

PAST_THE_PILE = redecide(simulate("rio-grande", 4, seed=485), tabletop=True, unknown_hands=True)
"""A complete 4-player game between bots (Ben starts) as a table with unknown hands records it."""
RESHUFFLED = 629
"""Entry of Cleo's reveal when the draw pile holds one card: the second comes off the discards,
shuffled into a new draw pile (RULES §10.9)."""

PREFERENCE = ("draw", "reveal", "end-trading", "plant", "harvest")
"""Which legal move the test takes first: enough to play any turn to its end."""


def table_of(pages: Pages, game: Game, seat: int, **options: Any) -> Any:
    return pages.open(f"/play/{game.id}#token={game.seat_tokens[seat]}", **options)


def act(page: Any, kind: str) -> None:
    """Press the first button for a legal command of this kind; wait for the new table."""
    version = page.get_attribute("main", "data-version")
    page.click(f"#actions button.legal[data-command-type='{kind}'] >> nth=0")
    page.wait_for_function("v => document.querySelector('main').dataset.version !== v", arg=version)


def test_a_seat_plays_its_turn_from_its_live_table(pages: Pages, site: Site) -> None:
    game = site.new_game()
    page = table_of(pages, game, 0)
    assert "Your turn, Ana" in page.inner_text("#turn-status")

    for _ in range(15):
        if "Ben's turn" in page.inner_text("#turn-status"):
            break
        kind = next(
            kind
            for kind in PREFERENCE
            if page.locator(f"#actions button.legal[data-command-type='{kind}']").count()
        )
        act(page, kind)
        if kind == "reveal":
            screenshot(page, "live-table-1366x850", full_page=False)

    summary = site.get(f"/api/games/{game.id}")
    assert (summary["turn"], summary["active_seat"]) == (2, 1)
    assert "Ben's turn" in page.inner_text("#turn-status")
    assert page.locator("#table .seat[data-seat='0'] .field[data-bean]").count() >= 1
    for kind in ("plant", "reveal", "end-trading", "draw"):
        assert page.locator(f"#actions button.legal[data-command-type='{kind}']").count() == 0


def test_the_live_table_offers_only_the_seats_legal_commands(pages: Pages, site: Site) -> None:
    game = site.new_game()
    legal = site.get(f"/api/games/{game.id}/legal", headers=game.seat(0))

    anas = table_of(pages, game, 0)
    bens = table_of(pages, game, 1)

    assert anas.locator("#actions button.legal").count() == len(legal["commands"])
    assert anas.locator("#actions button.legal").all_inner_texts() == [
        f"Plant Chili (front card) in field {field + 1}" for field in range(3)
    ]
    assert bens.locator("#actions button.legal").count() == 0
    assert bens.locator("#offer-form").count() == 0
    assert "waiting for Ana" in bens.inner_text("#nothing-to-do")


def test_the_live_table_updates_when_another_seat_acts(pages: Pages, site: Site) -> None:
    game = site.new_game()
    bens = table_of(pages, game, 1)

    response = site.client.post(
        f"/api/games/{game.id}/commands", json={"type": "plant", "field": 0}, headers=game.seat(0)
    )
    assert response.status_code == 200

    bens.wait_for_selector("#table .seat[data-seat='0'] .field[data-bean='chili']", timeout=5000)
    assert "Ana plants Chili from the hand in field 1" in bens.inner_text("#log")
    assert bens.locator("#table .seat[data-seat='0'] .hand [data-bean]").count() == 0


def test_the_seats_token_stays_out_of_every_url(pages: Pages, site: Site) -> None:
    game = site.new_game()
    token = game.seat_tokens[2]

    page = table_of(pages, game, 2)

    assert "Cleo's table" in page.inner_text("h1")
    assert token not in page.url
    assert not [url for url in pages.requests if token in url]
    page.reload()
    page.wait_for_selector("main[data-ready=true]")
    assert "Cleo's table" in page.inner_text("h1")


def test_the_live_table_fits_a_phone_screen(pages: Pages, site: Site) -> None:
    game = site.new_game()
    page = table_of(pages, game, 0, viewport=PHONE)

    assert page.evaluate("document.documentElement.scrollWidth") <= PHONE["width"]
    screenshot(page, "live-table-390x844", full_page=False)


def test_what_another_seat_did_just_before_this_seat_s_command_is_in_its_log(
    pages: Pages, site: Site
) -> None:
    game = site.new_game()
    commands = f"/api/games/{game.id}/commands"
    for command in ({"type": "plant", "field": 0}, {"type": "reveal"}):
        assert site.client.post(commands, json=command, headers=game.seat(0)).status_code == 200
    anas = table_of(pages, game, 0)

    def ben_offers_first(route: Any) -> None:  # stored after Ana's last poll, before her command
        donation = {"type": "offer", "to": 0, "hand": [0], "wants": []}
        assert site.client.post(commands, json=donation, headers=game.seat(1)).status_code == 200
        route.continue_()

    anas.route("**/commands", ben_offers_first)
    act(anas, "end-trading")

    # Ana's answer brings her own line; Ben's comes with the stream, maybe a moment later.
    anas.locator("#log li").filter(has_text="Ben offers Ana").wait_for()
    log = anas.inner_text("#log")  # newest first
    assert "Ben offers Ana 1 Stink for nothing" in log
    assert log.index("Ana ends trading") < log.index("Ben offers Ana") < log.index("Ana reveals")


def test_a_seat_of_a_game_with_unknown_hands_notes_its_hand_plants_and_reveals(
    pages: Pages, site: Site
) -> None:
    game = site.new_game(mode="tabletop", hands="unknown")
    page = table_of(pages, game, 0, viewport=PHONE)

    page.click("#note-hand > summary")
    page.select_option("[data-key='note-0']", "blue")
    page.select_option("[data-key='note-2']", "red")
    version = page.get_attribute("main", "data-version")
    page.click("#save-note")
    page.wait_for_function("v => document.querySelector('main').dataset.version !== v", arg=version)

    mine = site.get(f"/api/games/{game.id}/view", headers=game.seat(0))["seats"][0]["hand"]
    assert mine == ["blue", None, "red", None, None]
    host = site.get(
        f"/api/games/{game.id}/view", headers={"Authorization": f"Bearer {game.host_token}"}
    )
    assert host["seats"][0]["hand"] is None
    first = page.locator("#actions button.legal[data-command-type='plant'] >> nth=0")
    assert first.inner_text().startswith("Plant Blue")
    act(page, "plant")
    for bean in ("chili", "soy"):
        version = page.get_attribute("main", "data-version") if bean == "soy" else None
        page.click(f"#reveal-cards button[data-bean='{bean}']")
    page.wait_for_function("v => document.querySelector('main').dataset.version !== v", arg=version)

    view = site.get(f"/api/games/{game.id}/view", headers=game.seat(0))
    assert view["revealed"] == ["chili", "soy"]
    assert view["seats"][0]["fields"][0] == {"bean": "blue", "count": 1}
    screenshot(page, "live-table-unknown-hands-390x844", full_page=False)


def test_a_seats_reveal_past_the_end_of_the_draw_pile_offers_the_beans_of_the_discards(
    pages: Pages, site: Site
) -> None:
    started = PAST_THE_PILE[0]
    assert isinstance(started, ev.GameStarted)
    game = site.new_game(
        seats=list(started.seats), start_seat=started.start_seat, mode="tabletop", hands="unknown"
    )
    entries = commands_from_facts(PAST_THE_PILE, tabletop=True)
    host = {"Authorization": f"Bearer {game.host_token}"}
    for entry in entries[:RESHUFFLED]:
        response = site.client.post(
            f"/api/games/{game.id}/commands", json=entry.to_dict(), headers=host
        )
        assert response.status_code == 200, (entry, response.get_json())
    reveal = entries[RESHUFFLED]
    assert isinstance(reveal, cmd.Reveal)
    assert reveal.cards == ("chili", "black-eyed")  # the pile's last card, then one of the discards
    page = table_of(pages, game, reveal.seat, viewport=PHONE)

    page.click("#reveal-cards button[data-bean='chili']")
    version = page.get_attribute("main", "data-version")
    page.click("#reveal-cards button[data-bean='black-eyed']")
    page.wait_for_function("v => document.querySelector('main').dataset.version !== v", arg=version)

    view = site.get(f"/api/games/{game.id}/view", headers=game.seat(reveal.seat))
    assert view["revealed"] == ["chili", "black-eyed"]
