"""The app's JSON answers (api/encoding.py): orjson's speed, the standard library's documents."""

from __future__ import annotations

import datetime as dt
import json
import uuid

import pytest
from flask import Flask
from flask.testing import FlaskClient

from .support import create_game


@pytest.mark.parametrize(
    "document",
    [
        {"b": 1, "a": [1, 2.5, None, True], "nested": {"z": "x", "y": []}},
        {"text": "Bohnen 🫘 ça"},
        {"id": uuid.UUID(int=7)},
        {"when": dt.datetime(2026, 11, 29, 19, 30, tzinfo=dt.UTC), "day": dt.date(2026, 11, 29)},
        {"big": 2**70},
        {"lone": "\ud800"},
        {1: "a non-string key"},
    ],
    ids=["plain", "non-ascii", "uuid", "dates", "big-int", "lone-surrogate", "int-key"],
)
def test_an_answer_decodes_to_what_flasks_own_encoder_makes(web: Flask, document: dict) -> None:
    with web.app_context():
        answer = web.json.response(document)
        flasks_own = json.dumps(document, default=web.json.default, sort_keys=False)

    assert answer.mimetype == "application/json"
    assert json.loads(answer.get_data()) == json.loads(flasks_own)


def test_keys_keep_the_order_the_code_builds_them_in(web: Flask) -> None:
    with web.app_context():
        text = web.json.dumps({"zebra": 1, "apple": 2, "mango": 3})

    assert text == '{"zebra":1,"apple":2,"mango":3}'


def test_a_seat_name_in_any_script_comes_back_as_it_was_sent(client: FlaskClient) -> None:
    names = ["Zoë", "Łukasz", "美咲"]

    game = create_game(client, seats=names)
    summary = client.get(game.url)

    assert summary.get_json()["seats"] == names
    assert "Zoë".encode() in summary.get_data()  # written as UTF-8, not escaped


def test_indented_answers_in_debug_mode_use_the_standard_encoder(web: Flask) -> None:
    web.debug = True
    with web.app_context():
        text = web.json.response({"a": 1}).get_data(as_text=True)

    assert text == '{\n  "a": 1\n}\n'
