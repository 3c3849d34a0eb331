"""One JSON error envelope, {code, status, message, errors}, for every failure a client can cause
(issue item 3), each mapped to its status in one place (api/errors.py)."""

from __future__ import annotations

import gzip
import logging
import uuid
from typing import Any

import pytest
from eventsourcing.persistence import OperationalError
from flask import Flask
from flask.testing import FlaskClient
from marshmallow import fields
from sqlalchemy import exc as sql_errors
from werkzeug.test import EnvironBuilder, TestResponse

from api import games as games_module
from api.app import MAX_BODY_BYTES
from api.blueprint import LONE_SURROGATE, NOT_A_NUMBER
from domain.rules import names
from projections import runner
from replays.record import RecordError, load_record

from .conftest import web_app
from .support import CreatedGame, assert_envelope, bearer, command, create_game

UNKNOWN_GAME = f"/api/games/{uuid.UUID(int=1)}"


def test_malformed_json_is_a_400(client: FlaskClient, game: CreatedGame) -> None:
    response = client.post(
        f"{game.url}/commands",
        data='{"type": "plant", ',
        content_type="application/json",
        headers=game.seat(0),
    )

    body = assert_envelope(response, 400, "bad_request")
    assert body["message"] == "The request body is not valid JSON."


def test_malformed_json_creating_a_game_is_a_400(client: FlaskClient) -> None:
    response = client.post("/api/games", data="{seats", content_type="application/json")

    assert_envelope(response, 400, "bad_request")


UNREADABLE = {
    "nested-too-deeply": (
        "[" * 20_000 + "]" * 20_000,
        "Invalid JSON body: nested too deeply to read.",
    ),
    "number-too-long": (
        '{"step": ' + "9" * 5_000 + "}",
        "Invalid JSON body: a number too long to read.",
    ),
    "lone-surrogate": ('{"text": "a\\ud800b", "seats": ["\\uDFFF"]}', LONE_SURROGATE),
    "not-a-number": ('{"step": NaN, "seed": NaN}', NOT_A_NUMBER),
    "infinity": ('{"step": Infinity, "options": {"tie_break": [-Infinity]}}', NOT_A_NUMBER),
}
"""Valid JSON well within the size limit that cannot be read: nested deeper than the decoder can
follow, a number longer than Python reads, a string that is not Unicode text."""


@pytest.mark.parametrize("kind", list(UNREADABLE))
def test_a_json_body_that_cannot_be_read_is_a_400_on_every_operation_with_a_body(
    client: FlaskClient, game: CreatedGame, kind: str
) -> None:
    sent, message = UNREADABLE[kind]

    answered = sent_to_every_operation_with_a_body(client, game, sent)

    for operation, response in answered.items():
        body = assert_envelope(response, 400, "bad_request")
        assert body["errors"] == {"json": [message]}, operation
    assert ("post", "/api/games/{game_id}/commands") in answered
    assert len(answered) >= 8


def sent_to_every_operation_with_a_body(
    client: FlaskClient, game: CreatedGame, sent: str
) -> dict[tuple[str, str], TestResponse]:
    """The answers to `sent` as the JSON body of each operation of the OpenAPI document that
    takes one (on `game`, as its seat 0), by (method, path)."""
    document = client.get("/openapi.json").get_json()
    answered = {}
    for path, operations in document["paths"].items():
        for method, operation in operations.items():
            if method != "parameters" and "requestBody" in operation:
                url = path.replace("{game_id}", game.id).replace("{note}", "1")
                answered[method, path] = client.open(
                    url,
                    method=method.upper(),
                    data=sent,
                    content_type="application/json",
                    headers=game.seat(0),
                )
    return answered


def test_a_surrogate_pair_escaped_in_a_json_body_is_read_as_its_character(
    client: FlaskClient,
) -> None:
    response = client.post(
        "/api/games",
        data='{"seats": ["\\ud83d\\ude00 Ana", "Ben"]}',
        content_type="application/json",
    )

    assert response.status_code == 201, response.get_json()
    assert response.get_json()["seats"][0]["name"] == "😀 Ana"


def test_a_schema_violation_is_a_422_with_a_message_per_field(
    client: FlaskClient, game: CreatedGame
) -> None:
    response = command(client, game, game.seat(0), type="plant", field="one", bean="tofu")

    body = assert_envelope(response, 422, "validation_error")
    assert set(body["errors"]["json"]) == {"field", "bean"}


def test_an_unknown_field_is_a_schema_violation(client: FlaskClient, game: CreatedGame) -> None:
    response = command(client, game, game.seat(0), type="plant", field=0, colour="red")

    body = assert_envelope(response, 422, "validation_error")
    assert body["errors"] == {"json": {"colour": ["Unknown field."]}}


