"""The service's blueprints: flask-smorest's, with request bodies read so that nothing a client
sends can end as a 500, and the common case read quickly.

Every JSON body is still loaded by its marshmallow schema, the contract the OpenAPI document
publishes. `FastLoader` only spares marshmallow's general machinery (hooks, partial loading,
error collection, unknown-field policies) for a body it would load unchanged: an object with
no unknown key, every required field present, every value already of its field's JSON type and
passing the field's own validators (the same validator objects marshmallow runs). Anything else
(a wrong type, a value a validator refuses, a string where a number goes, an unknown key) falls
back to the full path, which builds the error answer, so the errors are marshmallow's own.
tests/unit/test_fast_loader.py checks, over generated bodies, that the fast path loads exactly
what marshmallow loads or defers to it.
"""

from __future__ import annotations

import json
import math
import re
import typing
from collections.abc import Callable

import flask
import flask_smorest
import marshmallow as ma
from marshmallow import fields, validate
from webargs import core
from webargs.flaskparser import FlaskParser, abort, is_json_request

from domain import json_text

Check = Callable[[typing.Any], typing.Any]
"""A field's fast check: the loaded value, or `_DEFER` for marshmallow to decide."""

_DEFER = object()
_UNKNOWN = object()
"""A schema `BodyParser` has not met yet."""

_JSON_TYPES: dict[type[fields.Field], type] = {
    fields.Integer: int,
    fields.String: str,
    fields.Boolean: bool,
}
"""Fields whose loaded value is the JSON value itself, when it has exactly this Python type
(so not a bool for an Integer, not a float for an Integer, not a number for a String)."""


class FastLoader:
    """What `schema.load(body)` returns, for the bodies it would load unchanged; None for the
    rest. Built only for schemas made of the fields it knows (`FastLoader.of`)."""

    def __init__(self, checks: dict[str, Check], required: frozenset[str], defaults: dict) -> None:
        self.checks = checks
        self.required = required
        self.defaults = defaults

    @classmethod
    def of(cls, schema: ma.Schema) -> FastLoader | None:
        """The schema's fast loader, or None if it has hooks, renamed fields, or a required
        field (or one with a default) of a kind the fast path does not know: those bodies
        always take marshmallow's path. An optional field of such a kind sends the bodies that
        hold it to marshmallow (a correction's nested changes, say) and spares the rest."""
        if schema.many or any(type(schema)._hooks.values()):
            return None
        checks: dict[str, Check] = {}
        defaults: dict[str, typing.Any] = {}
        for name, field in schema.load_fields.items():
            if field.data_key not in (None, name) or field.attribute:
                return None
            check = _check(field)
            if check is None:
                if field.required or field.load_default is not ma.missing:
                    return None
                check = _always_defer
            checks[name] = check
            if field.load_default is not ma.missing:
                defaults[name] = field.load_default
        required = frozenset(name for name, field in schema.load_fields.items() if field.required)
        return cls(checks, required, defaults)

    def __call__(self, body: typing.Any) -> dict[str, typing.Any] | None:
        if type(body) is not dict or not self.required <= body.keys():
            return None
        checks = self.checks
        loaded: dict[str, typing.Any] = {}
        for name, value in body.items():
            check = checks.get(name)
            if check is None:
                return None  # an unknown key: marshmallow applies the schema's policy
            value = check(value)
            if value is _DEFER:
                return None
            loaded[name] = value
        for name, default in self.defaults.items():
            if name not in loaded:
                loaded[name] = default() if callable(default) else default
        return loaded


def _check(field: fields.Field) -> Check | None:
    """The fast check of one field, or None if the fast path does not know the field's kind."""
    if type(field) is fields.List:
        item = _check(field.inner)
        if item is None:
            return None
        return _validated(field, list, lambda values: _items(item, values))
    json_type = _JSON_TYPES.get(type(field))
    if json_type is None:
        return None
    return _validated(field, json_type, None)


def _always_defer(value: typing.Any) -> typing.Any:
    """The check of a field the fast path does not know: marshmallow loads it."""
    return _DEFER


def _items(item: Check, values: list) -> typing.Any:
    loaded = [item(value) for value in values]
    return _DEFER if any(value is _DEFER for value in loaded) else loaded


def _validated(field: fields.Field, json_type: type, load: Check | None) -> Check:
    """A check that takes None if the field allows it (unvalidated, as marshmallow does), a
    value of exactly `json_type` that the field's validators accept, and defers otherwise
    (`load`: what the value loads as, for a list; a scalar loads as itself)."""
    accepts = tuple(_accepts(validator, json_type is not list) for validator in field.validators)
    allow_none = field.allow_none

    def check(value: typing.Any) -> typing.Any:
        if value is None:
            return None if allow_none else _DEFER
        if type(value) is not json_type:
            return _DEFER
        loaded = value if load is None else load(value)
        if loaded is _DEFER:
            return _DEFER
        for accepted in accepts:
            if not accepted(loaded):
                return _DEFER
        return loaded

    return check


