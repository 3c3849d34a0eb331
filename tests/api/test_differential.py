"""Whole games played over the HTTP API, each seat with its own token, against the independent
implementation of the rules (tests/independent_rules.py): every command the API accepts or
refuses, the other accepts or refuses too, and every seat's view — in each command's answer and
asked for afresh — is the other's table as that seat may see it (its own hand in order, the
others' hand sizes only, everything public as it is).

In tabletop games with unknown hands a hand card offered in a trade is named for the game, its
proposer and the host at once, and for the other seats once its place in the hand is shown
(docs/reference/modes.md): until then they count it among its pile's unseen cards (`_pile_seen`).

The seats choose among the legal commands their views list, with random offers and random
commands of every kind mixed in, as a client might send them. The test reads two things no seat
may: the deck (it chooses it, as a creator may) and each reshuffled pile's order (from the store,
as the other engine needs them).
"""

from __future__ import annotations

import random
from collections import Counter
from typing import Any
from uuid import UUID

import pytest
from flask import Flask
from flask.testing import FlaskClient

from domain.rules import MalformedCommand, parse_command
from domain.rules import events as ev
from domain.rules.state import DIGITAL, TABLETOP, UNKNOWN_HANDS
from tests.api.support import CreatedGame, bearer, create_game
from tests.builders import NAMES
from tests.independent_rules import COUNTS, Card, Illegal, Table, setup
from tests.marks import slow_beyond

HOST = -1
"""The host of a tabletop game, as a viewer: it sees every card the table has seen."""
UNKNOWN = "unknown-hands"
"""The mode of the test's tabletop games with unknown hands."""

GAMES = [
    pytest.param("rio-grande", 4, {}, DIGITAL, id="rio-grande-4p"),
    pytest.param("rio-grande", 2, {}, DIGITAL, id="duel"),
    pytest.param("amigo", 3, {"tie_break": ["most-hand-cards"]}, DIGITAL, id="amigo-3p"),
    pytest.param("rio-grande", 6, {"allow_retrade": True}, DIGITAL, id="rio-grande-6p-retrade"),
    pytest.param("amigo-1997", 5, {"implicit_harvest": True}, DIGITAL, id="amigo-1997-5p"),
    pytest.param(
        "rio-grande",
        5,
        {"coin_counts_visible": False, "discard_pile_browsable": True},
        DIGITAL,
        id="rio-grande-5p-secret-coins-browsable-discards",
    ),
    pytest.param("rio-grande", 4, {}, TABLETOP, id="tabletop-rio-grande-4p"),
    pytest.param("amigo", 3, {"reshuffle": "on-next-draw"}, TABLETOP, id="tabletop-amigo-3p"),
    pytest.param("rio-grande", 4, {}, UNKNOWN, id="unknown-rio-grande-4p"),
    pytest.param("amigo", 3, {"allow_retrade": True}, UNKNOWN, id="unknown-amigo-3p-retrade"),
    pytest.param("rio-grande", 2, {}, UNKNOWN, id="unknown-duel"),
]


