"""Step through a recorded game: its steps, the table at any step as one viewer saw it, what changed.

Step k is the game's k-th fact (step 1 is GameStarted); "the table at step k" is the table after it.
A viewer's table is folded from that viewer's redacted facts (redact first, fold second,
ARCHITECTURE §6), never cut out of the full state, so a replay cannot show a card its viewer never
saw. Step summaries are written from the public redaction of each fact: a drawn card is "a card".

Who may see what: a seat may replay its own past tables at any time, the public and the host always
(in tabletop games the host entered every card and sees every hand); the auditor's table (every
hand, the draw pile in order, the seed) only when `may_audit` allows: once the game is over, or
with auditor rights. Asking for another seat's table is the caller's check (it knows who asks).

Speed (ARCHITECTURE §9): the facts are read once. Each viewer's facts are redacted once, and its
tables are kept every `checkpoint_every` steps, folded in one pass as far as they are asked for;
the table at step k is folded from the nearest checkpoint (fewer than `checkpoint_every` facts),
and moving on one step from the last step asked costs one `evolve`.
"""

from __future__ import annotations

import dataclasses
import threading
from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass
from itertools import islice
from typing import Any

from domain.rules import events as ev
from domain.rules.errata import Corrected
from domain.rules.errors import Forbidden, InvalidInput, NotFound
from domain.rules.evolve import fold, scan
from domain.rules.notation import describe
from domain.rules.state import TABLETOP, UNKNOWN, GameState, Phase
from domain.rules.transcript import entries
from projections.views import (
    AUDITOR,
    PUBLIC_VIEWER,
    SEAT,
    Viewer,
    may_audit,
    redact,
    render,
    view_of,
)

CHECKPOINT_EVERY = 32
"""Steps between kept tables. bench/replay.py, 5-player game of 1,079 facts, one seat: building a
viewer's checkpoints costs 1.7 folds of the game (redaction included) and a random step about
25 µs; every step kept costs 7.5 folds to build for 1 µs a step, every 8th 2.4 folds for 10 µs."""

IGNORED_IN_CHANGES = ("legal",)
"""Parts of a rendered view left out of `changes`: what the seat could do next is not the table."""


class NotAllowed(Forbidden):
    """A viewer that may not be shown this game's record (the auditor of a game still running)."""


class UnknownKind(InvalidInput):
    """A kind of fact that no game has."""


@dataclass(frozen=True, slots=True)
class Step:
    """One fact of a game, as everyone may know it."""

    position: int
    """1 = GameStarted."""
    turn: int
    """The turn the fact happened in; 0 while the table is set up (the start and the deal)."""
    phase: Phase
    """The phase the fact happened in (step 1: the phase the game starts in)."""
    actor: int | None
    """The seat whose move it was; None for what follows from the rules alone (the deal, a
    reshuffle, an exhausted pile, the final harvest, the result)."""
    kind: str
    summary: str
    """Public text, e.g. "T12 Ana harvests field 1 (6 Blue) → 2 coins"."""
    corrected: int | None = None
    """The number of the correction that changed or inserted this step's entry (1 = the game's
    first correction), None for a step as recorded."""
    entry: int | None = None
    """The entry (command, from 0) the step belongs to: None for the start of the game, and in
    a game stepped through as recorded."""

    def to_dict(self) -> dict[str, Any]:
        """The step as the API lists it."""
        return {
            "position": self.position,
            "turn": self.turn,
            "phase": str(self.phase),
            "actor": self.actor,
            "kind": self.kind,
            "summary": self.summary,
            "corrected": self.corrected,
            "entry": self.entry,
        }


@dataclass(frozen=True, slots=True)
class Change:
    """One value of a rendered view that a step changed; None stands for "not there"."""

    path: str
    """A JSON Pointer (RFC 6901) into `projections.views.render`'s document, e.g.
    "/seats/1/hand_size"."""
    before: Any
    after: Any


