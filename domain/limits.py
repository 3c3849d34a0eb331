"""What one game may hold: the service's limits, not the rules'.

Nothing in the rules bounds a game's length: a table may trade, note its hands and correct its
record for as long as it likes. But a game's record is what the service gives out and takes back
(`POST /api/records` takes any record the service can have written), so what a game may hold is
bounded here, far beyond any real game (the longest of a thousand 7-player bot games has 1,273
facts; a real table's offers are fewer still):

- a command is at most MAX_COMMAND_BYTES of JSON as a record writes it (its lists of cards and
  hand positions are the table's to make long: an offer may want any beans);
- a game holds at most MAX_FACTS facts;
- once it holds OPTIONAL_UNTIL, no more of the facts a table may add at will (a new offer, a
  note of a hand, a correction) are stored, so that every game can still be played to its end:
  without them a game stores fewer than 2,500 facts in all (a pass through the pile draws each
  of its cards once, at least three a turn, and a game ends within three passes, about a
  hundred turns of at most 15 facts each, counting a harvest for each plant), and
  MAX_FACTS - OPTIONAL_UNTIL is 5,000;
- its notes: at most MAX_NOTES at a time, and MAX_NOTES_TEXT characters of text between them.

With these, the largest record is under RECORD_BYTES (tests/unit/test_limits.py builds one).
"""

from __future__ import annotations

import json
from collections.abc import Sequence

import orjson

from .rules import commands as cmd
from .rules.errors import BohnanzaError

MAX_COMMAND_BYTES = 1_024
MAX_FACTS = 10_000
OPTIONAL_UNTIL = 5_000
MAX_NOTES = 1_000
MAX_NOTES_TEXT = 1_000_000
RECORD_BYTES = 16 * 1024 * 1024
"""The largest record body the service takes (POST /api/records and verifications), as sent or
once gunzipped: room to spare over the largest record a game within these limits has."""

OPTIONAL_COMMANDS: tuple[type[cmd.Command], ...] = (cmd.Offer, cmd.NoteHand, cmd.Correct, cmd.Undo)
"""Commands a table may give as often as it likes: none is needed to end a game."""


class LimitReached(BohnanzaError):
    """A game (or its notes) at one of the service's limits: the command, note or record would
    take it past."""


def check_size(command: cmd.Command) -> None:
    """LimitReached for a command longer than a record's line may be. orjson, several times
    faster than the standard library, answers first for most commands: its compact UTF-8 is
    never shorter than a third of the record's JSON (a separator's space doubles at most one
    byte; an escaped character takes at most three times its UTF-8 bytes), so a command at most
    a third of the limit there is within it. Others, and any orjson cannot write (an integer
    beyond 64 bits, a lone surrogate), are measured as a record writes them."""
    try:
        if len(orjson.dumps(command.to_dict())) * 3 <= MAX_COMMAND_BYTES:
            return
    except orjson.JSONEncodeError:
        pass
    size = command_bytes(command)
    if size > MAX_COMMAND_BYTES:
        raise LimitReached(
            f"a command is at most {MAX_COMMAND_BYTES:,} bytes of JSON as a record writes it; "
            f"this {command.type} is {size:,} (a limit of the service, not of the rules)"
        )


def command_bytes(command: cmd.Command) -> int:
    """How long `command` is as a record writes it: its JSON on one line (beans and numbers
    only, so one byte a character)."""
    return len(json.dumps(command.to_dict()))


def check_command(version: int, command: cmd.Command, facts: Sequence[object]) -> None:
    """LimitReached if a game at `version` may not store the facts `command` decided."""
    if version >= OPTIONAL_UNTIL and isinstance(command, OPTIONAL_COMMANDS):
        raise LimitReached(
            f"this game holds {version:,} facts: from {OPTIONAL_UNTIL:,} on it takes no more "
            f"offers, notes of a hand or corrections (a limit of the service, not of the rules; "
            "every other command still plays it to its end)"
        )
    if version + len(facts) > MAX_FACTS:
        raise LimitReached(
            f"a game holds at most {MAX_FACTS:,} facts; this one holds {version:,} and the "
            f"command adds {len(facts)}"
        )


def check_record(facts: int) -> None:
    """LimitReached for a record of more facts than a game may hold."""
    if facts > MAX_FACTS:
        raise LimitReached(f"a game holds at most {MAX_FACTS:,} facts; this record has {facts:,}")


def check_notes(live: int, text: int) -> None:
    """LimitReached if a game's notes would be `live` notes of `text` characters in all."""
    if live > MAX_NOTES:
        raise LimitReached(f"a game has at most {MAX_NOTES:,} notes at a time")
    if text > MAX_NOTES_TEXT:
        raise LimitReached(
            f"a game's notes hold at most {MAX_NOTES_TEXT:,} characters between them; these "
            f"would hold {text:,}"
        )
