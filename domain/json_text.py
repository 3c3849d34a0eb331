"""JSON text read so that it means one thing: an object naming a key twice is refused.

RFC 8259 §4 says an object's names SHOULD be unique and leaves a repeated one's meaning to the
reader: the standard library keeps the last value, other readers the first, or both. A request or
a record read here one way may have meant the other to whoever sent it, so such a document is
refused instead, naming the key and where it repeats.
"""

from __future__ import annotations

import json
import re
from collections.abc import Sequence
from typing import Any

import orjson

_IDENTIFIER = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")


class DuplicateKey(ValueError):
    """The object at `parent` (a JSONPath) names `key` more than once; `path` is the member's."""

    def __init__(self, key: str, parent: str) -> None:
        super().__init__(
            f"the object at {parent} names the key {key!r} more than once (JSON leaves which "
            "one counts to the reader); send each key once"
        )
        self.key = key
        self.path = parent + _step(key)


class _Repeated(Exception):
    """An object named a key twice: the document is read again to say where."""


def _members(pairs: Sequence[tuple[str, Any]]) -> dict[str, Any]:
    members = dict(pairs)
    if len(members) != len(pairs):
        raise _Repeated
    return members


_DECODER = json.JSONDecoder(object_pairs_hook=_members)
"""Made once: `json.loads` with a hook builds a decoder on every call."""


def loads(text: str | bytes) -> Any:
    """`json.loads`, but DuplicateKey for an object naming a key twice (the first such object
    in the document's order). Other errors are json.loads' own."""
    if isinstance(text, bytes | bytearray):
        text = text.decode(json.detect_encoding(text), "surrogatepass")  # as json.loads does
    try:
        return _DECODER.decode(text)
    except _Repeated:
        raise _duplicate_in(text) from None


def loads_plain(raw: bytes) -> Any:
    """The document in `raw` if it plainly means one thing, read quickly; UNCLEAR otherwise, for
    `loads` (and the checks of whoever calls it) to decide.

    orjson reads it: it refuses what JSON has not (NaN, an infinity, a lone surrogate, a byte
    that is not UTF-8, a byte order mark) and keeps a repeated key's last value. So a document
    is plain when orjson reads it and every ":" in its bytes separates one member that orjson
    kept: a key named twice leaves fewer members than separators, and so does a ":" inside a
    string, which sends a document that may be plain to `loads` too. (A document with one "{"
    holds one object, whose members are counted at once; a "{" in a string only sends it the
    longer way to that count.) An integer orjson cannot hold as one (past 64 bits) is read as
    a float: a caller that takes only exact types defers such a value, as it defers every
    float."""
    try:
        document = orjson.loads(raw)
    except orjson.JSONDecodeError:
        return UNCLEAR
    if type(document) is dict and raw.count(b"{") == 1:  # one object and no other: a command
        members = len(document)
    else:
        members = _member_count(document)
    return document if members == raw.count(b":") else UNCLEAR


UNCLEAR = object()
"""What `loads_plain` answers for a document it leaves to `loads`."""


def _member_count(document: Any) -> int:
    """How many object members `document` holds, at every depth."""
    count = 0
    pending = [document]
    while pending:
        value = pending.pop()
        if type(value) is dict:
            count += len(value)
            pending.extend(value.values())
        elif type(value) is list:
            pending.extend(value)
    return count


def _duplicate_in(text: str) -> DuplicateKey:
    """`text` read again, noting every object that names a key twice: the first one's error."""
    repeated: dict[int, str] = {}  # id of an object holding a key twice → that key
    objects: list[dict[str, Any]] = []  # keeps those objects alive, so their ids stay theirs

    def member_pairs(pairs: Sequence[tuple[str, Any]]) -> dict[str, Any]:
        members = dict(pairs)
        if len(members) != len(pairs):
            repeated[id(members)] = _repeated_key(pairs)
            objects.append(members)
        return members

    document = json.loads(text, object_pairs_hook=member_pairs)
    return _first_duplicate(document, repeated)


def _repeated_key(pairs: Sequence[tuple[str, Any]]) -> str:
    seen: set[str] = set()
    for key, _ in pairs:
        if key in seen:
            return key
        seen.add(key)
    raise AssertionError("called for pairs with a repeated key")


def _first_duplicate(document: Any, repeated: dict[int, str]) -> DuplicateKey:
    """The DuplicateKey of the first object of `repeated` met in document order."""
    pending: list[tuple[Any, str]] = [(document, "$")]
    while pending:
        value, path = pending.pop()
        if isinstance(value, dict):
            key = repeated.get(id(value))
            if key is not None:
                return DuplicateKey(key, path)
            members = [(item, path + _step(name)) for name, item in value.items()]
        elif isinstance(value, list):
            members = [(item, f"{path}[{index}]") for index, item in enumerate(value)]
        else:
            continue
        pending.extend(reversed(members))  # so that the first member is looked at first
    raise AssertionError("every object noted is in the document")


def _step(key: str) -> str:
    """The JSONPath step to a member: `.key`, or `["key"]` for a key that is no identifier."""
    if _IDENTIFIER.fullmatch(key):
        return f".{key}"
    return f"[{json.dumps(key, ensure_ascii=False)}]"
