"""Rules disputes: a record re-decided under any ruleset reports its first illegal step with the
RULES section and the table before it, or — when legal — the result under that ruleset beside the
recorded one. And the audit of a game's facts: invariants, then re-decision."""

from __future__ import annotations

import dataclasses
import json
from collections.abc import Callable
from typing import Any

import pytest

from domain.bots import simulate
from domain.rules import events as ev
from domain.rules.audit import audit
from domain.rules.beans import BASE_BEANS
from domain.rules.commands import parse_command
from domain.rules.decide import decide
from domain.rules.errors import InvalidRuleset
from domain.rules.evolve import fold
from domain.rules.notation import draw_table
from domain.rules.state import GameState, Phase
from domain.rules.transcript import redecide
from replays.record import IllegalRecord, export_record, import_facts, parse_record
from replays.verify import ILLEGAL, LEGAL, _witness_problem, audit_game, verify

# --- helpers -------------------------------------------------------------------------------------


def tables(facts: list[ev.Event]) -> tuple[dict[str, Any], list[GameState]]:
    """A game as a tabletop record, and the table before each of its commands."""
    document = export_record(redecide(facts, tabletop=True))
    state = fold(redecide(facts, tabletop=True)[:1])
    states = []
    for command in parse_record(document).commands:
        states.append(state)
        state = fold(decide(state, command), state)
    return document, states


def first(states: list[GameState], commands: list[dict[str, Any]], test: Callable) -> int:
    """The position of the first command (with the table before it) that passes `test`."""
    return next(i for i, (s, c) in enumerate(zip(states, commands, strict=True)) if test(s, c))


@dataclasses.dataclass
class Broken:
    """A record broken on purpose, the ruleset to check it under, and where it must fail."""

    document: dict[str, Any]
    preset: str | None
    options: dict[str, Any] | None
    position: int
    section: str | None


def planted_out_of_hand_order() -> Broken:
    document, states = tables(simulate("amigo", 4, bot="greedy", seed=2))
    commands = document["commands"]

    def two_different_front_cards(s: GameState, c: dict[str, Any]) -> bool:
        hand = s.players[s.active].hand
        return c["type"] == "plant" and s.phase is Phase.PLANT and len(set(hand[:2])) == 2

    at = first(states, commands, two_different_front_cards)
    commands[at]["bean"] = states[at].players[states[at].active].hand[1]
    return Broken(document, None, None, at, "5.1.2")


def harvest_breaking_bean_protection() -> Broken:
    document, states = tables(simulate("rio-grande", 4, bot="random", seed=5))

    def protected(s: GameState) -> tuple[int, int] | None:
        for seat, player in enumerate(s.players):
            counts = [field.count for field in player.fields]
            if 1 in counts and max(counts) >= 2:
                return seat, counts.index(1)
        return None

    at = first(states, document["commands"], lambda s, c: s.turn > 1 and protected(s))
    seat, field = protected(states[at])
    document["commands"].insert(at, {"type": "harvest", "seat": seat, "field": field})
    return Broken(document, None, None, at, "8.3")


def card_not_in_the_deck() -> Broken:
    document = export_record(simulate("amigo", 4, bot="random", seed=1))
    at = next(i for i, c in enumerate(document["commands"]) if c["type"] == "draw")
    document["commands"][at]["cards"][0] = "coffee"
    return Broken(document, "amigo", None, at, "4.4")


def draw_of_a_card_not_in_the_pile() -> Broken:
    document, states = tables(simulate("rio-grande", 5, bot="greedy", seed=4))

    def gone(s: GameState) -> list[str]:
        return [bean for bean in s.ruleset.beans if bean not in s.draw_pile]

    at = first(states, document["commands"], lambda s, c: c["type"] == "draw" and gone(s))
    document["commands"][at]["cards"][0] = gone(states[at])[0]
    return Broken(document, None, None, at, "4.4")


def third_field_bought_under_amigo() -> Broken:
    document = export_record(simulate("amigo-1997", 4, bot="greedy", seed=0))
    at = next(i for i, c in enumerate(document["commands"]) if c["type"] == "buy-field")
    return Broken(document, "amigo", None, at, "9.4")


