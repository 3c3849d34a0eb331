"""The portable record, bohnanza-record/1: its format and published schema, clear errors for a
malformed document, and export → import giving identical facts and scores for 300+ bot games in
both modes (tabletop games are the digital ones replayed card for card, as test_bot_games does)."""

from __future__ import annotations

import copy
import dataclasses
import json
from datetime import datetime
from typing import Any

import pytest
from jsonschema import Draft202012Validator

from domain.bots import simulate, simulate_under
from domain.rules import events as ev
from domain.rules.beans import BEANS
from domain.rules.commands import COMMAND_TYPES
from domain.rules.errors import BohnanzaError
from domain.rules.evolve import fold
from domain.rules.rulesets import OPTIONS, Ruleset
from domain.rules.state import DIGITAL, TABLETOP
from domain.rules.transcript import commands_from_facts, redecide
from replays.record import (
    FORMAT,
    IllegalRecord,
    RecordError,
    dumps,
    export_record,
    import_facts,
    load_record,
    parse_record,
    replay_record,
    schema,
)
from tests.builders import house_rules
from tests.games import OPTION_VALUES, sweep

ANNOTATION = {
    "step": 3,
    "author": {"role": "host", "name": "Hal", "seat": None},
    "text": "Ben should have kept the Chili",
    "glyph": "?!",
    "visibility": "public",
}


@pytest.fixture(scope="module")
def game() -> list[ev.Event]:
    return simulate("rio-grande", 4, bot="greedy", seed=1)


@pytest.fixture(scope="module")
def duel() -> list[ev.Event]:
    return simulate("rio-grande", 2, bot="random", seed=3)


@pytest.fixture
def document(game) -> dict[str, Any]:
    return export_record(game)


def first_index(commands: list[dict[str, Any]], kind: str) -> int:
    return next(i for i, command in enumerate(commands) if command["type"] == kind)


# --- the format ------------------------------------------------------------------------------------


def test_the_published_schema_is_a_valid_draft_2020_12_schema():
    Draft202012Validator.check_schema(schema())

    assert schema()["$schema"] == "https://json-schema.org/draft/2020-12/schema"


@pytest.mark.parametrize("kind", ["digital", "tabletop", "duel", "in-progress", "before-the-deal"])
def test_an_exported_record_conforms_to_the_published_schema(kind, game, duel):
    facts = {
        "digital": game,
        "tabletop": redecide(game, tabletop=True) if kind == "tabletop" else game,
        "duel": duel,
        "in-progress": game[:200],
        "before-the-deal": redecide(game, tabletop=True)[:1] if kind == "before-the-deal" else game,
    }[kind]
    document = export_record(facts, annotations=[ANNOTATION], date="2026-11-29", place="Café")

    Draft202012Validator(schema()).validate(document)
    assert document["format"] == FORMAT == "bohnanza-record/1"


def test_the_schema_knows_every_bean_command_option_and_ruleset_field():
    defs = schema()["$defs"]

    assert defs["bean"]["enum"] == list(BEANS)
    recorded = [kind for kind in COMMAND_TYPES if kind != "undo"]  # an undo is a correction
    assert defs["command"]["properties"]["type"]["enum"] == recorded
    assert defs["options"]["propertyNames"]["enum"] == list(OPTIONS)
    assert defs["resolvedRuleset"]["required"] == [f.name for f in dataclasses.fields(Ruleset)]
    assert set(defs["result"]["required"]) == set(ev.GameEnded.__dataclass_fields__) - {"secret"}


def test_a_digital_record_carries_the_seed_and_the_deck_top_card_first(game):
    document = export_record(game)
    started = game[0]

    assert document["header"]["mode"] == DIGITAL
    assert document["chance"] == {"seed": started.seed, "deck": started.deck}
    assert document["header"]["ruleset"] == started.ruleset


def test_a_record_names_every_card_dealt_revealed_and_drawn(game):
    commands = export_record(game)["commands"]
    named = [card for c in commands if c["type"] in ("reveal", "draw") for card in c["cards"]]
    seen = ev.cards_off_the_pile(game)

    assert commands[0] == {"type": "deal", "hands": game[1].hands}
    assert named == seen


