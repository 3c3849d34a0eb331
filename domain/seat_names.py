"""Seat names people can tell apart: a new game's seats may not have two names that look the
same ("Ana" beside "Аna", whose first letter is Cyrillic, or "Ａｎａ" in fullwidth letters) or
that differ only in letter case ("Ana", "ANA").

The rules compare names as text (`domain.rules.names.name_key`): a game stored with two seats
that look alike stays a valid game, so its replays, forks and audits go on as before. This check
is the service's, made where a new game is created from people's input (a new game, an imported
record).

Looking alike is Unicode's confusables data (UTS #39, `confusables.txt`) as the `disarm` library
folds it toward Latin letters, after NFKC (which makes fullwidth, circled and other compatibility
forms plain letters: UTS #39's data leaves fullwidth "ｎ" apart from "n"). `disarm` leaves plain
ASCII as it is, so "C1eo" and "Cleo", or "rn" and "m", stay two names.
"""

from __future__ import annotations

import difflib
import unicodedata
from collections.abc import Sequence
from dataclasses import dataclass
from functools import lru_cache

from domain.rules.names import name_key

TELL_APART = "seats need names people can tell apart"
MAX_SHOWN = 6
"""How many differing characters a refusal names (names have at most 40 characters)."""


@dataclass(frozen=True, slots=True)
class Clash:
    """Seat `second`'s name is seat `first`'s to people; `message` says why."""

    first: int
    second: int
    message: str


def clash(names: Sequence[str]) -> Clash | None:
    """The first pair of these names (in seat order) that people could not tell apart, or None."""
    seen: dict[tuple[str, str], int] = {}
    for seat, name in enumerate(names):
        for key in _keys(name):
            first = seen.get(key)
            if first is not None:
                return Clash(first, seat, _why(names[first], seat, name, first))
        for key in _keys(name):
            seen.setdefault(key, seat)
    return None


def _keys(name: str) -> tuple[tuple[str, str], tuple[str, str]]:
    """What a name is compared by: how it looks, and how it looks with letter case folded."""
    text = name_key(name)
    return ("as written", _looks(text)), ("any case", _looks(text.casefold()))


@lru_cache(maxsize=1024)
def _looks(text: str) -> str:
    """A stand-in for how `text` looks: equal for texts people cannot tell apart."""
    from disarm import normalize_confusables  # loads Unicode's tables: only when names come

    compatible = " ".join(unicodedata.normalize("NFKC", text).split())
    looks: str = normalize_confusables(compatible)
    return looks


def _why(earlier: str, seat: int, name: str, first: int) -> str:
    earlier, name = earlier.strip(), name.strip()
    named = f"seat {seat}'s name {name!r}"
    if earlier.casefold() == name.casefold():
        return f"{named} differs from seat {first}'s {earlier!r} only in letter case: {TELL_APART}"
    case = "" if _looks(name_key(earlier)) == _looks(name_key(name)) else ", letter case aside"
    differences = _differences(earlier, name)
    return (
        f"{named} looks the same as seat {first}'s {earlier!r}{case} ({differences}): {TELL_APART}"
    )


def _differences(earlier: str, name: str) -> str:
    """The characters that differ between the two names, each named by Unicode (but letters and
    digits of ASCII, which everyone knows)."""
    a, b = unicodedata.normalize("NFC", earlier), unicodedata.normalize("NFC", name)
    differing: dict[str, None] = {}  # in order, once each
    for tag, i1, i2, j1, j2 in difflib.SequenceMatcher(None, a, b, autojunk=False).get_opcodes():
        if tag != "equal":
            differing.update(dict.fromkeys(b[j1:j2] + a[i1:i2]))
    shown = [c for c in differing if not (c.isascii() and c.isalnum())]
    named = [f"{c!r} is U+{ord(c):04X} {unicodedata.name(c, 'unnamed')}" for c in shown]
    more = len(named) - MAX_SHOWN
    return ", ".join(named[:MAX_SHOWN]) + (f" and {more} more" if more > 0 else "")
