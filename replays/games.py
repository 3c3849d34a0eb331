"""Records and disputes on stored games: one function per use case, for the CLI and the API.

Export reads a game's facts; import re-decides a record and stores the facts as a new game, with
its notes and, beside it, when and where the record says it was played and its tags (so that an
exported import exports the same header); verify and audit check a stored game.

An ended game's id is derived from its facts (`imported_game_id`), so a record is stored once:
importing it again, from any process at any moment, meets the store's own uniqueness and is
refused with the game it became (`AlreadyImported`). Without that, a retried upload or two
players uploading one table's record would count the game twice in the leaderboard. A record that
stops before the end is stored under a random id each time: its facts hold cards still hidden
(hands, the pile), and an id derived from them, or a refusal of the same facts, would let anyone
test guesses of those cards.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from datetime import date as Date
from typing import Any
from uuid import NAMESPACE_URL, UUID, uuid5

from eventsourcing.domain import Aggregate, event

from domain import limits, seat_names
from domain.application import Bohnanza, Outcome
from domain.ids import new_game_id
from domain.rules import events as ev
from domain.rules.audit import Problem
from domain.rules.errata import effective
from domain.rules.errors import Conflict, Forbidden, InvalidInput

from .annotations import GUEST, Author, all_notes, check_note, opened_with
from .record import Record, RecordError, export_record, import_facts, parse_record
from .verify import Report, audit_game, what_if


class AlreadyImported(Conflict):
    """The record's game is stored already (imported before): `game_id` is that game."""

    def __init__(self, game_id: UUID) -> None:
        self.game_id = game_id
        super().__init__(
            f"this record is stored already, as game {game_id}: a record is imported once, so "
            "that its game counts once"
        )


def imported_game_id(facts: Sequence[ev.Event]) -> UUID:
    """The id an imported game is stored under: for an ended game, a digest of its facts, the
    same for the same game however its record is laid out (key order, spacing, the annotations
    beside it); for a game that has not ended, a random id (see the module's docstring)."""
    if not isinstance(effective(facts)[-1], ev.GameEnded):
        return new_game_id()
    canonical = json.dumps(
        [[fact.kind, fact.payload()] for fact in facts], sort_keys=True, separators=(",", ":")
    )
    digest = hashlib.sha256(canonical.encode()).hexdigest()
    return uuid5(NAMESPACE_URL, f"/bohnanza/records/{digest}")


@dataclass(frozen=True, slots=True)
class Import:
    """A record re-decided and checked, ready to store (`store_import`): nothing is stored yet."""

    record: Record
    facts: list[ev.Event]
    notes: list[dict[str, Any]]
    game_id: UUID


@dataclass(frozen=True, slots=True)
class Imported:
    """A record stored as a new game."""

    outcome: Outcome
    record: Record

    @property
    def game_id(self) -> UUID:
        return self.outcome.game_id


class RecordHeader(Aggregate):
    """When and where an imported record says its game was played, and its tags."""

    TOPIC = "bohnanza:RecordHeader"

    class Event(Aggregate.Event):
        TOPIC = "bohnanza:RecordHeader.Event"

    @staticmethod
    def create_id(game_id: str) -> UUID:
        return uuid5(NAMESPACE_URL, f"/bohnanza/games/{game_id}/record-header")

    @event("Imported", topic="bohnanza:RecordHeaderImported")
    def __init__(self, game_id: str, date: str | None, place: str | None, tags: list[str]) -> None:
        self.game_id = game_id
        self.date = date
        self.place = place
        self.tags = tags


