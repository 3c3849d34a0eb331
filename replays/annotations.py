"""Annotations: notes on a game's steps, event-sourced beside the game, never inside it.

Each game has one `Annotations` aggregate (its id derives from the game's). A note has an author
(a seat, the host, or a named guest), a step, text, an optional glyph (`!`, `?`, `!!`, `??`, `!?`,
`?!`) and a visibility: `author` (only its author), `seat` (one seat), `table` (the seats and the
host) or `public`. Edits and deletions are new events, so the history stays. Only its author may
change a note; to anyone who may not read it, a note does not exist, so that a refusal never tells
of a hidden note or names its author.

Who sees a note also depends on its step: a note on a step holding a card the viewer may not know
(another player's drawn card, say) is not shown to that viewer, whatever its visibility. The
auditor's perspective (every card, once the game is over) knows every card but no one's private
notes: it reads the public ones.

Notes added at the same time (the aggregate's next version taken twice) are each tried again on
the aggregate as stored, so none is lost and none fails.

A note's number (its `id`, in URLs) is drawn at random (`new_note_id`): numbers counted up per
game told whoever added a note how many it may not read came before. Notes added before numbers
were drawn keep their 1, 2, 3…, so that their URLs still work.
"""

from __future__ import annotations

import re
import secrets
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any
from uuid import NAMESPACE_URL, UUID, uuid5

from eventsourcing.domain import Aggregate, event
from eventsourcing.persistence import IntegrityError

from domain import limits
from domain.application import Bohnanza
from domain.rules import events as ev
from domain.rules.errors import Forbidden, InvalidInput, NotFound
from domain.rules.names import name_problem, visible
from projections.views import AUDITOR, HOST, HOST_VIEWER, PUBLIC_VIEWER, SEAT, Viewer, redact

GLYPHS = ("!", "?", "!!", "??", "!?", "?!")
VISIBILITIES = ("author", "seat", "table", "public")
GUEST = "guest"
MAX_TEXT = 4000
_CONTROL = re.compile("[\x00-\x08\x0b\x0c\x0e-\x1f\x7f-\x9f]")
"""Control characters (Unicode category Cc) but tab, line feed and carriage return."""
_BIDI_CONTROL = re.compile("[\u202a-\u202e\u2066-\u2069]")
"""The embeddings, overrides and isolates of the bidirectional algorithm: one left open in a
note would reorder what a page or a terminal shows after it (the note's author, the next note).
Right-to-left text needs none of them: its letters carry their direction."""


def unfit_character(character: str) -> bool:
    """Whether a note's text may not hold `character` (a control or bidirectional control)."""
    return bool(_CONTROL.match(character) or _BIDI_CONTROL.match(character))


KEEP: Any = object()
"""Passed to `edit_note` for a field that stays as it is."""
SAVE_ATTEMPTS = 10
"""How many times a change to a game's notes is tried while others change them at once."""
NOTE_IDS = 2**53
"""Note numbers are drawn from 1 to this, less 1: every one exact in JavaScript's numbers."""


@dataclass(frozen=True, slots=True)
class Author:
    """Who wrote a note: a seat, the host, or a guest (no token; public notes on ended games)."""

    role: str
    name: str
    seat: int | None = None

    def to_dict(self) -> dict[str, Any]:
        return {"role": self.role, "name": self.name, "seat": self.seat}

    def is_viewer(self, viewer: Viewer) -> bool:
        if self.role == SEAT:
            return viewer.kind == SEAT and viewer.seat == self.seat
        return self.role == HOST and viewer.kind == HOST

    def viewer(self) -> Viewer:
        """Whose eyes this author reads notes with (a guest has no token: the public's), so that
        a note it may not read is, to it, a note that does not exist."""
        if self.role == SEAT:
            assert self.seat is not None
            return Viewer.of_seat(self.seat)
        return HOST_VIEWER if self.role == HOST else PUBLIC_VIEWER


