"""The record body in the OpenAPI document: the record format's own JSON Schema
(replays/record.schema.json, draft 2020-12), written in the dialect of OpenAPI 3.0.

OpenAPI 3.0's schemas are an older JSON Schema with changes, so each construct the record schema
uses is written the way 3.0 can say it: `$ref`s into `$defs` inlined, `const` as a one-value
`enum`, a `null` type or branch as `nullable`, `propertyNames` as the names' `properties` with
no others allowed, and `if`/`then` branches (a command's fields by its `type`, the chance section
by the mode) as a `oneOf` of each condition with its consequence.
"""

from __future__ import annotations

from typing import Any

from apispec import BasePlugin
from apispec.ext.marshmallow.common import resolve_schema_instance

from replays.record import inlined
from replays.record import schema as record_schema

from .openapi import text_patterns
from .schemas import RecordDocumentSchema

DROPPED = frozenset({"$schema", "$id", "$defs"})
NULL = {"type": "null"}


class RecordDocument(BasePlugin):
    """Documents `RecordDocumentSchema` (whose fields are only `Dict`s, checked by the record
    format's schema on import) as the record format's schema."""

    def schema_helper(self, name: str, definition: dict, **kwargs: Any) -> dict | None:
        schema = kwargs.get("schema")
        if schema is None or not isinstance(resolve_schema_instance(schema), RecordDocumentSchema):
            return None
        return openapi_record_schema()


def openapi_record_schema() -> dict[str, Any]:
    """The record format's schema in OpenAPI 3.0's dialect, with the characters an import
    takes in names and other text (which the format's own schema leaves to the reader)."""
    published = record_schema()
    converted = _converted(inlined(published, published["$defs"]))
    patterns = text_patterns()
    header = converted["properties"]["header"]["properties"]
    header["seats"]["items"]["pattern"] = patterns.name
    header["place"]["pattern"] = patterns.printable
    header["tags"]["items"]["pattern"] = patterns.printable
    note = converted["properties"]["annotations"]["items"]["properties"]
    note["text"]["pattern"] = patterns.note
    for branch in note["author"]["oneOf"]:  # a guest's name, or {role, name, seat}
        named = branch if branch.get("type") == "string" else branch["properties"]["name"]
        named["pattern"] = patterns.name
    return converted


def _converted(node: Any) -> Any:
    if node is True:
        return {}
    if isinstance(node, list):
        return [_converted(item) for item in node]
    if not isinstance(node, dict):
        return node
    node = {key: value for key, value in node.items() if key not in DROPPED}
    if "const" in node:
        node["enum"] = [node.pop("const")]
    if isinstance(node.get("type"), list):
        kinds = [kind for kind in node["type"] if kind != "null"]
        node["type"], node["nullable"] = kinds[0], True
    for key in ("oneOf", "anyOf"):
        if NULL in node.get(key, ()):
            return _converted(_nullable(node, key))  # the branch left may need converting
    if None in node.get("enum", ()):
        node["nullable"] = True
    if "propertyNames" in node:
        names, value = node.pop("propertyNames")["enum"], node.pop("additionalProperties", True)
        node["properties"] = dict.fromkeys(names, value)
        node["additionalProperties"] = False
    if "allOf" in node and all("if" in branch for branch in node["allOf"]):
        node["oneOf"] = [{"allOf": [branch["if"], branch["then"]]} for branch in node.pop("allOf")]
    return {key: _converted_member(key, value) for key, value in node.items()}


def _converted_member(key: str, value: Any) -> Any:
    if key == "properties":  # a property's schema may be `true`: anything
        return {name: _converted(schema) for name, schema in value.items()}
    if key in ("enum", "required") or not isinstance(value, dict | list):
        return value  # values, not schemas (`uniqueItems: true` stays true)
    return _converted(value)


def _nullable(node: dict[str, Any], key: str) -> dict[str, Any]:
    """`node` whose `key` (oneOf, anyOf) has a null branch: the other branches, nullable."""
    others = [branch for branch in node.pop(key) if branch != NULL]
    if len(others) == 1:
        node = {**others[0], **node}
    else:
        node[key] = others
    node["nullable"] = True
    if "enum" in node and None not in node["enum"]:
        node["enum"] = [*node["enum"], None]  # 3.0.3: an enum names null to allow it
    return node
