"""Rules disputes: check a record (or a stored game's facts) under any ruleset, and audit a game.

`verify` re-decides every command. Without a ruleset it uses the record's own ruleset and mode —
the same check an import makes, except that an import also refuses a ruleset that is not its
preset's (`check_preset`), where a report only notes how it differs. With a preset or options
it starts a tabletop game under that ruleset and re-decides the commands with their cards named,
so a card that ruleset's deck lacks, a third field it does not sell or a tie it breaks
differently all show. The report gives the first illegal step (position, command, RULES section
and sentence, the table before it) or, when every command is legal, the result under that
ruleset beside the recorded one.
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from domain.rules import events as ev
from domain.rules.audit import Problem, audit
from domain.rules.errata import effective
from domain.rules.errors import InvalidRuleset, MalformedCommand, RuleViolation
from domain.rules.notation import draw_table
from domain.rules.rulesets import (
    MOST_HAND_CARDS,
    SEAT_DISTANCE,
    Ruleset,
    preset_differences,
    resolve_ruleset,
)
from domain.rules.state import GameState, Result
from domain.rules.transcript import redecide
from domain.rules.witness import witness

from .record import (
    Failure,
    Record,
    Replayed,
    changes,
    names_text,
    record_from_facts,
    replay_record,
    result_to_dict,
    standing_text,
    wrong_in_result,
)

LEGAL = "legal"
ILLEGAL = "illegal"


@dataclass(frozen=True, slots=True)
class Report:
    """What re-deciding a record under one ruleset found."""

    verdict: str
    """"legal" when every command was accepted, "illegal" otherwise."""
    ruleset: Ruleset
    own_ruleset: bool
    """Whether the record's own ruleset and mode were used (the import's check)."""
    mode: str
    """How the commands were re-decided: "digital" (from the seed) or "tabletop" (cards named)."""
    seats: tuple[str, ...]
    commands: int
    failure: Failure | None
    recorded: Result | None
    """The result the record states (None: not over, or not stated)."""
    result: Result | None
    """The result under the checked ruleset (None: illegal, or not over after the last command)."""
    difference: str
    """One line on how the checked result differs from the recorded one."""
    notes: tuple[str, ...] = ()
    """Remarks on the check itself, e.g. a record's ruleset that is not today's preset."""
    unseen: int | None = None
    """A game with unknown hands, re-decided legal: how many cards nobody ever saw (in hands and
    the draw pile at the end). The report's notes say that an assignment of beans to them exists,
    checked on one (`domain.rules.witness`), or why none was found (RULES §4.4)."""

    @property
    def legal(self) -> bool:
        return self.verdict == LEGAL

    @property
    def same_outcome(self) -> bool:
        return self.legal and self.result is not None and self.result == self.recorded

    def to_dict(self) -> dict[str, Any]:
        """JSON primitives, for `--json` and the API."""
        return {
            "verdict": self.verdict,
            "ruleset": {
                "preset": self.ruleset.preset,
                "players": self.ruleset.players,
                "options": _plain(self.ruleset.options),
                "own": self.own_ruleset,
            },
            "mode": self.mode,
            "commands": self.commands,
            "first_illegal_step": None if self.failure is None else self.failure.to_dict(),
            "recorded": None if self.recorded is None else result_to_dict(self.recorded),
            "result": None if self.result is None else result_to_dict(self.result),
            "same_outcome": self.same_outcome,
            "difference": self.difference,
            "notes": list(self.notes),
            "unseen_cards": self.unseen,
        }

    def text(self) -> str:
        """The report for people."""
        under = _ruleset_text(self.ruleset, self.own_ruleset)
        lines: list[str] = []
        if self.failure is None:
            lines.append(
                f"Legal under {under}: all {self.commands} commands re-decided in {self.mode} form."
            )
            if self.recorded is not None:
                lines.append(f"  recorded:  {standing_text(self.recorded, self.seats)}")
            if self.result is not None:
                lines.append(f"  re-decided: {standing_text(self.result, self.seats)}")
            lines.append(self.difference)
        else:
            failure = self.failure
            lines += [
                f"Illegal under {under}, re-decided in {self.mode} form.",
                f"First illegal step: {failure.path}, command {failure.position + 1} of "
                f"{self.commands} (after step {failure.after_step})",
                f"  command: {json.dumps(failure.command.to_dict())}",
                f"  {failure.error}",
                "The table before it:",
                *(f"  {line}" for line in draw_table(failure.before).splitlines()),
            ]
        lines += [f"Note: {note}" for note in self.notes]
        return "\n".join(lines)


def _plain(options: Mapping[str, Any]) -> dict[str, Any]:
    return {k: list(v) if isinstance(v, tuple) else v for k, v in options.items()}


def _option_text(value: Any) -> str:
    if isinstance(value, list | tuple):
        return ",".join(map(str, value))
    if isinstance(value, bool):
        return "true" if value else "false"
    return str(value)


def _ruleset_label(ruleset: Ruleset) -> str:
    """E.g. "amigo" or "rio-grande with tie_break=seat-distance"."""
    options = ", ".join(f"{k}={_option_text(v)}" for k, v in ruleset.options.items())
    return f"{ruleset.preset} with {options}" if options else ruleset.preset


def _ruleset_text(ruleset: Ruleset, own: bool) -> str:
    whose = "the record's own ruleset, " if own else ""
    return f"{whose}{_ruleset_label(ruleset)} ({ruleset.players} players)"


def what_if(
    subject: Record | Sequence[ev.Event],
    preset: str | None = None,
    changed: Mapping[str, Any] | None = None,
) -> Report:
    """`verify` asking what if the game had been played under `preset` (default: its own) with
    the options `changed` changed and its other options as they were: a duel played with
    `duel_start_fields=3` and asked about `tie_break=shared` keeps its third field. With neither,
    the game under its own ruleset."""
    if preset is None and not changed:
        return verify(subject, None, None)
    record = subject if isinstance(subject, Record) else record_from_facts(subject)
    return verify(record, preset, {**record.ruleset.options, **(changed or {})})


def verify(
    subject: Record | Sequence[ev.Event],
    preset: str | None = None,
    options: Mapping[str, Any] | None = None,
) -> Report:
    """Re-decide a record or a game's facts under the record's own ruleset (no preset, no
    options), or under `preset` (default: the record's) with exactly `options`."""
    record = subject if isinstance(subject, Record) else record_from_facts(subject)
    own = preset is None and options is None
    ruleset = None
    if not own:
        ruleset = resolve_ruleset(preset or record.ruleset.preset, len(record.seats), options)
    replayed = replay_record(record, ruleset=ruleset)
    checked = record.ruleset if ruleset is None else ruleset
    failure = replayed.failure
    result = None if failure is not None else replayed.state.result
    return Report(
        verdict=LEGAL if failure is None else ILLEGAL,
        ruleset=checked,
        own_ruleset=own,
        mode=record.mode if own else "tabletop",
        seats=record.seats,
        commands=len(record.commands),
        failure=failure,
        recorded=record.result,
        result=result,
        difference=""
        if failure is not None
        else _difference(record, result, replayed.state, _ruleset_label(checked), what_if=not own),
        notes=(*(_ruleset_notes(record) if own else ()), *_unseen_notes(replayed)),
        unseen=_unseen(replayed.state) if failure is None else None,
    )


def _unseen(state: GameState) -> int | None:
    """How many cards of a game with unknown hands nobody saw (None in any other game)."""
    if not state.pools:
        return None
    return sum(len(pool) for pool in state.pools)


def _unseen_notes(replayed: Replayed) -> list[str]:
    """A game with unknown hands: how many cards stayed unseen, and one assignment of beans to
    them consistent with everything the table saw, built and checked (`_witness_problem`)."""
    count = _unseen(replayed.state)
    if count is None:
        return []
    problem = _witness_problem(effective(replayed.facts))
    if problem is not None:
        return [f"the unseen cards cannot be given beans consistently: {problem}"]
    where = ", ".join(
        f"{len(pool)} of draw pile {pile + 1}"
        for pile, pool in enumerate(replayed.state.pools)
        if pool
    )
    return [
        f"{count} card{'s' if count != 1 else ''} nobody saw ({where or 'none'}); an assignment "
        "of beans to them exists and was checked: with those beans dealt and drawn, the game "
        "re-decides as a game with known hands to the same table, every card accounted for "
        "(RULES §4.4)"
    ]


def _witness_problem(game: list[ev.Event]) -> str | None:
    """Why no assignment of beans to the cards nobody saw was found, or None: the witness (the
    game with its unseen cards named, as a game with known hands) must audit sound and re-decide
    from its own commands to the same facts."""
    try:
        known = witness(game)
        assert known is not None, "a game with unknown hands has a witness"
        problems = audit(known)
        if problems:
            return str(problems[0])
        if redecide(known, tabletop=True) != known:
            return "the game with those beans does not re-decide to the same facts"
    except (RuleViolation, MalformedCommand, ValueError) as error:
        return str(error)
    return None


def _difference(
    record: Record, result: Result | None, state: GameState, under: str, *, what_if: bool
) -> str:
    """One line: how the result under the checked ruleset compares with the recorded one. Under
    the record's own ruleset a result that differs is the record's mistake; under another it is
    what that ruleset changes."""
    names = record.seats
    recorded = record.result
    if result is None:
        return (
            f"After the record's last command the game is not over under {under} (turn "
            f"{state.turn}, {state.name(state.active)} in phase {state.phase}, draw pile "
            f"exhausted {state.exhaustions} of {state.ruleset.end_on_exhaustion} times): "
            "there is no result to compare."
        )
    if recorded is None:
        return f"The record states no result; under {under}: {standing_text(result, names)}."
    if result == recorded:
        return f"Same outcome: {_award(result, names, record.start_seat)}."
    if result.scores != recorded.scores:
        return (
            f"Scores differ ({changes(recorded.scores, result.scores, names)}): the record gives "
            f"{_award(recorded, names, record.start_seat)}; {under} gives "
            f"{_award(result, names, record.start_seat)}."
        )
    best = max(result.scores)
    tied = [seat for seat, score in enumerate(result.scores) if score == best]
    if len(tied) > 1:
        standing = f"{names_text(tied, names)} tie on {_coins(best)}"
    else:
        standing = f"{names[tied[0]]} has the most coins ({best})"
    differs = wrong_in_result(recorded, result, names)
    lead = f"{under} changes {differs}" if what_if else f"the record is wrong about {differs}"
    return (
        f"Same scores, but {lead}: "
        f"{standing}; the record gives {_award(recorded, names, record.start_seat)}; {under} "
        f"gives {_award(result, names, record.start_seat)}."
    )


def _award(result: Result, names: Sequence[str], start_seat: int) -> str:
    """E.g. "the win to Ben (12 coins), by most cards in hand (Ana 3, Ben 5)"."""
    who = names_text(result.winners, names)
    coins = sorted({result.scores[seat] for seat in result.winners})
    if len(coins) == 1:
        held = _coins(coins[0]) + (" each" if len(result.winners) > 1 else "")
    else:
        held = ", ".join(f"{names[seat]} {result.scores[seat]}" for seat in result.winners)
    award = f"the win to {who}" if len(result.winners) == 1 else f"a shared win to {who}"
    return f"{award} ({held}){_how(result, names, start_seat)}"


def _coins(count: int) -> str:
    return f"{count} coin" if count == 1 else f"{count} coins"


def _how(result: Result, names: Sequence[str], start_seat: int) -> str:
    """How a tie was broken, with the numbers that broke it."""
    best = max(result.scores)
    tied = [seat for seat, score in enumerate(result.scores) if score == best]
    if result.decided_by == MOST_HAND_CARDS:
        hands = ", ".join(f"{names[seat]} {result.hand_sizes[seat]}" for seat in tied)
        return f", by most cards in hand ({hands})"
    if result.decided_by == SEAT_DISTANCE:
        return f", by seat: furthest clockwise from the start player, {names[start_seat]}"
    return ""


def _ruleset_notes(record: Record) -> list[str]:
    """Whether the record's ruleset is what its preset and options resolve to today: an import
    refuses one that is not, so the report says so."""
    rules = record.ruleset
    try:
        differing = preset_differences(rules)
    except InvalidRuleset as error:
        return [
            f"today's rulesets do not give this one ({error}); the record's ruleset is used, "
            "an import refuses it"
        ]
    if not differing:
        return []
    return [
        f"the record's ruleset differs from today's {rules.preset} preset in: "
        f"{', '.join(differing)}; the record's is used, an import refuses it"
    ]


def audit_game(facts: Sequence[ev.Event]) -> list[Problem]:
    """Every invariant a game's facts break (every card accounted for, hand order, one bean per
    field, beanometer payouts, scores = coins, the end when the ruleset says; RULES §4, §10),
    then whether re-deciding its commands gives the same facts (a stored fact the rules would
    not have decided). Positions count facts from 1, like steps."""
    problems = audit(effective(facts))
    try:
        replayed = replay_record(record_from_facts(facts))
    except (InvalidRuleset, MalformedCommand) as error:
        return [*problems, Problem(1, facts[0].kind, f"the game cannot start: {error}")]
    for position, (stored, decided) in enumerate(zip(facts, replayed.facts, strict=False), start=1):
        if stored != decided:
            problems.append(
                Problem(position, stored.kind, f"re-deciding the commands gives {decided} here")
            )
            return problems
    failure = replayed.failure
    if failure is not None:
        at = len(replayed.facts)
        kind = facts[at].kind if at < len(facts) else "end"
        problems.append(
            Problem(at + 1, kind, f"re-deciding {failure.path} refuses it: {failure.error}")
        )
    elif len(replayed.facts) != len(facts):
        at = min(len(facts), len(replayed.facts))
        kind = facts[at].kind if at < len(facts) else "end"
        problems.append(
            Problem(
                at + 1,
                kind,
                f"re-deciding the commands gives {len(replayed.facts)} facts, not {len(facts)}",
            )
        )
    return problems
