"""Names people give themselves: seats, and the guests who write notes. Names are shown and
compared as text, so they hold letters, marks, digits, punctuation, symbols and spaces, and the
joiners emoji need; no control or other invisible formatting character."""

from __future__ import annotations

import unicodedata

MAX_NAME = 40

JOINERS = frozenset({"\u200c", "\u200d"} | {chr(tag) for tag in range(0xE0020, 0xE0080)})
"""The invisible characters a name may hold: the zero-width (non-)joiners that emoji sequences
(👨‍👩‍👧) and some scripts need, and the tags of subdivision flags (🏴󠁧󠁢󠁳󠁣󠁴󠁿)."""

UNPRINTABLE = frozenset({"Cc", "Cf", "Cs", "Co", "Zl", "Zp"})
"""Controls, invisible formatting (such as the marks that reverse the order text is shown in),
lone surrogates, private use, and line and paragraph separators."""

NOT_PRINTABLE = "Use printable characters only."


def printable(text: str) -> bool:
    """Whether `text` holds only characters a name may hold."""
    return all(
        unicodedata.category(character) not in UNPRINTABLE or character in JOINERS
        for character in text
    )


def name_problem(name: str) -> str | None:
    """Why `name`, its surrounding spaces trimmed, cannot be a name; None if it can."""
    trimmed = name.strip()
    if not trimmed:
        return "A name needs at least one character."
    if len(trimmed) > MAX_NAME:
        return f"A name has at most {MAX_NAME} characters."
    if not printable(trimmed):
        return NOT_PRINTABLE
    return None
