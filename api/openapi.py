"""What the OpenAPI document says beyond each endpoint's own decorators: an `operationId` for every
operation (the name generated clients give its method), the links that lead from a response
naming a new game to the operations on that game, and what the schemas check in code but
JSON Schema can say too: each command type's fields, each ruleset option's values, and the
characters names and other text may hold (as patterns). docs/reference/http-api.md lists what it cannot say."""

from __future__ import annotations

import dataclasses
import itertools
import unicodedata
from dataclasses import dataclass
from functools import cache
from typing import Any

from apispec import BasePlugin
from apispec.ext.marshmallow.common import resolve_schema_instance
from apispec.ext.marshmallow.field_converter import FieldConverterMixin
from marshmallow import RAISE, fields

from domain.rules import names
from domain.rules.commands import COMMAND_TYPES
from domain.rules.errors import InvalidRuleset
from domain.rules.rulesets import OPTIONS, Option
from replays import annotations

from . import schemas
from .schemas import AsSent, CommandSchema, NoteCreateSchema


class OperationIds(BasePlugin):
    """Every operation's `operationId` is its view function's name, e.g. `create_game`,
    `give_command`: unique in the API, since every route has one view and every view one
    method (the tests check both)."""

    def operation_helper(
        self, path: str | None = None, operations: dict[str, Any] | None = None, **kwargs: Any
    ) -> None:
        rule = kwargs.get("rule")
        if rule is None or not operations:
            return
        name = rule.endpoint.rsplit(".", 1)[-1]
        for operation in operations.values():
            operation.setdefault("operationId", name)


class ClosedSchemas(BasePlugin):
    """Every schema that refuses unknown keys says `additionalProperties: false`. apispec writes
    it only for a schema whose Meta has no description, so the command body, among others, was
    documented as taking any key, which the server answers with a 422. A schema that needs some
    of its keys, none in particular (`MIN_PROPERTIES`), says `minProperties`."""

    def schema_helper(self, name: str, definition: dict, **kwargs: Any) -> dict | None:
        schema = kwargs.get("schema")
        if schema is None:
            return None
        instance = resolve_schema_instance(schema)
        closed = {"additionalProperties": False} if instance.unknown == RAISE else {}
        least = getattr(instance, "MIN_PROPERTIES", None)
        return {**closed, **({"minProperties": least} if least else {})} or None


class CommandTypes(BasePlugin):
    """The command body says, for each `type`, which of its fields that type takes and needs
    (a `oneOf` by type): the schema loads them all alike, and the rules refuse a field of
    another type or one missing (422 `malformed_command`). `seat` is never needed (it defaults
    to the caller's), and `expected_version` goes with every type."""

    def schema_helper(self, name: str, definition: dict, **kwargs: Any) -> dict | None:
        schema = kwargs.get("schema")
        if schema is None or not isinstance(resolve_schema_instance(schema), CommandSchema):
            return None
        documented = definition["properties"]
        # A correction's own commands (ChangeRequest.command) are any command but a correction.
        kinds = {
            kind: cls
            for kind, cls in COMMAND_TYPES.items()
            if "changes" in documented or kind not in ("correct", "undo")
        }
        return {"oneOf": [_command_type(kind, cls, documented) for kind, cls in kinds.items()]}


class NoteForOneSeat(BasePlugin):
    """A new note names a `seat` when, and only when, its visibility is `seat`."""

    def schema_helper(self, name: str, definition: dict, **kwargs: Any) -> dict | None:
        schema = kwargs.get("schema")
        if schema is None or not isinstance(resolve_schema_instance(schema), NoteCreateSchema):
            return None
        others = [v for v in definition["properties"]["visibility"]["enum"] if v != "seat"]
        return {
            "oneOf": [
                {
                    "properties": {"visibility": {"enum": ["seat"]}, "seat": {"type": "integer"}},
                    "required": ["visibility", "seat"],
                },
                {
                    "properties": {
                        "visibility": {"enum": others},
                        "seat": {"nullable": True, "enum": [None]},
                    }
                },
            ]
        }