@dataclass(frozen=True, slots=True)
class StepChanges:
    """What step k did, as one viewer saw it."""

    step: Step
    fact: ev.Event
    """The step's fact redacted for the viewer."""
    summary: str
    """The viewer's own line: like the step's summary, with what the viewer itself saw (its drawn
    card; for an auditor, every card)."""
    changes: tuple[Change, ...]
    """From the rendered table at step k-1 to the one at step k (step 1: from nothing)."""


def actor_of(fact: ev.Event) -> int | None:
    """The seat whose move produced `fact`, or None when the rules alone did."""
    match fact:
        case ev.TradeOffered():
            return fact.proposer
        case ev.TradeAccepted():
            return fact.acceptor
        case ev.FieldHarvested(final=True):
            return None
        case ev.GameStarted() | ev.CardsDealt() | ev.DeckExhausted() | ev.DiscardsReshuffled():
            return None
        case ev.GameEnded():
            return None
    seat = getattr(fact, "seat", None)
    return seat if isinstance(seat, int) else None


def diff(before: Any, after: Any, path: str = "") -> list[Change]:
    """The values that differ between two JSON documents, as JSON Pointers. Objects are compared
    key by key, lists of objects or lists item by item when their lengths agree; other values (a
    hand, a list of beans) are compared whole. The changes share no list or dict with the inputs."""
    if before == after:
        return []
    if isinstance(before, dict) and isinstance(after, dict):
        changes: list[Change] = []
        for key in {**before, **after}:
            changes += diff(before.get(key), after.get(key), f"{path}/{_escape(str(key))}")
        return changes
    if (
        isinstance(before, list)
        and isinstance(after, list)
        and len(before) == len(after)
        and any(isinstance(item, dict | list) for item in (*before, *after))
    ):
        changes = []
        for index, (old, new) in enumerate(zip(before, after, strict=True)):
            changes += diff(old, new, f"{path}/{index}")
        return changes
    return [Change(path, _copied(before), _copied(after))]


def _copied(value: Any) -> Any:
    """A copy of a JSON value that shares no list or dict with it (tables rendered for `changes`
    are kept for the next step; a caller editing a change must not edit them)."""
    if isinstance(value, list):
        return [_copied(item) for item in value]
    if isinstance(value, dict):
        return {key: _copied(item) for key, item in value.items()}
    return value


def _escape(key: str) -> str:
    return key.replace("~", "~0").replace("/", "~1")


def _hides_nothing(value: Any) -> bool:
    """Whether a (redacted) payload holds no UNKNOWN card."""
    if isinstance(value, list):
        return all(_hides_nothing(item) for item in value)
    return value != UNKNOWN


def _kind_key(kind: str) -> str:
    return "".join(ch for ch in kind.lower() if ch.isalnum())


_KINDS = {_kind_key(name): name for name in ev.EVENT_TYPES}


def event_kind(kind: str) -> str:
    """The fact kind named by `kind` ("FieldHarvested", "field-harvested", "field_harvested")."""
    name = _KINDS.get(_kind_key(kind))
    if name is None:
        raise UnknownKind(f"no kind of fact is called {kind!r}; kinds: {', '.join(ev.EVENT_TYPES)}")
    return name


def step_line(fact: ev.Event, names: Sequence[str], turn: int) -> str:
    """A step's line for the viewer its fact was redacted for, e.g. "T12 Ben draws Blue": the
    cards that viewer knew, "a card" for the others (the public's line names none it did not)."""
    line = describe(fact, names, show_hidden=_hides_nothing(list(fact.payload().values())))
    return f"T{turn} {line}"


