"""Every endpoint answering what it promises: create, list, summary, view, legal, commands,
events, scoreboard, leaderboard, health, rulesets and the OpenAPI document with its docs."""

from __future__ import annotations

import uuid
from collections.abc import Iterator

import pytest
from flask import Flask
from flask.testing import FlaskClient
from sqlalchemy import select

from api import tables
from api.security import TOKEN_BYTES, TOKEN_PREFIX, digest
from domain.rules.commands import Plant
from domain.rules.events import EVENT_TYPES
from replays.record import schema as record_schema
from tests.played import finish_stored

from .support import (
    SEATS,
    CreatedGame,
    assert_envelope,
    command,
    create_game,
    documented_schema,
)


def finish_bot_game(web: Flask, seats: list[str], seed: int) -> uuid.UUID:
    """A complete greedy-bot game stored through the application (no tokens issued)."""
    services = web.extensions["bohnanza"].get()
    started = services.app.start_game(seats, seed=seed)
    finish_stored(services.app, started.game_id, seed=seed)
    services.catch_up()
    return started.game_id


# --- POST /api/games ------------------------------------------------------------------------


def test_creating_a_game_answers_201_with_a_token_per_seat_and_one_for_the_host(
    client: FlaskClient,
) -> None:
    response = client.post("/api/games", json={"seats": SEATS, "seed": 7})

    body = response.get_json()
    assert response.status_code == 201
    assert [(s["seat"], s["name"]) for s in body["seats"]] == list(enumerate(SEATS))
    tokens = [s["token"] for s in body["seats"]] + [body["host_token"]]
    assert len(set(tokens)) == 4
    assert body["version"] == 2
    assert body["ruleset"]["preset"] == "rio-grande"
    assert body["links"]["view"] == f"/api/games/{body['game_id']}/view"


def test_tokens_carry_at_least_128_random_bits() -> None:
    assert TOKEN_BYTES * 8 >= 128


def test_tokens_are_stored_only_as_digests(web: Flask, game: CreatedGame) -> None:
    engine = web.extensions["bohnanza"].get().engine
    with engine.connect() as connection:
        stored = set(connection.execute(select(tables.tokens.c.digest)).scalars())

    presented = [*game.seat_tokens, game.host_token]
    assert all(token.startswith(TOKEN_PREFIX) for token in presented)
    assert stored == {digest(token) for token in presented}
    assert not stored & set(presented)


def test_creating_a_game_with_options_and_a_preset_stores_the_resolved_ruleset(
    client: FlaskClient,
) -> None:
    created = create_game(
        client,
        seats=["A", "B", "C", "D"],
        ruleset="amigo",
        options={"allow_retrade": True},
        start_seat=2,
    )

    ruleset = created.document["ruleset"]
    assert (ruleset["preset"], ruleset["players"], ruleset["allow_retrade"]) == ("amigo", 4, True)
    assert client.get(created.url).get_json()["start_seat"] == 2


def test_creating_a_game_with_duplicate_names_is_refused(client: FlaskClient) -> None:
    response = client.post("/api/games", json={"seats": ["Ana", "Ana"]})

    assert response.status_code == 422
    assert "must differ" in response.get_json()["message"]


def test_a_game_that_cannot_start_leaves_no_tokens_behind(web: Flask, client: FlaskClient) -> None:
    client.post("/api/games", json={"seats": ["Ana", "Ben", "Cleo"], "start_seat": 5})

    engine = web.extensions["bohnanza"].get().engine
    with engine.connect() as connection:
        assert connection.execute(select(tables.tokens)).all() == []


# --- GET /api/games and /api/games/<id> ------------------------------------------------------


def test_the_game_list_shows_the_newest_game_first(client: FlaskClient) -> None:
    first = create_game(client)
    second = create_game(client, seats=["Dan", "Eve"])

    games = client.get("/api/games").get_json()["games"]

    assert [g["game_id"] for g in games] == [second.id, first.id]
    assert games[0]["seats"] == ["Dan", "Eve"]
    assert games[1]["status"] == "in-progress"


