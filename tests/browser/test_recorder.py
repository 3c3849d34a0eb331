"""The recorder at a real table, phone first: hands nobody sees, mistakes corrected, few taps."""

from __future__ import annotations

from typing import Any

import pytest

from domain.bots import simulate
from domain.rules import commands as cmd
from domain.rules import events as ev
from domain.rules.transcript import commands_from_facts, redecide

from .conftest import PHONE, Pages, Site, axe_violations, screenshot

pytestmark = [pytest.mark.browser, pytest.mark.slow]

DEAL = [
    ["chili", "wax", "wax", "blue", "green"],
    ["blue", "stink", "soy", "wax", "red"],
    ["green", "green", "garden", "coffee", "chili"],
]
"""Ana's, Ben's and Cleo's opening hands, front card first (a table whose host enters them)."""

PLAYED = redecide(simulate("rio-grande", 3, seed=1), tabletop=True, unknown_hands=True)
"""A complete 3-player game between bots (Ben starts) as a table with unknown hands records it."""
ENTRIES = commands_from_facts(PLAYED, tabletop=True)
TRADE = 548
"""Entry of an offer (Cleo's card for Ben's) where both hands hold cards of two draw piles: the
recorder must say which card each gave (entry 549 is its acceptance)."""
FORGOTTEN = 624
"""After the end the table remembers a harvest of Ben's third field before this entry: it changes
the winner from Ben (a tie on 22 broken by hand size) to Cleo."""
PAST_THE_PILE = commands_from_facts(
    redecide(simulate("rio-grande", 4, seed=485), tabletop=True), tabletop=True
)
"""A complete 4-player game between bots (Ben starts) as a host who enters every hand records it."""
SEVEN = commands_from_facts(
    redecide(simulate("rio-grande", 7, seed=83), tabletop=True), tabletop=True
)
"""A complete 7-player game between bots (Gus starts) as a host who enters every hand records it."""
NO_FIELD_FOR_IT = 351
"""Entry of Dan's third field, bought in phase 3: neither of his fields takes his traded Chili."""
RESHUFFLED = 630
"""Entry of Cleo's reveal when the draw pile holds one card: the second comes off the discards,
shuffled into a new draw pile (RULES §10.9)."""


class Recorder:
    """The recorder page of one game, and the game as the API shows its host."""

    def __init__(self, page: Any, site: Site) -> None:
        self.page = page
        self.site = site
        self.game_id = page.evaluate("new URLSearchParams(location.hash.slice(1)).get('game')")
        self.token = page.evaluate(
            "id => JSON.parse(localStorage.getItem(`bohnanza.tokens.${id}`)).host", self.game_id
        )
        self.taps = 0

    @property
    def headers(self) -> dict[str, str]:
        return {"Authorization": f"Bearer {self.token}"}

    def view(self) -> dict[str, Any]:
        return self.site.get(f"/api/games/{self.game_id}/view", headers=self.headers)

    def tap(self, selector: str) -> None:
        """One tap on the page, counted."""
        self.taps += 1
        self.page.click(selector)

    def entered(self, selector: str) -> None:
        """Tap something that sends entries, and wait until the page has the answer."""
        before = int(self.page.get_attribute("main", "data-answers") or 0)
        self.tap(selector)
        self.page.wait_for_function(
            "n => Number(document.querySelector('main').dataset.answers) > n", arg=before
        )

    def post(self, commands: list[cmd.Command]) -> None:
        """Enter commands through the API with the page's own host token (the table's long
        middle), then show the page the game as it is."""
        client = self.site.client
        for command in commands:
            response = client.post(
                f"/api/games/{self.game_id}/commands", json=command.to_dict(), headers=self.headers
            )
            assert response.status_code == 200, (command, response.get_json())
        self.page.reload()
        self.page.wait_for_selector("#entry-status")


def create(
    pages: Pages, site: Site, *, names: str, start: str = "0", known: bool = False
) -> Recorder:
    page = pages.open("/record", viewport=PHONE)
    page.fill("#seats", names)
    page.select_option("#start-seat", start)
    if known:
        page.check("input[name=hands][value=known]")
    page.click("#create")
    page.wait_for_selector("#entry-status")
    return Recorder(page, site)