DUPLICATE_KEYS = {
    "top-level": ('{"seats": ["Ana", "Ben"], "seats": ["Ana", "Ben", "Cleo"]}', "seats", "$"),
    "nested": (
        '{"seats": ["Ana", "Ben"], "options": {"tie_break": ["shared"], "tie_break": []}}',
        "tie_break",
        "$.options",
    ),
    "in-a-list": ('{"commands": [{}, {"type": "plant", "type": "draw"}]}', "type", "$.commands[1]"),
    "no-identifier": ('{"seats": [], "options": {"a b": 1, "a b": 2}}', "a b", "$.options"),
}
"""Bodies with an object naming a key twice: the key and the JSON path of the object."""


@pytest.mark.parametrize("kind", list(DUPLICATE_KEYS))
def test_a_json_object_naming_a_key_twice_is_a_400_naming_the_key_and_where(
    client: FlaskClient, game: CreatedGame, kind: str
) -> None:
    sent, key, where = DUPLICATE_KEYS[kind]

    answered = sent_to_every_operation_with_a_body(client, game, sent)

    for operation, response in answered.items():
        body = assert_envelope(response, 400, "bad_request")
        assert f"the object at {where} names the key {key!r} more than once" in body["message"], (
            operation
        )
        (member,) = body["errors"]["json"]
        assert member.startswith(where)
        assert key in member
    assert ("post", "/api/records") in answered
    assert ("post", "/api/records/verification") in answered


def test_a_record_file_naming_a_key_twice_is_refused_naming_the_key_and_where() -> None:
    text = '{"format": "bohnanza-record/1", "header": {"mode": "digital", "mode": "tabletop"}}'

    with pytest.raises(RecordError) as refused:
        load_record(text)

    assert refused.value.path == "$.header.mode"
    assert "'mode' more than once" in refused.value.message


def test_a_json_value_that_is_not_an_object_is_a_schema_violation(
    client: FlaskClient, game: CreatedGame
) -> None:
    response = client.post(
        f"{game.url}/commands", data="[1, 2]", content_type="application/json", headers=game.seat(0)
    )

    assert_envelope(response, 422, "validation_error")


@pytest.mark.parametrize("value", [1.5, 1.0, "1", True], ids=["fraction", "float", "text", "bool"])
def test_a_command_number_that_is_no_json_integer_is_a_422_not_read_as_one(
    client: FlaskClient, game: CreatedGame, value: object
) -> None:
    response = command(client, game, game.seat(0), type="plant", field=value)

    body = assert_envelope(response, 422, "validation_error")
    assert body["errors"]["json"] == {"field": ["Not a valid integer."]}


def test_an_offer_to_a_list_of_seats_is_a_422_saying_an_offer_goes_to_one(
    client: FlaskClient, game: CreatedGame
) -> None:
    response = command(client, game, game.seat(0), type="offer", to=[1], hand=[0], wants=[])

    body = assert_envelope(response, 422, "validation_error")
    assert body["errors"]["json"] == {
        "to": [
            "Not a valid integer: an offer goes to one seat, named by its number (a legal "
            "offer range's `to` lists the seats it may go to)."
        ]
    }


@pytest.mark.parametrize(
    "extra",
    [{"seed": 1.5}, {"seed": "1"}, {"start_seat": 1.7}, {"start_seat": "1"}],
    ids=["seed-fraction", "seed-text", "start-seat-fraction", "start-seat-text"],
)
def test_a_game_number_that_is_no_json_integer_is_a_422_not_read_as_one(
    client: FlaskClient, extra: dict[str, object]
) -> None:
    response = client.post("/api/games", json={"seats": ["Ana", "Ben", "Cleo"], **extra})

    body = assert_envelope(response, 422, "validation_error")
    assert body["errors"]["json"] == {next(iter(extra)): ["Not a valid integer."]}


def test_every_integer_of_every_json_body_is_read_strictly(web: Flask) -> None:
    """Query parameters are text and read as numbers; a JSON body's numbers are never coerced."""
    checked = 0
    for view in web.view_functions.values():
        for parameter in getattr(view, "_apidoc", {}).get("arguments", {}).get("parameters", []):
            if parameter["in"] != "json":
                continue
            schema = parameter["schema"]
            schema = schema() if isinstance(schema, type) else schema
            for name, field in schema.load_fields.items():
                for part in (field, getattr(field, "inner", None)):
                    if isinstance(part, fields.Integer):
                        assert part.strict, f"{type(schema).__name__}.{name}"
                        checked += 1

    assert checked >= 10