def test_the_game_list_comes_in_pages_newest_first(client: FlaskClient) -> None:
    created = [create_game(client).id for _ in range(5)]

    pages = [
        client.get("/api/games", query_string={"limit": 2, "offset": offset}).get_json()
        for offset in (0, 2, 4)
    ]

    assert [[g["game_id"] for g in page["games"]] for page in pages] == [
        created[4:2:-1],
        created[2:0:-1],
        created[0:1],
    ]
    assert [(page["total"], page["next_offset"]) for page in pages] == [(5, 2), (5, 4), (5, None)]


def test_the_game_list_comes_in_pages_by_cursor_newest_first(client: FlaskClient) -> None:
    created = [create_game(client).id for _ in range(5)]

    pages = [client.get("/api/games", query_string={"limit": 2}).get_json()]
    while pages[-1]["next_cursor"] is not None:
        asking = {"limit": 2, "cursor": pages[-1]["next_cursor"]}
        pages.append(client.get("/api/games", query_string=asking).get_json())

    assert [[g["game_id"] for g in page["games"]] for page in pages] == [
        created[4:2:-1],
        created[2:0:-1],
        created[0:1],
    ]
    assert [page["total"] for page in pages] == [5, 5, 5]
    assert [page["next_offset"] for page in pages] == [2, None, None]  # the first page: offset 0
    documented_schema(client, "GameList").validate(pages[1])


def test_the_game_lists_total_follows_the_filters(client: FlaskClient) -> None:
    create_game(client, seats=["Ana", "Ben", "Cleo"])
    create_game(client, seats=["Ana", "Dan"], ruleset="rio-grande")
    create_game(client, seats=["Eve", "Finn", "Gus"], ruleset="amigo")

    def total(**query: object) -> int:
        return client.get("/api/games", query_string=query).get_json()["total"]

    assert (total(), total(ruleset="amigo"), total(status="ended")) == (3, 1, 0)
    assert (total(player="Ana"), total(player="Ana", ruleset="amigo")) == (2, 0)
    assert total(status="in-progress", ruleset="rio-grande") == 2


@pytest.mark.parametrize("cursor", ["nonsense", "bm9ufGNlbnNl", "", "x" * 201])
def test_a_cursor_the_list_never_gave_is_a_422(client: FlaskClient, cursor: str) -> None:
    response = client.get("/api/games", query_string={"cursor": cursor})

    body = assert_envelope(response, 422, "validation_error")
    assert set(body["errors"]["query"]) == {"cursor"}


def test_a_page_asked_for_by_cursor_and_offset_is_a_422(client: FlaskClient) -> None:
    create_game(client)
    create_game(client)
    cursor = client.get("/api/games", query_string={"limit": 1}).get_json()["next_cursor"]

    response = client.get("/api/games", query_string={"cursor": cursor, "offset": 1})

    assert set(assert_envelope(response, 422, "validation_error")["errors"]["query"]) == {"offset"}


@pytest.mark.parametrize("query", [{"limit": 0}, {"limit": 501}, {"offset": -1}, {"offset": 2**63}])
def test_a_game_list_page_out_of_bounds_is_a_422(client: FlaskClient, query: dict) -> None:
    response = client.get("/api/games", query_string=query)

    body = assert_envelope(response, 422, "validation_error")
    assert set(body["errors"]["query"]) == set(query)


def test_the_largest_offset_the_document_allows_is_an_empty_page(client: FlaskClient) -> None:
    response = client.get("/api/games", query_string={"offset": 2**63 - 1})

    assert response.status_code == 200
    assert (response.get_json()["games"], response.get_json()["next_offset"]) == ([], None)


def test_every_integer_in_a_query_has_the_bound_the_server_keeps(client: FlaskClient) -> None:
    document = client.get("/openapi.json").get_json()
    bounds = {
        (path, parameter["name"]): parameter["schema"].get("maximum")
        for path, _, operation in _operations(document)
        for parameter in operation.get("parameters", [])
        if parameter["in"] == "query" and parameter["schema"].get("type") == "integer"
    }

    assert ("/api/games/{game_id}/events", "after") in bounds
    assert all(bound is not None and bound <= 2**63 - 1 for bound in bounds.values()), bounds