class Annotations(Aggregate):
    """All notes on one game."""

    TOPIC = "bohnanza:Annotations"

    class Event(Aggregate.Event):
        TOPIC = "bohnanza:Annotations.Event"

    @staticmethod
    def create_id(game_id: str) -> UUID:
        return uuid5(NAMESPACE_URL, f"/bohnanza/games/{game_id}/annotations")

    @event("Opened", topic="bohnanza:AnnotationsOpened")
    def __init__(self, game_id: str) -> None:
        self.game_id = game_id
        self.notes: dict[str, dict[str, Any]] = {}

    @event("NoteAdded", topic="bohnanza:NoteAdded")
    def add(
        self,
        note: int,
        step: int,
        author: dict[str, Any],
        text: str,
        glyph: str | None,
        visibility: str,
        seat: int | None,
    ) -> None:
        self.notes[str(note)] = {
            "id": note,
            "step": step,
            "author": author,
            "text": text,
            "glyph": glyph,
            "visibility": visibility,
            "seat": seat,
            "deleted": False,
            "history": [],
        }

    @event("NoteEdited", topic="bohnanza:NoteEdited")
    def edit(
        self, note: int, text: str, glyph: str | None, visibility: str, seat: int | None
    ) -> None:
        current = self.notes[str(note)]
        current["history"].append({k: current[k] for k in ("text", "glyph", "visibility", "seat")})
        current.update(text=text, glyph=glyph, visibility=visibility, seat=seat)

    @event("NoteDeleted", topic="bohnanza:NoteDeleted")
    def delete(self, note: int) -> None:
        self.notes[str(note)]["deleted"] = True


@dataclass(frozen=True, slots=True)
class Note:
    id: int
    game_id: UUID
    step: int
    author: Author
    text: str
    glyph: str | None
    visibility: str
    seat: int | None
    history: list[dict[str, Any]] = field(default_factory=list)

    def to_record(self) -> dict[str, Any]:
        """The note as a record's annotation (no game id, no history)."""
        return {
            "id": self.id,
            "step": self.step,
            "author": self.author.to_dict(),
            "text": self.text,
            "glyph": self.glyph,
            "visibility": self.visibility,
            "seat": self.seat,
        }

    def to_dict(self) -> dict[str, Any]:
        """The note with its game and the earlier versions of it (for the API)."""
        return {"game_id": self.game_id, **self.to_record(), "history": self.history}


def _check(
    facts: Sequence[ev.Event],
    step: int,
    text: str,
    glyph: str | None,
    visibility: str,
    seat: int | None,
) -> None:
    if not 1 <= step <= len(facts):
        raise InvalidInput(f"step {step} does not exist; this game has steps 1–{len(facts)}")
    if not visible(text) or len(text) > MAX_TEXT:  # spaces or invisible characters alone: none
        raise InvalidInput(
            f"a note needs text, at most {MAX_TEXT} characters, that shows: a letter, digit, "
            "punctuation mark or symbol"
        )
    control = _CONTROL.search(text)
    if control is not None:
        raise InvalidInput(
            f"a note's text holds the control character U+{ord(control.group()):04X}; of those "
            "only line breaks and tabs may be in it"
        )
    bidi = _BIDI_CONTROL.search(text)
    if bidi is not None:
        raise InvalidInput(
            f"a note's text holds the bidirectional control U+{ord(bidi.group()):04X}, which "
            "would reorder the text shown after it; letters carry their own direction"
        )
    if glyph is not None and glyph not in GLYPHS:
        raise InvalidInput(f"glyph {glyph!r} is not one of {' '.join(GLYPHS)}")
    if visibility not in VISIBILITIES:
        raise InvalidInput(f"visibility {visibility!r} is not one of {', '.join(VISIBILITIES)}")
    first = facts[0]
    assert isinstance(first, ev.GameStarted)
    if (visibility == "seat") != (seat is not None):
        raise InvalidInput("a note for one seat names that seat (and only such a note does)")
    if seat is not None and not 0 <= seat < len(first.seats):
        raise InvalidInput(f"seat {seat} does not exist in this game")


def _check_author(author: Author, players: int) -> None:
    problem = name_problem(author.name)
    if problem is not None:
        raise InvalidInput(f"the author's name {author.name!r}: {problem}")
    if author.role == SEAT:
        if author.seat is None or not 0 <= author.seat < players:
            raise InvalidInput(f"a seat's note names its author's seat, 0–{players - 1}")
    elif author.role in (HOST, GUEST):
        if author.seat is not None:
            raise InvalidInput(f"a note by the {author.role} names no author's seat")
    else:
        raise InvalidInput(f"a note's author is a seat, the host or a guest, not {author.role!r}")