def test_a_command_missing_what_it_needs_is_a_422(client: FlaskClient, game: CreatedGame) -> None:
    response = command(client, game, game.seat(0), type="plant")

    body = assert_envelope(response, 422, "malformed_command")
    assert "plant needs 'field'" in body["message"]


def test_an_unknown_ruleset_option_is_a_422_naming_the_valid_ones(client: FlaskClient) -> None:
    response = client.post("/api/games", json={"seats": ["A", "B", "C"], "options": {"x": 1}})

    body = assert_envelope(response, 422, "invalid_ruleset")
    assert "allow_retrade" in body["message"]


@pytest.mark.parametrize(
    ("body", "field", "rule"),
    [
        ({"seats": ["A", "B", "C"], "options": {"x": 1}}, "options", None),
        ({"seats": ["A", "B"], "ruleset": "amigo"}, "ruleset", "RULES §2.3"),
    ],
    ids=["unknown-option", "preset-without-that-player-count"],
)
def test_an_invalid_ruleset_names_the_field_to_change(
    client: FlaskClient, body: dict, field: str, rule: str | None
) -> None:
    response = client.post("/api/games", json=body)

    answer = assert_envelope(response, 422, "invalid_ruleset")
    assert answer["errors"]["json"] == {field: [answer["message"]]}
    assert answer.get("rule") == rule


@pytest.mark.parametrize(
    "options",
    [{"allow_retrade": "true"}, {"allow_retrade": 1}, {"tie_break": "shared"}],
    ids=["bool-as-text", "bool-as-number", "list-as-text"],
)
def test_an_option_value_not_of_its_json_type_is_a_422_naming_the_valid_ones(
    client: FlaskClient, options: dict[str, object]
) -> None:
    response = client.post("/api/games", json={"seats": ["A", "B", "C"], "options": options})

    body = assert_envelope(response, 422, "invalid_ruleset")
    assert f"option {next(iter(options))}" in body["message"]


@pytest.mark.parametrize(
    "name",
    [
        "Ana\x00",
        "Ben\n",
        "Ana\u202eneB",
        "Cl\u2028eo",
        "Ana\ufeff",
        "\ue000",
        "\u200dAna",
        "Ana\u200d",
        "Ana\u3164",
        "\u115f",
        "\u2800",
        "Ana\u17b4",
        "Ana\u2065",
        "Ana\U000e0080",
    ],
    ids=[
        "nul",
        "newline",
        "bidi-override",
        "line-separator",
        "bom",
        "private-use",
        "leading-joiner",
        "trailing-joiner",
        "hangul-filler",
        "hangul-choseong-filler",
        "blank-braille",
        "khmer-inherent-vowel",
        "unassigned",
        "unassigned-beside-the-tags",
    ],
)
def test_a_seat_name_with_unprintable_characters_is_a_422(client: FlaskClient, name: str) -> None:
    response = client.post("/api/games", json={"seats": [name, "Cleo"]})

    body = assert_envelope(response, 422, "validation_error")
    assert body["errors"]["json"]["seats"] == {"0": ["Use printable characters only."]}


@pytest.mark.parametrize("name", ["\u034f", "\u0301\u0301"], ids=["grapheme-joiner", "marks"])
def test_a_seat_name_with_nothing_visible_is_a_422(client: FlaskClient, name: str) -> None:
    response = client.post("/api/games", json={"seats": [name, "Cleo"]})

    body = assert_envelope(response, 422, "validation_error")
    assert body["errors"]["json"]["seats"] == {"0": [names.INVISIBLE]}


@pytest.mark.parametrize(
    ("body", "field", "rule"),
    [
        ({"deck": ["red"] * 150}, "deck", "RULES §3.3"),
        ({"start_seat": 3}, "start_seat", "RULES §3.2"),
        ({"mode": "tabletop", "seed": 7}, "seed", None),
    ],
    ids=["deck-without-the-ruleset-s-cards", "start-seat-not-at-the-table", "tabletop-with-a-seed"],
)
def test_a_game_that_cannot_start_as_asked_is_a_422_naming_what_to_change(
    client: FlaskClient, body: dict, field: str, rule: str | None
) -> None:
    response = client.post("/api/games", json={"seats": ["Ana", "Ben", "Cleo"], "seed": 1, **body})

    answer = assert_envelope(response, 422, "invalid_setup")
    assert answer["errors"]["json"] == {field: [answer["message"]]}
    assert answer.get("rule") == rule
    if rule is not None:
        assert answer["message"].startswith(f"{rule} (")