def test_a_game_with_unknown_hands_is_recorded_corrected_and_its_winner_changed(
    pages: Pages, site: Site
) -> None:
    recorder = create(pages, site, names="Ana, Ben, Cleo", start="1")
    page = recorder.page
    screenshot(page, "recorder-unknown-hands-start-390x844", full_page=False)
    assert page.evaluate("document.documentElement.scrollWidth") <= PHONE["width"]
    assert recorder.view()["seats"][1]["hand"] is None

    # Ben's first turn: plant the front card (its bean), and a reveal entered wrong...
    recorder.entered("#plant-beans button[data-bean='chili']")
    recorder.tap("#reveal-beans button[data-bean='blue']")
    recorder.entered("#reveal-beans button[data-bean='garden']")
    assert recorder.view()["revealed"] == ["blue", "garden"]
    # ...corrected from the list of entries: the first correction.
    recorder.tap("[data-key='correct-1']")
    recorder.tap("#correct-beans button[data-bean='blue']")
    recorder.tap("#correct-beans button[data-bean='chili']")
    recorder.entered("#apply-correction")
    assert recorder.view()["revealed"] == ["blue", "chili"]
    assert page.locator("#log li.corrected").count() == 1
    screenshot(page, "recorder-corrected-reveal-390x844", full_page=False)
    recorder.entered("#end-trading")
    recorder.entered("#plant-all")
    recorder.entered("#draw")
    assert recorder.view()["active_seat"] == 2

    # The long middle of the game, then a trade where it matters which card each gave.
    recorder.post(ENTRIES[6:TRADE])
    assert recorder.view()["phase"] == "trade"
    recorder.tap("[data-key='partner-1']")
    page.click(".gives[data-seat='2'] details.hand-beans > summary")
    recorder.tap("#gives-2 button[data-bean='black-eyed']")
    assert page.locator("[data-key^='which-2-']").count() > 1
    recorder.tap("[data-key='which-2-0']")
    recorder.tap("#gives-1 button[data-bean='coffee']")
    recorder.tap("[data-key='which-1-5']")
    screenshot(page, "recorder-trade-which-card-390x844", full_page=False)
    recorder.entered("#trade-done")
    assert recorder.view()["seats"][1]["trade_area"] == ["black-eyed"]

    recorder.post(ENTRIES[TRADE + 2 :])
    view = recorder.view()
    assert view["phase"] == "ended"
    assert view["result"]["winners"] == [1]
    screenshot(page, "recorder-ended-390x844", full_page=False)

    # After the end: the harvest the table forgot (the second correction) changes the winner.
    page.click(f"[data-key='correct-{FORGOTTEN}']")
    page.click("#entry details.more > summary")
    page.click("[data-key='insert-harvest']")
    page.click("[data-key='fix-seat-1']")
    page.click("[data-key='fix-field-2']")
    recorder.entered("#apply-insert")
    result = recorder.view()["result"]
    assert result["scores"] == [12, 21, 22]
    assert result["winners"] == [2]
    assert "Cleo wins" in page.inner_text("#entry-status")
    steps = site.get(f"/api/games/{recorder.game_id}/steps")
    assert steps["corrections"] == 2
    screenshot(page, "recorder-winner-corrected-390x844", full_page=False)


def test_which_card_a_seat_gave_in_a_trade_is_corrected_from_the_list(
    pages: Pages, site: Site
) -> None:
    recorder = create(pages, site, names="Ana, Ben, Cleo")
    entries = [
        {"type": "plant", "seat": 0, "field": 0, "bean": "chili"},
        {"type": "reveal", "seat": 0, "cards": ["red", "green"]},
        # Ben gives Ana a card from his hand, entered as a Blue...
        {"type": "offer", "seat": 1, "to": 0, "hand": [0], "hand_beans": ["blue"], "wants": []},
        {"type": "accept", "seat": 0, "offer": 1},
    ]
    for body in entries:
        answer = site.client.post(
            f"/api/games/{recorder.game_id}/commands", json=body, headers=recorder.headers
        )
        assert answer.status_code == 200, answer.get_json()
    recorder.page.reload()
    recorder.page.wait_for_selector("#entry-status")
    assert recorder.view()["seats"][0]["trade_area"] == ["blue"]

    # ...but the table saw a Soy change hands.
    recorder.tap("[data-key='correct-2']")
    recorder.tap("#correct-given-0 button[data-bean='soy']")
    screenshot(recorder.page, "recorder-correct-a-trade-390x844", full_page=False)
    recorder.entered("#apply-correction")

    assert recorder.view()["seats"][0]["trade_area"] == ["soy"]
    assert recorder.page.locator("#log li.corrected").count() == 1


