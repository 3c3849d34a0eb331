"""JSON text read so that it means one thing (domain/json_text.py): the careful reader refuses a
key named twice; the quick one reads only documents that plainly mean one thing and leaves the
rest to the careful one."""

from __future__ import annotations

import json
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from domain import json_text
from domain.json_text import UNCLEAR, DuplicateKey, loads, loads_plain

PLAIN: dict[str, tuple[bytes, Any]] = {
    "a command": (b'{"type": "plant", "field": 2, "bean": "black-eyed"}', None),
    "spaced out": (b' { "type" :\n "plant" , "field" : 0 } ', None),
    "nested": (b'{"a": {"b": [1, {"c": 2}, []]}, "d": {}}', None),
    "not an object": (b"[1, 2.5, true, null]", None),
    "a lone number": (b"7", None),
    "an escaped colon": (b'{"a": "x\\u003ay"}', {"a": "x:y"}),
    "a brace inside a string": (b'{"a": "{", "b": [{}]}', None),
}


@pytest.mark.parametrize("case", list(PLAIN))
def test_a_plain_document_is_read_quickly_as_the_careful_reader_reads_it(case: str) -> None:
    raw, expected = PLAIN[case]

    assert loads_plain(raw) == loads(raw) == (json.loads(raw) if expected is None else expected)


LEFT_TO_THE_CAREFUL_READER: dict[str, bytes] = {
    "a key named twice": b'{"type": "plant", "field": 0, "field": 1}',
    "a key named twice deeper down": b'{"a": [{"b": 1, "b": 1}]}',
    "a colon inside a string": b'{"note": "at 10:30"}',
    "a colon inside a key": b'{"a:b": 1}',
    "NaN": b'{"field": NaN}',
    "an infinity": b'{"field": -Infinity}',
    "a lone surrogate": b'{"bean": "\\ud800"}',
    "a byte that is not UTF-8": b'{"bean": "\xff"}',
    "a byte order mark": b'\xef\xbb\xbf{"a": 1}',
    "no JSON": b"plant",
    "nothing": b"",
}


@pytest.mark.parametrize("case", list(LEFT_TO_THE_CAREFUL_READER))
def test_a_document_that_may_not_be_plain_is_left_to_the_careful_reader(case: str) -> None:
    assert loads_plain(LEFT_TO_THE_CAREFUL_READER[case]) is UNCLEAR


def test_the_careful_reader_refuses_a_key_named_twice_that_the_quick_one_left_to_it() -> None:
    with pytest.raises(DuplicateKey, match="'field' more than once"):
        loads(LEFT_TO_THE_CAREFUL_READER["a key named twice"])


def test_an_integer_past_64_bits_is_read_as_a_float_that_exact_types_defer() -> None:
    big = 2**64 + 1

    read = loads_plain(f'{{"field": {big}}}'.encode())

    assert read is not UNCLEAR
    assert type(read["field"]) is float
    assert loads(str(big)) == big


_KEYS = st.text(max_size=4)
_SCALARS = st.none() | st.booleans() | st.integers(-(2**63), 2**63 - 1) | st.text(max_size=6)
_DOCUMENTS = st.recursive(
    _SCALARS,
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(_KEYS, inner, max_size=4),
    max_leaves=12,
)


_NO_COLON = st.text(
    alphabet=st.characters(codec="utf-8", exclude_characters=":"), max_size=6
)  # text JSON can hold: no colon, and no lone surrogate (which is never plain)
_DOCUMENTS_WITHOUT_COLONS = st.recursive(
    st.none() | st.booleans() | st.integers(-(2**63), 2**63 - 1) | _NO_COLON,
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(_NO_COLON, inner, max_size=4),
    max_leaves=12,
)


@settings(max_examples=300, deadline=None)
@given(_DOCUMENTS_WITHOUT_COLONS, st.booleans())
def test_a_document_with_no_colon_in_its_strings_is_read_quickly(
    document: Any, ascii_only: bool
) -> None:
    raw = json.dumps(document, ensure_ascii=ascii_only).encode()

    assert loads_plain(raw) == document


def _with_a_key_repeated(document: dict[str, Any]) -> bytes:
    """The object's text with its first member written once more in front."""
    key, value = next(iter(document.items()))
    return f"{{{json.dumps(key)}: {json.dumps(value)}, {json.dumps(document)[1:]}".encode()


@settings(max_examples=300, deadline=None)
@given(_DOCUMENTS, st.booleans())
def test_the_quick_reader_reads_what_the_careful_one_reads_or_leaves_it_to_it(
    document: Any, ascii_only: bool
) -> None:
    raw = json.dumps(document, ensure_ascii=ascii_only).encode()

    read = loads_plain(raw)

    assert read is UNCLEAR or read == loads(raw) == document


@settings(max_examples=200, deadline=None)
@given(st.dictionaries(_KEYS, _SCALARS, min_size=1, max_size=4))
def test_the_quick_reader_never_reads_a_document_that_names_a_key_twice(
    document: dict[str, Any],
) -> None:
    raw = _with_a_key_repeated(document)

    assert loads_plain(raw) is UNCLEAR
    with pytest.raises(DuplicateKey):
        json_text.loads(raw)