class StepCounter:
    """A game's steps as its facts come: each one's turn, phase and actor from the public table
    before it (step 1: the table it sets), and its public line. The facts hold no correction
    (a game as corrected)."""

    def __init__(self, names: Sequence[str], mode: str) -> None:
        self.names = tuple(names)
        self.mode = mode
        self.table: GameState | None = None
        self.steps: list[Step] = []

    def extend(self, facts: Iterable[ev.Event]) -> list[Step]:
        """The steps of `facts`, the game's next facts (whole or redacted for the public)."""
        public = [redact(fact, PUBLIC_VIEWER, self.mode) for fact in facts]
        new: list[Step] = []
        for fact, after in zip(public, scan(public, self.table), strict=True):
            table = after if self.table is None else self.table
            step = Step(
                len(self.steps) + 1,
                table.turn,
                table.phase,
                actor_of(fact),
                fact.kind,
                step_line(fact, self.names, table.turn),
            )
            self.steps.append(step)
            new.append(step)
            self.table = after
        return new


class _Timeline:
    """One viewer's redacted facts and tables: checkpoints, and a cursor at the last step asked."""

    def __init__(
        self, facts: tuple[ev.Event, ...], every: int, shown: tuple[ev.Event, ...] = ()
    ) -> None:
        self.facts = facts
        """What the viewer's tables are folded from."""
        self.shown = shown or facts
        """The facts as the viewer saw them (a correction as such, where `facts` holds the table
        it led to)."""
        self.every = every
        self.checkpoints: list[GameState | None] = [None]
        """checkpoints[i] is the table at step i * every (nothing before step 1)."""
        self.cursor: tuple[int, GameState | None] = (0, None)
        self.stepper: Iterator[GameState] | None = None
        """A scan of the facts after the cursor: stepping on costs one step of it."""
        self.rendered: tuple[int, dict[str, Any]] = (0, {})
        """The last table rendered for `changes`, so stepping on renders each table once."""
        self.lock = threading.Lock()

    def _extend(self, index: int) -> None:
        """Fold on until checkpoints[index] exists, from the cursor when it is further on."""
        every, checkpoints = self.every, self.checkpoints
        while len(checkpoints) <= index:
            target = len(checkpoints) * every
            start = (target - every, checkpoints[-1])
            if start[0] < self.cursor[0] <= target:
                start = self.cursor
            checkpoints.append(self._fold(start, target))

    def _fold(self, start: tuple[int, GameState | None], target: int) -> GameState:
        position, state = start
        if position == target and state is not None:
            return state
        return fold(self.facts[position:target], state)

    def view_at(self, position: int) -> GameState:
        with self.lock:
            at, view = self.cursor
            if view is not None and at < position <= at + self.every:
                # Stepping on from the last step asked: one step of a scan each.
                if self.stepper is None:
                    self.stepper = scan(islice(self.facts, at, None), view)
                for _ in range(position - at):
                    view = next(self.stepper)
            elif at != position or view is None:
                # Anywhere else: one fold from the nearest checkpoint at or before it.
                index = position // self.every
                self._extend(index)
                start, view = index * self.every, self.checkpoints[index]
                if start != position or view is None:
                    view = fold(self.facts[start:position], view)
                self.stepper = None
            self.cursor = (position, view)
            assert view is not None
            return view