@pytest.mark.parametrize(
    "invisible", ["\u200d", "\u034f", "\ufe0f"], ids=["joiner", "grapheme-joiner", "selector"]
)
def test_seat_names_that_differ_only_by_an_invisible_character_are_a_422(
    client: FlaskClient, invisible: str
) -> None:
    response = client.post("/api/games", json={"seats": ["Ana", f"An{invisible}a", "Cleo"]})

    body = assert_envelope(response, 422, "invalid_setup")
    assert "seat names must differ" in body["message"]
    assert list(body["errors"]["json"]) == ["seats"]
    assert body["rule"] == "RULES §3.1"


@pytest.mark.parametrize(
    ("seats", "message"),
    [
        (
            ["Ana", "Ben", "\u0410na"],
            "seat 2's name 'Аna' looks the same as seat 0's 'Ana' "
            "('А' is U+0410 CYRILLIC CAPITAL LETTER A)",
        ),
        (
            ["Ana", "\uff21\uff4e\uff41"],
            "seat 1's name 'Ａｎａ' looks the same as seat 0's 'Ana' "
            "('Ａ' is U+FF21 FULLWIDTH LATIN CAPITAL LETTER A, "
            "'ｎ' is U+FF4E FULLWIDTH LATIN SMALL LETTER N, "
            "'ａ' is U+FF41 FULLWIDTH LATIN SMALL LETTER A)",
        ),
        (["Ana", "ana"], "seat 1's name 'ana' differs from seat 0's 'Ana' only in letter case"),
        (["ANA", "Ben", "ana"], "seat 2's name 'ana' differs from seat 0's 'ANA' only in letter"),
        (
            ["\uff21\uff4e\uff41", "ana"],
            "seat 1's name 'ana' looks the same as seat 0's 'Ａｎａ', letter case aside",
        ),
        (
            ["Max", "\u041c\u0430\u0445"],
            "seat 1's name 'Мах' looks the same as seat 0's 'Max' ('М' is U+041C CYRILLIC",
        ),
    ],
    ids=["cyrillic-a", "fullwidth", "case", "case-later-seat", "fullwidth-and-case", "cyrillic"],
)
def test_seat_names_people_cannot_tell_apart_are_a_422_saying_which_and_why(
    client: FlaskClient, seats: list[str], message: str
) -> None:
    response = client.post("/api/games", json={"seats": seats})

    body = assert_envelope(response, 422, "invalid_setup")
    assert body["message"].startswith(message), body["message"]
    assert body["message"].endswith("seats need names people can tell apart")
    assert list(body["errors"]["json"]) == ["seats"]


@pytest.mark.parametrize(
    "seats",
    [["Ana", "Anna", "Ann"], ["Eva", "Ewa"], ["Zoe", "Zoë"], ["Jose", "José"], ["Ian", "Lan"]],
    ids=["doubled-letter", "w-and-v", "diaeresis", "accent", "capital-i-and-l"],
)
def test_seat_names_that_look_different_make_a_game(client: FlaskClient, seats: list[str]) -> None:
    response = client.post("/api/games", json={"seats": seats})

    assert response.status_code == 201, response.get_json()


@pytest.mark.parametrize(
    "name",
    [
        "👨\u200d👩\u200d👧",
        "🏴\U000e0067\U000e0062\U000e0073\U000e0063\U000e0074\U000e007f",
        "Zoë",
        "می\u200cخواهم",
        "Ana María",
        "\u2764\ufe0f Ana",
    ],
    ids=[
        "family-emoji",
        "flag-of-scotland",
        "diaeresis",
        "persian-with-zwnj",
        "space",
        "emoji-style",
    ],
)
def test_a_seat_name_may_hold_emoji_sequences_and_any_script(
    client: FlaskClient, name: str
) -> None:
    response = client.post("/api/games", json={"seats": [name, "Cleo"]})

    assert response.status_code == 201, response.get_json()
    assert response.get_json()["seats"][0]["name"] == name


def test_a_rule_violation_is_a_409_citing_the_rules_section(
    client: FlaskClient, game: CreatedGame
) -> None:
    command(client, game, game.seat(0), type="plant", field=0)

    response = command(client, game, game.seat(0), type="plant", field=0)

    body = assert_envelope(response, 409, "rule_violation")
    assert body["rule"] == "RULES §7.1"
    assert body["message"].startswith("RULES §7.1 (planting: one bean type per field): Ana ")


def test_a_stale_if_match_is_a_412_with_the_current_version(
    client: FlaskClient, game: CreatedGame
) -> None:
    response = command(client, game, game.seat(0, If_Match='"1"'), type="plant", field=0)

    body = assert_envelope(response, 412, "precondition_failed")
    assert body["current_version"] == 2


def test_a_stale_expected_version_in_the_body_is_a_412(
    client: FlaskClient, game: CreatedGame
) -> None:
    response = command(client, game, game.seat(0), type="plant", field=0, expected_version=1)

    assert_envelope(response, 412, "precondition_failed")