def post(recorder: Recorder, entries: list[dict[str, Any]]) -> None:
    """Enter these commands (JSON) through the API with the host's token; reload the page."""
    for body in entries:
        answer = recorder.site.client.post(
            f"/api/games/{recorder.game_id}/commands", json=body, headers=recorder.headers
        )
        assert answer.status_code == 200, answer.get_json()
    recorder.page.reload()
    recorder.page.wait_for_selector("#entry-status")


def test_a_known_deal_is_corrected_seat_by_seat_and_the_hand_card_given_is_tapped(
    pages: Pages, site: Site
) -> None:
    recorder = create(pages, site, names="Ana, Ben, Cleo", known=True)
    post(
        recorder,
        [
            {"type": "deal", "hands": DEAL},
            {"type": "plant", "seat": 0, "field": 0},
            {"type": "reveal", "seat": 0, "cards": ["red", "green"]},
            {"type": "offer", "seat": 1, "to": 0, "hand": [1], "wants": []},  # Ben's Stink
            {"type": "accept", "seat": 0, "offer": 1},
        ],
    )
    page = recorder.page
    assert recorder.view()["seats"][0]["trade_area"] == ["stink"]

    # The deal as it really was: Ben held Soy second, Stink third.
    real = [DEAL[0], ["blue", "soy", "stink", "wax", "red"], DEAL[2]]
    recorder.tap("[data-key='correct-0']")
    assert page.locator("#delete-entry").count() == 0  # a deal is corrected, never deleted
    for bean in [bean for hand in real for bean in hand]:
        recorder.tap(f"#correct-beans button[data-bean='{bean}']")
    screenshot(page, "recorder-correct-the-deal-390x844", full_page=False)
    assert axe_violations(page) == []
    recorder.entered("#apply-correction")
    assert recorder.view()["seats"][0]["trade_area"] == ["soy"]

    # Ben gave his Stink after all: tap it in his hand as it was before the offer.
    recorder.tap("[data-key='correct-3']")
    page.wait_for_selector("#correct-hand")
    assert page.inner_text("[data-key='fix-hand-2']") == "3. Stink"
    recorder.tap("[data-key='fix-hand-1']")
    recorder.tap("[data-key='fix-hand-2']")
    screenshot(page, "recorder-correct-the-card-given-390x844", full_page=False)
    assert axe_violations(page) == []
    recorder.entered("#apply-correction")
    assert recorder.view()["seats"][0]["trade_area"] == ["stink"]
    assert page.locator("#log li.corrected").count() == 2


def test_a_correction_that_makes_a_later_entry_illegal_corrects_that_entry_with_it(
    pages: Pages, site: Site
) -> None:
    recorder = create(pages, site, names="Ana, Ben, Cleo")
    post(
        recorder,
        [
            {"type": "plant", "seat": 0, "field": 0, "bean": "blue"},
            {"type": "reveal", "seat": 0, "cards": ["red", "soy"]},
            {"type": "end-trading", "seat": 0},
            {"type": "plant", "seat": 0, "field": 1, "bean": "red"},
        ],
    )
    page = recorder.page
    # The reveal was Green, Soy: then the Red planted from the trade area cannot have been.
    recorder.tap("[data-key='correct-1']")
    recorder.tap("#correct-beans button[data-bean='green']")
    recorder.tap("#correct-beans button[data-bean='soy']")
    recorder.entered("#apply-correction")
    assert "entry 3 (Ana plants Red in field 2) is illegal" in page.inner_text("#entry-message")
    recorder.tap("#correct-follow-up")
    assert "replace entry 2" in page.inner_text("#pending-changes")
    recorder.tap("#correct-beans button[data-bean='green']")
    screenshot(page, "recorder-correct-two-entries-390x844", full_page=False)
    assert axe_violations(page) == []
    recorder.entered("#apply-correction")

    fields = recorder.view()["seats"][0]["fields"]
    assert [field["bean"] for field in fields[:2]] == ["blue", "green"]
    assert page.locator("#log li.corrected").count() == 2
    assert site.get(f"/api/games/{recorder.game_id}/steps")["corrections"] == 1


