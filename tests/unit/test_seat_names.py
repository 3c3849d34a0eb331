"""Seat names people can tell apart (domain/seat_names.py): letter case and Unicode's
confusables make two names one."""

from __future__ import annotations

import pytest

from domain.seat_names import clash


@pytest.mark.parametrize(
    ("names", "first", "second"),
    [
        (["Ana", "\u0410na"], 0, 1),  # Cyrillic capital A
        (["Ana", "Ben", "\uff21\uff4e\uff41"], 0, 2),  # fullwidth
        (["Ana", "ana"], 0, 1),
        (["Ben", "ANA", "Cleo", "ana"], 1, 3),
        (["\uff21\uff4e\uff41", "ana"], 0, 1),  # fullwidth and case
        (["\U0001d400\U0001d427\U0001d41a", "Ana"], 0, 1),  # mathematical bold
        (["Max", "\u041c\u0430\u0445"], 0, 1),  # Cyrillic throughout
        (
            ["\u039d\u03af\u03ba\u03bf\u03c2", "N\u03af\u03ba\u03bf\u03c2"],
            0,
            1,
        ),  # Greek Nu, Latin N
        (["Hans Peter", "Hans  Peter"], 0, 1),  # a second space
        (["Stra\u00dfe", "STRASSE"], 0, 1),  # case folding's sharp s
    ],
)
def test_names_people_cannot_tell_apart_clash_naming_both_seats(
    names: list[str], first: int, second: int
) -> None:
    found = clash(names)

    assert found is not None
    assert (found.first, found.second) == (first, second)
    assert found.message.startswith(f"seat {second}'s name {names[second].strip()!r}")


@pytest.mark.parametrize(
    "names",
    [
        ["Ana", "Ben", "Cleo"],
        ["Ana", "Anna", "Ann"],
        ["Zoe", "Zo\u00eb"],
        ["Ian", "Lan"],
        ["\u0410\u043d\u044f", "\u0418\u0440\u0430"],
        ["\U0001f600 Ana", "Ana"],
    ],
)
def test_names_that_look_different_do_not_clash(names: list[str]) -> None:
    assert clash(names) is None


def test_the_message_says_which_characters_look_alike() -> None:
    found = clash(["Ana", "\u0410na"])

    assert found is not None
    assert found.message == (
        "seat 1's name 'Аna' looks the same as seat 0's 'Ana' "
        "('А' is U+0410 CYRILLIC CAPITAL LETTER A): seats need names people can tell apart"
    )