@pytest.mark.parametrize("tag", ['"abc"', '"3', '"03"', "03", '"\uff13"', '"+3"'], ids=repr)
def test_an_if_match_that_is_no_version_is_a_400(
    client: FlaskClient, game: CreatedGame, tag: str
) -> None:
    headers = game.seat(0, If_Match=tag.encode().decode("latin-1"))

    response = command(client, game, headers, type="plant", field=0)

    assert_envelope(response, 400, "bad_request")


def test_if_match_and_expected_version_that_disagree_are_a_400(
    client: FlaskClient, game: CreatedGame
) -> None:
    response = command(
        client, game, game.seat(0, If_Match='"2"'), type="plant", field=0, expected_version=3
    )

    assert_envelope(response, 400, "bad_request")


def test_a_command_without_a_token_is_a_401_with_a_bearer_challenge(
    client: FlaskClient, game: CreatedGame
) -> None:
    response = command(client, game, {}, type="plant", field=0)

    assert_envelope(response, 401, "unauthorized")
    assert response.headers["WWW-Authenticate"].startswith("Bearer")


@pytest.mark.parametrize(
    "authorization", ["Bearer bzt_not-a-token", "Basic QW5hOnNlY3JldA==", "Bearer", "bzt_x"]
)
def test_a_bad_token_is_a_401(client: FlaskClient, game: CreatedGame, authorization: str) -> None:
    response = command(client, game, {"Authorization": authorization}, type="plant", field=0)

    assert_envelope(response, 401, "unauthorized")


def test_a_token_of_another_game_is_a_401(client: FlaskClient, game: CreatedGame) -> None:
    other = create_game(client)

    response = client.get(f"{game.url}/view", headers=other.seat(0))

    assert_envelope(response, 401, "unauthorized")


def _game_operations(client: FlaskClient) -> list[tuple[str, str]]:
    """Every documented operation on one game (method, path template), from /openapi.json."""
    paths = client.get("/openapi.json").get_json()["paths"]
    return [
        (method.upper(), path)
        for path, operations in paths.items()
        if path.startswith("/api/games/{game_id}")
        for method in operations
        if method in ("get", "post", "patch", "delete")
    ]


def _request(client: FlaskClient, method: str, path: str, game_id: str, **headers: str) -> Any:
    url = path.format(game_id=game_id, position=1, note=1)
    body = {} if method in ("POST", "PATCH") else None
    return client.open(url, method=method, json=body, headers=headers)


@pytest.mark.parametrize(
    "credential",
    ["another game's token", "a token no game has", "a wrong auditor secret"],
)
def test_a_bad_credential_is_a_401_on_every_route_of_a_game_public_ones_included(
    client: FlaskClient, game: CreatedGame, credential: str
) -> None:
    headers = {
        "another game's token": create_game(client).seat(0),
        "a token no game has": bearer("bzt_" + "x" * 32),
        "a wrong auditor secret": {"X-Auditor-Token": "not-the-secret"},
    }[credential]
    operations = _game_operations(client)

    statuses = {
        (method, path): _request(client, method, path, game.id, **headers).status_code
        for method, path in operations
    }

    assert len(operations) >= 19
    assert statuses == dict.fromkeys(operations, 401)


@pytest.mark.parametrize("credential", ["a token", "the auditor's secret", "none"])
def test_an_unknown_game_is_a_404_before_any_401_or_422_on_every_route(
    web: Flask, credential: str
) -> None:
    client = web.test_client()
    headers = {
        "a token": create_game(client).seat(0),
        "the auditor's secret": {"X-Auditor-Token": "the-secret"},
        "none": {},
    }[credential]
    web.config["AUDITOR_TOKEN"] = "the-secret"
    unknown = str(uuid.UUID(int=1))

    statuses = {
        (method, path): _request(client, method, path, unknown, **headers).status_code
        for method, path in _game_operations(client)
    }

    assert set(statuses.values()) == {404}


def test_asking_for_another_seats_view_is_a_403(client: FlaskClient, game: CreatedGame) -> None:
    response = client.get(f"{game.url}/view", query_string={"seat": 1}, headers=game.seat(0))

    body = assert_envelope(response, 403, "forbidden")
    assert "seat 1" in body["message"]


def test_asking_for_a_seats_view_without_a_token_is_a_401(
    client: FlaskClient, game: CreatedGame
) -> None:
    response = client.get(f"{game.url}/view", query_string={"seat": 0})

    assert_envelope(response, 401, "unauthorized")


def test_acting_for_another_seat_is_a_403(client: FlaskClient, game: CreatedGame) -> None:
    response = command(client, game, game.seat(1), type="plant", seat=0, field=0)

    assert_envelope(response, 403, "forbidden")