def planting_on_another_bean() -> Broken:
    document, states = tables(simulate("rio-grande", 4, bot="greedy", seed=3))

    def other_bean_field(s: GameState, c: dict[str, Any]) -> int | None:
        if c["type"] != "plant" or s.phase is not Phase.PLANT_TRADED:
            return None
        fields = s.players[c["seat"]].fields
        return next((i for i, f in enumerate(fields) if f.bean not in (None, c["bean"])), None)

    at = first(states, document["commands"], lambda s, c: other_bean_field(s, c) is not None)
    document["commands"][at]["field"] = other_bean_field(states[at], document["commands"][at])
    return Broken(document, None, None, at, "7.1")


def trade_between_two_other_players() -> Broken:
    document, states = tables(simulate("rio-grande", 5, bot="greedy", seed=2))
    at = first(states, document["commands"], lambda s, c: c["type"] == "offer")
    active = states[at].active
    seat, to = (active + 1) % 5, (active + 2) % 5
    document["commands"][at] = {"type": "offer", "seat": seat, "to": to, "wants": ["blue"]}
    return Broken(document, None, None, at, "6.1")


def duel_harvest_on_the_opponent_s_turn() -> Broken:
    document, states = tables(simulate("rio-grande", 2, bot="greedy", seed=6))

    def idle_field(s: GameState) -> int | None:
        fields = s.players[1 - s.active].fields
        return next((i for i, f in enumerate(fields) if f.count >= 2), None)

    at = first(states, document["commands"], lambda s, c: s.turn > 1 and idle_field(s) is not None)
    seat = 1 - states[at].active
    document["commands"].insert(
        at, {"type": "harvest", "seat": seat, "field": idle_field(states[at])}
    )
    return Broken(document, None, None, at, "11.1")


def command_after_the_end() -> Broken:
    document = export_record(simulate("rio-grande", 3, bot="random", seed=8))
    document["commands"].append({"type": "harvest", "seat": 0, "field": 0})
    return Broken(document, None, None, len(document["commands"]) - 1, "10")


def field_that_does_not_exist() -> Broken:
    document = export_record(simulate("amigo", 3, bot="random", seed=2))
    at = next(i for i, c in enumerate(document["commands"]) if c["type"] == "plant")
    document["commands"][at]["field"] = 7
    return Broken(document, None, None, at, None)


def digital_draw_the_deck_did_not_give() -> Broken:
    document = export_record(simulate("amigo-1997", 5, bot="greedy", seed=9))
    at = next(
        i
        for i, c in enumerate(document["commands"])
        if c["type"] == "draw" and len(set(c["cards"])) > 1
    )
    document["commands"][at]["cards"].reverse()
    return Broken(document, None, None, at, "10.1")


def rio_grande_game_under_amigo() -> Broken:
    document = export_record(simulate("rio-grande", 4, bot="greedy", seed=1))
    dealt = [card for hand in document["commands"][0]["hands"] for card in hand]
    assert set(dealt) - set(BASE_BEANS), "this deal holds no card the amigo deck lacks"
    return Broken(document, "amigo", None, 0, "4.4")


UNDER_ITS_OWN_RULESET = [
    planted_out_of_hand_order,
    harvest_breaking_bean_protection,
    draw_of_a_card_not_in_the_pile,
    planting_on_another_bean,
    trade_between_two_other_players,
    duel_harvest_on_the_opponent_s_turn,
    command_after_the_end,
    field_that_does_not_exist,
    digital_draw_the_deck_did_not_give,
]
UNDER_ANOTHER_RULESET = [
    card_not_in_the_deck,
    third_field_bought_under_amigo,
    rio_grande_game_under_amigo,
]
BROKEN = UNDER_ITS_OWN_RULESET + UNDER_ANOTHER_RULESET


# --- illegal records -----------------------------------------------------------------------------