def _accepts(
    validator: Callable[[typing.Any], typing.Any], scalar: bool
) -> Callable[[typing.Any], bool]:
    """Whether `validator` accepts a value of its field's exact JSON type. The schemas' two
    common validators are asked without their call: `OneOf` (a string or number, `scalar`, is
    in its choices exactly when a set of them holds it) and `Range` (its own comparisons)."""
    if type(validator) is validate.OneOf and scalar:
        try:
            return frozenset(validator.choices).__contains__
        except TypeError:  # choices that cannot be in a set: the validator decides
            pass
    if type(validator) is validate.Range:
        low, high = validator.min, validator.max
        low_in, high_in = validator.min_inclusive, validator.max_inclusive

        def in_range(value: typing.Any) -> bool:
            if low is not None and (value < low if low_in else value <= low):
                return False
            return high is None or not (value > high if high_in else value >= high)

        return in_range

    def passes(value: typing.Any) -> bool:
        try:
            return validator(value) is not False
        except ma.ValidationError:
            return False

    return passes


LONE_SURROGATE = (
    "Invalid JSON body: a string holds half of a surrogate pair (an escape from \\ud800 to "
    "\\udfff without its other half), which is not Unicode text."
)
NOT_A_NUMBER = (
    "Invalid JSON body: NaN, Infinity and -Infinity are not JSON numbers (RFC 8259 has no "
    "such values)."
)
_SURROGATE = re.compile("[\ud800-\udfff]")


def unreadable(raw: bytes, body: typing.Any) -> str | None:
    """Why a JSON body (its bytes `raw`, read as `body` by the standard library) is not JSON
    after all, or None: a lone surrogate in a string, which no store or answer can encode, or
    NaN or an infinity, which the standard library reads although JSON has no such numbers.
    Only a body whose bytes hold `\\ud`, `NaN` or `Infinity` can hold them, so other bodies
    are not searched."""
    surrogates = b"\\ud" in raw or b"\\uD" in raw
    constants = b"NaN" in raw or b"Infinity" in raw
    if not (surrogates or constants):
        return None
    pending = [body]
    while pending:
        value = pending.pop()
        if isinstance(value, str):
            if surrogates and _SURROGATE.search(value):
                return LONE_SURROGATE
        elif isinstance(value, float):
            if constants and not math.isfinite(value):
                return NOT_A_NUMBER
        elif isinstance(value, dict):
            pending.extend(value.keys())
            pending.extend(value.values())
        elif isinstance(value, list):
            pending.extend(value)
    return None


class BodyParser(FlaskParser):
    """webargs' Flask parser, with three changes for JSON bodies:

    - a JSON body with an object that names a key twice is refused (400 naming the key and
      where), instead of the last one counting (`domain/json_text.py`);
    - a JSON body nested deeper than the standard library's decoder can follow (about a thousand
      levels, well within the size limit), with a number of more than 4300 digits, with a
      string holding a lone surrogate, or with NaN or an infinity (which the standard library
      reads, though JSON has none) is refused like any other unreadable body (400), instead of
      failing with a RecursionError, a ValueError, once stored a UnicodeEncodeError (500), or
      a 422 that names a value the client could not have sent as JSON;
    - a body its schema would load unchanged is loaded by the schema's `FastLoader`."""

    def __init__(self, *args: typing.Any, **kwargs: typing.Any) -> None:
        super().__init__(*args, **kwargs)
        self._fast: dict[ma.Schema, FastLoader | None] = {}

    def _raw_load_json(self, req: flask.Request) -> typing.Any:
        if not is_json_request(req):
            return core.missing
        try:
            body = json_text.loads(_text(req.get_data(cache=True)))
        except json_text.DuplicateKey as error:
            message = f"The request body is not JSON with one meaning: {error}."
            abort(400, messages={"json": {error.path: [message]}}, message=message)
        except RecursionError:
            abort(400, messages={"json": ["Invalid JSON body: nested too deeply to read."]})
        except ValueError as error:
            if isinstance(error, json.JSONDecodeError | UnicodeDecodeError):
                raise  # webargs answers these itself
            # Python reads integers of at most 4300 digits (sys.get_int_max_str_digits)
            abort(400, messages={"json": ["Invalid JSON body: a number too long to read."]})
        problem = None if body is core.missing else unreadable(req.get_data(cache=True), body)
        if problem is not None:
            abort(400, messages={"json": [problem]})
        return body

    def parse(
        self,
        argmap: typing.Any,
        req: flask.Request | None = None,
        *,
        location: str | None = None,
        **kwargs: typing.Any,
    ) -> typing.Any:
        loader = self._fast_loader(argmap) if (location or self.location) == "json" else None
        if loader is not None and kwargs.get("validate") is None:
            try:
                body = self._raw_load_json(req or self.get_default_request())
            except (json.JSONDecodeError, UnicodeDecodeError):
                body = core.missing  # the full path answers it
            loaded = None if body is core.missing else loader(body)
            if loaded is not None:
                return loaded
        return super().parse(argmap, req, location=location, **kwargs)

    def _fast_loader(self, argmap: typing.Any) -> FastLoader | None:
        if not isinstance(argmap, ma.Schema):
            return None
        loader = self._fast.get(argmap, _UNKNOWN)  # schemas are hashed by identity, one a route
        if loader is _UNKNOWN:
            loader = self._fast[argmap] = FastLoader.of(argmap)
        return loader  # type: ignore[return-value]


def _text(raw: bytes) -> str:
    """A body's bytes as text, as webargs reads them: bytes that are not UTF-8 are invalid JSON."""
    try:
        return raw.decode()
    except UnicodeDecodeError as error:
        raise json.JSONDecodeError(
            f"Bytes decoding error : {error.reason}", doc=str(error.object), pos=error.start
        ) from error


class Blueprint(flask_smorest.Blueprint):
    """flask-smorest's Blueprint, its arguments read by `BodyParser`."""

    ARGUMENTS_PARSER = BodyParser()