def test_the_host_of_a_digital_game_asking_for_legal_commands_is_a_403(
    client: FlaskClient, game: CreatedGame
) -> None:
    response = client.get(f"{game.url}/legal", headers=game.host())

    body = assert_envelope(response, 403, "forbidden")
    assert "digital" in body["message"]


def test_legal_commands_without_a_token_are_a_401(client: FlaskClient, game: CreatedGame) -> None:
    assert_envelope(client.get(f"{game.url}/legal"), 401, "unauthorized")


@pytest.mark.parametrize(
    ("method", "path"),
    [
        ("GET", ""),
        ("GET", "/view"),
        ("GET", "/legal"),
        ("GET", "/events"),
        ("GET", "/scoreboard"),
        ("POST", "/commands"),
    ],
)
def test_an_unknown_game_is_a_404_on_every_endpoint(
    client: FlaskClient, game: CreatedGame, method: str, path: str
) -> None:
    response = client.open(
        UNKNOWN_GAME + path,
        method=method,
        json={"type": "plant", "field": 0} if method == "POST" else None,
        headers=game.seat(0),
    )

    assert_envelope(response, 404, "not_found")


def test_an_unknown_path_is_a_404_envelope(client: FlaskClient) -> None:
    assert_envelope(client.get("/api/nothing-here"), 404, "not_found")


@pytest.mark.parametrize("path", ["/api/games/not-a-uuid", "/api/games/not-a-uuid/view"])
def test_a_game_id_that_is_no_uuid_is_a_404_saying_so(client: FlaskClient, path: str) -> None:
    body = assert_envelope(client.get(path), 404, "not_found")

    assert body["message"] == (
        "no game 'not-a-uuid': a game's id is a UUID, as GET /api/games lists them"
    )


def test_a_path_under_a_game_that_no_route_takes_gets_the_general_404(
    client: FlaskClient, game: CreatedGame
) -> None:
    body = assert_envelope(client.get(f"{game.url}/nothing-here"), 404, "not_found")

    assert body["message"].startswith("The requested URL was not found on the server.")


def test_a_wrong_method_is_a_405_envelope(client: FlaskClient, game: CreatedGame) -> None:
    assert_envelope(client.delete(game.url), 405, "method_not_allowed")


def test_a_405_names_the_methods_the_path_allows(client: FlaskClient, game: CreatedGame) -> None:
    response = client.delete(f"{game.url}/commands")

    assert set(response.headers["Allow"].split(", ")) == {"POST"}


@pytest.mark.parametrize(
    ("headers", "data"),
    [({"Content-Encoding": "gzip"}, b"{}"), ({"Content-Type": "text/plain"}, b"hello")],
    ids=["gzip-said-of-plain-json", "not-json"],
)
def test_a_method_the_path_does_not_take_is_a_405_whatever_its_body(
    client: FlaskClient, headers: dict[str, str], data: bytes
) -> None:
    response = client.put(
        "/api/records/verification",
        data=data,
        headers={"Content-Type": "application/json", **headers},
    )

    assert_envelope(response, 405, "method_not_allowed")


def test_options_is_a_405_naming_the_methods_too(client: FlaskClient, game: CreatedGame) -> None:
    response = client.options(game.url)

    assert_envelope(response, 405, "method_not_allowed")
    assert set(response.headers["Allow"].split(", ")) == {"GET", "HEAD"}


def test_a_path_with_a_doubled_slash_is_a_404_envelope(
    client: FlaskClient, game: CreatedGame
) -> None:
    assert_envelope(client.get(game.url.replace("/games/", "/games//")), 404, "not_found")


@pytest.mark.parametrize("path", ["//api/health", "//docs", "///api/games"])
def test_a_path_that_starts_with_a_doubled_slash_is_a_404_envelope(
    client: FlaskClient, path: str
) -> None:
    response = client.get("/", environ_overrides={"PATH_INFO": path})

    assert_envelope(response, 404, "not_found")


class WithoutHost(EnvironBuilder):
    """A request as sent without a Host header (the test client always adds one)."""

    def __init__(self, path: str, protocol: str = "HTTP/1.1") -> None:
        super().__init__(path)
        self.protocol = protocol

    def get_environ(self) -> dict[str, Any]:
        environ = super().get_environ()
        del environ["HTTP_HOST"]
        environ["SERVER_PROTOCOL"] = self.protocol
        return environ


def test_an_http_1_1_request_without_a_host_header_is_a_400_naming_it(
    client: FlaskClient,
) -> None:
    response = client.open(WithoutHost("/api/health"))

    body = assert_envelope(response, 400, "bad_request")
    assert list(body["errors"]["headers"]) == ["Host"]
    assert "RFC 9112" in body["message"]