def _command_type(kind: str, cls: type, documented: dict[str, Any]) -> dict[str, Any]:
    """The fields of one command type; one that may be null elsewhere but not in this type
    (a `bean` to discard, say) is typed here without `nullable`."""
    taken = dataclasses.fields(cls)
    return {
        "properties": {
            "type": {"enum": [kind]},
            **{
                field.name: (
                    {"type": documented[field.name]["type"]}
                    if documented[field.name].get("nullable") and field.default is not None
                    else {}
                )
                for field in taken
            },
            "expected_version": {},
        },
        "required": [
            "type",
            *(f.name for f in taken if f.default is dataclasses.MISSING and f.name != "seat"),
        ],
        "additionalProperties": False,
    }


GAME_OPERATIONS = {
    "summary": ("game_summary", "The game's public summary"),
    "view": ("game_view", "The caller's view of the game"),
    "legal": ("legal_commands", "The caller's legal commands"),
    "commands": ("give_command", "Give a command in the game"),
    "events": ("event_feed", "The caller's event feed"),
    "live": ("follow_game", "Follow the game as it is played"),
    "scoreboard": ("scoreboard", "The game's scoreboard"),
    "stats": ("game_stats", "The game's numbers per seat: offers, trades, harvests"),
    "steps": ("steps", "Step through the game"),
    "entries": ("list_entries", "The entries of a tabletop game, as corrections name them"),
    "step": ("step_detail", "One step of the game"),
    "jump": ("jump", "Jump to a turn or an event in the game"),
    "timeline": ("timeline", "The game's timeline"),
    "annotations": ("list_notes", "Notes on the game's steps"),
    "annotate": ("add_note", "Add a note on a step"),
    "edit_note": ("edit_note", "Edit a note"),
    "delete_note": ("delete_note", "Delete a note"),
    "fork": ("create_fork", "Fork the game at a step"),
    "forks": ("lineage", "The game's forks and the game it was forked from"),
    "comparison": ("comparison", "A fork beside its parent"),
    "record": ("export_record", "The game's portable record"),
    "bgstats": ("bgstats_play", "The finished game as a BG Stats play"),
    "bgg": ("bgg_play", "The finished game as a BoardGameGeek play (XML)"),
    "verification": ("verify_game", "Verify the game under a ruleset"),
    "audit": ("audit", "The game's audit"),
}
"""Operations on one game, by link name: (operationId, description)."""


def game_links(status: int) -> dict[str, Any]:
    """`@blp.doc(**game_links(201))`: the `status` response's `game_id` is the game of each of
    `GAME_OPERATIONS` (OpenAPI links, for clients and tools that follow them)."""
    links = {
        name: {
            "operationId": operation,
            "parameters": {"game_id": "$response.body#/game_id"},
            "description": description,
        }
        for name, (operation, description) in GAME_OPERATIONS.items()
    }
    return {"responses": {status: {"links": links}}}


SECURITY_SCHEMES = {
    "bearer": {
        "type": "http",
        "scheme": "bearer",
        "description": "A seat's or the host's token, as create_game (or create_fork, "
        "import_record) answered it",
    },
    "auditor": {
        "type": "apiKey",
        "in": "header",
        "name": "X-Auditor-Token",
        "description": "The server's auditor secret (its setting BOHNANZA_AUDITOR_TOKEN): "
        "opens what shows every card (records, audits, forks, perspective=auditor) before a "
        "game is over",
    },
}


def refine_field_documents(converter: FieldConverterMixin) -> None:
    """Corrections and additions to how apispec documents fields, for the OpenAPI 3.0 document."""
    converter.add_attribute_function(as_sent_schema)
    converter.add_attribute_function(null_only_beside_a_schema)
    converter.add_attribute_function(printable_pattern)
    converter.add_attribute_function(ruleset_options)


def ruleset_options(self: FieldConverterMixin, field: fields.Field, **kwargs: Any) -> dict:
    """Ruleset options are documented one by one, with their values; no other option exists."""
    if not isinstance(field, schemas.RulesetOptions):
        return {}
    return {
        "properties": {name: _option_values(option) for name, option in OPTIONS.items()},
        "additionalProperties": False,
    }


def _option_values(option: Option) -> dict[str, Any]:
    if option.is_list:  # the lists the option takes (few: each choice at most once, in order)
        orders = (
            list(order)
            for size in range(1, len(option.choices) + 1)
            for order in itertools.permutations(option.choices, size)
        )
        return {"type": "array", "enum": [order for order in orders if _takes(option, order)]}
    return {"enum": list(option.choices)}