def check_note(
    facts: Sequence[ev.Event],
    *,
    step: int,
    author: Author,
    text: str,
    glyph: str | None = None,
    visibility: str = "public",
    seat: int | None = None,
) -> None:
    """InvalidInput or Forbidden unless `add_note` would add this note to the game of `facts`."""
    _check(facts, step, text, glyph, visibility, seat)
    first = facts[0]
    assert isinstance(first, ev.GameStarted)
    _check_author(author, len(first.seats))
    if author.role == GUEST and visibility != "public":
        raise Forbidden("a note without a seat's or the host's token can only be public")


def _changed(
    app: Bohnanza, game_id: UUID, change: Callable[[Annotations | None], Annotations]
) -> Annotations:
    """The game's notes after `change` (given them as stored, None before the first note),
    saved; tried again on the notes as stored if another change was saved first."""
    attempt = 1
    while True:
        notes = change(_load(app, game_id))
        try:
            app.save(notes)
        except IntegrityError:
            if attempt == SAVE_ATTEMPTS:
                raise
            attempt += 1
            continue
        return notes


def _load(app: Bohnanza, game_id: UUID) -> Annotations | None:
    return app.find(Annotations.create_id(str(game_id)), Annotations)


def add_note(
    app: Bohnanza,
    game_id: UUID,
    facts: Sequence[ev.Event],
    *,
    step: int,
    author: Author,
    text: str,
    glyph: str | None = None,
    visibility: str = "public",
    seat: int | None = None,
) -> Note:
    """Add a note to step `step` (1 = the game's first event) of a game whose facts are given."""
    check_note(
        facts, step=step, author=author, text=text, glyph=glyph, visibility=visibility, seat=seat
    )

    number = 0

    def add(stored: Annotations | None) -> Annotations:
        nonlocal number
        notes = stored or Annotations(game_id=str(game_id))
        number = _added(
            notes,
            step=step,
            author=author,
            text=text,
            glyph=glyph,
            visibility=visibility,
            seat=seat,
        )
        return notes

    notes = _changed(app, game_id, add)
    return _note(game_id, notes.notes[str(number)])


def opened_with(game_id: UUID, notes: Sequence[Mapping[str, Any]]) -> Annotations:
    """The notes of a game not stored yet (an imported record's, each given as `add_note`'s
    arguments and checked by `check_note`), to be saved in one transaction with the game."""
    opened = Annotations(game_id=str(game_id))
    for note in notes:
        _added(opened, **note)
    return opened


def _added(
    notes: Annotations,
    *,
    step: int,
    author: Author,
    text: str,
    glyph: str | None,
    visibility: str,
    seat: int | None,
) -> int:
    """Add a checked note to `notes`; its number. LimitReached if the game's notes are at a
    limit of the service (domain/limits.py)."""
    live = [note for note in notes.notes.values() if not note["deleted"]]
    limits.check_notes(len(live) + 1, sum(len(note["text"]) for note in live) + len(text))
    number = new_note_id(notes)
    notes.add(number, step, author.to_dict(), text, glyph, visibility, seat)
    return number


def new_note_id(notes: Annotations) -> int:
    """A number for a new note: drawn at random, so that it tells nothing of the other notes
    (how many there are, how many came before), and not one of theirs."""
    while True:
        number = secrets.randbelow(NOTE_IDS - 1) + 1
        if str(number) not in notes.notes:
            return number


def _own(
    game_id: UUID,
    facts: Sequence[ev.Event],
    notes: Annotations | None,
    note: int,
    editor: Author,
) -> Annotations:
    """The game's notes, if `editor` wrote note `note`. A note the editor may not read (see
    `notes_for`) is answered exactly as a missing one: a refusal naming its author would tell
    that it exists and who wrote it. A note it may read but did not write is Forbidden."""
    current = None if notes is None else notes.notes.get(str(note))
    if (
        notes is None
        or current is None
        or current["deleted"]
        or not _readable(_note(game_id, current), editor.viewer(), facts)
    ):
        raise NotFound(f"no note {note} on game {game_id}")
    if editor.role == GUEST or Author(**current["author"]) != editor:
        raise Forbidden(
            f"note {note} is {current['author']['name']}'s; only its author may change it"
        )
    return notes