def test_an_http_1_0_request_without_a_host_header_is_answered(client: FlaskClient) -> None:
    response = client.open(WithoutHost("/api/health", protocol="HTTP/1.0"))

    assert response.status_code == 200


@pytest.mark.parametrize("header", ["If-Match", "Idempotency-Key"])
def test_a_malformed_command_header_is_a_400_naming_the_header(
    client: FlaskClient, game: CreatedGame, header: str
) -> None:
    headers = {**game.seat(0), header: '"3' if header == "If-Match" else "a key"}

    response = client.post(
        f"{game.url}/commands", json={"type": "plant", "field": 0}, headers=headers
    )

    body = assert_envelope(response, 400, "bad_request")
    assert list(body["errors"]["headers"]) == [header]


def test_a_compressed_body_is_a_415(client: FlaskClient) -> None:
    response = client.post(
        "/api/games",
        data=gzip.compress(b'{"seats": ["Ana", "Ben"]}'),
        headers={"Content-Type": "application/json", "Content-Encoding": "gzip"},
    )

    body = assert_envelope(response, 415, "unsupported_media_type")
    assert "uncompressed" in body["message"]


def test_an_oversize_body_is_a_413(client: FlaskClient, game: CreatedGame) -> None:
    padding = "x" * MAX_BODY_BYTES
    response = client.post(
        f"{game.url}/commands",
        data=f'{{"type": "plant", "field": 0, "pad": "{padding}"}}',
        content_type="application/json",
        headers=game.seat(0),
    )

    body = assert_envelope(response, 413, "payload_too_large")
    assert body["message"] == (
        "The request body is too large: this route takes a body of up to 65,536 bytes."
    )


def test_an_oversize_body_creating_a_game_is_a_413(client: FlaskClient) -> None:
    response = client.post("/api/games", json={"seats": ["A" * 40] * 7, "pad": "x" * 70_000})

    assert_envelope(response, 413, "payload_too_large")


@pytest.mark.parametrize(
    "content_type", ["text/plain", "application/x-www-form-urlencoded", "application/xml"]
)
def test_a_body_that_is_not_sent_as_json_is_a_415_saying_what_to_send(
    client: FlaskClient, game: CreatedGame, content_type: str
) -> None:
    response = client.post(
        f"{game.url}/commands",
        data='{"type": "plant", "field": 0}',
        content_type=content_type,
        headers=game.seat(0),
    )

    body = assert_envelope(response, 415, "unsupported_media_type")
    assert "Content-Type: application/json" in body["message"]
    assert content_type in body["message"]


def test_a_body_without_a_content_type_creating_a_game_is_a_415(client: FlaskClient) -> None:
    response = client.post("/api/games", data='{"seats": ["Ana", "Ben"]}')

    body = assert_envelope(response, 415, "unsupported_media_type")
    assert "no Content-Type was sent" in body["message"]


def test_a_content_type_that_names_no_media_type_is_a_415_quoting_it(
    client: FlaskClient,
) -> None:
    response = client.post("/api/games", data='{"seats": ["Ana", "Ben"]}', content_type=";;;")

    body = assert_envelope(response, 415, "unsupported_media_type")
    assert "(;;; was sent)" in body["message"]


def test_a_json_media_type_with_a_suffix_is_read_as_json(
    client: FlaskClient, game: CreatedGame
) -> None:
    response = client.post(
        f"{game.url}/commands",
        data='{"type": "plant", "field": 0}',
        content_type="application/vnd.bohnanza+json",
        headers=game.seat(0),
    )

    assert response.status_code == 200, response.get_json()


def test_a_command_with_no_body_at_all_is_a_422_naming_the_missing_fields(
    client: FlaskClient, game: CreatedGame
) -> None:
    response = client.post(f"{game.url}/commands", headers=game.seat(0))

    body = assert_envelope(response, 422, "validation_error")
    assert "type" in body["errors"]["json"]


def test_every_operation_taking_a_json_body_documents_the_415(client: FlaskClient) -> None:
    document = client.get("/openapi.json").get_json()

    for path, operations in document["paths"].items():
        for method, operation in operations.items():
            if method != "parameters" and "requestBody" in operation:
                assert "415" in operation["responses"], (method, path)


def test_every_operation_documents_what_the_server_refuses_before_the_app_sees_it(
    client: FlaskClient,
) -> None:
    document = client.get("/openapi.json").get_json()

    for path, operations in document["paths"].items():
        for method, operation in operations.items():
            if method != "parameters":
                assert {"400", "414", "431"} <= set(operation["responses"]), (method, path)