@pytest.mark.parametrize(("preset", "players", "options", "mode"), slow_beyond(GAMES, keep=1))
def test_every_seat_sees_over_the_api_what_an_independent_engine_says_it_may(
    web: Flask, client: FlaskClient, preset: str, players: int, options: dict[str, Any], mode: str
) -> None:
    rng = random.Random(f"api-differential/{preset}/{players}/{mode}")
    seats = list(NAMES[:players])
    if mode == TABLETOP:  # the host enters every card dealt, revealed and drawn
        game = create_game(client, seats=seats, ruleset=preset, options=options, mode=mode)
        table = Table(preset, players, 0, None, options)
    elif mode == UNKNOWN:  # the deal and the draws go into hands unseen; cards named when shown
        game = create_game(
            client, seats=seats, ruleset=preset, options=options, mode=TABLETOP, hands=UNKNOWN_HANDS
        )
        table = Table(preset, players, 0, None, options, unknown_hands=True)
    else:  # the test chooses the deck, as a game's creator may
        rules = setup(preset, players, 0, options)
        deck = [bean for bean in rules.beans for _ in range(COUNTS[bean])]
        rng.shuffle(deck)
        game = create_game(client, seats=seats, ruleset=preset, options=options, deck=deck)
        table = Table(preset, players, 0, deck, options)
    stored = Stored(web, game)
    viewers = list(range(players)) if mode == DIGITAL else [*range(players), HOST]
    for step in range(20_000):
        if table.scores is not None:
            for viewer in viewers:
                assert_seen(_view(client, game, viewer), table, viewer, "at the end")
            return
        viewer = rng.choice((table.active, table.active, *viewers))
        view = _view(client, game, viewer)
        assert_seen(view, table, viewer, f"step {step}: {_who(viewer)}'s view")
        names_cards = viewer == HOST or (
            (view.get("legal") or {}).get("chance") and rng.random() < 0.5
        )
        body = _chance(rng, view) if names_cards else _command(rng, view, table, viewer)
        if body is None:
            continue
        headers = game.host() if viewer == HOST else game.seat(viewer)
        answer = client.post(f"{game.url}/commands", json=body, headers=headers)
        where = f"step {step}: {_who(viewer)} sent {body}"
        try:
            command = parse_command(body)
        except MalformedCommand:
            assert answer.status_code == 422, f"{where}: {answer.status_code}"
            continue
        if answer.status_code == 403:  # with known hands only the host names pile cards (§4.4)
            assert mode == TABLETOP, f"{where}: {answer.get_json()}"
            assert body["type"] in ("reveal", "draw"), f"{where}: {answer.get_json()}"
            continue
        if answer.status_code != 200:
            assert answer.status_code in (409, 422), f"{where}: {answer.get_json()}"
            try:
                table.play(command, [])
            except Illegal:
                continue
            pytest.fail(f"{where}: the API refused it ({answer.get_json()}), the other did not")
        try:
            table.play(command, stored.reshuffles_since())
        except Illegal as refusal:
            pytest.fail(f"{where}: the API accepted it, the other refused it ({refusal})")
        assert_seen(answer.get_json()["view"], table, viewer, f"{where}: its answer")
    raise AssertionError("the game did not end")


def _who(viewer: int) -> str:
    return "the host" if viewer == HOST else f"seat {viewer}"


class Stored:
    """The game's facts as stored, for the reshuffled piles' orders (a secret of the store)."""

    def __init__(self, web: Flask, game: CreatedGame) -> None:
        self.views = web.extensions["bohnanza"].get().views
        self.game_id = UUID(game.id)
        self.read = 0

    def reshuffles_since(self) -> list[list[str]]:
        facts = self.views.facts(self.game_id)[self.read :]
        self.read += len(facts)
        return [
            r.fact.order
            for r in facts
            if isinstance(r.fact, ev.DiscardsReshuffled) and r.fact.order
        ]


def _view(client: FlaskClient, game: CreatedGame, viewer: int) -> dict[str, Any]:
    token = game.host_token if viewer == HOST else game.seat_tokens[viewer]
    answer = client.get(f"{game.url}/view", headers=bearer(token))
    assert answer.status_code == 200, answer.get_json()
    return answer.get_json()


