"""Ruleset options (RULES §12.1 house rules, §13 seed contradictions, §15): each is validated,
stored in the resolved ruleset, and changes exactly the rule it names."""

from __future__ import annotations

import dataclasses
import json

import pytest

from domain.rules import InvalidRuleset, RuleViolation, resolve_ruleset
from domain.rules import events as ev
from domain.rules.commands import Accept, Draw, EndTrading, Harvest, Offer, Plant, Reveal
from domain.rules.decide import start_game
from domain.rules.rulesets import OPTIONS, PRESETS, Ruleset, preset_differences
from domain.rules.state import Field, GameState, Phase
from domain.rules.table import harvestable_fields, protection_blocker
from tests.builders import kinds, run, table
from tests.games import CONFIGS, OPTION_VALUES


def rejection(state: GameState, *commands) -> str:
    with pytest.raises(RuleViolation) as rejected:
        run(state, *commands)
    return str(rejected.value)


# --- validation ------------------------------------------------------------------------------------


def test_an_unknown_option_is_refused_with_the_list_of_valid_ones():
    with pytest.raises(InvalidRuleset) as refused:
        resolve_ruleset("rio-grande", 4, {"turbo": True})

    assert "unknown option 'turbo'" in str(refused.value)
    for name in OPTIONS:
        assert name in str(refused.value)


@pytest.mark.parametrize(
    ("name", "value", "valid"),
    [
        ("allow_retrade", "maybe", "false, true"),
        ("bean_protection", "strict", "amigo, rg-literal, none"),
        ("end_trigger", 3, "last-card, failed-draw"),
        ("tie_break", ["coin-flip"], "most-hand-cards, seat-distance, shared"),
        ("reshuffle", "later", "immediate, on-next-draw"),
    ],
)
def test_a_bad_option_value_is_refused_with_the_valid_values(name, value, valid):
    with pytest.raises(InvalidRuleset) as refused:
        resolve_ruleset("rio-grande", 4, {name: value})

    assert valid in str(refused.value)


@pytest.mark.parametrize(
    ("preset", "players", "options", "reason"),
    [
        ("amigo", 2, {}, "ruleset amigo is for 3–5 players, not 2"),
        ("amigo-1997", 6, {}, "ruleset amigo-1997 is for 3–5 players, not 6"),
        ("rio-grande", 8, {}, "ruleset rio-grande is for 2–7 players, not 8"),
        ("rio-grande", 4, {"duel_start_fields": 3}, "applies only to the 2-player bean duel"),
        ("rio-grande", 2, {"allow_retrade": True}, "the bean duel has none"),
        (
            "rio-grande",
            4,
            {"tie_break": ["shared", "most-hand-cards"]},
            "'shared' can only come last",
        ),
        (
            "rio-grande",
            4,
            {"tie_break": ["seat-distance", "seat-distance"]},
            "lists a criterion twice",
        ),
        ("catan", 4, {}, "unknown ruleset 'catan'; valid presets: rio-grande, amigo, amigo-1997"),
    ],
)
def test_a_combination_that_makes_no_sense_is_refused(preset, players, options, reason):
    with pytest.raises(InvalidRuleset) as refused:
        resolve_ruleset(preset, players, options)

    assert reason in str(refused.value)


@pytest.mark.parametrize(
    ("name", "value"),
    [
        ("allow_retrade", "true"),
        ("allow_retrade", 1),
        ("bean_protection", "Amigo"),
        ("tie_break", "seat-distance,most-hand-cards"),
        ("tie_break", "shared"),
    ],
)
def test_an_option_value_is_taken_only_with_its_own_type_and_spelling(name, value):
    with pytest.raises(InvalidRuleset) as refused:
        resolve_ruleset("rio-grande", 4, {name: value})

    assert f"option {name}" in str(refused.value)


@pytest.mark.parametrize(
    ("name", "text", "value"),
    [
        ("allow_retrade", "true", True),
        ("allow_retrade", "False", False),
        ("bean_protection", "Amigo", "amigo"),
        ("tie_break", "seat-distance,most-hand-cards", ("seat-distance", "most-hand-cards")),
        ("tie_break", '["seat-distance", "shared"]', ("seat-distance", "shared")),
    ],
)
def test_a_command_line_names_an_option_value_in_its_text_forms(name, text, value):
    assert OPTIONS[name].from_text(text) == value


def test_a_command_line_value_that_names_no_choice_is_refused_with_the_valid_ones():
    with pytest.raises(InvalidRuleset) as refused:
        OPTIONS["bean_protection"].from_text("strict")

    assert "amigo, rg-literal, none" in str(refused.value)


