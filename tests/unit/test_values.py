"""The fast constructors of the immutable state behave exactly like the dataclasses' own."""

from __future__ import annotations

import dataclasses
import itertools
from datetime import UTC, datetime

import pytest

from domain.application import RecordedFact
from domain.bots import simulate
from domain.rules import events as ev
from domain.rules.commands import COMMAND_TYPES, Command, Correct, Harvest
from domain.rules.evolve import fold
from domain.rules.legal import Legal, OfferRange
from domain.rules.state import GameState, Offer, Player


@pytest.fixture(scope="module")
def state() -> GameState:
    return fold(simulate("rio-grande", 4, seed=3)[:300])


def values(obj) -> list:
    return [getattr(obj, field.name) for field in dataclasses.fields(obj)]


SAMPLES = {
    Offer: Offer(1, 0, 1, (0,), (), (), ("blue",), ()),
    OfferRange: OfferRange(0, (1, 2), (0, 1), (), (), ("blue",)),
    Legal: Legal((Harvest(0, 1),), OfferRange(0, (1,), (0,), (), (), ("blue",))),
    RecordedFact: RecordedFact(3, datetime(2026, 12, 6, tzinfo=UTC), ev.CardDrawn(0, "blue")),
}


def test_build_makes_the_same_value_as_the_dataclass_constructor(state):
    built = GameState.build(*values(state))

    assert type(built) is GameState
    assert built == GameState(*values(state))
    assert repr(built) == repr(state)


@pytest.mark.parametrize("cls", list(SAMPLES))
def test_build_makes_the_same_value_as_the_constructor_of_the_other_fast_classes(cls):
    built = cls.build(*values(SAMPLES[cls]))

    assert type(built) is cls
    assert built == SAMPLES[cls]


def test_replace_changes_only_the_named_fields(state):
    changed = state.replace(turn=99, planted=1)

    assert type(changed) is GameState
    assert changed == dataclasses.replace(state, turn=99, planted=1)


@pytest.mark.parametrize("cls", [GameState, Player, *SAMPLES])
def test_what_build_makes_is_still_frozen(state, cls):
    sample = {GameState: state, Player: state.players[0]}.get(cls) or SAMPLES[cls]
    built = cls.build(*values(sample))

    with pytest.raises(dataclasses.FrozenInstanceError):
        built.__setattr__(dataclasses.fields(cls)[0].name, None)


def test_a_fold_with_no_events_returns_an_equal_state(state):
    assert fold((), state) == state


@pytest.fixture(scope="module")
def every_kind_of_event() -> list:
    facts = [
        *simulate("rio-grande", 4, seed=3),
        *simulate("rio-grande", 2, seed=3),
        *simulate("amigo", 3, seed=3),
    ]
    return list({type(fact): fact for fact in facts}.values())


def test_an_events_payload_is_what_asdict_makes(every_kind_of_event):
    assert len(every_kind_of_event) > 10
    for fact in every_kind_of_event:
        assert fact.payload() == dataclasses.asdict(fact), fact.kind


def test_changing_a_payload_leaves_the_event_as_it_was(every_kind_of_event):
    for fact in every_kind_of_event:
        before = dataclasses.asdict(fact)
        payload = fact.payload()
        for value in payload.values():
            if isinstance(value, list):
                value.append("changed")
                for item in value:
                    if isinstance(item, list):
                        item.append("changed")
            elif isinstance(value, dict):
                value["changed"] = True
        assert dataclasses.asdict(fact) == before, fact.kind


SAMPLE_VALUES = {
    "bool": True,
    "int": 2,
    "int | None": None,
    "str": "blue",
    "str | None": "red",
    "list[int]": [0, 2],
    "list[str]": ["blue", "red"],
    "list[str] | None": ["wax"],
    "list[list[str]]": [["blue"], ["red", "wax"]],
    "dict[str, Any]": {"preset": "amigo", "counts": {"blue": 20}},
    "dict[str, Any] | None": {"phase": "plant", "hands": [["blue"]]},
    "list[dict[str, Any]]": [{"entry": 1, "command": {"type": "plant"}}],
    "list[dict[str, Any] | None]": [None, {"type": "plant", "seat": [1]}],
    "Any": {"table": [["blue"]]},
}


@pytest.mark.parametrize("cls", list(ev.event_classes()), ids=lambda cls: cls.__name__)
def test_each_event_types_own_payload_is_the_generic_one_field_by_field(cls):
    """Each event type's payload is written out from its fields (events._compiled_payload): it
    must give what the generic loop over the fields gives, in the same order, sharing no list
    or dict with the event."""
    fact = cls(*(SAMPLE_VALUES[field.type] for field in dataclasses.fields(cls)))

    payload = fact.payload()

    assert type(fact).payload is not ev.Event.payload
    assert list(payload.items()) == list(ev.Event.payload(fact).items())
    shared = [
        name
        for name, value in payload.items()
        if isinstance(value, list | dict) and value is getattr(fact, name)
    ]
    assert shared == []


COMMAND_SAMPLE_VALUES = {
    "int": [3],
    "str": ["blue"],
    "str | None": [None, "red"],
    "tuple[int, ...]": [(0, 2)],
    "tuple[str, ...]": [("blue", "wax"), ()],
    "tuple[str, ...] | None": [None, ("wax",)],
    "tuple[tuple[str, ...], ...]": [(("blue",), ("red", "wax"))],
}


def sample_commands(cls: type) -> list:
    """`cls` with every combination of the sample values of its fields' types."""
    choices = [COMMAND_SAMPLE_VALUES[field.type] for field in dataclasses.fields(cls)]
    return [cls(*values) for values in itertools.product(*choices)]


@pytest.mark.parametrize(
    "cls",
    [cls for cls in COMMAND_TYPES.values() if cls is not Correct],
    ids=lambda cls: cls.__name__,
)
def test_each_command_types_own_json_form_is_the_generic_one_field_by_field(cls):
    """Each command type's `to_dict` is written out from its fields (commands._compiled_to_dict):
    it must give what the generic `Command.to_dict` gives, keys in the same order, fields left
    out when None left out the same way."""
    for command in sample_commands(cls):
        assert type(command).to_dict is not Command.to_dict
        assert list(command.to_dict().items()) == list(Command.to_dict(command).items())