def test_a_tabletop_record_has_no_chance_section(game):
    document = export_record(redecide(game, tabletop=True))

    assert document["header"]["mode"] == TABLETOP
    assert document["chance"] is None


def test_the_recorded_result_is_the_game_s_final_standing(game):
    ended = game[-1]

    assert export_record(game)["result"] == {
        "scores": ended.scores,
        "hand_sizes": ended.hand_sizes,
        "winners": ended.winners,
        "decided_by": ended.decided_by,
    }


def test_date_place_tags_and_annotations_go_into_the_record_and_come_back_out(game):
    document = export_record(
        game,
        annotations=[ANNOTATION],
        date=datetime(2026, 11, 29, 20, 15),
        place="Café Bohne",
        tags=["club night", "final"],
    )

    record = parse_record(document)

    assert document["header"]["date"] == "2026-11-29T20:15:00"
    assert (record.date, record.place, record.tags) == (
        "2026-11-29T20:15:00",
        "Café Bohne",
        ("club night", "final"),
    )
    assert record.annotations == (ANNOTATION,)


def test_a_record_reads_back_from_its_json_text_unchanged(game):
    document = export_record(game, annotations=[ANNOTATION], tags=["x"])

    text = dumps(document)

    assert json.loads(text) == document
    assert load_record(text).to_dict() == document


def test_the_json_text_puts_one_command_on_each_line(game):
    text = dumps(export_record(game))

    assert '    {"type": "deal", "hands": [[' in text
    assert text.count('{"type": ') == len(commands_from_facts(game, tabletop=True))


def test_a_header_may_name_a_preset_and_options_instead_of_the_resolved_ruleset(duel):
    document = export_record(duel)
    resolved = document["header"]["ruleset"]
    document["header"]["ruleset"] = {"preset": "rio-grande", "options": resolved["options"]}

    assert parse_record(document).ruleset.to_dict() == resolved
    assert import_facts(parse_record(document)) == duel


def test_a_game_in_progress_round_trips_without_a_result(game):
    turn_ends = [i for i, fact in enumerate(game) if isinstance(fact, ev.TurnEnded)]
    unfinished = game[: turn_ends[15] + 1]

    document = export_record(unfinished)

    assert document["result"] is None
    assert import_facts(parse_record(document)) == unfinished


def test_a_tabletop_game_before_the_deal_round_trips_with_no_commands(game):
    started = redecide(game, tabletop=True)[:1]

    document = export_record(started)

    assert document["commands"] == []
    assert import_facts(parse_record(document)) == started


# --- malformed documents --------------------------------------------------------------------------


def _set(path: tuple, value: Any):
    def mutate(document: dict[str, Any]) -> None:
        target = document
        for key in path[:-1]:
            target = target[key]
        target[path[-1]] = value

    return mutate


def _delete(path: tuple):
    def mutate(document: dict[str, Any]) -> None:
        target = document
        for key in path[:-1]:
            target = target[key]
        del target[path[-1]]

    return mutate


def _first_draw(change):
    def mutate(document: dict[str, Any]) -> None:
        change(document["commands"][first_index(document["commands"], "draw")])

    return mutate


def _a_deck_of_one_coffee(document: dict[str, Any]) -> None:
    """A resolved ruleset whose deck is a single Coffee, and the deck order to match it."""
    ruleset = document["header"]["ruleset"]
    ruleset.update(beans=["coffee"], counts={"coffee": 1}, meters={"coffee": [4, 7, 10, 12]})
    document["chance"]["deck"] = ["coffee"]