def test_an_integer_past_the_bound_is_a_422_naming_it(client: FlaskClient) -> None:
    response = client.get("/api/games", query_string={"after_position": 2**63})

    body = assert_envelope(response, 422, "validation_error")
    assert list(body["errors"]["query"]) == ["after_position"]


@pytest.mark.parametrize("written", ["%2B1", "-1", "%201", "%EF%BC%91", "1.0", "0x1", "ten"])
def test_a_number_in_the_query_is_written_in_ascii_digits(
    client: FlaskClient, written: str
) -> None:
    response = client.get(f"/api/games?limit={written}")

    body = assert_envelope(response, 422, "validation_error")
    assert body["errors"]["query"] == {
        "limit": [
            "Not a valid integer: a number in the query is written in the digits 0-9 alone "
            "(no sign, space or point)."
        ]
    }


def test_the_game_list_filters_by_player_status_and_ruleset(
    web: Flask, client: FlaskClient
) -> None:
    amigo = create_game(client, seats=["Ana", "Zoe", "Ben"], ruleset="amigo")
    create_game(client, seats=["Ana", "Ben", "Cleo"])
    finished = finish_bot_game(web, ["Ana", "Ben", "Cleo"], seed=3)

    def ids(**query: object) -> list[str]:
        games = client.get("/api/games", query_string=query).get_json()["games"]
        return [g["game_id"] for g in games]

    assert ids(player="Zoe") == [amigo.id]
    assert ids(ruleset="amigo") == [amigo.id]
    assert ids(status="ended") == [str(finished)]
    assert len(ids()) == 3


def test_the_game_list_shows_each_seats_coins_and_the_final_scores(
    web: Flask, client: FlaskClient
) -> None:
    finished = finish_bot_game(web, ["Ana", "Ben", "Cleo"], seed=3)
    secret = create_game(client, options={"coin_counts_visible": False})
    board = client.get(f"/api/games/{finished}/scoreboard").get_json()

    games = {g["game_id"]: g for g in client.get("/api/games").get_json()["games"]}

    assert games[str(finished)]["scores"] == [seat["coins"] for seat in board["seats"]]
    assert games[secret.id]["scores"] == [None, None, None]


def test_the_game_list_waits_for_a_write_the_caller_just_made(client: FlaskClient) -> None:
    created = create_game(client)

    response = client.get(
        "/api/games", query_string={"after_position": created.document["position"]}
    )

    assert [g["game_id"] for g in response.get_json()["games"]] == [created.id]


def test_a_games_summary_is_public(client: FlaskClient, game: CreatedGame) -> None:
    summary = client.get(game.url).get_json()

    assert summary["game_id"] == game.id
    assert summary["seats"] == SEATS
    assert (summary["status"], summary["phase"], summary["turn"]) == ("in-progress", "plant", 1)
    assert (summary["active_seat"], summary["version"], summary["result"]) == (0, 2, None)


def test_a_finished_games_summary_holds_its_result(web: Flask, client: FlaskClient) -> None:
    game_id = finish_bot_game(web, ["Ana", "Ben", "Cleo"], seed=4)
    facts = web.extensions["bohnanza"].get().app.facts(game_id)

    summary = client.get(f"/api/games/{game_id}").get_json()

    assert summary["status"] == "ended"
    assert summary["result"]["scores"] == list(facts[-1].scores)
    assert summary["result"]["winners"] == list(facts[-1].winners)


# --- view, legal, commands ---------------------------------------------------------------------


def test_a_seat_sees_its_own_hand_in_order_and_its_legal_commands(
    client: FlaskClient, game: CreatedGame
) -> None:
    view = client.get(f"{game.url}/view", headers=game.seat(0)).get_json()

    assert view["viewer"] == {"kind": "seat", "seat": 0}
    assert view["seats"][0]["hand"] == ["chili", "wax", "wax", "chili", "wax"]
    assert view["seats"][0]["fields"] == [{"bean": None, "count": 0}] * 3
    assert [c["type"] for c in view["legal"]["commands"]] == ["plant"] * 3
    assert view["version"] == 2