def test_a_game_stores_its_fully_resolved_ruleset_with_the_options_in_its_first_event():
    ruleset = resolve_ruleset("rio-grande", 5, {"implicit_harvest": True})

    started = start_game(ruleset, ["A", "B", "C", "D", "E"], seed=1)[0]

    assert isinstance(started, ev.GameStarted)
    assert started.ruleset["implicit_harvest"] is True
    assert started.ruleset["options"] == {"implicit_harvest": True}
    assert started.ruleset["beans"] == list(ruleset.beans)
    assert started.ruleset["deal"] == [5, 5, 5, 5, 5]


@pytest.mark.parametrize("preset", list(PRESETS))
def test_every_preset_resolves_for_each_of_its_player_counts(preset):
    for players in PRESETS[preset].player_counts:
        assert resolve_ruleset(preset, players).players == players


def _stored(ruleset: Ruleset) -> Ruleset:
    """`ruleset` as a game's first event and a record carry it: JSON, read back."""
    return Ruleset.from_dict(json.loads(json.dumps(ruleset.to_dict())))


def _applicable_options() -> list[tuple[str, int, dict]]:
    """Every preset and player count, with no options and with each option value that applies."""
    return [
        (preset, players, options)
        for preset, players in CONFIGS
        for options in [{}, *({name: value} for name, value in OPTION_VALUES)]
        if all(players == 2 or not OPTIONS[name].duel_only for name in options)
        and not (players == 2 and "allow_retrade" in options)
    ]


@pytest.mark.parametrize(("preset", "players", "options"), _applicable_options())
def test_a_stored_ruleset_of_every_preset_and_option_is_exactly_its_preset_s(
    preset, players, options
):
    assert preset_differences(_stored(resolve_ruleset(preset, players, options))) == []


@pytest.mark.parametrize(
    ("changes", "differing"),
    [
        pytest.param(
            lambda r: {"meters": dict.fromkeys(r.beans, (1, 2, 3, 4))}, ["meters"], id="meters"
        ),
        pytest.param(lambda r: {"deal": (6, 6, 6, 6)}, ["deal"], id="deal"),
        pytest.param(lambda r: {"third_field_cost": 1}, ["third_field_cost"], id="third-field"),
        pytest.param(lambda r: {"counts": {**r.counts, "red": 9}}, ["counts"], id="counts"),
        pytest.param(
            lambda r: {"options": {"reshuffle": "on-next-draw"}},
            ["reshuffle"],
            id="an-option-without-its-effect",
        ),
        pytest.param(
            lambda r: {"third_field_cost": 2, "draw": 4},
            ["third_field_cost", "draw"],
            id="several",
        ),
    ],
)
def test_a_ruleset_changed_beyond_its_options_differs_from_its_preset_in_those_fields(
    changes, differing
):
    ruleset = resolve_ruleset("rio-grande", 4)

    assert preset_differences(dataclasses.replace(ruleset, **changes(ruleset))) == differing


@pytest.mark.parametrize(
    ("preset", "players", "reason"),
    [
        pytest.param("amigo", 2, "ruleset amigo is for 3–5 players, not 2", id="amigo-duel"),
        pytest.param("house", 4, "unknown ruleset 'house'", id="no-such-preset"),
    ],
)
def test_a_ruleset_under_a_preset_that_does_not_give_it_has_nothing_to_differ_from(
    preset, players, reason
):
    ruleset = dataclasses.replace(resolve_ruleset("rio-grande", players), preset=preset)

    with pytest.raises(InvalidRuleset, match=reason):
        preset_differences(ruleset)


# --- H1: trading-area re-trading ---------------------------------------------------------------


def trading(**layout) -> GameState:
    return table(4, phase="trade", revealed="soy", hands={0: "blue", 1: "chili red"}, **layout)


def test_cards_received_in_a_trade_cannot_be_traded_on_by_default():
    state = trading(trade_areas={1: "wax"})

    message = rejection(state, Offer(1, 0, trade_area=("wax",)))

    assert "RULES §6.4" in message


def test_with_retrading_a_received_card_may_be_traded_on_or_handed_back():
    state = table(
        4,
        options={"allow_retrade": True},
        phase="trade",
        revealed="soy",
        hands={0: "blue", 1: "chili"},
    )

    state, events = run(
        state,
        Offer(0, 1, revealed=("soy",), wants=("chili",)),
        Accept(1, 1, hand=(0,)),
        Offer(1, 0, trade_area=("soy",)),
        Accept(0, 2),
    )

    assert events[-1].proposer_trade_area == ["soy"]
    assert state.players[0].trade_area == ("chili", "soy")
    assert state.players[1].trade_area == ()


