"""What the OpenAPI document says beyond each endpoint's own decorators: an `operationId` for every
operation (the name generated clients give its method) and the links that lead from a response
naming a new game to the operations on that game."""

from __future__ import annotations

from typing import Any

from apispec import BasePlugin
from apispec.ext.marshmallow.common import resolve_schema_instance
from apispec.ext.marshmallow.field_converter import FieldConverterMixin
from marshmallow import RAISE, fields

from .schemas import AsSent


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


GAME_OPERATIONS = {
    "summary": ("game_summary", "The game's public summary"),
    "view": ("game_view", "The caller's view of the game"),
    "legal": ("legal_commands", "The caller's legal commands"),
    "commands": ("give_command", "Give a command in the game"),
    "events": ("event_feed", "The caller's event feed"),
    "live": ("follow_game", "Follow the game as it is played"),
    "scoreboard": ("scoreboard", "The game's scoreboard"),
    "steps": ("steps", "Step through the game"),
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
    """Two corrections to how apispec documents fields, for the OpenAPI 3.0 document."""
    converter.add_attribute_function(as_sent_schema)
    converter.add_attribute_function(null_only_beside_a_schema)


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
