"""The service's limits on what a game holds (domain/limits.py): every game can still end at
them, and the largest record of a game within them is under the record body limit."""

from __future__ import annotations

import pytest

from domain import limits
from domain.bots import simulate
from domain.limits import LimitReached, check_command, check_notes, check_size
from domain.rules import commands as cmd
from replays.record import dumps, export_record
from tests.games import CONFIGS


def test_an_optional_command_is_refused_once_a_game_holds_its_share() -> None:
    offer = cmd.Offer(0, to=1, hand=(0,))

    check_command(limits.OPTIONAL_UNTIL - 1, offer, [object()])
    with pytest.raises(LimitReached, match="no more offers"):
        check_command(limits.OPTIONAL_UNTIL, offer, [object()])


def test_any_other_command_is_taken_until_the_game_is_full() -> None:
    plant = cmd.Plant(0, field=0)

    check_command(limits.MAX_FACTS - 2, plant, [object(), object()])
    with pytest.raises(LimitReached, match="at most 10,000 facts"):
        check_command(limits.MAX_FACTS - 1, plant, [object(), object()])


@pytest.mark.parametrize(("preset", "players"), CONFIGS)
def test_a_game_without_optional_commands_is_far_shorter_than_the_room_left_for_it(
    preset: str, players: int
) -> None:
    longest = max(
        len(
            [
                fact
                for fact in simulate(preset, players, bot="random", seed=seed)
                if fact.kind not in NEGOTIATION
            ]
        )
        for seed in range(4)
    )

    assert longest < (limits.MAX_FACTS - limits.OPTIONAL_UNTIL) / 2


NEGOTIATION = {"TradeOffered", "TradeDeclined", "TradeWithdrawn"}


def test_notes_are_bounded_in_number_and_in_text() -> None:
    check_notes(limits.MAX_NOTES, limits.MAX_NOTES_TEXT)
    with pytest.raises(LimitReached, match="notes at a time"):
        check_notes(limits.MAX_NOTES + 1, 0)
    with pytest.raises(LimitReached, match="characters between them"):
        check_notes(1, limits.MAX_NOTES_TEXT + 1)


def test_a_command_longer_than_a_record_line_may_be_is_refused() -> None:
    wants = ("garden",) * 200
    offer = cmd.Offer(0, to=1, hand=(0,), wants=wants)

    with pytest.raises(LimitReached, match="at most 1,024 bytes"):
        check_size(offer)
    check_size(cmd.Offer(0, to=1, hand=(0,), wants=wants[:60]))


SIZES = [
    *[
        pytest.param(cmd.Offer(0, to=1, hand=(0,), wants=("garden",) * n), n >= 95, id=f"{n} wants")
        for n in range(0, 201, 5)
    ],
    pytest.param(cmd.Plant(10**30, 0), False, id="an integer beyond 64 bits"),
    pytest.param(cmd.Plant(0, 0, bean="\ud800"), False, id="a lone surrogate"),
    pytest.param(cmd.Plant(0, 0, bean="é" * 300), True, id="non-ASCII, escaped in a record"),
]
"""Commands around the limit, and those orjson (check_size's first measure) cannot write or
writes shorter than a record does: whether each is too long as a record writes it."""


@pytest.mark.parametrize(("command", "too_long"), SIZES)
def test_a_command_is_refused_for_its_size_exactly_when_its_record_line_is_too_long(
    command: cmd.Command, too_long: bool
) -> None:
    assert (limits.command_bytes(command) > limits.MAX_COMMAND_BYTES) == too_long
    if too_long:
        with pytest.raises(LimitReached):
            check_size(command)
    else:
        check_size(command)


def test_the_largest_record_a_game_within_the_limits_has_is_under_the_body_limit() -> None:
    """A 7-player record stretched to the most facts, each command as long as a command may be,
    and the most notes with the most text, every character 4 bytes in UTF-8: written as the
    command line writes records (one command per line, the longer of the two layouts)."""
    document = export_record(simulate("rio-grande", 7, bot="random", seed=13))
    longest = cmd.Offer(0, to=1, hand=(0,), wants=("garden",) * 200)
    while limits.command_bytes(longest) > limits.MAX_COMMAND_BYTES:
        longest = cmd.Offer(0, to=1, hand=(0,), wants=longest.wants[1:])
    assert limits.MAX_COMMAND_BYTES - limits.command_bytes(longest) < len(' "garden",')
    document["commands"] = [longest.to_dict()] * limits.MAX_FACTS
    text = "🫘" * (limits.MAX_NOTES_TEXT // limits.MAX_NOTES)
    note = {
        "id": 2**53 - 1,
        "step": limits.MAX_FACTS,
        "author": {"role": "guest", "name": "W" * 40, "seat": None},
        "text": text,
        "glyph": "!?",
        "visibility": "seat",
        "seat": 6,
    }
    document["annotations"] = [note] * limits.MAX_NOTES

    size = len(dumps(document).encode())

    assert size < limits.RECORD_BYTES, f"{size:,} bytes"
