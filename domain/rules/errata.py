"""Corrections (errata) of a tabletop game's record: facts of their own that change its entries.

A game's stream holds its facts as they were decided, and `EntriesCorrected` facts. The entries of
a game are its commands (`transcript.entries`), numbered from 0. A correction replaces, deletes or
inserts entries; the entries it replaced stay in the store. The game *as corrected* applies each
correction in turn to the game as it stood then: the corrected entries decided again from the
start — from the first changed entry, since the facts before it cannot change. The game *as
recorded* is the stream itself, in which a correction is a step that changes the table.

Digital games take no corrections: the service dealt their cards. A seat's private notes of its
own hand (`note-hand`) are its own: a correction may not change them, and a note that no longer
fits its hand after a correction is emptied rather than refused (refusing would tell the host what
the note said).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field

from . import commands as cmd
from . import events as ev
from .decide import decide
from .errors import Forbidden, MalformedCommand, RuleViolation
from .evolve import fold
from .notation import describe_command
from .state import TABLETOP, UNSEEN, GameState
from .transcript import Entry, correction_command, entries


class CorrectionRefused(RuleViolation):
    """A correction after which an entry of the game would be illegal (`entry`, numbered in the
    game as corrected, with its command): the host changes that entry in the same correction.
    `recorded`: that entry's number before the correction, as a change names it (None for an
    entry the correction inserts)."""

    def __init__(
        self,
        violation: RuleViolation,
        entry: int,
        command: cmd.Command,
        text: str,
        recorded: int | None = None,
    ) -> None:
        self.entry = entry
        self.recorded = recorded
        self.command = command
        super().__init__(
            violation.section,
            f"after this correction, entry {entry} ({text}) is illegal: {violation.sentence}",
        )


class CorrectionMalformed(MalformedCommand):
    """A correction whose corrected entry makes no sense in any game (a field or hand position
    that does not exist there, say)."""


@dataclass
class Corrected:
    """A game as corrected, built fact by fact from its stream (`add`): its facts, and for each
    fact the number of the correction that changed or inserted its entry (1 = the game's first
    correction), None for a fact as recorded. Each correction costs the re-decision of the entries
    from its first change on, once."""

    facts: list[ev.Event] = field(default_factory=list)
    marks: list[int | None] = field(default_factory=list)
    corrections: int = 0
    stream: int = 0
    """How many stream facts it holds."""
    tables: dict[int, list[ev.Event]] | None = None
    """With tables kept: for the stream index of each correction, the game's facts right after
    it (for showing the game as recorded)."""

    def add(self, fact: ev.Event) -> None:
        """The next fact of the stream: a correction applied, any other fact appended."""
        if isinstance(fact, ev.EntriesCorrected):
            self.corrections += 1
            changes = correction_command(fact).changes
            self.facts, self.marks, _ = _apply(self.facts, self.marks, changes, self.corrections)
            if self.tables is not None:
                self.tables[self.stream] = list(self.facts)
        else:
            self.facts.append(fact)
            self.marks.append(None)
        self.stream += 1

    def extend(self, facts: Sequence[ev.Event]) -> Corrected:
        for fact in facts:
            self.add(fact)
        return self

    def copy(self) -> Corrected:
        """A copy that facts can be added to without changing this one."""
        tables = None if self.tables is None else dict(self.tables)
        return Corrected(list(self.facts), list(self.marks), self.corrections, self.stream, tables)

    def correct(self, command: cmd.Correct | cmd.Undo) -> tuple[ev.EntriesCorrected, Corrected]:
        """The fact that records `command` on this game, and the game as corrected with it (this
        one unchanged): RuleViolation (or CorrectionRefused naming the entry) if the corrected
        game would be illegal, MalformedCommand for changes that name no entry, Forbidden for a
        game that takes no corrections."""
        facts = self.facts
        first = facts[0]
        assert isinstance(first, ev.GameStarted), "a game's facts start with GameStarted"
        if not is_correctable(first):
            raise Forbidden("digital games take no corrections: the service dealt their cards")
        found = entries(facts, tabletop=True)
        changes = _undo(found) if isinstance(command, cmd.Undo) else command.changes
        _check(found, changes)
        number = self.corrections + 1
        new, marks, table = _apply(facts, self.marks, changes, number, found)
        replaced = [
            None if change.action == cmd.INSERT else found[change.entry].command.to_dict()
            for change in changes
        ]
        fact = ev.EntriesCorrected(
            [change.to_dict() for change in changes], replaced, table.to_dict()
        )
        tables = None if self.tables is None else {**self.tables, self.stream: list(new)}
        return fact, Corrected(new, marks, number, self.stream + 1, tables)


def is_correctable(first: ev.GameStarted) -> bool:
    """Whether a game takes corrections: a tabletop game (the table dealt its cards)."""
    return first.mode == TABLETOP


def effective(stream: Sequence[ev.Event]) -> list[ev.Event]:
    """The game as corrected, from its stream (the facts as stored, corrections included)."""
    if not any(isinstance(fact, ev.EntriesCorrected) for fact in stream):
        return list(stream)
    return corrected(stream).facts


def corrected(stream: Sequence[ev.Event], *, keep_tables: bool = False) -> Corrected:
    """The game as corrected, with the marks of what the corrections changed; `keep_tables` also
    keeps the facts after each correction."""
    return Corrected(tables={} if keep_tables else None).extend(stream)


def decide_correction(facts: Sequence[ev.Event], command: cmd.Correct | cmd.Undo) -> ev.Event:
    """The fact that records `command` on a game as corrected so far (`facts`, no correction
    among them: `effective` of its stream); see `Corrected.correct`."""
    if any(isinstance(fact, ev.EntriesCorrected) for fact in facts):
        raise ValueError("decide_correction takes a game as corrected, not its stream")
    game = Corrected(list(facts), [None] * len(facts))
    fact, _ = game.correct(command)
    return fact


def _undo(found: list[Entry]) -> tuple[cmd.Change, ...]:
    """Take back the last entry (the host's: a seat's note is its own; the deal is corrected,
    never taken back)."""
    for index in range(len(found) - 1, -1, -1):
        command = found[index].command
        if isinstance(command, cmd.Deal):
            raise MalformedCommand(
                f"the last entry is the deal (entry {index}), which is corrected, not taken back: "
                f"send a correction that replaces entry {index} with the hands as dealt"
            )
        if not isinstance(command, cmd.NoteHand):
            return (cmd.Change(index, cmd.DELETE),)
    raise MalformedCommand("nothing has been entered yet: there is no entry to take back")


def _check(found: list[Entry], changes: Sequence[cmd.Change]) -> None:
    count = len(found)
    changed: set[int] = set()
    for change in changes:
        last = count if change.action == cmd.INSERT else count - 1
        if not 0 <= change.entry <= last:
            shown = f"entries 0–{count - 1}" if count else "no entries yet"
            raise MalformedCommand(
                f"there is no entry {change.entry} to {change.action}: the game has {shown}"
                + (
                    f" (insert at {count} adds one at the end)"
                    if change.action == cmd.INSERT
                    else ""
                )
            )
        if change.action == cmd.INSERT:
            if isinstance(change.command, cmd.NoteHand):
                raise MalformedCommand("a seat notes its own hand; the host cannot")
            continue
        if change.entry in changed:
            raise MalformedCommand(f"entry {change.entry} is changed twice in one correction")
        changed.add(change.entry)
        if isinstance(found[change.entry].command, cmd.NoteHand) or isinstance(
            change.command, cmd.NoteHand
        ):
            raise MalformedCommand(
                f"entry {change.entry} is a seat's note of its own hand: only that seat changes it"
            )
        if isinstance(found[change.entry].command, cmd.Deal) and change.action == cmd.DELETE:
            raise MalformedCommand("the deal cannot be deleted, only corrected")


def _apply(
    facts: Sequence[ev.Event],
    marks: list[int | None],
    changes: Sequence[cmd.Change],
    number: int,
    found: list[Entry] | None = None,
) -> tuple[list[ev.Event], list[int | None], GameState]:
    """The facts, marks and table after `changes`: the entries before the first change keep their
    facts; from there on, the corrected entries are decided again. Changed and inserted entries
    get mark `number`; the others keep theirs."""
    found = entries(facts, tabletop=True) if found is None else found
    start = min(change.entry for change in changes)
    commands: list[tuple[cmd.Command, int | None, int | None]] = []  # (…, mark, recorded as)
    for index in range(start, len(found) + 1):
        for change in changes:
            if change.entry == index and change.action == cmd.INSERT:
                assert change.command is not None
                commands.append((change.command, number, None))
        if index == len(found):
            break
        replaced = next((c for c in changes if c.entry == index and c.action != cmd.INSERT), None)
        if replaced is None:
            commands.append((found[index].command, marks[found[index].first], index))
        elif replaced.action == cmd.REPLACE:
            assert replaced.command is not None
            commands.append((replaced.command, number, index))
    cut = found[start].first if start < len(found) else len(facts)
    new_facts = list(facts[:cut])
    new_marks = list(marks[:cut])
    state = fold(new_facts)
    names = [player.name for player in state.players]
    for offset, (command, mark, recorded) in enumerate(commands):
        try:
            decided = decide(state, command)
        except (RuleViolation, MalformedCommand) as error:
            if isinstance(command, cmd.NoteHand):  # a note that no longer fits is emptied
                decided = _empty_note(state, command.seat)
            elif isinstance(error, RuleViolation):
                text = describe_command(command, names)
                raise CorrectionRefused(error, start + offset, command, text, recorded) from None
            else:
                raise CorrectionMalformed(
                    f"after this correction, entry {start + offset} "
                    f"({describe_command(command, names)}) makes no sense: {error}"
                ) from None
        state = fold(decided, state)
        new_facts += decided
        new_marks += [mark] * len(decided)
    return new_facts, new_marks, state


def _empty_note(state: GameState, seat: int) -> list[ev.Event]:
    return [ev.HandNoted(seat, [UNSEEN] * len(state.players[seat].hand))]