def test_an_ordinary_turn_takes_at_most_ten_taps(pages: Pages, site: Site) -> None:
    """Plant, reveal, one trade, end trading, plant the traded cards, draw."""
    recorder = create(pages, site, names="Ana, Ben, Cleo")

    recorder.entered("#plant-beans button[data-bean='blue']")
    recorder.tap("#reveal-beans button[data-bean='chili']")
    recorder.entered("#reveal-beans button[data-bean='soy']")
    recorder.tap("[data-key='partner-1']")
    recorder.tap("[data-key='face-up-0']")
    recorder.tap("#gives-1 button[data-bean='blue']")
    recorder.entered("#trade-done")
    recorder.entered("#end-trading")
    recorder.entered("#plant-all")
    recorder.entered("#draw")

    view = recorder.view()
    assert (view["turn"], view["active_seat"]) == (2, 1)
    assert view["seats"][0]["fields"][:2] == [
        {"bean": "blue", "count": 2},
        {"bean": "soy", "count": 1},
    ]
    assert view["seats"][1]["fields"][0] == {"bean": "chili", "count": 1}
    assert recorder.taps <= 10


def test_a_bean_every_copy_of_which_was_seen_is_greyed_out(pages: Pages, site: Site) -> None:
    recorder = create(pages, site, names="Ana, Ben, Cleo, Dan")  # four Cocoa in this deck
    recorder.post(
        [
            cmd.Plant(0, 0, "cocoa"),
            cmd.Plant(0, 0, "cocoa"),
            cmd.Reveal(0, ("cocoa", "cocoa")),
        ]
    )
    page = recorder.page

    cocoa = page.locator("#gives-1 button[data-bean='cocoa']")
    assert cocoa.is_disabled()
    assert "impossible" in (cocoa.get_attribute("class") or "")
    assert not page.locator("#gives-1 button[data-bean='blue']").is_disabled()


def test_undo_takes_back_the_last_entry_in_one_tap(pages: Pages, site: Site) -> None:
    recorder = create(pages, site, names="Ana, Ben, Cleo")
    recorder.entered("#plant-beans button[data-bean='blue']")

    recorder.entered("#undo")

    view = recorder.view()
    assert view["seats"][0]["fields"][0] == {"bean": None, "count": 0}
    assert view["planted_this_turn"] == 0


def test_undo_waits_for_an_entry_after_the_deal_which_is_corrected_instead(
    pages: Pages, site: Site
) -> None:
    recorder = create(pages, site, names="Ana, Ben, Cleo", known=True)
    page = recorder.page
    assert page.is_disabled("#undo")  # nothing entered yet
    for hand in DEAL:
        for bean in hand:
            page.click(f".palette button[data-bean='{bean}']")
    recorder.entered("#enter-deal")

    assert page.is_disabled("#undo")
    assert "correct it from the entries" in (page.get_attribute("#undo", "title") or "")

    recorder.entered("#plant-front")
    assert not page.is_disabled("#undo")


def test_a_reveal_past_the_end_of_the_draw_pile_names_the_rest_from_the_discards(
    pages: Pages, site: Site
) -> None:
    recorder = create(pages, site, names="Ana, Ben, Cleo, Dan", start="1", known=True)
    recorder.post(PAST_THE_PILE[:RESHUFFLED])
    reveal = PAST_THE_PILE[RESHUFFLED]
    assert isinstance(reveal, cmd.Reveal)
    assert reveal.cards is not None
    last, first_of_the_new_pile = reveal.cards
    page = recorder.page
    offered = "#reveal-beans button:not([disabled])"

    assert page.eval_on_selector_all(offered, "bs => bs.map(b => b.dataset.bean)") == [last]
    page.click(f"#reveal-beans button[data-bean='{last}']")
    assert len(page.query_selector_all(offered)) > 1  # the discards' beans
    recorder.entered(f"#reveal-beans button[data-bean='{first_of_the_new_pile}']")

    assert recorder.view()["revealed"] == list(reveal.cards)