@pytest.mark.parametrize(
    ("seats", "phase_text"),
    [
        (["Ana", "Ben", "Cleo"], "phase 1, planting from the hand"),
        (["Ana", "Ben"], "step 2, planting and discarding from the hand"),  # the duel, §11.2
    ],
    ids=["3-players", "duel"],
)
def test_the_view_and_the_summary_say_where_the_turn_stands_in_the_rulebooks_words(
    client: FlaskClient, seats: list[str], phase_text: str
) -> None:
    game = create_game(client, seats=seats)

    view = client.get(f"{game.url}/view").get_json()
    summary = client.get(game.url).get_json()

    assert view["phase"] == summary["phase"] == "plant"
    assert view["phase_text"] == summary["phase_text"] == phase_text


def test_a_seat_may_name_its_own_seat_in_the_view_query(
    client: FlaskClient, game: CreatedGame
) -> None:
    response = client.get(f"{game.url}/view", query_string={"seat": 1}, headers=game.seat(1))

    assert response.get_json()["viewer"] == {"kind": "seat", "seat": 1}


def test_without_a_token_the_view_is_the_publics(client: FlaskClient, game: CreatedGame) -> None:
    view = client.get(f"{game.url}/view").get_json()

    assert view["viewer"] == {"kind": "public", "seat": None}
    assert [seat["hand"] for seat in view["seats"]] == [None, None, None]
    assert [seat["hand_size"] for seat in view["seats"]] == [5, 5, 5]
    assert "legal" not in view


def test_the_legal_endpoint_lists_the_seats_commands(
    client: FlaskClient, game: CreatedGame
) -> None:
    assert client.get(f"{game.url}/legal", headers=game.seat(0)).get_json() == {
        "commands": [
            {"type": "plant", "seat": 0, "field": field, "bean": None} for field in range(3)
        ],
        "offer": None,
        "offers": [],
        "chance": None,
    }
    assert client.get(f"{game.url}/legal", headers=game.seat(1)).get_json() == {
        "commands": [],
        "offer": None,
        "offers": [],
        "chance": None,
    }


def test_a_command_answers_its_events_the_new_view_and_an_etag(
    client: FlaskClient, game: CreatedGame
) -> None:
    response = command(client, game, game.seat(0), type="plant", field=1)

    body = response.get_json()
    assert response.status_code == 200
    assert response.headers["ETag"] == '"3"'
    assert (body["game_id"], body["version"]) == (game.id, 3)
    assert body["events"] == [
        {
            "position": 3,
            "type": "BeanPlanted",
            "event": {"seat": 0, "bean": "chili", "field": 1, "source": "hand"},
            "summary": "Ana plants Chili from the hand in field 2",
        }
    ]
    assert body["view"]["seats"][0]["fields"][1] == {"bean": "chili", "count": 1}
    assert body["view"]["seats"][0]["hand"] == ["wax", "wax", "chili", "wax"]


@pytest.mark.parametrize(
    "prefer",
    [
        "return=minimal",
        "RETURN = minimal",
        'return="minimal"',
        "respond-async, return=minimal; x=1",
    ],
)
def test_a_command_sent_with_prefer_return_minimal_is_answered_without_the_view(
    client: FlaskClient, game: CreatedGame, prefer: str
) -> None:
    response = command(client, game, game.seat(0, Prefer=prefer), type="plant", field=1)

    body = response.get_json()
    assert response.status_code == 200
    assert response.headers["Preference-Applied"] == "return=minimal"
    assert response.headers["ETag"] == '"3"'
    assert sorted(body) == ["events", "game_id", "position", "version"]
    documented_schema(client, "CommandResult").validate(body)
    assert [event["summary"] for event in body["events"]] == [
        "Ana plants Chili from the hand in field 2"
    ]
    view = client.get(f"{game.url}/view", headers=game.seat(0)).get_json()
    assert view["seats"][0]["fields"][1] == {"bean": "chili", "count": 1}


@pytest.mark.parametrize(
    "prefer", ["return=representation", "return=everything", "handling=lenient", "return=min"]
)
def test_a_command_without_a_minimal_return_preference_is_answered_with_the_view(
    client: FlaskClient, game: CreatedGame, prefer: str
) -> None:
    response = command(client, game, game.seat(0, Prefer=prefer), type="plant", field=1)

    assert response.status_code == 200
    assert "Preference-Applied" not in response.headers
    assert response.get_json()["view"]["seats"][0]["fields"][1] == {"bean": "chili", "count": 1}