@pytest.mark.parametrize("build", BROKEN, ids=[build.__name__ for build in BROKEN])
def test_a_broken_record_is_illegal_from_its_first_offending_step(build):
    broken = build()

    report = verify(parse_record(broken.document), broken.preset, broken.options)

    failure = report.failure
    assert report.verdict == ILLEGAL
    assert failure is not None
    assert (failure.position, failure.section) == (broken.position, broken.section)
    step = failure.to_dict()
    assert step["path"] == f"$.commands[{broken.position}]"
    assert step["command"] == parse_command(broken.document["commands"][broken.position]).to_dict()
    assert step["table"] == draw_table(failure.before)
    assert report.result is None


@pytest.mark.parametrize(
    "build", UNDER_ITS_OWN_RULESET, ids=[build.__name__ for build in UNDER_ITS_OWN_RULESET]
)
def test_import_refuses_a_broken_record_at_the_same_step_verify_reports(build):
    broken = build()
    assert broken.preset is None

    with pytest.raises(IllegalRecord) as refused:
        import_facts(parse_record(broken.document))

    assert refused.value.failure.position == broken.position
    assert refused.value.failure.section == broken.section


def test_the_report_of_an_illegal_step_names_the_rule_sentence_and_table():
    broken = third_field_bought_under_amigo()

    report = verify(parse_record(broken.document), "amigo")

    step = report.to_dict()["first_illegal_step"]
    assert step["rule"] == "RULES §9.4"
    assert step["title"] == "third bean field: not for sale"
    assert step["sentence"] == "the amigo ruleset has no third bean field for sale"
    assert step["kind"] == "rule-violation"
    assert "amigo, 4 players, tabletop" in step["table"]
    text = report.text()
    assert f"First illegal step: $.commands[{broken.position}]" in text
    assert "RULES §9.4 (third bean field: not for sale)" in text
    assert "The table before it:" in text


def test_a_command_no_game_could_take_is_reported_as_malformed_without_a_section():
    broken = field_that_does_not_exist()

    step = verify(parse_record(broken.document)).to_dict()["first_illegal_step"]

    assert step["kind"] == "malformed-command"
    assert step["section"] is None
    assert "field index 7 does not exist" in step["sentence"]


def test_a_hand_position_the_hand_lacks_is_malformed_and_cites_its_section():
    document = export_record(simulate("rio-grande", 4, bot="greedy", seed=1))
    at = next(i for i, c in enumerate(document["commands"]) if c["type"] == "offer" and c["hand"])
    document["commands"][at]["hand"] = [99]

    step = verify(parse_record(document)).to_dict()["first_illegal_step"]

    assert (step["kind"], step["rule"], step["section"]) == (
        "malformed-command",
        "RULES §4.2",
        "4.2",
    )
    assert step["title"] == "cards leaving the hand"
    assert step["sentence"].startswith("hand position 99 does not exist")


# --- legal records -------------------------------------------------------------------------------


def test_a_legal_record_under_its_own_ruleset_gives_the_recorded_outcome():
    facts = simulate("rio-grande", 5, bot="greedy", seed=2)

    report = verify(facts)

    assert report.verdict == LEGAL
    assert report.own_ruleset
    assert report.mode == "digital"
    assert report.result == report.recorded
    assert report.same_outcome
    assert report.difference.startswith("Same outcome: the win to")
    assert report.notes == ()


def tie_broken_otherwise(preset: str, players: int, other: str, options: dict | None):
    """The first bot game that is legal under the other ruleset with another winner."""
    for seed in range(100):
        for bot in ("greedy", "random"):
            facts = simulate(preset, players, bot=bot, seed=seed)
            if facts[-1].decided_by is None:
                continue
            report = verify(facts, other, options)
            if report.legal and report.result.winners != report.recorded.winners:
                return report
    pytest.fail(f"no {preset} {players}p bot game broke a tie differently under {other}")