# --- H2: implicit harvest on a different bean ----------------------------------------------------


def test_planting_a_different_bean_on_a_field_is_refused_by_default():
    state = table(hands={0: "blue"}, fields={0: ["3 chili", "2 soy"]})

    assert "RULES §7.1" in rejection(state, Plant(0, 0))


def test_with_implicit_harvest_planting_a_different_bean_harvests_the_field_first():
    state = table(
        options={"implicit_harvest": True}, hands={0: "blue"}, fields={0: ["3 chili", "2 soy"]}
    )

    state, events = run(state, Plant(0, 0))

    assert events == [
        ev.FieldHarvested(0, 0, "chili", 3, 1, final=False),
        ev.BeanPlanted(0, "blue", 0, "hand"),
    ]
    assert state.players[0].fields[0] == Field("blue", 1)


def test_the_implicit_harvest_still_respects_bean_protection():
    state = table(
        options={"implicit_harvest": True}, hands={0: "blue"}, fields={0: ["chili", "2 soy"]}
    )

    message = rejection(state, Plant(0, 0))

    assert "RULES §8.3" in message
    assert "cannot plant Blue over field 1 (1 Chili) while field 2 holds 2 Soy" in message


# --- H3: the game ends on a failed draw --------------------------------------------------------


def test_by_default_the_last_card_of_the_final_pass_ends_the_game():
    state = table(phase="draw", draw_pile="red", final_pass=True)

    state, events = run(state, Draw(0))

    assert kinds(events)[:2] == ["CardDrawn", "DeckExhausted"]
    assert events[1].final is True
    assert state.is_over


def test_with_failed_draw_the_game_goes_on_until_a_card_is_needed_and_none_is_left():
    state = table(
        options={"end_trigger": "failed-draw"},
        phase="draw",
        draw_pile="red red red",
        final_pass=True,
        hands={1: "blue"},
        fields={1: ["", ""]},
    )

    state, events = run(state, Draw(0))

    assert kinds(events) == ["CardDrawn", "CardDrawn", "CardDrawn", "DeckExhausted", "TurnEnded"]
    assert events[3].final is False
    assert not state.is_over
    state, events = run(state, Plant(1, 0), Reveal(1))
    assert kinds(events)[-1] == "GameEnded"
    assert "CardsRevealed" not in kinds(events)


# --- §8.3 wordings -------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("wording", "fields", "allowed"),
    [
        ("amigo", ["chili", ""], True),
        ("rg-literal", ["chili", ""], False),
        ("amigo", ["chili", "chili"], True),
        ("rg-literal", ["chili", "chili"], True),
        ("none", ["chili", "4 blue"], True),
        ("amigo", ["chili", "4 blue"], False),
    ],
    ids=lambda value: str(value),
)
def test_the_bean_protection_wording_decides_which_single_cards_may_be_harvested(
    wording, fields, allowed
):
    state = table(options={"bean_protection": wording}, fields={0: fields})

    if allowed:
        assert kinds(run(state, Harvest(0, 0))[1]) == ["FieldHarvested"]
    else:
        assert "RULES §8.3" in rejection(state, Harvest(0, 0))


FIELD_CONTENTS = ["", "chili", "2 blue", "3 wax"]


@pytest.mark.parametrize("wording", ["amigo", "rg-literal", "none"])
@pytest.mark.parametrize("first", FIELD_CONTENTS)
@pytest.mark.parametrize("second", FIELD_CONTENTS)
def test_the_fields_shown_as_harvestable_are_those_the_rules_let_a_seat_harvest(
    wording, first, second
):
    state = table(options={"bean_protection": wording}, fields={0: [first, second]})

    harvestable = harvestable_fields(state, 0)

    fields = state.players[0].fields
    for index, field in enumerate(fields):
        other = fields[1 - index].count
        allowed = field.count >= 2 or (
            field.count == 1
            and {"amigo": other < 2, "rg-literal": other == 1, "none": True}[wording]
        )
        assert (index in harvestable) is allowed, (index, field)
        assert (protection_blocker(state, 0, index) is None) is (allowed or not field.count)
        if allowed:
            assert kinds(run(state, Harvest(0, index))[1]) == ["FieldHarvested"]
        elif field.count:
            assert "RULES §8.3" in rejection(state, Harvest(0, index)), (index, field)


# --- tie-break order ----------------------------------------------------------------------------


