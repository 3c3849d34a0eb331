"""Records and disputes on stored games: one function per use case, for the CLI and the API.

Export reads a game's facts; import re-decides a record and stores the facts as a new game (the
annotations are passed back to the caller, who decides what to keep); verify and audit check a
stored game.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from datetime import date as Date
from typing import Any
from uuid import UUID

from domain.application import Bohnanza, Outcome
from domain.rules import events as ev
from domain.rules.audit import Problem
from domain.rules.errors import Forbidden, InvalidInput

from .annotations import GUEST, Author, add_note, all_notes, check_note
from .record import Record, RecordError, export_record, import_facts, parse_record
from .verify import Report, audit_game, verify


@dataclass(frozen=True, slots=True)
class Imported:
    """A record stored as a new game."""

    outcome: Outcome
    record: Record

    @property
    def game_id(self) -> UUID:
        return self.outcome.game_id


def export_game(
    app: Bohnanza,
    game_id: UUID,
    *,
    annotations: Iterable[Mapping[str, Any]] = (),
    date: Date | str | None = None,
    place: str | None = None,
    tags: Iterable[str] = (),
) -> dict[str, Any]:
    """A stored game as a `bohnanza-record/1` document; the date defaults to when it started."""
    recorded = app.recorded_facts(game_id)
    return export_record(
        [r.fact for r in recorded],
        annotations=annotations,
        date=recorded[0].recorded_at if date is None else date,
        place=place,
        tags=tags,
    )


def import_record(
    app: Bohnanza, document: Mapping[str, Any] | Record, *, game_id: UUID | None = None
) -> Imported:
    """Re-decide a record and store it as a new game with the record's notes. RecordError for
    a malformed document, IllegalRecord naming the first illegal step; nothing is stored then."""
    record = document if isinstance(document, Record) else parse_record(document)
    facts = import_facts(record)
    notes = [_imported_note(facts, number, note) for number, note in enumerate(record.annotations)]
    imported = Imported(app.record_game(facts, game_id=game_id), record)
    for note in notes:
        add_note(app, imported.game_id, facts, **note)
    return imported


def _imported_note(facts: list[ev.Event], number: int, note: Mapping[str, Any]) -> dict[str, Any]:
    """A record's annotation as `add_note`'s arguments, checked as adding it would check it
    (RecordError naming the annotation), so that a record is stored whole or not at all."""
    author = note["author"]
    if isinstance(author, str):
        author = {"role": GUEST, "name": author, "seat": None}
    arguments = {
        "step": note["step"],
        "author": Author(author["role"], author["name"], author.get("seat")),
        "text": note["text"],
        "glyph": note.get("glyph"),
        "visibility": note.get("visibility", "public"),
        "seat": note.get("seat"),
    }
    try:
        check_note(facts, **arguments)
    except (InvalidInput, Forbidden) as error:
        raise RecordError(str(error), f"$.annotations[{number}]") from None
    return arguments


def verify_game(
    app: Bohnanza,
    game_id: UUID,
    preset: str | None = None,
    options: Mapping[str, Any] | None = None,
) -> Report:
    """A stored game re-decided under its own ruleset, or under `preset` with `options`."""
    return verify(app.facts(game_id), preset, options)


def audit_stored_game(app: Bohnanza, game_id: UUID) -> list[Problem]:
    """Every invariant a stored game breaks, and any fact the rules would not have decided."""
    return audit_game(app.facts(game_id))


def annotations_of(app: Bohnanza, game_id: UUID) -> list[dict[str, Any]]:
    """Every live note on a game as a record's annotations (for someone who may see them all)."""
    notes = sorted(all_notes(app, game_id), key=lambda note: (note.step, note.id))
    return [note.to_record() for note in notes]
