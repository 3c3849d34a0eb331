"""Tabletop games: the host (the table's recorder) enters the dealt hands and every card that
comes off the pile, and may act for any seat; in digital games the host cannot act at all."""

from __future__ import annotations

import uuid
from collections import Counter

import pytest
from flask import Flask
from flask.testing import FlaskClient

from domain.bots import simulate
from domain.rules import events as ev
from domain.rules.commands import Deal, Draw, Reveal
from domain.rules.rulesets import resolve_ruleset
from domain.rules.transcript import commands_from_facts

from .support import CreatedGame, assert_envelope, command, create_game

HANDS = [
    ["wax", "stink", "stink", "coffee", "coffee"],
    ["wax", "wax", "chili", "coffee", "black-eyed"],
    ["wax", "red", "chili", "blue", "green"],
]


@pytest.fixture
def table(client: FlaskClient) -> CreatedGame:
    """A tabletop game of three, Ana to start, hands not yet dealt."""
    return create_game(client, mode="tabletop")


@pytest.fixture
def dealt(client: FlaskClient, table: CreatedGame) -> CreatedGame:
    """The tabletop game with HANDS dealt."""
    response = command(client, table, table.host(), type="deal", hands=HANDS)
    assert response.status_code == 200, response.get_json()
    return table


def test_the_host_enters_the_dealt_hands(client: FlaskClient, dealt: CreatedGame) -> None:
    view = client.get(f"{dealt.url}/view", headers=dealt.seat(1)).get_json()

    assert view["seats"][1]["hand"] == HANDS[1]
    assert view["seats"][0]["hand"] is None


def test_a_seat_cannot_enter_the_deal(client: FlaskClient, table: CreatedGame) -> None:
    response = command(client, table, table.seat(0), type="deal", hands=HANDS)

    assert_envelope(response, 403, "forbidden")


def test_the_host_sees_every_hand_of_a_tabletop_game(
    client: FlaskClient, dealt: CreatedGame
) -> None:
    view = client.get(f"{dealt.url}/view", headers=dealt.host()).get_json()

    assert view["viewer"] == {"kind": "host", "seat": None}
    assert [seat["hand"] for seat in view["seats"]] == HANDS


def test_the_host_of_a_tabletop_game_sees_the_cards_no_one_has_seen_yet_and_a_seat_does_not(
    client: FlaskClient, dealt: CreatedGame
) -> None:
    host = client.get(f"{dealt.url}/view", headers=dealt.host()).get_json()
    seat = client.get(f"{dealt.url}/view", headers=dealt.seat(0)).get_json()
    deck = Counter(resolve_ruleset("rio-grande", 3).counts)

    dealt_cards = Counter(bean for hand in HANDS for bean in hand)
    assert Counter(host["draw_pile"]["cards"]) == deck - dealt_cards
    assert "cards" not in seat["draw_pile"]
    assert "seed" not in host


def test_a_seat_plays_its_own_card_in_a_tabletop_game(
    client: FlaskClient, dealt: CreatedGame
) -> None:
    response = command(client, dealt, dealt.seat(0), type="plant", field=0)

    assert response.status_code == 200
    assert response.get_json()["events"][0]["event"]["bean"] == "wax"


def test_the_host_plants_for_the_seat_it_names(client: FlaskClient, dealt: CreatedGame) -> None:
    response = command(client, dealt, dealt.host(), type="plant", seat=0, field=2)

    assert response.status_code == 200
    assert response.get_json()["view"]["seats"][0]["fields"][2] == {"bean": "wax", "count": 1}


def test_the_host_must_name_the_seat_it_plants_for(client: FlaskClient, dealt: CreatedGame) -> None:
    response = command(client, dealt, dealt.host(), type="plant", field=0)

    body = assert_envelope(response, 422, "validation_error")
    assert "seat" in body["errors"]["json"]


def test_the_host_reveals_the_cards_seen_for_the_active_seat(
    client: FlaskClient, dealt: CreatedGame
) -> None:
    command(client, dealt, dealt.seat(0), type="plant", field=0)

    response = command(client, dealt, dealt.host(), type="reveal", cards=["soy", "red"])

    assert response.status_code == 200
    assert response.get_json()["view"]["revealed"] == ["soy", "red"]


def legal_for(client: FlaskClient, game: CreatedGame, headers: dict[str, str]) -> dict:
    response = client.get(f"{game.url}/legal", headers=headers)
    assert response.status_code == 200, response.get_json()
    return response.get_json()


def test_the_host_is_told_the_table_waits_for_the_deal(
    client: FlaskClient, table: CreatedGame
) -> None:
    legal = legal_for(client, table, table.host())

    assert legal == {
        "commands": [],
        "offer": None,
        "offers": [],
        "chance": {"type": "deal", "seat": None, "count": 15, "hands": [5, 5, 5]},
    }


def test_the_host_may_enter_every_seats_commands(client: FlaskClient, dealt: CreatedGame) -> None:
    host = legal_for(client, dealt, dealt.host())
    seats = [legal_for(client, dealt, dealt.seat(seat))["commands"] for seat in range(3)]

    assert host["commands"] == seats[0] + seats[1] + seats[2]
    assert {command["type"] for command in host["commands"]} == {"plant"}
    assert host["chance"] is None


