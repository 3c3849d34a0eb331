"""Names people give themselves: seats, and the guests who write notes. Names are shown and
compared as text, so they hold letters, marks, digits, punctuation, symbols and spaces, and the
joiners emoji need; no control or other invisible formatting character."""

from __future__ import annotations

import unicodedata

MAX_NAME = 40

JOINERS = frozenset({"\u200c", "\u200d"} | {chr(tag) for tag in range(0xE0020, 0xE0080)})
"""The invisible characters a name may hold: the zero-width (non-)joiners that emoji sequences
(👨‍👩‍👧) and some scripts need, and the tags of subdivision flags (🏴󠁧󠁢󠁳󠁣󠁴󠁿)."""

BLANKS = frozenset({"\u115f", "\u1160", "\u3164", "\uffa0", "\u2800", "\u17b4", "\u17b5"})
"""Characters that show nothing (the Hangul fillers, the blank Braille pattern, Khmer's two
inherent vowels, which Unicode says not to use): a name made of them, or ending in them, would
look blank or like another name."""

IGNORED_IN_COMPARISON = JOINERS | frozenset(
    {"\u034f", "\u180b", "\u180c", "\u180d", "\u180f"}
    | {chr(selector) for selector in range(0xFE00, 0xFE10)}
    | {chr(selector) for selector in range(0xE0100, 0xE01F0)}
)
"""Invisible characters that change no name: the joiners, the combining grapheme joiner and the
variation selectors (which pick a glyph's style, as emoji do)."""

UNPRINTABLE = frozenset({"Cc", "Cf", "Cs", "Co", "Cn", "Zl", "Zp"})
"""Controls, invisible formatting (such as the marks that reverse the order text is shown in),
lone surrogates, private use, code points Unicode has not assigned (as this Python knows them:
they show nothing, or anything, later), and line and paragraph separators."""

NOT_PRINTABLE = "Use printable characters only."
INVISIBLE = "A name needs a letter, a digit, a punctuation mark or a symbol."


VISIBLE = ("L", "N", "P", "S")
"""The major categories of characters that show: letters, digits, punctuation, symbols."""


def printable(text: str) -> bool:
    """Whether `text` holds only characters a name may hold, its joiners only between others."""
    if text[:1] in JOINERS or text[-1:] in ("\u200c", "\u200d"):
        return False
    return all(printable_character(character) for character in text)


def printable_character(character: str) -> bool:
    """Whether a name may hold `character` (a joiner only between others: `printable`)."""
    return (
        unicodedata.category(character) not in UNPRINTABLE or character in JOINERS
    ) and character not in BLANKS


def name_problem(name: str) -> str | None:
    """Why `name`, its surrounding spaces trimmed, cannot be a name; None if it can."""
    trimmed = name.strip()
    if not trimmed:
        return "A name needs at least one character."
    if len(trimmed) > MAX_NAME:
        return f"A name has at most {MAX_NAME} characters."
    if not printable(trimmed):
        return NOT_PRINTABLE
    if not visible(trimmed):
        return INVISIBLE
    return None


def visible(text: str) -> bool:
    """Whether `text` holds a character that shows: a letter, digit, punctuation or symbol, but
    not one of the `BLANKS` (which are letters and symbols that show nothing)."""
    return any(
        unicodedata.category(character)[0] in VISIBLE and character not in BLANKS
        for character in text
    )


def name_key(name: str) -> str:
    """What two names are compared by: trimmed, in one Unicode form, without the invisible
    characters that change no name (so "Ana" and "Ana" with a zero-width joiner or a variation
    selector inside are the same name)."""
    composed = unicodedata.normalize("NFC", name.strip())
    return "".join(character for character in composed if character not in IGNORED_IN_COMPARISON)