MALFORMED = [
    # (id, mutation, JSON path, words of the message, whether the plain schema rejects it too)
    (
        "no format",
        _delete(("format",)),
        "$.format",
        "reads bohnanza-record/1 and bohnanza-record/2 records, not no",
        1,
    ),
    ("a later format", _set(("format",), "bohnanza-record/3"), "$.format", "not format", 1),
    ("an unknown top-level key", _set(("moves",), []), "$", "'moves' was unexpected", 1),
    ("no seats", _delete(("header", "seats")), "$.header", "'seats' is a required property", 1),
    ("an empty seat name", _set(("header", "seats", 0), ""), "$.header.seats[0]", "non-empty", 1),
    ("an unknown mode", _set(("header", "mode"), "online"), "$.header.mode", "'online'", 1),
    ("a date in words", _set(("header", "date"), "last Friday"), "$.header.date", "ISO 8601", 1),
    ("a typo in the header", _set(("header", "plaec"), "Home"), "$.header", "'plaec'", 1),
    ("a month 13", _set(("header", "date"), "2020-13-45"), "$.header.date", "ISO 8601", 0),
    (
        "a time that is none",
        _set(("header", "date"), "2020-01-02Tgarbage"),
        "$.header.date",
        "ISO 8601",
        0,
    ),
    ("a digital game without chance", _delete(("chance",)), "$", "needs chance: the seed", 1),
    ("a tabletop game with a seed", _set(("header", "mode"), "tabletop"), "$.chance", "null", 1),
    ("a seed in words", _set(("chance", "seed"), "seven"), "$.chance.seed", "integer", 1),
    ("an unknown command", _set(("commands", 3), {"type": "jump"}), "$.commands[3].type", "", 1),
    (
        "a seat in words",
        _set(("commands", 1), {"type": "plant", "seat": "one", "field": 0}),
        "$.commands[1].seat",
        "'one' is not of type 'integer'",
        1,
    ),
    (
        "an unknown bean",
        _set(("commands", 1), {"type": "plant", "seat": 0, "field": 0, "bean": "purple"}),
        "$.commands[1].bean",
        "'purple'",
        1,
    ),
    ("a draw that names no cards", _first_draw(lambda c: c.pop("cards")), "$.commands[", "", 1),
    (
        "a field a command does not have",
        _first_draw(lambda c: c.update(field=1)),
        "$.commands[",
        "'field' was unexpected",
        1,
    ),
    ("a negative seat", _first_draw(lambda c: c.update(seat=-1)), "$.commands[", "minimum", 1),
    ("a result with a seat in words", _set(("result", "winners"), ["Ana"]), "$.result", "", 1),
    (
        "an annotation without an author",
        _set(("annotations",), [{k: v for k, v in ANNOTATION.items() if k != "author"}]),
        "$.annotations[0]",
        "'author' is a required property",
        1,
    ),
    (
        "a start seat no one sits in",
        _set(("header", "start_seat"), 9),
        "$.header.start_seat",
        "",
        0,
    ),
    (
        "a ruleset resolved for other seats",
        _set(("header", "ruleset", "players"), 5),
        "$.header.ruleset.players",
        "resolved for 5 players, the record has 4 seats",
        0,
    ),
    (
        "an unknown preset",
        _set(("header", "ruleset"), {"preset": "turbo"}),
        "$.header.ruleset",
        "unknown ruleset 'turbo'",
        0,
    ),
    (
        "a bad option value",
        _set(("header", "ruleset"), {"preset": "amigo", "options": {"tie_break": ["dice"]}}),
        "$.header.ruleset",
        "'dice' is not one of",
        0,
    ),
    ("a deck missing a card", lambda d: d["chance"]["deck"].pop(), "$.chance.deck", "exactly", 0),
    ("no deal first", lambda d: d["commands"].pop(0), "$.commands[0]", "begin with the deal", 0),
    (
        "a hand position named twice",
        _set(("commands", 1), {"type": "offer", "seat": 0, "to": 1, "hand": [0, 0]}),
        "$.commands[1]",
        "non-unique",
        1,
    ),
    (
        "a bean counted a billion times",
        _set(("header", "ruleset", "counts", "coffee"), 1_000_000_000),
        "$.header.ruleset",
        "",
        1,
    ),
    ("a hand of a hundred", _set(("header", "ruleset", "deal", 0), 100), "$.header.ruleset", "", 1),
    (
        "a deal larger than the deck",
        _a_deck_of_one_coffee,
        "$.header.ruleset.deal",
        "the deal needs 20 cards (5 + 5 + 5 + 5), but the deck holds only 1 (RULES §3.4)",
        0,
    ),
    (
        "a start seat with a fraction",
        _set(("header", "start_seat"), 0.0),
        "$.header.start_seat",
        "0.0 is not of type 'integer'",
        0,
    ),
    (
        "a seat written with a fraction",
        _first_draw(lambda c: c.update(seat=1.0)),
        "$.commands[",
        "1.0 is not of type 'integer'",
        0,
    ),
    (
        "a seat name holding a control character",
        _set(("header", "seats", 0), "Ana\x00"),
        "$.header.seats[0]",
        "printable",
        0,
    ),
    ("a seat name too long", _set(("header", "seats", 0), "A" * 41), "$.header.seats[0]", "", 1),
    (
        "a place holding a control character",
        _set(("header", "place"), "Bar\x07"),
        "$.header.place",
        "printable",
        0,
    ),
    (
        "a tag reversing the text after it",
        _set(("header", "tags"), ["ok", "x\u202e"]),
        "$.header.tags[1]",
        "printable",
        0,
    ),
    (
        "an annotation author of no role",
        _set(("annotations",), [{**ANNOTATION, "author": {}}]),
        "$.annotations[0].author",
        "",
        1,
    ),
    (
        "an annotation author of an unknown role",
        _set(("annotations",), [{**ANNOTATION, "author": {"role": "god", "name": "Zeus"}}]),
        "$.annotations[0].author",
        "",
        1,
    ),
    (
        "an annotation glyph none of the six",
        _set(("annotations",), [{**ANNOTATION, "glyph": "x"}]),
        "$.annotations[0].glyph",
        "",
        1,
    ),
    ("a winner no one is", _set(("result", "winners"), [7]), "$.result.winners[0]", "", 0),
    ("a score missing", lambda d: d["result"]["scores"].pop(), "$.result.scores", "per seat", 0),
]