def assert_seen(view: dict[str, Any], table: Table, viewer: int, where: str) -> None:
    """The view is the table as `viewer` may see it (RULES §4.5): a seat its own hand, every
    hand's size, fields, trade areas, coin counts (only its own under secret treasuries, until the
    end), the piles' sizes and the discard pile's top (all of it when browsable or over), the
    face-up cards and open offers (an offer's hand positions for its proposer only); the host of
    a tabletop game every hand and what the draw pile holds. With unknown hands, every card the
    viewer has seen named (in any hand, a hand nobody has an unseen card of) and, for each draw
    pile, the beans it still hides and how many of its cards are in the pile and in hands."""
    discard, over = table.discard, table.scores is not None
    everything = viewer == HOST
    coins_shown = table.rules.option("coin_counts_visible", True) or over or everything
    seen = {
        "phase": view["phase"],
        "active": view["active_seat"],
        "draw pile": (view["draw_pile"]["size"], Counter(view["draw_pile"].get("cards", ()))),
        "discard pile": (
            view["discard_pile"]["size"],
            view["discard_pile"]["top"],
            view["discard_pile"].get("cards"),
        ),
        "face up": Counter(view["revealed"]),
        "duel offer": Counter(view["duel_offer"]),
        "out of the game": view["removed_from_game"],
        "exhaustions": view["exhaustions"],
        "offers": {
            offer["id"]: (
                offer["proposer"],
                offer["to"],
                Counter(offer["gives"]),
                Counter(offer["wants"]),
                sorted(offer["gives_from_hand"]),
            )
            for offer in view["offers"]
        },
        "seats": [
            (
                s["hand"],
                s["hand_size"],
                [(f["bean"], f["count"]) for f in s["fields"]],
                Counter(s["trade_area"]),
                s["coins"],
                s["bought_third_field"],
            )
            for s in view["seats"]
        ],
        "result": None
        if view["result"] is None
        else (view["result"]["scores"], view["result"]["winners"]),
        "unseen": None
        if "unseen" not in view
        else (
            [s["hand_piles"] for s in view["seats"]],
            [
                (u["pile"], Counter(u["beans"]), u["in_draw_pile"], u["in_hands"])
                for u in view["unseen"]
            ],
        ),
    }
    hands = [[card.bean for card in s.hand] for s in table.seats]
    shown = [hand if number == viewer or everything else None for number, hand in enumerate(hands)]
    unseen = None
    if table.unknown_hands:
        piles = [
            [_pile_seen(card, number, viewer) for card in s.hand]
            for number, s in enumerate(table.seats)
        ]
        shown = [
            [
                None if pile is not None else card.bean
                for card, pile in zip(s.hand, row, strict=True)
            ]
            if number == viewer or not any(pile is not None for pile in row)
            else None
            for number, (s, row) in enumerate(zip(table.seats, piles, strict=True))
        ]
        unseen = (piles, _unseen(table, piles))
    browsable = table.rules.option("discard_pile_browsable", False) or over or everything
    expected = {
        "phase": table.phase,
        "active": table.active,
        "draw pile": (
            len(table.draw_pile),
            Counter(table.draw_pile if everything and not table.unknown_hands else ()),
        ),
        "discard pile": (
            len(discard),
            discard[-1] if discard else None,
            discard if browsable else None,
        ),
        "face up": Counter(table.revealed),
        "duel offer": Counter(table.duel_offer),
        "out of the game": len(table.removed),
        "exhaustions": table.exhaustions,
        "offers": {
            number: (
                offer.proposer,
                offer.to,
                Counter([card.bean for card in offer.hand] + offer.revealed + offer.trade_area),
                Counter(offer.wants),
                _positions(table, offer, viewer),
            )
            for number, offer in table.offers.items()
        },
        "seats": [
            (
                shown[number],
                len(hands[number]),
                [tuple(f) for f in s.fields],
                Counter(s.trade_area),
                len(s.coins) if coins_shown or number == viewer else None,
                s.bought,
            )
            for number, s in enumerate(table.seats)
        ],
        "result": None if not over else (table.scores, table.winners),
        "unseen": unseen,
    }
    differ = [key for key in seen if seen[key] != expected[key]]
    assert not differ, f"{where}: " + "; ".join(
        f"{key}: API {seen[key]} / other {expected[key]}" for key in differ
    )


def _pile_seen(card: Card, holder: int, viewer: int) -> int | None:
    """The draw pile of a hand card `viewer` has not seen named; None for one it has. A named card
    still in a hand was named by an offer of its holder's (the one way these games name a card and
    leave it there; they show no hands after the end): the holder and the host saw it named, the
    other seats did not see which card it was."""
    if card.pile is not None or viewer in (HOST, holder):
        return card.pile
    return card.drawn_from