def test_the_host_is_told_how_many_cards_to_reveal_and_no_seat_is(
    client: FlaskClient, dealt: CreatedGame
) -> None:
    command(client, dealt, dealt.seat(0), type="plant", field=0)

    host = legal_for(client, dealt, dealt.host())

    assert host["chance"] == {"type": "reveal", "seat": 0, "count": 2, "hands": None}
    assert legal_for(client, dealt, dealt.seat(0))["chance"] is None  # the host names them
    assert legal_for(client, dealt, dealt.seat(1))["chance"] is None


def test_in_trading_the_host_is_told_each_seats_offer_range_and_may_enter_an_offer_within_it(
    client: FlaskClient, dealt: CreatedGame
) -> None:
    command(client, dealt, dealt.seat(0), type="plant", field=0)
    command(client, dealt, dealt.host(), type="reveal", cards=["soy", "red"])

    offers = {offer["seat"]: offer for offer in legal_for(client, dealt, dealt.host())["offers"]}
    response = command(
        client, dealt, dealt.host(), type="offer", seat=2, to=0, hand=[4], wants=["soy"]
    )

    assert {seat: offers[seat]["to"] for seat in offers} == {0: [1, 2], 1: [0], 2: [0]}
    assert offers[0]["revealed"] == ["soy", "red"]
    assert offers[2]["hand"] == [0, 1, 2, 3, 4]
    assert response.status_code == 200, response.get_json()
    assert response.get_json()["events"][0]["event"]["proposer"] == 2


def test_a_card_that_cannot_be_in_the_pile_is_refused(
    client: FlaskClient, dealt: CreatedGame
) -> None:
    command(client, dealt, dealt.seat(0), type="plant", field=0)

    response = command(client, dealt, dealt.host(), type="reveal", cards=["cocoa", "red"])

    body = assert_envelope(response, 409, "rule_violation")
    assert body["rule"] == "RULES §4.4"


def test_the_host_of_a_digital_game_cannot_act(client: FlaskClient, game: CreatedGame) -> None:
    response = command(client, game, game.host(), type="plant", seat=0, field=0)

    body = assert_envelope(response, 403, "forbidden")
    assert "digital" in body["message"]


def test_the_host_of_a_digital_game_sees_what_the_public_sees(
    client: FlaskClient, game: CreatedGame
) -> None:
    host = client.get(f"{game.url}/view", headers=game.host()).get_json()
    public = client.get(f"{game.url}/view").get_json()

    assert host["viewer"] == {"kind": "host", "seat": None}
    assert {**host, "viewer": None} == {**public, "viewer": None}


def test_a_digital_game_recorded_card_for_card_by_the_host_ends_the_same(
    web: Flask, client: FlaskClient
) -> None:
    facts = simulate("rio-grande", 3, bot="greedy", seed=11)
    started, ended = facts[0], facts[-1]
    assert isinstance(started, ev.GameStarted)
    assert isinstance(ended, ev.GameEnded)
    record = create_game(
        client, seats=list(started.seats), mode="tabletop", start_seat=started.start_seat
    )

    for step, entry in enumerate(commands_from_facts(facts, tabletop=True)):
        body = entry.to_dict()
        if isinstance(entry, Deal | Reveal | Draw) or step % 2:
            headers = record.host()
        else:
            headers = record.seat(body.pop("seat"))
        response = command(client, record, headers, **body)
        assert response.status_code == 200, (step, body, response.get_json())

    summary = client.get(record.url).get_json()
    assert summary["status"] == "ended"
    assert summary["result"]["scores"] == list(ended.scores)
    assert summary["result"]["winners"] == list(ended.winners)
    stored = web.extensions["bohnanza"].get().app.facts(uuid.UUID(record.id))
    assert stored[-1] == ended


def test_the_host_of_a_tabletop_game_may_see_a_seats_view(
    client: FlaskClient, dealt: CreatedGame
) -> None:
    as_host = client.get(f"{dealt.url}/view?seat=1", headers=dealt.host()).get_json()
    as_seat = client.get(f"{dealt.url}/view", headers=dealt.seat(1)).get_json()

    assert as_host == as_seat
    assert as_host["viewer"] == {"kind": "seat", "seat": 1}


def test_the_host_asking_for_a_seat_the_game_does_not_have_is_a_422(
    client: FlaskClient, dealt: CreatedGame
) -> None:
    response = client.get(f"{dealt.url}/view?seat=5", headers=dealt.host())

    body = assert_envelope(response, 422, "validation_error")
    assert body["errors"] == {"query": {"seat": ["The game's seats are 0 to 2."]}}


def test_the_host_of_a_digital_game_asking_for_a_seats_view_is_a_403(
    client: FlaskClient,
) -> None:
    game = create_game(client)

    response = client.get(f"{game.url}/view?seat=1", headers=game.host())

    assert_envelope(response, 403, "forbidden")
