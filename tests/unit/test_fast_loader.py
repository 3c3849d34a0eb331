"""The fast path for JSON bodies (api/blueprint.py) loads exactly what marshmallow loads, or
leaves the body to marshmallow."""

from __future__ import annotations

import inspect
import string
from typing import Any

import marshmallow as ma
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from marshmallow import fields, validate

from api import schemas
from api.blueprint import FastLoader
from domain.bots import simulate
from domain.rules.transcript import commands_from_facts
from tests.marks import slow_beyond


def _fast_schemas() -> list[ma.Schema]:
    found = []
    for _, cls in inspect.getmembers(schemas, inspect.isclass):
        if issubclass(cls, ma.Schema) and cls.__module__ == schemas.__name__:
            schema = cls()
            if FastLoader.of(schema) is not None:
                found.append(schema)
    return found


FAST_SCHEMAS = _fast_schemas()


def _fitting(field: fields.Field) -> st.SearchStrategy[Any]:
    """Values of the field's JSON type that its validators are likely to accept."""
    low, high, choices = -5, 300, None
    for validator in field.validators:
        if isinstance(validator, validate.OneOf):
            choices = list(validator.choices)
        if isinstance(validator, validate.Range):
            low = -5 if validator.min is None else validator.min
            high = 300 if validator.max is None else validator.max
    if isinstance(field, fields.List):
        values = st.lists(_fitting(field.inner), max_size=4)
    elif choices:
        values = st.sampled_from(choices)
    elif isinstance(field, fields.Integer):
        values = st.integers(low, high)
    elif isinstance(field, fields.Boolean):
        values = st.booleans()
    else:
        values = st.text(alphabet=string.ascii_letters + " -é", min_size=0, max_size=12)
    return st.one_of(st.none(), values) if field.allow_none else values


def _edges(field: fields.Field) -> st.SearchStrategy[Any]:
    """Values just outside what the field takes, or of a near-miss type."""
    edges: list[Any] = [True, False, 1.0, "1", None, [], {}]
    for validator in field.validators:
        if isinstance(validator, validate.Range):
            edges += [
                bound + step
                for bound in (validator.min, validator.max)
                if bound is not None
                for step in (-1, 0, 1)
            ]
        if isinstance(validator, validate.OneOf):
            edges += [str(choice).upper() for choice in validator.choices][:3]
    if isinstance(field, fields.List):
        return st.one_of(st.sampled_from(edges), st.lists(_edges(field.inner), max_size=3))
    return st.sampled_from(edges)


@st.composite
def _value(draw: st.DrawFn, field: fields.Field) -> Any:
    roll = draw(st.integers(0, 9))
    if roll < 7:
        return draw(_fitting(field))
    return draw(_edges(field) if roll < 9 else JUNK)


JUNK = st.one_of(
    st.none(),
    st.booleans(),
    st.integers(min_value=-(2**65), max_value=2**65),
    st.floats(allow_nan=False),
    st.text(alphabet=string.printable + "\x00é\u2028", max_size=8),
    st.lists(st.one_of(st.none(), st.integers(-3, 300), st.text(max_size=3)), max_size=3),
    st.dictionaries(st.text(max_size=3), st.integers(), max_size=2),
)


@st.composite
def bodies(draw: st.DrawFn, schema: ma.Schema) -> Any:
    """Mostly objects that fit the schema, with a wrong value, a missing required field or an
    unknown key now and then; rarely not an object at all."""
    if draw(st.integers(0, 19)) == 0:
        return draw(JUNK)
    body = {}
    for name, field in sorted(schema.load_fields.items()):
        if draw(st.integers(0, 9)) < (9 if field.required else 4):
            body[name] = draw(_value(field))
    if draw(st.integers(0, 9)) == 0:
        body[draw(st.text(min_size=1, max_size=5))] = draw(JUNK)
    return body


def _marshmallow(schema: ma.Schema, body: Any) -> dict[str, Any] | None:
    try:
        return schema.load(body, unknown=ma.RAISE)
    except ma.ValidationError:
        return None