def test_the_first_return_preference_of_a_request_is_the_one_that_counts(
    client: FlaskClient, game: CreatedGame
) -> None:
    headers = game.seat(0, Prefer="return=representation, return=minimal")

    response = command(client, game, headers, type="plant", field=1)

    assert "view" in response.get_json()


def test_a_refusal_sent_with_prefer_return_minimal_is_the_usual_error(
    client: FlaskClient, game: CreatedGame
) -> None:
    response = command(client, game, game.seat(1, Prefer="return=minimal"), type="plant", field=0)

    assert_envelope(response, 409, "rule_violation")
    assert "Preference-Applied" not in response.headers


def test_a_command_s_answer_shows_the_game_as_it_left_it_though_another_came_right_after(
    web: Flask, client: FlaskClient, game: CreatedGame
) -> None:
    service = web.extensions["bohnanza"].get()
    game_id, after_write = uuid.UUID(game.id), service.after_write

    def another_command_lands_first() -> None:
        service.after_write = after_write
        service.views.record(game_id, service.app.execute(game_id, Plant(0, 0)).recorded())

    service.after_write = another_command_lands_first
    response = command(client, game, game.seat(0), type="plant", field=1)

    body = response.get_json()
    assert (body["version"], response.headers["ETag"]) == (3, '"3"')
    assert [event["position"] for event in body["events"]] == [3]
    assert body["view"]["seats"][0]["fields"][0] == {"bean": None, "count": 0}
    assert client.get(f"{game.url}/view", headers=game.seat(0)).get_json()["version"] == 4


def test_a_legal_command_from_the_view_can_be_sent_back_as_it_is(
    client: FlaskClient, game: CreatedGame
) -> None:
    legal = client.get(f"{game.url}/view", headers=game.seat(0)).get_json()["legal"]

    response = command(client, game, game.seat(0), **legal["commands"][0])

    assert legal["commands"][0]["bean"] is None
    assert response.status_code == 200


def test_a_command_names_its_seat_by_default_from_the_token(
    client: FlaskClient, game: CreatedGame
) -> None:
    response = command(client, game, game.seat(0), type="plant", seat=0, field=0)

    assert response.status_code == 200


def test_a_matching_if_match_lets_the_command_through(
    client: FlaskClient, game: CreatedGame
) -> None:
    first = command(client, game, game.seat(0, If_Match='"2"'), type="plant", field=0)
    second = command(client, game, game.seat(0, If_Match='W/"3"'), type="plant", field=1)
    third = command(client, game, game.seat(0), type="reveal", expected_version=4)

    assert [r.status_code for r in (first, second, third)] == [200, 200, 200]


def test_if_match_star_accepts_any_version(client: FlaskClient, game: CreatedGame) -> None:
    response = command(client, game, game.seat(0, If_Match="*"), type="plant", field=0)

    assert response.status_code == 200


# --- events -----------------------------------------------------------------------------------


def test_the_event_feed_pages_by_position(client: FlaskClient, game: CreatedGame) -> None:
    command(client, game, game.seat(0), type="plant", field=0)
    command(client, game, game.seat(0), type="plant", field=1)

    first = client.get(f"{game.url}/events", query_string={"limit": 2}).get_json()
    rest = client.get(
        f"{game.url}/events", query_string={"after": first["next_after"], "limit": 2}
    ).get_json()

    assert [item["position"] for item in first["items"]] == [1, 2]
    assert [item["type"] for item in first["items"]] == ["GameStarted", "CardsDealt"]
    assert [item["position"] for item in rest["items"]] == [3, 4]
    assert rest["next_after"] is None
    assert first["version"] == rest["version"] == 4


def test_the_event_feed_past_the_end_is_empty(client: FlaskClient, game: CreatedGame) -> None:
    page = client.get(f"{game.url}/events", query_string={"after": 99}).get_json()

    assert page == {"items": [], "next_after": None, "version": 2}


# --- scoreboard and leaderboard ----------------------------------------------------------------