def export_game(
    app: Bohnanza,
    game_id: UUID,
    *,
    annotations: Iterable[Mapping[str, Any]] = (),
    date: Date | str | None = None,
    place: str | None = None,
    tags: Iterable[str] | None = None,
) -> dict[str, Any]:
    """A stored game as a `bohnanza-record/1` document. What is not given comes from the record
    the game was imported from, if any: the date defaults to the record's, or else to when the
    game started; the place and tags to the record's."""
    recorded = app.recorded_facts(game_id)
    imported = app.find(RecordHeader.create_id(str(game_id)), RecordHeader)
    if imported is not None:
        date = imported.date if date is None else date
        place = imported.place if place is None else place
        tags = imported.tags if tags is None else tags
    return export_record(
        [r.fact for r in recorded],
        annotations=annotations,
        date=recorded[0].recorded_at if date is None else date,
        place=place,
        tags=tags or (),
    )


def import_record(app: Bohnanza, document: Mapping[str, Any] | Record) -> Imported:
    """Re-decide a record and store it as a new game with the record's notes. RecordError for
    a malformed document, IllegalRecord naming the first illegal step, AlreadyImported for a
    record stored before; nothing is stored then."""
    return store_import(app, prepare_import(document))


def prepare_import(document: Mapping[str, Any] | Record) -> Import:
    """Re-decide a record and check its notes, storing nothing: RecordError for a malformed
    document or seats people cannot tell apart (a new game's rule), IllegalRecord naming the
    first illegal step."""
    record = document if isinstance(document, Record) else parse_record(document)
    alike = seat_names.clash(record.seats)
    if alike is not None:
        raise RecordError(alike.message, f"$.header.seats[{alike.second}]")
    _within_limits(len(record.commands))  # before the commands are decided
    for number, command in enumerate(record.commands):
        try:
            limits.check_size(command)
        except limits.LimitReached as error:
            raise RecordError(str(error), f"$.commands[{number}]") from None
    facts = import_facts(record)
    _within_limits(len(facts))
    notes = [_imported_note(facts, number, note) for number, note in enumerate(record.annotations)]
    try:
        limits.check_notes(len(notes), sum(len(note["text"]) for note in notes))
    except limits.LimitReached as error:
        raise RecordError(str(error), "$.annotations") from None
    return Import(record, facts, notes, imported_game_id(facts))


def _within_limits(facts: int) -> None:
    try:
        limits.check_record(facts)
    except limits.LimitReached as error:
        raise RecordError(str(error), "$.commands") from None


def store_import(
    app: Bohnanza, prepared: Import, *, game_id: UUID | None = None, request_key: str | None = None
) -> Imported:
    """Store a prepared record as a new game (under `game_id` if given: the id an earlier
    attempt chose for a record that has not ended), in one transaction with its header and its
    notes beside it; AlreadyImported if it is stored already, AlreadyApplied if by an earlier
    attempt with `request_key` (see `Bohnanza.save_new`)."""
    record, game_id = prepared.record, game_id or prepared.game_id
    beside: list[Aggregate] = []
    if record.date is not None or record.place is not None or record.tags:
        beside.append(RecordHeader(str(game_id), record.date, record.place, list(record.tags)))
    if prepared.notes:
        beside.append(opened_with(game_id, prepared.notes))
    try:
        outcome = app.record_game(
            prepared.facts, game_id=game_id, beside=beside, request_key=request_key
        )
    except Conflict:
        raise AlreadyImported(game_id) from None
    return Imported(outcome, record)


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
    """A stored game re-decided under its own ruleset, or under `preset` (default: its own)
    with `options` changed from its own (`what_if`)."""
    return what_if(app.facts(game_id), preset, options)


def audit_stored_game(app: Bohnanza, game_id: UUID) -> list[Problem]:
    """Every invariant a stored game breaks, and any fact the rules would not have decided."""
    return audit_game(app.facts(game_id))


def annotations_of(app: Bohnanza, game_id: UUID) -> list[dict[str, Any]]:
    """Every live note on a game as a record's annotations (for someone who may see them all)."""
    notes = sorted(all_notes(app, game_id), key=lambda note: note.step)  # then as added
    return [note.to_record() for note in notes]