@pytest.mark.parametrize(
    ("preset", "players", "other", "options", "recorded_by", "checked_by", "words"),
    [
        ("amigo", 4, "amigo-1997", None, "seat-distance", "most-hand-cards", "by most cards"),
        ("amigo", 5, "amigo-1997", None, "seat-distance", "most-hand-cards", "by most cards"),
        (
            "rio-grande",
            4,
            "rio-grande",
            {"tie_break": ["seat-distance"]},
            "most-hand-cards",
            "seat-distance",
            "by seat: furthest clockwise from the start player",
        ),
    ],
)
def test_a_tie_broken_differently_under_another_ruleset_is_explained(
    preset, players, other, options, recorded_by, checked_by, words
):
    report = tie_broken_otherwise(preset, players, other, options)

    assert report.verdict == LEGAL
    assert report.mode == "tabletop"
    assert report.recorded.decided_by == recorded_by
    assert report.result.decided_by == checked_by
    assert report.result.scores == report.recorded.scores
    assert " tie on " in report.difference
    assert words in report.difference
    assert not report.same_outcome


def test_a_what_if_that_changes_the_winners_is_worded_as_one_not_as_a_wrong_record():
    report = tie_broken_otherwise("rio-grande", 4, "rio-grande", {"tie_break": ["seat-distance"]})

    assert "rio-grande with tie_break=seat-distance changes the winners (" in report.difference
    assert "wrong" not in report.difference


def _doctored_result(**changes: Any) -> dict[str, Any]:
    """A 3-player game's record (one player with the most coins) with its result changed."""
    document = export_record(simulate("rio-grande", 3, bot="greedy", seed=4))
    scores = document["result"]["scores"]
    assert scores.count(max(scores)) == 1
    for key, change in changes.items():
        document["result"][key] = change(document["result"])
    return document


@pytest.mark.parametrize(
    ("changes", "words"),
    [
        (
            {"winners": lambda r: [(r["winners"][0] + 1) % 3]},
            "Same scores, but the record is wrong about the winners (",
        ),
        (
            {"decided_by": lambda r: "seat-distance"},
            "wrong about the tie-break (seat-distance → none)",
        ),
        (
            {"hand_sizes": lambda r: [size + 1 for size in r["hand_sizes"]]},
            "wrong about the hand sizes (",
        ),
    ],
    ids=["another-winner", "a-tie-break-where-none-was-needed", "other-hand-sizes"],
)
def test_a_recorded_result_with_the_right_scores_is_told_what_it_gets_wrong(changes, words):
    report = verify(parse_record(_doctored_result(**changes)))

    assert words in report.difference
    assert " has the most coins (" in report.difference
    assert " tie on " not in report.difference


def test_a_recorded_winner_is_shown_with_the_coins_the_record_gives_them():
    document = _doctored_result()
    scores = document["result"]["scores"]
    last = min(range(3), key=lambda seat: scores[seat])
    document["result"]["winners"] = [last]
    name = document["header"]["seats"][last]

    report = verify(parse_record(document))

    assert f"the record gives the win to {name} ({scores[last]} coin" in report.difference


def test_a_record_whose_ruleset_no_preset_gives_says_why():
    document = export_record(simulate("rio-grande", 2, bot="random", seed=1))
    document["header"]["ruleset"]["preset"] = "amigo"

    report = verify(parse_record(document))

    assert report.notes == (
        "today's rulesets do not give this one (RULES §2.3 (player counts: amigo): ruleset "
        "amigo is for 3–5 players, not 2); "
        "the record's ruleset is used, an import refuses it",
    )


def test_a_record_of_a_game_in_progress_is_legal_with_no_result_to_compare():
    facts = simulate("rio-grande", 4, bot="greedy", seed=1)
    turn_ends = [i for i, fact in enumerate(facts) if isinstance(fact, ev.TurnEnded)]

    report = verify(facts[: turn_ends[20] + 1], "rio-grande", {"tie_break": ["seat-distance"]})

    assert report.verdict == LEGAL
    assert report.recorded is None
    assert report.result is None
    assert "the game is not over under rio-grande with tie_break=seat-distance" in (
        report.difference
    )


def test_options_without_a_preset_are_checked_under_the_record_s_preset():
    facts = simulate("amigo", 4, bot="greedy", seed=3)

    report = verify(facts, options={"tie_break": ["most-hand-cards"]})

    assert report.ruleset.preset == "amigo"
    assert dict(report.ruleset.options) == {"tie_break": ("most-hand-cards",)}
    assert not report.own_ruleset