def test_the_scoreboard_shows_each_seat_after_the_callers_write(
    client: FlaskClient, game: CreatedGame
) -> None:
    planted = command(client, game, game.seat(0), type="plant", field=0).get_json()

    board = client.get(
        f"{game.url}/scoreboard", query_string={"after_position": planted["position"]}
    ).get_json()

    assert board["game"]["game_id"] == game.id
    assert [(s["name"], s["planted"], s["coins"]) for s in board["seats"]] == [
        ("Ana", 1, 0),
        ("Ben", 0, 0),
        ("Cleo", 0, 0),
    ]


def test_the_read_models_catch_up_in_the_background_after_a_command_without_any_read(
    web: Flask, client: FlaskClient, game: CreatedGame
) -> None:
    projector = web.extensions["bohnanza"].get().projector
    position = command(client, game, game.seat(0), type="plant", field=0).get_json()["position"]

    projector.wait(position, timeout=10)  # TimeoutError if nothing catches up

    assert {status.position for status in projector.status()} == {position}


def test_secret_treasuries_show_only_the_callers_own_coins(client: FlaskClient) -> None:
    secret = create_game(client, options={"coin_counts_visible": False})

    mine = client.get(f"{secret.url}/scoreboard", headers=secret.seat(1)).get_json()
    public = client.get(f"{secret.url}/scoreboard").get_json()

    assert [s["coins"] for s in mine["seats"]] == [None, 0, None]
    assert [s["coins"] for s in public["seats"]] == [None, None, None]


@pytest.mark.parametrize(
    ("mode", "shown"), [("tabletop", [0, 0, 0]), ("digital", [None, None, None])]
)
def test_the_host_sees_secret_treasuries_on_the_scoreboard_as_in_its_view(
    client: FlaskClient, mode: str, shown: list
) -> None:
    secret = create_game(client, mode=mode, options={"coin_counts_visible": False})

    board = client.get(f"{secret.url}/scoreboard", headers=secret.host()).get_json()
    view = client.get(f"{secret.url}/view", headers=secret.host()).get_json()

    assert [s["coins"] for s in board["seats"]] == [s["coins"] for s in view["seats"]] == shown


def test_the_leaderboard_ranks_players_of_ended_games(web: Flask, client: FlaskClient) -> None:
    finish_bot_game(web, ["Ana", "Ben", "Cleo"], seed=5)
    finish_bot_game(web, ["Ana", "Ben", "Cleo", "Dan"], seed=6)

    overall = client.get("/api/leaderboard").get_json()
    four = client.get("/api/leaderboard", query_string={"players": 4}).get_json()

    assert {s["name"] for s in overall["standings"]} == {"Ana", "Ben", "Cleo", "Dan"}
    assert sum(s["wins"] for s in overall["standings"]) >= 2
    assert {s["name"]: s["games"] for s in overall["standings"]}["Ana"] == 2
    assert (four["players"], len(four["standings"])) == (4, 4)


def test_the_leaderboard_pages_and_filters_by_the_start_of_a_name(
    web: Flask, client: FlaskClient
) -> None:
    finish_bot_game(web, ["Ana", "Ben", "Cleo", "Anders"], seed=6)
    whole = client.get("/api/leaderboard").get_json()["standings"]

    first = client.get("/api/leaderboard", query_string={"limit": 3}).get_json()
    second = client.get("/api/leaderboard", query_string={"limit": 3, "offset": 3}).get_json()
    named = client.get("/api/leaderboard", query_string={"name": "An"}).get_json()

    assert (first["next_offset"], second["next_offset"]) == (3, None)
    assert first["standings"] + second["standings"] == whole
    assert (named["name"], {s["name"] for s in named["standings"]}) == ("An", {"Ana", "Anders"})
    documented_schema(client, "Leaderboard").validate(named)


def test_the_leaderboard_is_empty_before_any_game_ends(client: FlaskClient) -> None:
    assert client.get("/api/leaderboard").get_json() == {
        "ruleset": None,
        "players": None,
        "name": None,
        "standings": [],
        "next_offset": None,
    }


# --- the service ------------------------------------------------------------------------------