def test_a_traded_card_no_field_takes_says_to_harvest_or_buy_first(
    pages: Pages, site: Site
) -> None:
    recorder = create(
        pages, site, names="Ana, Ben, Cleo, Dan, Eve, Fay, Gus", start="6", known=True
    )
    recorder.post(SEVEN[:NO_FIELD_FOR_IT])
    assert SEVEN[NO_FIELD_FOR_IT] == cmd.BuyField(3)
    page = recorder.page
    dan = page.locator("#entry [data-seat='3']")
    assert "No field of Dan's takes 1 Chili now" in dan.inner_text()
    assert dan.locator("button").count() == 0

    recorder.entered("[data-key='buy-3']")

    recorder.entered("#entry [data-key='plant-3-chili-2']")
    assert recorder.view()["seats"][3]["fields"][2] == {"bean": "chili", "count": 1}


def test_under_implicit_harvests_a_traded_card_may_go_onto_another_bean_harvested_first(
    pages: Pages, site: Site
) -> None:
    played = redecide(
        simulate("rio-grande", 4, seed=1, options={"implicit_harvest": True}), tabletop=True
    )
    started = played[0]
    assert isinstance(started, ev.GameStarted)
    game = site.new_game(
        seats=list(started.seats),
        start_seat=started.start_seat,
        mode="tabletop",
        hands="known",
        options={"implicit_harvest": True},
    )
    # Resumed as the recorder's links say, with the host token in the fragment.
    page = pages.open(
        f"/record#game={game.id}&token={game.host_token}", viewport=PHONE, ready="#entry-status"
    )
    recorder = Recorder(page, site)
    recorder.post(commands_from_facts(played, tabletop=True)[:38])  # Ben has a Green to plant
    green = page.locator("#entry [data-key='plant-1-green-0']")
    assert green.inner_text() == "Green → field 1 (its Stink harvested first)"

    recorder.entered("#entry [data-key='plant-1-green-0']")

    assert recorder.view()["seats"][1]["fields"][0] == {"bean": "green", "count": 1}


def test_a_harvest_worth_nothing_asks_first(pages: Pages, site: Site) -> None:
    recorder = create(pages, site, names="Ana, Ben, Cleo")
    page = recorder.page
    recorder.entered("#plant-beans button[data-bean='blue']")
    asked: list[str] = []
    page.once("dialog", lambda dialog: (asked.append(dialog.message), dialog.dismiss()))

    page.click("[data-key='harvest-0-0']")

    assert asked
    assert "0 coins" in asked[0]
    assert recorder.view()["seats"][0]["fields"][0] == {"bean": "blue", "count": 1}


def test_the_host_of_a_game_with_known_hands_enters_the_deal_and_refusals_cite_the_rules(
    pages: Pages, site: Site
) -> None:
    recorder = create(pages, site, names="Ana, Ben, Cleo", known=True)
    page = recorder.page
    for hand in DEAL:
        for bean in hand:
            page.click(f".palette button[data-bean='{bean}']")
    recorder.entered("#enter-deal")
    assert [seat["hand"] for seat in recorder.view()["seats"]] == DEAL
    assert page.inner_text("#plant-front") == "Plant Chili"

    recorder.entered("#plant-front")
    page.click("#second-plant")
    page.click("[data-key='target-0']")
    recorder.entered("#plant-front")

    refusal = page.inner_text("#entry-message .refusal")
    assert "RULES §7.1" in refusal
    screenshot(page, "recorder-refusal-390x844", full_page=False)


def test_an_offer_made_from_a_players_own_page_is_marked_accepted(pages: Pages, site: Site) -> None:
    recorder = create(pages, site, names="Ana, Ben, Cleo")
    recorder.post(
        [
            cmd.Plant(0, 0, "blue"),
            cmd.Reveal(0, ("chili", "soy")),
            cmd.Offer(1, 0, hand=(2,), hand_beans=("red",), wants=("chili",)),
        ]
    )

    recorder.entered("[data-key='accept-1-0']")

    view = recorder.view()
    assert view["offers"] == []
    assert view["seats"][0]["trade_area"] == ["red"]
    assert view["seats"][1]["trade_area"] == ["chili"]