@pytest.mark.parametrize(
    ("mutate", "path", "words"),
    [pytest.param(*case[1:4], id=case[0]) for case in MALFORMED],
)
def test_a_malformed_record_is_refused_naming_the_json_path(document, mutate, path, words):
    broken = copy.deepcopy(document)
    mutate(broken)

    with pytest.raises(RecordError) as refused:
        parse_record(broken)

    assert refused.value.path.startswith(path)
    assert words in refused.value.message
    assert str(refused.value).startswith(f"{refused.value.path}: ")


@pytest.mark.slow  # validating a whole game's record with jsonschema takes 0.2 s
@pytest.mark.parametrize(
    ("mutate", "schema_rejects"),
    [pytest.param(case[1], case[4], id=case[0]) for case in MALFORMED],
)
def test_the_published_schema_refuses_what_it_can_say_of_each_malformed_record(
    document, mutate, schema_rejects
):
    broken = copy.deepcopy(document)
    mutate(broken)

    assert Draft202012Validator(schema()).is_valid(broken) is not bool(schema_rejects)


def test_a_record_error_is_one_of_the_service_s_errors():
    assert issubclass(RecordError, BohnanzaError)
    assert issubclass(IllegalRecord, RecordError)


@pytest.mark.parametrize(
    ("text", "words"),
    [("{", "not JSON"), ("[]", "a record is a JSON object, not list"), ('"x"', "not str")],
)
def test_a_document_that_is_not_a_json_object_is_refused(text, words):
    with pytest.raises(RecordError) as refused:
        load_record(text)

    assert words in str(refused.value)
    assert refused.value.path == "$"


# --- import is an audit ---------------------------------------------------------------------------


def test_import_refuses_a_recorded_result_the_commands_do_not_give(document):
    document["result"]["scores"][0] += 1

    with pytest.raises(RecordError) as refused:
        import_facts(parse_record(document))

    assert refused.value.path == "$.result"
    assert "but its commands give" in refused.value.message