@pytest.mark.parametrize(
    "schema", slow_beyond(FAST_SCHEMAS, keep=3), ids=lambda schema: type(schema).__name__
)
@settings(max_examples=150, deadline=None)
@given(data=st.data())
def test_the_fast_path_loads_what_marshmallow_loads_or_leaves_the_body_to_it(schema, data):
    body = data.draw(bodies(schema))
    loader = FastLoader.of(schema)

    fast = loader(body)

    if fast is not None:
        assert fast == _marshmallow(schema, body)
        assert type(fast) is dict


def test_every_command_a_game_is_played_with_takes_the_fast_path():
    loader = FastLoader.of(schemas.CommandSchema())
    facts = simulate("rio-grande", 4, bot="greedy", seed=1)

    for command in commands_from_facts(facts, tabletop=True):
        body = command.to_dict()
        assert loader(body) == schemas.CommandSchema().load(body)


@pytest.mark.parametrize(
    ("body", "why"),
    [
        ({"type": "plant", "field": True}, "a bool is not a whole number here"),
        ({"type": "plant", "field": 1.0}, "a float is left to marshmallow"),
        ({"type": "plant", "field": "1"}, "a string is left to marshmallow"),
        ({"type": "plant", "field": 201}, "out of the field's range"),
        ({"type": "plant", "seat": None}, "seat may not be null"),
        ({"type": "sow"}, "not a command type"),
        ({"type": "plant", "colour": "red"}, "an unknown key"),
        ({"field": 0}, "type is required"),
        ({"type": "offer", "wants": ["red", "purple"]}, "an unknown bean in a list"),
        ([{"type": "plant"}], "not an object"),
    ],
)
def test_bodies_marshmallow_must_judge_are_left_to_it(body, why):
    assert FastLoader.of(schemas.CommandSchema())(body) is None, why


def test_a_field_that_allows_null_takes_null_without_its_validators():
    loader = FastLoader.of(schemas.CommandSchema())

    assert loader({"type": "plant", "field": 0, "bean": None}) == {
        "type": "plant",
        "field": 0,
        "bean": None,
    }


def test_missing_fields_get_their_load_defaults():
    class Paging(ma.Schema):
        after = fields.Integer(load_default=0)
        tags = fields.List(fields.String(), load_default=list)

    assert FastLoader.of(Paging())({}) == {"after": 0, "tags": []}


@pytest.mark.parametrize(
    "field",
    [
        fields.Dict(),
        fields.Nested(schemas.ViewerSchema),
        fields.UUID(),
        fields.Float(),
        fields.Integer(data_key="n"),
    ],
    ids=["dict", "nested", "uuid", "float", "renamed"],
)
def test_a_schema_with_a_required_field_the_fast_path_does_not_know_always_takes_marshmallows(
    field,
):
    field.required = True
    schema = ma.Schema.from_dict({"value": field})()

    assert FastLoader.of(schema) is None


@pytest.mark.parametrize(
    "field",
    [fields.Dict(), fields.Nested(schemas.ViewerSchema), fields.UUID(), fields.Float()],
    ids=["dict", "nested", "uuid", "float"],
)
def test_a_body_holding_an_optional_field_the_fast_path_does_not_know_takes_marshmallows(field):
    schema = ma.Schema.from_dict({"value": field, "n": fields.Integer()})()
    loader = FastLoader.of(schema)

    assert loader({"n": 1, "value": None}) is None
    assert loader({"n": 1}) == {"n": 1}


def test_a_field_the_fast_path_does_not_know_with_a_default_always_takes_marshmallows():
    schema = ma.Schema.from_dict({"value": fields.Dict(load_default=dict)})()

    assert FastLoader.of(schema) is None


def test_a_correction_takes_marshmallows_path():
    loader = FastLoader.of(schemas.CommandSchema())

    assert loader({"type": "correct", "changes": [{"entry": 0, "action": "delete"}]}) is None


def test_a_schema_with_hooks_always_takes_marshmallows():
    class Hooked(ma.Schema):
        n = fields.Integer()

        @ma.validates_schema
        def check(self, data: dict, **kwargs: Any) -> None:
            pass

    assert FastLoader.of(Hooked()) is None