def test_health_answers_the_stores_latest_position_and_the_read_models_own(
    client: FlaskClient, game: CreatedGame
) -> None:
    client.get("/api/games")  # a read of the read models catches them up first

    assert client.get("/api/health").get_json() == {
        "status": "ok",
        "position": game.document["position"],
        "read_models": game.document["position"],
        "read_models_behind": 0,
    }


def test_health_shows_how_far_the_read_models_are_behind(
    client: FlaskClient, web: Flask, game: CreatedGame
) -> None:
    services = web.extensions["bohnanza"].get()
    if services.background is not None:
        services.background.close()  # its last catch up first, and no more
    services.projector.reset()  # as if their projector had never run

    health = client.get("/api/health").get_json()

    assert (health["read_models"], health["read_models_behind"]) == (0, game.document["position"])


def test_the_rulesets_endpoint_lists_every_preset_and_option(client: FlaskClient) -> None:
    body = client.get("/api/rulesets").get_json()

    assert [p["id"] for p in body["presets"]] == ["rio-grande", "amigo", "amigo-1997"]
    assert "allow_retrade" in {o["name"] for o in body["options"]}


def test_the_openapi_document_lists_every_endpoint(client: FlaskClient) -> None:
    document = client.get("/openapi.json").get_json()

    assert document["openapi"] == "3.0.3"
    assert set(document["paths"]) == {
        "/api/games",
        "/api/games/{game_id}",
        "/api/games/{game_id}/view",
        "/api/games/{game_id}/legal",
        "/api/games/{game_id}/commands",
        "/api/games/{game_id}/events",
        "/api/games/{game_id}/live",
        "/api/games/{game_id}/scoreboard",
        "/api/games/{game_id}/stats",
        "/api/games/{game_id}/plays/bgstats",
        "/api/games/{game_id}/plays/bgg",
        "/api/leaderboard",
        "/api/health",
        "/api/rulesets",
        "/api/games/{game_id}/steps",
        "/api/games/{game_id}/entries",
        "/api/games/{game_id}/steps/{position}",
        "/api/games/{game_id}/jump",
        "/api/games/{game_id}/timeline",
        "/api/games/{game_id}/annotations",
        "/api/games/{game_id}/annotations/{note}",
        "/api/games/{game_id}/forks",
        "/api/games/{game_id}/comparison",
        "/api/games/{game_id}/record",
        "/api/records",
        "/api/records/schema.json",
        "/api/records/verification",
        "/api/games/{game_id}/verification",
        "/api/games/{game_id}/audit",
    }


def test_the_record_format_s_json_schema_is_served_as_published(client: FlaskClient) -> None:
    response = client.get("/api/records/schema.json")

    assert response.status_code == 200
    assert response.get_json() == record_schema()


def test_a_nested_schema_that_may_be_null_is_null_or_that_schema_in_the_document(
    client: FlaskClient,
) -> None:
    legal = client.get("/openapi.json").get_json()["components"]["schemas"]["Legal"]
    branches = legal["properties"]["chance"]["anyOf"]

    assert {"$ref": "#/components/schemas/ChanceStep"} in branches
    assert {"type": "object", "nullable": True, "enum": [None]} in branches
    assert legal["properties"]["commands"]["items"] == {"$ref": "#/components/schemas/Command"}


def _operations(document: dict) -> Iterator[tuple[str, str, dict]]:
    for path, operations in document["paths"].items():
        for method, operation in operations.items():
            if method != "parameters":
                yield path, method, operation


def test_every_operation_has_its_own_operation_id(client: FlaskClient) -> None:
    document = client.get("/openapi.json").get_json()

    ids = [operation.get("operationId") for _, _, operation in _operations(document)]

    assert None not in ids
    assert len(set(ids)) == len(ids)
    assert {"create_game", "give_command", "legal_commands", "event_feed"} <= set(ids)


def test_every_body_the_server_refuses_unknown_keys_in_is_documented_as_closed(
    client: FlaskClient,
) -> None:
    document = client.get("/openapi.json").get_json()
    schemas = document["components"]["schemas"]
    bodies = {
        operation["requestBody"]["content"]["application/json"]["schema"]["$ref"].split("/")[-1]
        for _, _, operation in _operations(document)
        if "requestBody" in operation
    }

    assert "Command" in bodies
    assert {name: schemas[name].get("additionalProperties") for name in bodies} == dict.fromkeys(
        bodies, False
    )