def test_import_refusing_a_result_with_the_right_scores_names_what_it_gets_wrong(document):
    document["result"]["hand_sizes"][0] += 1

    with pytest.raises(RecordError) as refused:
        import_facts(parse_record(document))

    assert "the record is wrong about the hand sizes (" in refused.value.message


def test_import_refuses_a_result_for_a_game_its_commands_leave_unfinished(document):
    del document["commands"][-40:]

    with pytest.raises(RecordError) as refused:
        import_facts(parse_record(document))

    assert refused.value.path == "$.result"
    assert "the game is still on" in refused.value.message


HOUSE_RULES = [
    pytest.param(
        lambda r: {"meters": dict.fromkeys(r.beans, (1, 2, 3, 4))},
        "in: meters;",
        id="every-beanometer-1-2-3-4",
    ),
    pytest.param(lambda r: {"deal": (6, 6, 6, 6)}, "in: deal;", id="six-card-hands"),
    pytest.param(lambda r: {"third_field_cost": 1}, "in: third_field_cost;", id="a-1-coin-field"),
    pytest.param(lambda r: {"counts": {**r.counts, "red": 12}}, "in: counts;", id="more-red"),
    pytest.param(
        lambda r: {"third_field_cost": 2, "draw": 4},
        "in: third_field_cost, draw;",
        id="two-changes",
    ),
]


@pytest.mark.parametrize(("changes", "words"), HOUSE_RULES)
def test_import_refuses_a_game_played_under_rules_of_its_own_with_a_preset_s_name(changes, words):
    record = parse_record(export_record(simulate_under(house_rules(changes), seed=1)))
    assert replay_record(record).failure is None  # legal under its own ruleset

    with pytest.raises(RecordError) as refused:
        import_facts(record)

    assert refused.value.path == "$.header.ruleset"
    assert refused.value.message.startswith(
        "the ruleset differs from what rio-grande for 4 players resolves to "
    )
    assert words in refused.value.message
    assert refused.value.message.endswith("changed only by options (RULES §2, §15)")


@pytest.mark.parametrize(
    ("preset", "words"),
    [
        pytest.param("amigo", "ruleset amigo is for 3–5 players, not 2", id="amigo-for-a-duel"),
        pytest.param("house", "unknown ruleset 'house'", id="no-such-preset"),
        pytest.param("x" * 40, "unknown ruleset 'xxxx", id="longer-than-the-read-models-column"),
    ],
)
def test_import_refuses_a_resolved_ruleset_under_a_preset_that_does_not_give_it(
    duel, preset, words
):
    document = export_record(duel)
    document["header"]["ruleset"]["preset"] = preset

    with pytest.raises(RecordError) as refused:
        import_facts(parse_record(document))

    assert refused.value.path == "$.header.ruleset"
    assert words in refused.value.message


def test_a_digital_record_is_refused_where_it_names_a_card_the_deck_did_not_give(document):
    at = first_index(document["commands"], "draw")
    drawn = document["commands"][at]["cards"]
    drawn[0] = "red" if drawn[0] != "red" else "blue"

    with pytest.raises(IllegalRecord) as refused:
        import_facts(parse_record(document))

    assert refused.value.failure.position == at
    assert refused.value.failure.section == "10.1"
    assert refused.value.path == f"$.commands[{at}]"
    assert "but the shuffled draw pile gives" in str(refused.value)


def test_a_digital_record_is_refused_at_the_deal_when_the_deck_deals_other_hands(document):
    hands = document["commands"][0]["hands"]
    hands[0], hands[1] = hands[1], hands[0]

    with pytest.raises(IllegalRecord) as refused:
        import_facts(parse_record(document))

    assert refused.value.failure.position == 0
    assert refused.value.failure.section == "3.4"


def test_a_command_after_the_end_is_the_first_illegal_step(document):
    document["commands"].append({"type": "buy-field", "seat": 0})

    with pytest.raises(IllegalRecord) as refused:
        import_facts(parse_record(document))

    assert refused.value.failure.position == len(document["commands"]) - 1
    assert refused.value.failure.section == "10"