def edit_note(
    app: Bohnanza,
    game_id: UUID,
    facts: Sequence[ev.Event],
    note: int,
    *,
    editor: Author,
    text: str = KEEP,
    glyph: str | None = KEEP,
    visibility: str = KEEP,
    seat: int | None = KEEP,
) -> Note:
    """Change a note's text, glyph, visibility or seat; fields left as KEEP stay. InvalidInput
    if every field is KEEP: an edit changes something."""
    if all(value is KEEP for value in (text, glyph, visibility, seat)):
        raise InvalidInput("an edit names what to change: text, glyph, visibility or seat")

    def edit(stored: Annotations | None) -> Annotations:
        notes = _own(game_id, facts, stored, note, editor)
        current = notes.notes[str(note)]
        new = (
            current["text"] if text is KEEP else text,
            current["glyph"] if glyph is KEEP else glyph,
            current["visibility"] if visibility is KEEP else visibility,
            current["seat"] if seat is KEEP else seat,
        )
        _check(facts, current["step"], *new)
        others = [n for n in notes.notes.values() if not n["deleted"] and n is not current]
        limits.check_notes(len(others) + 1, sum(len(n["text"]) for n in others) + len(new[0]))
        notes.edit(note, *new)
        return notes

    return _note(game_id, _changed(app, game_id, edit).notes[str(note)])


def delete_note(app: Bohnanza, game_id: UUID, note: int, *, editor: Author) -> None:
    """Delete a note (its author only); the game's facts decide, as for `edit_note`, whether the
    editor may know of it at all."""
    facts = app.corrected_facts(game_id)

    def delete(stored: Annotations | None) -> Annotations:
        notes = _own(game_id, facts, stored, note, editor)
        notes.delete(note)
        return notes

    _changed(app, game_id, delete)


def _note(game_id: UUID, data: dict[str, Any]) -> Note:
    return Note(
        id=data["id"],
        game_id=game_id,
        step=data["step"],
        author=Author(**data["author"]),
        text=data["text"],
        glyph=data["glyph"],
        visibility=data["visibility"],
        seat=data["seat"],
        history=list(data["history"]),
    )


def may_see(
    note: Note, viewer: Viewer, fact: ev.Event, mode: str, *, every_card_shown: bool = False
) -> bool:
    """Whether `viewer` may read `note`, whose step is `fact` in a game of this mode; with
    `every_card_shown` (an export of the whole record, which names every card anyway) the step's
    cards hide nothing."""
    if note.author.is_viewer(viewer):
        return True
    knows_the_cards = every_card_shown or viewer.kind == AUDITOR
    if not knows_the_cards and redact(fact, viewer, mode) != fact:
        return False  # the step holds a card this viewer may not know
    match note.visibility:
        case "public":
            return True
        case "table":
            return viewer.kind in (SEAT, HOST)
        case "seat":
            return viewer.kind == SEAT and viewer.seat == note.seat
    return False


def _readable(
    note: Note, viewer: Viewer, facts: Sequence[ev.Event], *, every_card_shown: bool = False
) -> bool:
    """`may_see` for a note of the game of `facts`: one rule for listing notes and for telling
    an editor whether a note exists."""
    first = facts[0]
    assert isinstance(first, ev.GameStarted)
    return may_see(
        note, viewer, facts[note.step - 1], first.mode, every_card_shown=every_card_shown
    )


def notes_for(
    app: Bohnanza,
    game_id: UUID,
    facts: Sequence[ev.Event],
    viewer: Viewer,
    *,
    step: int | None = None,
    every_card_shown: bool = False,
) -> list[Note]:
    """The notes `viewer` may read, by step and then as they were added; only step `step`'s if
    given. With `every_card_shown` (for a record's export) a note is not hidden for its step's
    cards."""
    notes = _load(app, game_id)
    if notes is None:
        return []
    shown = []
    for data in notes.notes.values():
        if data["deleted"] or (step is not None and data["step"] != step):
            continue
        note = _note(game_id, data)
        if _readable(note, viewer, facts, every_card_shown=every_card_shown):
            shown.append(note)
    return sorted(shown, key=lambda n: n.step)  # stable: a step's notes as they were added


def all_notes(app: Bohnanza, game_id: UUID) -> list[Note]:
    """Every live note, as they were added (for exports by someone who may see everything)."""
    notes = _load(app, game_id)
    if notes is None:
        return []
    return [_note(game_id, d) for d in notes.notes.values() if not d["deleted"]]