@pytest.mark.parametrize(
    ("component", "body", "valid"),
    [
        ("Command", {"type": "plant", "field": 0}, True),
        ("Command", {"type": "offer", "to": 1, "wants": [], "expected_version": 3}, True),
        ("Command", {"type": "reveal", "hands": [["red"]]}, False),
        ("Command", {"type": "offer", "wants": []}, False),
        ("Command", {"type": "deal"}, False),
        ("GameCreate", {"seats": ["Ana", "Zoë", "👨\u200d👩\u200d👧"]}, True),
        ("GameCreate", {"seats": ["Ana", "Ana"]}, False),
        ("GameCreate", {"seats": ["Ana", "Ben\u0007"]}, False),
        ("GameCreate", {"seats": ["Ana", "Ben\u202e"]}, False),
        ("GameCreate", {"seats": ["Ana", "   "]}, False),
        ("GameCreate", {"seats": ["Ana", "\u200dBen"]}, False),
        ("GameCreate", {"seats": ["Ana", "Ben"], "options": {"tie_break": ["shared"]}}, True),
        ("GameCreate", {"seats": ["Ana", "Ben"], "options": {"tie_break": []}}, False),
        ("GameCreate", {"seats": ["Ana", "Ben"], "options": {"allow_retrade": "true"}}, False),
        ("GameCreate", {"seats": ["Ana", "Ben"], "options": {"colour": "red"}}, False),
        ("NoteCreate", {"step": 1, "text": "!", "author": "Guest Ana"}, True),
        ("NoteCreate", {"step": 1, "text": "!", "author": "Ana\u200b"}, False),
        ("NoteCreate", {"step": 1, "text": "\u200b \u2060"}, False),
        ("NoteCreate", {"step": 1, "text": "for you", "visibility": "seat", "seat": 1}, True),
        ("NoteCreate", {"step": 1, "text": "for you", "visibility": "seat"}, False),
        ("NoteCreate", {"step": 1, "text": "for all", "seat": 1}, False),
    ],
)
def test_the_document_says_which_bodies_the_service_takes(
    client: FlaskClient, component: str, body: dict, valid: bool
) -> None:
    assert documented_schema(client, component).is_valid(body) == valid


def test_the_document_names_every_kind_of_fact_to_jump_to(client: FlaskClient) -> None:
    document = client.get("/openapi.json").get_json()
    parameters = document["paths"]["/api/games/{game_id}/jump"]["get"]["parameters"]

    (kind,) = [parameter for parameter in parameters if parameter["name"] == "kind"]
    assert set(EVENT_TYPES) < set(kind["schema"]["enum"])
    assert {"field-harvested", "field_harvested", "third-field-bought"} < set(
        kind["schema"]["enum"]
    )


def test_a_new_games_id_links_to_the_operations_on_that_game(client: FlaskClient) -> None:
    document = client.get("/openapi.json").get_json()
    by_id = {operation["operationId"]: path for path, _, operation in _operations(document)}

    for path in ("/api/games", "/api/records", "/api/games/{game_id}/forks"):
        links = document["paths"][path]["post"]["responses"]["201"]["links"]
        linked = {link["operationId"] for link in links.values()}
        assert linked == {o for o, p in by_id.items() if p.startswith("/api/games/{game_id}")}
        for link in links.values():
            assert link["parameters"] == {"game_id": "$response.body#/game_id"}
            assert "{game_id}" in by_id[link["operationId"]], link


def test_the_interactive_docs_are_served_without_a_cdn(client: FlaskClient) -> None:
    page = client.get("/docs")
    script = client.get("/docs/static/swagger-ui-bundle.js")

    assert page.status_code == 200
    assert b"/docs/static/swagger-ui-bundle.js" in page.data
    assert b"/openapi.json" in page.data
    assert script.status_code == 200


def test_the_interactive_docs_fit_a_phone_screen(client: FlaskClient) -> None:
    page = client.get("/docs").get_data(as_text=True)

    assert '<meta name="viewport" content="width=device-width, initial-scale=1">' in page