def _unseen(
    table: Table, piles: list[list[int | None]]
) -> list[tuple[int, Counter[str], int, int]]:
    """Each draw pile's beans nobody has seen as a viewer counts them (`piles`: each hand card's
    pile as the viewer sees it; the beans of the named cards among them count as unseen), the
    cards left of it in the draw pile (the newest pile's) and in hands unseen."""
    hidden = Counter(pile for row in piles for pile in row if pile is not None)
    named = [Counter[str]() for _ in table.pools]  # the named cards the viewer counts unseen
    for seat, row in zip(table.seats, piles, strict=True):
        for card, pile in zip(seat.hand, row, strict=True):
            if pile is not None and card.bean is not None:
                named[pile][card.bean] += 1
    newest = len(table.pools) - 1
    return [
        (
            number,
            +(beans + named[number]),
            len(table.draw_pile) if number == newest else 0,
            hidden[number],
        )
        for number, beans in enumerate(table.pools)
    ]


def _positions(table: Table, offer: Any, viewer: int) -> list[int]:
    """An offer's hand positions, as its proposer (and the host) sees them; nobody else does."""
    if offer.proposer != viewer and viewer != HOST:
        return []
    return sorted(table.seats[offer.proposer].hand.index(card) for card in offer.hand)


def _chance(rng: random.Random, view: dict[str, Any]) -> dict[str, Any] | None:
    """What the host of a tabletop game enters, or with unknown hands a seat too: the cards dealt,
    revealed or drawn (cards the pile may hold, as the host's view shows them, then the discard
    pile's, which a reshuffle on the way makes the new pile; with unknown hands beans the newest
    pile still hides, as the view counts them), or now and then cards picked at random."""
    chance = view["legal"]["chance"]
    if chance is None:
        return None
    if "unseen" in view:
        newest = view["unseen"][-1]["beans"]
        pile, discards = [bean for bean, n in newest.items() for _ in range(n)], []
    else:
        pile, discards = view["draw_pile"]["cards"], view["discard_pile"]["cards"]
    if rng.random() < 0.1:
        named = rng.sample(pile + discards, min(chance["count"], 2))
    else:
        named = rng.sample(pile, min(chance["count"], len(pile)))
        named += rng.sample(discards, min(chance["count"] - len(named), len(discards)))
    if chance["type"] == "deal":
        cards = iter(rng.sample(pile, len(pile)))
        return {"type": "deal", "hands": [[next(cards) for _ in range(n)] for n in chance["hands"]]}
    return {"type": chance["type"], "seat": chance["seat"], "cards": named}


def _command(
    rng: random.Random, view: dict[str, Any], table: Table, seat: int
) -> dict[str, Any] | None:
    """A command as a client sends it: mostly one of the view's legal commands (harvests seldom,
    as the bots of tests/unit/test_rules_differential.py choose), an offer in the view's range,
    or a random one."""
    legal = view.get("legal") or {"commands": [], "offer": None}
    offer = legal["offer"]
    if rng.random() < 0.15:
        return rng.choice(
            [
                {"type": "harvest", "field": rng.randrange(4)},
                {"type": "plant", "field": rng.randrange(3)},
                {"type": "reveal"},
                {"type": "draw"},
                {"type": "end-trading"},
                {"type": "buy-field"},
                {"type": "decline", "offer": rng.randint(1, table.next_offer)},
                {"type": "offer-rest"},
            ]
        ) | {"seat": seat}
    if offer and (offer["hand"] or offer["revealed"]) and rng.random() < 0.3:
        hand = rng.sample(offer["hand"], min(len(offer["hand"]), rng.randint(0, 2)))
        revealed = rng.sample(offer["revealed"], rng.randint(0, len(offer["revealed"])))
        area = rng.sample(offer["trade_area"], min(1, len(offer["trade_area"])))
        wants = rng.sample(offer["wants"], rng.randint(0 if hand or revealed else 1, 2))
        named = offer["hand_beans"]  # unknown hands: each hand card's bean is named
        return {
            "type": "offer",
            "seat": seat,
            "to": rng.choice(offer["to"]),
            "hand": hand,
            "revealed": revealed,
            "trade_area": area,
            "wants": wants,
        } | ({"hand_beans": [rng.choice(named[p]) for p in hand]} if named else {})
    commands = legal["commands"]
    chosen = [c for c in commands if c["type"] != "harvest"] or commands
    if chosen and (rng.random() < 0.9 or len(chosen) == len(commands)):
        return rng.choice(chosen)
    return rng.choice(commands) if commands else None