def _takes(option: Option, value: Any) -> bool:
    try:
        option.validate(value)
    except InvalidRuleset:
        return False
    return True


def printable_pattern(self: FieldConverterMixin, field: fields.Field, **kwargs: Any) -> dict:
    """A field of names or of text people read says which characters it takes, as a `pattern`."""
    if schemas.NOTE_TEXT in field.validators:
        return {"pattern": text_patterns().note}
    if schemas.name in field.validators:
        return {"pattern": text_patterns().name}
    if schemas.printable in field.validators:
        return {"pattern": text_patterns().text}
    return {}


@dataclass(frozen=True, slots=True)
class TextPatterns:
    """JSON Schema patterns (ECMA-262 regular expressions, which Python reads alike) of the
    characters domain/rules/names.py lets names and other text hold.

    A pattern names characters of the Basic Multilingual Plane only: without its `u` flag, which
    JSON Schema does not promise, ECMA-262 reads a character beyond U+FFFF as two halves of a
    surrogate pair. Nor does it name the code points Unicode has not assigned (as this server's
    Python knows them: hundreds of ranges, changing with each version). docs/reference/http-api.md lists both."""

    name: str
    """Printable characters, joiners (of emoji sequences) neither first nor last, and at least
    one character that shows."""
    text: str
    """The same, or spaces alone (a place or a tag of spaces is no name, but is text)."""
    printable: str
    """Printable characters, joiners neither first nor last (a record's place and tags)."""
    note: str
    """A note's text: no control character but line breaks and tabs, no bidirectional control,
    and at least one character that shows (replays/annotations.py)."""


@cache
def text_patterns() -> TextPatterns:
    """The patterns, built from names.py's rules over the Basic Multilingual Plane."""
    refused, shows_nothing, spaces, not_in_notes, blank_in_notes = [], [], [], [], []
    for point in range(0x10000):
        character = chr(point)
        if unicodedata.category(character) in ("Cn", "Cs"):
            continue  # not named: see TextPatterns (JSON text holds no lone surrogate)
        unfit = annotations.unfit_character(character)
        if unfit:
            not_in_notes.append(point)
        if unfit or not names.visible(character):
            blank_in_notes.append(point)
        if not names.printable_character(character):
            refused.append(point)
            shows_nothing.append(point)
        elif not names.visible(character):
            shows_nothing.append(point)
            if character.isspace():
                spaces.append(point)
    joiners = "\\u200c\\u200d"
    inner = f"[^{_class(refused)}]"
    outer = f"[^{_class(refused)}{joiners}]"  # what may stand first or last
    named = f"(?:{outer}{inner}*)?[^{_class(shows_nothing)}](?:{inner}*{outer})?"
    return TextPatterns(
        name=f"^{named}$",
        text=f"^(?:[{_class(spaces)}]*|{named})$",
        printable=f"^(?:{outer}(?:{inner}*{outer})?)?$",
        note=f"^[^{_class(not_in_notes)}]*[^{_class(blank_in_notes)}][^{_class(not_in_notes)}]*$",
    )


def _class(points: list[int]) -> str:
    """The inside of a character class naming these code points (ascending), as ranges."""
    ranges: list[list[int]] = []
    for point in points:
        if ranges and ranges[-1][1] == point - 1:
            ranges[-1][1] = point
        else:
            ranges.append([point, point])
    return "".join(
        f"\\u{first:04x}" if first == last else f"\\u{first:04x}-\\u{last:04x}"
        for first, last in ranges
    )


def as_sent_schema(self: FieldConverterMixin, field: fields.Field, **kwargs: Any) -> dict:
    """An `AsSent` field is documented as the schema component it names."""
    if isinstance(field, AsSent):
        return {"$ref": f"#/components/schemas/{field.documented_as}"}
    return {}


def null_only_beside_a_schema(
    self: FieldConverterMixin, field: fields.Field, ret: dict, **kwargs: Any
) -> dict:
    """OpenAPI 3.0 has no null type, so apispec writes a nested schema that may be null as
    `anyOf: [{type: object, nullable: true}, {$ref: …}]`, whose first branch takes any object at
    all: the nested schema was never enforced. `enum: [null]` leaves that branch null alone."""
    for branch in ret.get("anyOf", ()):
        if branch == {"type": "object", "nullable": True}:
            branch["enum"] = [None]
    return {}