def ending(options: dict) -> GameState:
    """Four players tied on coins; Ben holds the most cards; Dee sits furthest from the start."""
    return table(
        options=options,
        phase="draw",
        draw_pile="red",
        final_pass=True,
        hands={0: "", 1: "blue blue blue", 2: "soy", 3: "wax"},
        coins={0: 2, 1: 2, 2: 2, 3: 2},
    )


@pytest.mark.parametrize(
    ("tie_break", "winners", "decided_by"),
    [
        (None, [1], "most-hand-cards"),
        (["seat-distance"], [3], "seat-distance"),
        (["shared"], [0, 1, 2, 3], "shared"),
        (["most-hand-cards", "seat-distance"], [1], "most-hand-cards"),
    ],
    ids=["rio-grande default", "seat distance", "shared", "hand cards then seat"],
)
def test_the_tie_break_order_decides_among_equal_scores(tie_break, winners, decided_by):
    state = ending({} if tie_break is None else {"tie_break": tie_break})

    state, events = run(state, Draw(0))

    assert events[-1].winners == winners
    assert events[-1].decided_by == decided_by


def test_after_equal_hand_sizes_seat_distance_can_still_decide():
    state = table(
        options={"tie_break": ["most-hand-cards", "seat-distance"]},
        phase="draw",
        draw_pile="red",
        final_pass=True,
        hands={0: "", 1: "blue", 2: "soy", 3: ""},
        coins={0: 1, 1: 2, 2: 2, 3: 1},
    )

    _, events = run(state, Draw(0))

    assert events[-1].winners == [2]
    assert events[-1].decided_by == "seat-distance"


# --- reshuffle timing and an empty discard pile --------------------------------------------------


def test_by_default_the_discard_pile_is_reshuffled_the_moment_the_pile_runs_out():
    state = table(phase="draw", draw_pile="red", discard="... soy")

    _, events = run(state, Draw(0))

    assert kinds(events)[:3] == ["CardDrawn", "DeckExhausted", "DiscardsReshuffled"]


def test_with_on_next_draw_the_reshuffle_waits_for_the_next_card_needed():
    state = table(
        options={"reshuffle": "on-next-draw"},
        phase="draw",
        draw_pile="red red red",
        discard="... soy",
        hands={1: "wax"},
        fields={1: ["4 blue", ""]},
    )

    state, events = run(state, Draw(0))
    assert kinds(events) == ["CardDrawn", "CardDrawn", "CardDrawn", "DeckExhausted", "TurnEnded"]
    assert state.draw_pile == ()
    state, events = run(state, Harvest(1, 0), Plant(1, 1), Reveal(1))

    reshuffled = next(e for e in events if isinstance(e, ev.DiscardsReshuffled))
    assert "blue" in reshuffled.order  # the harvest made after the exhaustion is in the new pile


def test_an_empty_discard_pile_at_the_reshuffle_counts_as_the_next_exhaustion_by_default():
    state = table(phase="draw", draw_pile="red", coins={1: "..."}, discard="", exhaustions=1)

    state, events = run(state, Draw(0))

    assert kinds(events)[:4] == [
        "CardDrawn",
        "DeckExhausted",
        "DiscardsReshuffled",
        "DeckExhausted",
    ]
    assert [e.count for e in events if isinstance(e, ev.DeckExhausted)] == [2, 3]
    assert state.is_over


def test_with_end_game_an_empty_discard_pile_at_the_reshuffle_ends_the_game():
    state = table(
        options={"empty_reshuffle": "end-game"},
        phase="draw",
        draw_pile="red",
        coins={1: "..."},
        discard="",
    )

    state, events = run(state, Draw(0))

    assert events[1] == ev.DeckExhausted(1, final=True)
    assert "DiscardsReshuffled" not in kinds(events)
    assert state.is_over


def test_the_trading_phase_ends_normally_under_every_trading_option():
    for options in ({"allow_retrade": True}, {"implicit_harvest": True}):
        state = table(options=options, phase="trade", revealed="soy red")

        state, _ = run(state, EndTrading(0))

        assert state.phase is Phase.PLANT_TRADED


def test_with_failed_draw_a_draw_that_runs_dry_ends_the_game_at_once():
    state = table(
        options={"end_trigger": "failed-draw"}, phase="draw", draw_pile="red", final_pass=True
    )

    state, events = run(state, Draw(0))

    assert kinds(events)[:2] == ["CardDrawn", "DeckExhausted"]
    assert kinds(events)[-1] == "GameEnded"
    assert state.players[0].hand[-1] == "red"