def test_a_ruleset_without_the_record_s_player_count_is_refused():
    with pytest.raises(InvalidRuleset, match="amigo is for 3–5 players, not 2"):
        verify(simulate("rio-grande", 2, bot="random", seed=1), "amigo")


def test_a_record_under_a_doctored_ruleset_is_checked_under_it_and_the_report_says_so():
    document = export_record(simulate("amigo-1997", 4, bot="greedy", seed=1))
    document["header"]["ruleset"]["discard_pile_browsable"] = True

    report = verify(parse_record(document))

    assert report.verdict == LEGAL
    assert report.notes == (
        "the record's ruleset differs from today's amigo-1997 preset in: discard_pile_browsable; "
        "the record's is used, an import refuses it",
    )


def test_the_report_is_json():
    report = verify(simulate("amigo", 4, bot="greedy", seed=3), "amigo-1997")

    data = json.loads(json.dumps(report.to_dict()))

    assert data["verdict"] == LEGAL
    assert data["ruleset"] == {"preset": "amigo-1997", "players": 4, "options": {}, "own": False}
    assert set(data) >= {"recorded", "result", "difference", "first_illegal_step", "commands"}


# --- the audit -----------------------------------------------------------------------------------


@pytest.mark.parametrize("mode", ["digital", "tabletop"])
def test_an_untouched_game_passes_the_audit(mode):
    facts = simulate("rio-grande", 6, bot="random", seed=4)

    assert audit_game(facts if mode == "digital" else redecide(facts, tabletop=True)) == []


def a_third_plant(facts: list[ev.Event]) -> tuple[int, ev.BeanPlanted]:
    """The first fact after which the active player has planted two cards and could plant the
    front card into an empty field, and that third plant."""
    state = fold(facts[:1])
    for at in range(1, len(facts)):
        state = fold([facts[at]], state)
        player = state.players[state.active]
        empty = [i for i, field in enumerate(player.fields) if field.count == 0]
        if state.phase is Phase.PLANT and state.planted == 2 and player.hand and empty:
            return at, ev.BeanPlanted(state.active, player.hand[0], empty[0], "hand")
    raise LookupError("no turn with two cards planted and an empty field")


def test_a_third_card_planted_in_phase_1_keeps_every_invariant_but_fails_re_decision():
    facts = simulate("rio-grande", 4, bot="greedy", seed=2)
    at, third = a_third_plant(facts)
    tampered = [*facts[: at + 1], third]

    problems = audit_game(tampered)

    assert audit(tampered) == []
    assert [problem.position for problem in problems] == [at + 2]
    assert "RULES §5.1.3 (phase 1: at most two cards)" in problems[0].message


def test_a_broken_invariant_is_found_at_its_step():
    facts = simulate("rio-grande", 4, bot="greedy", seed=2)
    at = next(i for i, fact in enumerate(facts) if isinstance(fact, ev.FieldHarvested))
    tampered = list(facts)
    tampered[at] = dataclasses.replace(facts[at], coins=facts[at].coins + 1)

    problems = audit_game(tampered)

    assert problems[0].position == at + 1
    assert "pay" in problems[0].message


def test_the_witness_check_finds_a_game_whose_table_names_contradict_each_other() -> None:
    """A card planted as another bean than the one the facts give it (facts edited by hand, past
    the import's checks): no assignment of beans re-decides to those facts."""
    hidden = redecide(simulate("rio-grande", 3, seed=4), tabletop=True, unknown_hands=True)
    plant = next(
        i
        for i, fact in enumerate(hidden)
        if isinstance(fact, ev.BeanPlanted) and fact.source == "hand"
    )
    planted = hidden[plant]
    assert isinstance(planted, ev.BeanPlanted)
    other = next(bean for bean in ("blue", "garden") if bean != planted.bean)
    broken = [*hidden[:plant], dataclasses.replace(planted, bean=other), *hidden[plant + 1 :]]

    assert _witness_problem(hidden) is None
    assert _witness_problem(broken) is not None