def test_waiting_for_a_position_the_store_has_not_reached_is_a_422(
    client: FlaskClient, game: CreatedGame
) -> None:
    response = client.get(f"{game.url}/scoreboard", query_string={"after_position": 10**9})

    body = assert_envelope(response, 422, "validation_error")
    assert "after_position" in body["errors"]["query"]


def test_read_models_that_lag_behind_are_a_503_to_retry(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setattr(games_module, "READ_MODEL_WAIT_SECONDS", 0.05)
    with web_app("memory://", INLINE_PROJECTIONS=False) as app:
        client = app.test_client()
        created = client.post("/api/games", json={"seats": ["A", "B", "C"]}).get_json()

        response = client.get("/api/games", query_string={"after_position": created["position"]})

    assert_envelope(response, 503, "read_models_behind")
    assert response.headers["Retry-After"] == "1"


def test_an_unreachable_store_is_a_503_to_retry(
    web: Flask, client: FlaskClient, monkeypatch: pytest.MonkeyPatch
) -> None:
    services = web.extensions["bohnanza"].get()

    def unreachable() -> int:
        raise OperationalError("connection refused")

    monkeypatch.setattr(services.app, "position", unreachable)

    response = client.get("/api/health")

    assert_envelope(response, 503, "unavailable")
    assert response.headers["Retry-After"] == "1"


def test_health_in_an_outage_asks_the_read_models_first_which_fail_at_once(
    web: Flask, client: FlaskClient, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The event store's library tries a failing call 10 times (about 22 s); the read models'
    engine fails at once, so a health check in an outage is a prompt 503."""
    services = web.extensions["bohnanza"].get()

    def refused(*args: object) -> None:
        raise sql_errors.OperationalError("SELECT", {}, Exception("connection refused"))

    def store_asked() -> int:
        raise AssertionError("the store was asked first")

    monkeypatch.setattr(runner.tracking, "positions", refused)
    monkeypatch.setattr(services.app, "position", store_asked)

    response = client.get("/api/health")

    assert_envelope(response, 503, "unavailable")


def test_a_bug_is_a_500_envelope_that_logs_no_token(
    web: Flask, client: FlaskClient, game: CreatedGame, caplog: pytest.LogCaptureFixture
) -> None:
    services = web.extensions["bohnanza"].get()

    def broken(*args: object, **kwargs: object) -> None:
        raise RuntimeError("a bug")

    services.app.execute = broken  # type: ignore[method-assign]

    with caplog.at_level(logging.INFO):
        response = command(client, game, game.seat(0), type="plant", field=0)

    body = assert_envelope(response, 500, "internal_error")
    assert "a bug" not in body["message"]
    assert "RuntimeError" in caplog.text
    assert game.seat_tokens[0] not in caplog.text


def test_every_error_of_the_api_is_documented_with_the_envelope(client: FlaskClient) -> None:
    document = client.get("/openapi.json").get_json()

    for path, operations in document["paths"].items():
        for method, operation in operations.items():
            if method == "parameters":
                continue
            for status, response in operation["responses"].items():
                if int(status) >= 400:
                    schema = response["content"]["application/json"]["schema"]
                    assert schema == {"$ref": "#/components/schemas/Error"}, (method, path)


def test_the_bearer_scheme_is_declared_for_token_endpoints(client: FlaskClient) -> None:
    document = client.get("/openapi.json").get_json()

    assert document["components"]["securitySchemes"]["bearer"]["scheme"] == "bearer"
    commands = document["paths"]["/api/games/{game_id}/commands"]["post"]
    assert commands["security"] == [{"bearer": []}]
    assert {p["name"] for p in commands["parameters"]} >= {"If-Match", "Idempotency-Key"}


def test_a_token_is_never_accepted_from_the_query_string(
    client: FlaskClient, game: CreatedGame
) -> None:
    response = client.get(
        f"{game.url}/view", query_string={"seat": 0, "token": game.seat_tokens[0]}
    )

    assert_envelope(response, 401, "unauthorized")


def test_a_token_missing_its_last_character_is_a_401(
    client: FlaskClient, game: CreatedGame
) -> None:
    response = client.get(f"{game.url}/view", headers=bearer(game.seat_tokens[0][:-1]))

    assert_envelope(response, 401, "unauthorized")


def test_a_scoreboard_the_read_models_do_not_hold_yet_is_a_503_not_a_404(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setattr(games_module, "READ_MODEL_WAIT_SECONDS", 0.05)
    with web_app("memory://", INLINE_PROJECTIONS=False) as app:  # no projector runs
        client = app.test_client()
        created = client.post("/api/games", json={"seats": ["A", "B", "C"]}).get_json()

        response = client.get(f"/api/games/{created['game_id']}/scoreboard")

    assert_envelope(response, 503, "read_models_behind")