def test_replay_keeps_the_legal_prefix_and_the_table_before_the_first_illegal_step(game):
    document = export_record(redecide(game, tabletop=True))
    at = 60
    document["commands"].insert(at, {"type": "end-trading", "seat": 0})
    original = replay_record(parse_record(export_record(redecide(game, tabletop=True))))

    replayed = replay_record(parse_record(document))

    failure = replayed.failure
    assert failure is not None
    assert failure.position == at
    assert replayed.facts == original.facts[: failure.after_step]
    assert failure.before == fold(replayed.facts) == replayed.state
    assert failure.to_dict()["command"] == {"type": "end-trading", "seat": 0}


# --- 100+ round trips ------------------------------------------------------------------------------

ROUND_TRIPS = [
    pytest.param("rio-grande", 2, None, None, sweep(12), id="duel"),
    *[
        pytest.param("rio-grande", players, None, None, sweep(6), id=f"rio-grande-{players}p")
        for players in (3, 4, 5, 6, 7)
    ],
    *[
        pytest.param(preset, players, None, None, sweep(4), id=f"{preset}-{players}p")
        for preset in ("amigo", "amigo-1997")
        for players in (3, 4, 5)
    ],
    *[
        pytest.param("rio-grande", None, name, value, sweep(3), id=f"{name}={value}")
        for name, value in OPTION_VALUES
    ],
]


def round_trip(facts: list[ev.Event]) -> list[ev.Event]:
    """Export to JSON text, read it back, re-decide it: the facts an import would store."""
    text = dumps(export_record(facts, date="2026-11-29", tags=["bots"]))
    return import_facts(load_record(text))


def test_the_round_trips_cover_more_than_100_games():
    assert sum(len(case.values[-1]) for case in ROUND_TRIPS) >= 100


@pytest.mark.slow  # 100+ games
@pytest.mark.parametrize(("preset", "players", "option", "value", "seeds"), ROUND_TRIPS)
def test_bot_games_survive_export_and_import_with_identical_facts_and_scores_in_both_modes(
    preset, players, option, value, seeds
):
    for seed in seeds:
        options = None if option is None else {option: value}
        count = players or (2 if option.startswith("duel_") else 3 + seed % 5)
        bot = ("greedy", "random")[seed % 2]
        digital = simulate(preset, count, bot=bot, seed=seed, options=options)
        at_the_table = redecide(digital, tabletop=True)

        for facts in (digital, at_the_table):
            imported = round_trip(facts)

            assert imported == facts, f"{preset} {count}p {bot} seed {seed} {facts[0].mode}"
            assert imported[-1] == facts[-1]  # GameEnded: the same scores and winners


# --- the command line ------------------------------------------------------------------------------


def _house_rules_record() -> dict[str, Any]:
    return export_record(simulate_under(house_rules(lambda r: {"third_field_cost": 1}), seed=1))


def _a_deal_larger_than_the_deck() -> dict[str, Any]:
    document = export_record(simulate("rio-grande", 4, bot="greedy", seed=1))
    _a_deck_of_one_coffee(document)
    return document


@pytest.mark.parametrize(
    ("document", "words"),
    [
        pytest.param(
            _house_rules_record,
            "$.header.ruleset: the ruleset differs from what rio-grande for 4 players resolves "
            "to in: third_field_cost;",
            id="house-rules-under-a-preset-s-name",
        ),
        pytest.param(
            _a_deal_larger_than_the_deck,
            "is not a valid record: $.header.ruleset.deal: the deal needs 20 cards",
            id="a-deal-larger-than-the-deck",
        ),
    ],
)
def test_the_command_line_import_refuses_a_ruleset_it_cannot_store_and_stores_nothing(
    run, tmp_path, document, words
):
    path = tmp_path / "record.json"
    path.write_text(dumps(document()))

    result = run("import", str(path))

    assert result.exit_code == 1
    assert words in result.output
    assert "Traceback" not in result.output
    assert run("games").output.startswith("No games stored yet.")