class Replay:
    """A recorded game to step through, for any viewer, folded from its facts once.

    A corrected tabletop game is stepped through as corrected (its corrected facts, with `marks`
    saying which correction changed each step's entry) or as recorded (its stream: pass
    `recorded`, the game's `errata.corrected(stream, keep_tables=True)`; a correction is then a
    step after which each viewer's table is the one folded from the corrected facts it may see)."""

    def __init__(
        self,
        facts: Sequence[ev.Event],
        *,
        checkpoint_every: int = CHECKPOINT_EVERY,
        marks: Sequence[int | None] = (),
        recorded: Corrected | None = None,
    ):
        first = facts[0] if facts else None
        if not isinstance(first, ev.GameStarted):
            raise ValueError("a game's facts start with GameStarted")
        if checkpoint_every < 1:
            raise ValueError("checkpoint_every must be at least 1")
        self.facts: tuple[ev.Event, ...] = tuple(facts)
        self.marks: tuple[int | None, ...] = tuple(marks) or (None,) * len(self.facts)
        self.recorded = recorded
        self.names: tuple[str, ...] = tuple(first.seats)
        self.mode: str = first.mode
        self.checkpoint_every = checkpoint_every
        self._timelines: dict[Viewer, _Timeline] = {}
        self._steps: tuple[Step, ...] | None = None
        self._lock = threading.Lock()

    def __len__(self) -> int:
        return len(self.facts)

    @property
    def is_over(self) -> bool:
        """Whether the record holds the whole game (it has ended, as corrected)."""
        if self.recorded is not None:
            return bool(self.recorded.facts) and isinstance(self.recorded.facts[-1], ev.GameEnded)
        return isinstance(self.facts[-1], ev.GameEnded)

    # --- steps --------------------------------------------------------------------------------

    def steps(self) -> tuple[Step, ...]:
        """Every step, in order (computed once, from the public table before each fact)."""
        if self._steps is None:
            self._steps = tuple(self._public_steps())
        return self._steps

    def _public_steps(self) -> list[Step]:
        if self.recorded is not None:
            return list(self._recorded_steps())
        found = entries(self.facts, tabletop=self.mode == TABLETOP)
        entry_of = {i: n for n, e in enumerate(found) for i in range(e.first, e.stop)}
        return [
            dataclasses.replace(step, corrected=mark, entry=entry_of.get(index))
            for index, (step, mark) in enumerate(
                zip(StepCounter(self.names, self.mode).extend(self.facts), self.marks, strict=True)
            )
        ]

    def _recorded_steps(self) -> Iterator[Step]:
        """The steps of a game as recorded: a correction's table is the one it led to."""
        public = self._timeline(PUBLIC_VIEWER)
        before: GameState | None = None
        for position, fact in enumerate(public.shown, start=1):
            after = public.view_at(position)
            table = after if before is None else before
            yield Step(
                position,
                table.turn,
                table.phase,
                actor_of(fact),
                fact.kind,
                step_line(fact, self.names, table.turn),
            )
            before = after

    def steps_seen_by(self, viewer: Viewer, *, auditor_rights: bool = False) -> tuple[Step, ...]:
        """Every step, its line as `viewer` saw it (the headline `changes` gives for it): a
        seat's own draw names its card ("Ben draws Blue") where the public's says "a card"."""
        if viewer == PUBLIC_VIEWER:
            return self.steps()
        facts = self._allowed(viewer, auditor_rights).shown
        return tuple(
            dataclasses.replace(step, summary=step_line(fact, self.names, step.turn))
            for step, fact in zip(self.steps(), facts, strict=True)
        )

    def step(self, position: int) -> Step:
        """Step `position` (1 = GameStarted); NotFound outside the record."""
        return self.steps()[self._checked(position) - 1]

    def _checked(self, position: int) -> int:
        if not 1 <= position <= len(self.facts):
            raise NotFound(f"no step {position}: this game's record has steps 1–{len(self.facts)}")
        return position

    # --- what a viewer sees -------------------------------------------------------------------

    def fact_at(self, position: int, viewer: Viewer, *, auditor_rights: bool = False) -> ev.Event:
        """Step `position`'s fact as `viewer` saw it."""
        return self._allowed(viewer, auditor_rights).shown[self._checked(position) - 1]

    def view_at(self, position: int, viewer: Viewer, *, auditor_rights: bool = False) -> GameState:
        """The table after step `position`, folded from the facts `viewer` saw: every card the
        viewer did not know is UNKNOWN."""
        return self._allowed(viewer, auditor_rights).view_at(self._checked(position))

    def changes(
        self, position: int, viewer: Viewer, *, auditor_rights: bool = False
    ) -> StepChanges:
        """What step `position` changed on the table as `viewer` saw it."""
        timeline = self._allowed(viewer, auditor_rights)
        step = self.step(position)
        last, before = timeline.rendered
        if last != position - 1:
            before = _rendered(timeline.view_at(position - 1), viewer) if position > 1 else {}
        after = _rendered(timeline.view_at(position), viewer)
        timeline.rendered = (position, after)
        fact = timeline.shown[position - 1]
        line = step_line(fact, self.names, step.turn)
        return StepChanges(step, fact, line, tuple(diff(before, after)))

    def check_viewer(self, viewer: Viewer, *, auditor_rights: bool = False) -> None:
        """Raise NotAllowed for an auditor the record may not be shown to yet, NotFound for a seat
        the game does not have."""
        if viewer.kind == AUDITOR and not may_audit(self.is_over, auditor_rights=auditor_rights):
            raise NotAllowed(
                "the auditor's view (every hand, the draw pile, the seed) is shown only once the "
                "game is over, or to auditors; a seat may replay its own view, anyone the public one"
            )
        if viewer.kind == SEAT and not 0 <= (viewer.seat or 0) < len(self.names):
            raise NotFound(f"no seat {viewer.seat}: this game has seats 0–{len(self.names) - 1}")

    def _allowed(self, viewer: Viewer, auditor_rights: bool) -> _Timeline:
        if viewer.kind == AUDITOR:
            self.check_viewer(viewer, auditor_rights=auditor_rights)
        timeline = self._timelines.get(viewer)
        return self._timeline(viewer) if timeline is None else timeline

    def _timeline(self, viewer: Viewer) -> _Timeline:
        self.check_viewer(viewer, auditor_rights=True)  # the seat; `_allowed` checked the rights
        with self._lock:
            timeline = self._timelines.get(viewer)
            if timeline is None:
                mode = self.mode
                # Only facts that declare secret fields are redacted; the rest are public whole.
                shown = tuple(
                    redact(fact, viewer, mode) if type(fact).secret else fact for fact in self.facts
                )
                folded = shown
                if self.recorded is not None:
                    folded = tuple(
                        self._replaced(index, viewer)
                        if isinstance(fact, ev.EntriesCorrected)
                        else fact
                        for index, fact in enumerate(shown)
                    )
                timeline = self._timelines[viewer] = _Timeline(folded, self.checkpoint_every, shown)
            return timeline

    def _replaced(self, index: int, viewer: Viewer) -> ev.Event:
        """A correction of the game as recorded, as `viewer` saw it: its table after it, folded
        from the corrected facts the viewer may see."""
        assert self.recorded is not None, "a correction is stepped through as recorded"
        assert self.recorded.tables is not None, "the tables after each correction are kept"
        return ev.TableReplaced(view_of(self.recorded.tables[index], viewer))

    # --- jumps --------------------------------------------------------------------------------

    def turns(self) -> range:
        """The turn numbers in the record (0: setting up the table)."""
        steps = self.steps()
        return range(steps[0].turn, steps[-1].turn + 1)

    def turn_start(self, turn: int) -> int:
        """The position of the first step of `turn`; NotFound if the record has no such turn."""
        for step in self.steps():
            if step.turn == turn:
                return step.position
        turns = self.turns()
        raise NotFound(f"no turn {turn}: this game's record has turns {turns[0]}–{turns[-1]}")

    def next_of(self, kind: str, after: int) -> int | None:
        """The position of the first fact of `kind` after step `after` (0: from the start)."""
        name = event_kind(kind)
        if after != 0:
            self._checked(after)
        return next((s.position for s in self.steps()[after:] if s.kind == name), None)

    def previous_of(self, kind: str, before: int) -> int | None:
        """The position of the last fact of `kind` before step `before` (len + 1: from the end)."""
        name = event_kind(kind)
        if before != len(self.facts) + 1:
            self._checked(before)
        earlier = self.steps()[: before - 1]
        return next((s.position for s in reversed(earlier) if s.kind == name), None)


def _rendered(view: GameState, viewer: Viewer) -> dict[str, Any]:
    document = render(view, viewer)
    for key in IGNORED_IN_CHANGES:
        document.pop(key, None)
    return document
