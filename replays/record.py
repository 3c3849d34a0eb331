"""The portable game record, formats `bohnanza-record/1` and `/2` (ARCHITECTURE §9).

A record is a JSON document, published as a JSON Schema in `record.schema.json`:

- `header`: the resolved ruleset (or a `{preset, options}` reference, resolved on import), the
  seats clockwise, the start seat, the mode, and free-form date, place and tags;
- `chance` (digital games): the seed of the shuffles and the deck order, top card first. Every
  reshuffle follows from the seed, so its order is not repeated;
- `commands`: every command in order, in tabletop form — the deal and every reveal and draw name
  the cards that came off the pile, so a record reads card by card whatever its mode;
- `result`: the recorded final standing, checked on import; `annotations`: passed through.

Version 2 adds what tabletop recording with hidden hands and corrections needs: `header.hands`
("unknown": no deal is named, a draw names "?" for each card, and the commands that show a hand
card name its bean), the commands `note-hand`, `show-hand` and `correct` (a correction of the
entries before it, which stay in the record as they were entered). A record using none of that is
written as version 1, so that readers of version 1 still read it; both versions are read.

Importing re-decides every command through the engine, so an import *is* an audit. A digital
record is re-decided in digital form from its seed and deck (giving identical facts, reshuffle
orders included) and every card it names is checked against the cards the deck gives; a tabletop
record is re-decided in tabletop form. Like a chess game reader, `replay_record` keeps the legal
prefix and reports the first offending step.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass
from datetime import date as Date
from datetime import datetime
from functools import cache
from importlib import resources
from typing import Any

from jsonschema import Draft202012Validator, validators
from jsonschema.exceptions import ValidationError, best_match

from domain import json_text
from domain.rules import commands as cmd
from domain.rules import events as ev
from domain.rules.beans import label
from domain.rules.commands import Command, parse_command
from domain.rules.decide import decide, start_game
from domain.rules.errata import Corrected, decide_correction, effective
from domain.rules.errors import (
    BohnanzaError,
    Forbidden,
    InvalidRuleset,
    MalformedCommand,
    RuleViolation,
)
from domain.rules.evolve import fold, full_deck
from domain.rules.names import NOT_PRINTABLE, name_problem, printable
from domain.rules.notation import draw_table, tie_break_text
from domain.rules.rulesets import (
    OPTIONS,
    Ruleset,
    check_deal,
    preset_differences,
    resolve_ruleset,
)
from domain.rules.state import DIGITAL, KNOWN_HANDS, TABLETOP, GameState, Result
from domain.rules.transcript import commands_from_facts

FORMAT = "bohnanza-record/1"
FORMAT_2 = "bohnanza-record/2"
FORMATS = (FORMAT, FORMAT_2)
SCHEMA_FILE = "record.schema.json"
MAX_VALID_COMMANDS = 50_000

_VALID_COMMANDS: set[str] = set()
"""Commands (by `repr`) the schema accepted already: games repeat many commands word for word."""


class RecordError(BohnanzaError):
    """A document that is not a valid record; `path` is the JSON path of the offending part."""

    def __init__(self, message: str, path: str = "$") -> None:
        self.path = path
        self.message = message
        super().__init__(f"{path}: {message}")


@dataclass(frozen=True, slots=True)
class Failure:
    """The first command of a record the engine refuses, and the table it was refused on."""

    position: int
    """Index of the command in the record's `commands` (0 = the deal)."""
    command: Command
    error: RuleViolation | MalformedCommand
    before: GameState
    after_step: int
    """How many facts the legal commands before it decided: the table is the one at that step."""

    @property
    def path(self) -> str:
        return f"$.commands[{self.position}]"

    @property
    def section(self) -> str | None:
        """The RULES section broken or saying why; None for a command that makes no sense in any
        game and cites none."""
        return self.error.section

    def to_dict(self) -> dict[str, Any]:
        """JSON primitives: where, what, which rule, and the table before it as text."""
        violation = isinstance(self.error, RuleViolation)
        return {
            "position": self.position,
            "path": self.path,
            "after_step": self.after_step,
            "command": self.command.to_dict(),
            "kind": "rule-violation" if violation else "malformed-command",
            "rule": self.error.rule,
            "section": self.error.section,
            "title": self.error.title,
            "sentence": self.error.sentence,
            "message": str(self.error),
            "table": draw_table(self.before),
        }


class IllegalRecord(RecordError):
    """A well-formed record whose commands the rules refuse; `failure` is the first one."""

    def __init__(self, failure: Failure) -> None:
        self.failure = failure
        super().__init__(f"the record is illegal here: {failure.error}", failure.path)


@dataclass(frozen=True, slots=True)
class Record:
    """A parsed record: everything needed to re-decide the game, and what the record claims."""

    ruleset: Ruleset
    seats: tuple[str, ...]
    start_seat: int
    mode: str
    commands: tuple[Command, ...]
    seed: int | None = None
    deck: tuple[str, ...] | None = None
    result: Result | None = None
    date: str | None = None
    place: str | None = None
    tags: tuple[str, ...] = ()
    annotations: tuple[Mapping[str, Any], ...] = ()
    sandbox: bool = False
    """A what-if game (a fork): its header says so, and an import keeps it a sandbox."""
    hands: str = KNOWN_HANDS

    @property
    def format(self) -> str:
        """The oldest format that holds this record."""
        newer = self.hands != KNOWN_HANDS or any(
            isinstance(command, _VERSION_2_COMMANDS)
            or getattr(command, "hand_beans", None) is not None
            or (isinstance(command, cmd.DiscardFromHand) and command.bean is not None)
            for command in self.commands
        )
        return FORMAT_2 if newer else FORMAT

    def to_dict(self) -> dict[str, Any]:
        """The record as a `bohnanza-record/1` (or `/2`) JSON document."""
        chance = None
        if self.mode == DIGITAL:
            chance = {"seed": self.seed, "deck": None if self.deck is None else list(self.deck)}
        header = {
            "ruleset": self.ruleset.to_dict(),
            "seats": list(self.seats),
            "start_seat": self.start_seat,
            "mode": self.mode,
            "date": self.date,
            "place": self.place,
            "tags": list(self.tags),
        }
        if self.sandbox:  # only then: a played game's record is as it always was
            header["sandbox"] = True
        if self.hands != KNOWN_HANDS:
            header["hands"] = self.hands
        return {
            "format": self.format,
            "header": header,
            "chance": chance,
            "commands": [command.to_dict() for command in self.commands],
            "result": None if self.result is None else result_to_dict(self.result),
            "annotations": [dict(annotation) for annotation in self.annotations],
        }


@dataclass(frozen=True, slots=True)
class Replayed:
    """The facts a record's commands decide: all of them, or those before the first failure."""

    facts: list[ev.Event]
    state: GameState
    failure: Failure | None

    @property
    def legal(self) -> bool:
        return self.failure is None

    @property
    def result(self) -> Result | None:
        """The result of the game as corrected (None while it runs)."""
        return self.state.result


def result_of(ended: ev.GameEnded) -> Result:
    """The final standing a GameEnded fact states."""
    return Result(
        tuple(ended.scores), tuple(ended.hand_sizes), tuple(ended.winners), ended.decided_by
    )


def result_to_dict(result: Result) -> dict[str, Any]:
    return {
        "scores": list(result.scores),
        "hand_sizes": list(result.hand_sizes),
        "winners": list(result.winners),
        "decided_by": result.decided_by,
    }


# --- export --------------------------------------------------------------------------------------


def record_from_facts(
    facts: Sequence[ev.Event],
    *,
    annotations: Iterable[Mapping[str, Any]] = (),
    date: Date | str | None = None,
    place: str | None = None,
    tags: Iterable[str] = (),
) -> Record:
    """The record of a game (finished or not) from its facts as stored, which start with
    GameStarted (a corrected game's corrections are commands of the record, in their place)."""
    first = facts[0]
    if not isinstance(first, ev.GameStarted):
        raise RecordError(f"a game's facts start with GameStarted, not {first.kind}")
    last = effective(facts)[-1]
    return Record(
        ruleset=Ruleset.from_dict(first.ruleset),
        seats=tuple(first.seats),
        start_seat=first.start_seat,
        mode=first.mode,
        commands=tuple(commands_from_facts(facts, tabletop=True)),
        seed=first.seed,
        deck=None if first.deck is None else tuple(first.deck),
        result=result_of(last) if isinstance(last, ev.GameEnded) else None,
        date=date.isoformat() if isinstance(date, Date) else date,
        place=place,
        tags=tuple(tags),
        annotations=tuple(dict(annotation) for annotation in annotations),
        sandbox=first.sandbox,
        hands=first.hands,
    )


def export_record(
    facts: Sequence[ev.Event],
    *,
    annotations: Iterable[Mapping[str, Any]] = (),
    date: Date | str | None = None,
    place: str | None = None,
    tags: Iterable[str] = (),
) -> dict[str, Any]:
    """A game's facts as a `bohnanza-record/1` document (`date` may be a date or a datetime)."""
    record = record_from_facts(facts, annotations=annotations, date=date, place=place, tags=tags)
    return record.to_dict()


def dumps(document: Mapping[str, Any]) -> str:
    """A record as JSON text for people and diffs: one command or annotation per line, lists of
    cards on one line, objects indented."""
    return _layout(document, "") + "\n"


def _layout(value: Any, indent: str) -> str:
    inner = indent + "  "
    if isinstance(value, Mapping) and value:
        items = [f"{inner}{json.dumps(key)}: {_layout(item, inner)}" for key, item in value.items()]
        return "{\n" + ",\n".join(items) + f"\n{indent}}}"
    if isinstance(value, list) and any(isinstance(item, Mapping | list) for item in value):
        flat = [f"{inner}{json.dumps(item, ensure_ascii=False)}" for item in value]
        return "[\n" + ",\n".join(flat) + f"\n{indent}]"
    return json.dumps(value, ensure_ascii=False)


# --- parsing -------------------------------------------------------------------------------------


@cache
def schema() -> dict[str, Any]:
    """The published JSON Schema of the record format."""
    text = resources.files(__package__).joinpath(SCHEMA_FILE).read_text(encoding="utf-8")
    return json.loads(text)


def inlined(node: Any, defs: Mapping[str, Any]) -> Any:
    """`node` with every `{"$ref": "#/$defs/name"}` replaced by its definition (none recurse)."""
    if isinstance(node, dict):
        if set(node) == {"$ref"}:
            return inlined(defs[node["$ref"].removeprefix("#/$defs/")], defs)
        return {key: inlined(value, defs) for key, value in node.items()}
    if isinstance(node, list):
        return [inlined(item, defs) for item in node]
    return node


def _is_integer(_checker: Any, instance: Any) -> bool:
    return isinstance(instance, int) and not isinstance(instance, bool)


RecordValidator = validators.extend(
    Draft202012Validator,
    type_checker=Draft202012Validator.TYPE_CHECKER.redefine("integer", _is_integer),
)
"""Draft 2020-12, except that an integer is written without a fraction: JSON Schema counts 3.0
as an integer, and the engine would then get a float where it counts seats, cards or coins."""


@cache
def _validators() -> tuple[Draft202012Validator, dict[str, Draft202012Validator]]:
    """The published schema split for speed: a validator of the document with its `commands`
    left out, and one per command type — the branch the schema's `allOf`/`if` dispatch selects
    (the `""` entry checks the `type` itself). Together they check exactly what the schema says,
    without trying fourteen branches on each of a game's thousand commands."""
    published = schema()
    defs = published["$defs"]
    command = defs["command"]
    document = {**published, "properties": {**published["properties"], "commands": True}}
    by_type = {
        branch["if"]["properties"]["type"]["const"]: RecordValidator(inlined(branch["then"], defs))
        for branch in command["allOf"]
    }
    by_type[""] = RecordValidator({key: value for key, value in command.items() if key != "allOf"})
    return RecordValidator(document), by_type


def _message(error: ValidationError) -> str:
    """The schema's complaint in a form people can act on."""
    if error.validator in ("anyOf", "oneOf") and error.context:
        # The branches' complaints: a wrong value beats a missing key beats an unexpected one.
        return _message(
            min(
                error.context,
                key=lambda e: (e.validator != "enum", e.validator == "additionalProperties"),
            )
        )
    schema = error.schema
    if error.validator == "pattern" and isinstance(schema, Mapping) and "description" in schema:
        return f"{error.instance!r} is not {schema['description']}"
    if error.json_path == "$.chance" and error.validator_value == "null":
        return "a tabletop record has no seed or deck (its commands name the cards): chance is null"
    if error.json_path == "$.chance" or error.message == "'chance' is a required property":
        return "a digital record needs chance: the seed of its shuffles and its deck order"
    shown = repr(error.instance)
    if len(shown) > 60:
        return error.message.replace(shown, f"{shown[:40]}…", 1)
    return error.message


def _schema_problem(document: dict[str, Any]) -> RecordError | None:
    """The most relevant schema violation, with its JSON path; None if the document conforms."""
    whole, by_type = _validators()
    problem = best_match(whole.iter_errors(document))
    if problem is not None:
        return RecordError(_message(problem), problem.json_path)
    commands = document["commands"]
    if not isinstance(commands, list):
        return RecordError(f"{commands!r} is not of type 'array'", "$.commands")
    for position, command in enumerate(commands):
        key = repr(command)
        if key in _VALID_COMMANDS:
            continue
        kind = command.get("type") if isinstance(command, dict) else None
        validator = by_type.get(kind) if isinstance(kind, str) and kind else None
        problem = best_match((validator or by_type[""]).iter_errors(command))
        if problem is not None:
            path = f"$.commands[{position}]{problem.json_path.removeprefix('$')}"
            return RecordError(_message(problem), path)
        if len(_VALID_COMMANDS) >= MAX_VALID_COMMANDS:
            _VALID_COMMANDS.clear()
        _VALID_COMMANDS.add(key)
    return None


def date_problem(text: str | None) -> str | None:
    """Why `text` is no date for a record's header (an ISO 8601 date, optionally with a time);
    None if it is one, or if there is none."""
    if text is None:
        return None
    described = schema()["$defs"]["header"]["properties"]["date"]
    if re.match(described["pattern"], text):
        try:
            datetime.fromisoformat(text)  # a date alone reads as its midnight
            return None
        except ValueError:
            pass
    return f"{text!r} is not {described['description']}"


def load_record(text: str | bytes) -> Record:
    """Parse a record from JSON text."""
    try:
        document = json_text.loads(text)
    except json_text.DuplicateKey as error:
        raise RecordError(str(error), error.path) from None
    except (json.JSONDecodeError, UnicodeDecodeError) as error:
        raise RecordError(f"not JSON: {error}") from None
    return parse_record(document)


def parse_record(document: Any) -> Record:
    """Check a document against the schema and the header's consistency; RecordError naming the
    JSON path of the first problem. Whether the commands are legal is `replay_record`'s question."""
    if not isinstance(document, dict):
        raise RecordError(f"a record is a JSON object, not {type(document).__name__}")
    version = document.get("format")
    if version not in FORMATS:
        found = "no format" if version is None else f"format {version!r}"
        raise RecordError(
            f"this service reads {' and '.join(FORMATS)} records, not {found}", "$.format"
        )
    invalid = _schema_problem(document)
    if invalid is not None:
        raise invalid
    header = document["header"]
    problem = date_problem(header.get("date"))
    if problem is not None:
        raise RecordError(problem, "$.header.date")
    seats = tuple(header["seats"])
    for seat, name in enumerate(seats):
        problem = name_problem(name)
        if problem is not None:
            raise RecordError(f"{name!r}: {problem}", f"$.header.seats[{seat}]")
    for text, path in _header_texts(header):
        if not printable(text):
            raise RecordError(f"{text!r}: {NOT_PRINTABLE}", path)
    start_seat = header["start_seat"]
    if start_seat >= len(seats):
        raise RecordError(
            f"start seat {start_seat} does not exist; seats are 0–{len(seats) - 1}",
            "$.header.start_seat",
        )
    ruleset = _ruleset(header["ruleset"], len(seats))
    hands = header.get("hands", KNOWN_HANDS)
    if hands != KNOWN_HANDS and header["mode"] != TABLETOP:
        raise RecordError("only a tabletop game has unknown hands", "$.header.hands")
    commands = _commands(document["commands"], hands)
    chance = document.get("chance") or {}
    deck = chance.get("deck")
    if deck is not None and sorted(deck) != sorted(full_deck(ruleset)):
        raise RecordError(
            f"the deck must hold exactly the {ruleset.deck_size} cards of the ruleset "
            f"({', '.join(f'{ruleset.counts[b]} {label(b)}' for b in ruleset.beans)})",
            "$.chance.deck",
        )
    record = Record(
        ruleset=ruleset,
        seats=seats,
        start_seat=start_seat,
        mode=header["mode"],
        commands=commands,
        seed=chance.get("seed"),
        deck=None if deck is None else tuple(deck),
        result=_result(document.get("result"), len(seats)),
        date=header.get("date"),
        place=header.get("place"),
        tags=tuple(header.get("tags", ())),
        annotations=tuple(document.get("annotations", ())),
        sandbox=header.get("sandbox", False),
        hands=hands,
    )
    if record.format != version and version == FORMAT:
        raise RecordError(
            f"this record uses what {FORMAT_2} added (unknown hands, notes, hands shown, "
            "corrections, hand_beans): its format must say so",
            "$.format",
        )
    return record


def _ruleset(data: dict[str, Any], players: int) -> Ruleset:
    """The header's ruleset: a reference resolved for the seats, or a resolved one checked."""
    path = "$.header.ruleset"
    if "beans" not in data:
        try:
            return resolve_ruleset(data["preset"], players, data.get("options"))
        except InvalidRuleset as error:
            raise RecordError(str(error), path) from None
    if data["players"] != players:
        raise RecordError(
            f"the ruleset is resolved for {data['players']} players, the record has {players} seats",
            f"{path}.players",
        )
    if len(data["deal"]) != players:
        raise RecordError(f"deal needs one hand size per seat ({players})", f"{path}.deal")
    for key in ("counts", "meters"):
        if set(data[key]) != set(data["beans"]):
            raise RecordError(f"{key} must name exactly the beans in play", f"{path}.{key}")
    for name, value in data["options"].items():
        try:
            OPTIONS[name].validate(value)
        except InvalidRuleset as error:
            raise RecordError(str(error), f"{path}.options.{name}") from None
    ruleset = Ruleset.from_dict(data)
    try:
        check_deal(ruleset)
    except InvalidRuleset as error:
        raise RecordError(str(error), f"{path}.deal") from None
    return ruleset


def _commands(items: list[dict[str, Any]], hands: str) -> tuple[Command, ...]:
    commands = []
    for position, item in enumerate(items):
        try:
            commands.append(parse_command(item))
        except MalformedCommand as error:
            raise RecordError(str(error), f"$.commands[{position}]") from None
    if hands == KNOWN_HANDS and commands and not isinstance(commands[0], cmd.Deal):
        raise RecordError(
            f"a record's commands begin with the deal, not {commands[0].type!r}",
            "$.commands[0]",
        )
    if hands != KNOWN_HANDS:
        for position, command in enumerate(commands):
            if isinstance(command, cmd.Deal):
                raise RecordError(
                    "a game with unknown hands names no deal: it was counted at the start",
                    f"$.commands[{position}]",
                )
    return tuple(commands)


_VERSION_2_COMMANDS = (cmd.NoteHand, cmd.ShowHand, cmd.Correct)


def effective_commands(commands: Sequence[Command]) -> list[Command]:
    """A record's commands with each correction applied to the entries before it: the commands
    of the game as corrected (no decision needed: a correction edits the list of entries)."""
    entries: list[Command] = []
    for command in commands:
        if not isinstance(command, cmd.Correct):
            entries.append(command)
            continue
        edited: list[Command] = []
        for index in range(len(entries) + 1):
            edited += [
                c.command
                for c in command.changes
                if c.entry == index and c.action == cmd.INSERT and c.command is not None
            ]
            if index == len(entries):
                break
            change = next(
                (c for c in command.changes if c.entry == index and c.action != cmd.INSERT), None
            )
            if change is None:
                edited.append(entries[index])
            elif change.action == cmd.REPLACE:
                assert change.command is not None
                edited.append(change.command)
        entries = edited
    return entries


def _result(data: dict[str, Any] | None, players: int) -> Result | None:
    if data is None:
        return None
    for key in ("scores", "hand_sizes"):
        if len(data[key]) != players:
            raise RecordError(f"{key} needs one number per seat ({players})", f"$.result.{key}")
    for index, seat in enumerate(data["winners"]):
        if seat >= players:
            raise RecordError(f"seat {seat} does not exist", f"$.result.winners[{index}]")
    return Result(
        tuple(data["scores"]), tuple(data["hand_sizes"]), tuple(data["winners"]), data["decided_by"]
    )


# --- re-deciding ---------------------------------------------------------------------------------


def _header_texts(header: dict[str, Any]) -> Iterator[tuple[str, str]]:
    """The header's free texts, place and tags, with their paths: shown and exported as they
    are, so they hold no control or invisible formatting character (as names do not)."""
    if header.get("place") is not None:
        yield header["place"], "$.header.place"
    for number, tag in enumerate(header.get("tags", ())):
        yield tag, f"$.header.tags[{number}]"


def replay_record(record: Record, *, ruleset: Ruleset | None = None) -> Replayed:
    """Re-decide every command from the start: under the record's own ruleset in its own mode,
    or, given `ruleset`, as a tabletop game under that ruleset (the cards named in the record
    must then be cards that ruleset's pile can hold)."""
    digital = ruleset is None and record.mode == DIGITAL
    rules = record.ruleset if ruleset is None else ruleset
    chance: dict[str, Any] = (
        {"seed": record.seed, "deck": record.deck}
        if digital
        else {"mode": TABLETOP, "hands": record.hands}
    )
    facts = start_game(
        rules, record.seats, start_seat=record.start_seat, sandbox=record.sandbox, **chance
    )
    state = fold(facts)
    # Under another ruleset the corrections are applied first: the game as corrected is checked.
    commands = record.commands if ruleset is None else effective_commands(record.commands)
    game = Corrected().extend(facts)
    for position, command in enumerate(commands):
        try:
            new = _decide(state, game.facts, position, command, digital)
        except (RuleViolation, MalformedCommand) as error:
            return Replayed(facts, state, Failure(position, command, error, state, len(facts)))
        facts += new
        game.extend(new)
        state = fold(new, state)
    return Replayed(facts, state, None)


def _decide(
    state: GameState, game: list[ev.Event], position: int, command: Command, digital: bool
) -> list[ev.Event]:
    """The facts of a record's command: a correction is decided on the game as corrected so
    far (`game`)."""
    if isinstance(command, cmd.Correct):
        try:
            return [decide_correction(game, command)]
        except Forbidden as error:
            raise MalformedCommand(str(error)) from None
    return _decide_digital(state, position, command) if digital else decide(state, command)


def _cards(cards: Sequence[str]) -> str:
    return ", ".join(label(bean) for bean in cards) or "no cards"


def _decide_digital(state: GameState, position: int, command: Command) -> list[ev.Event]:
    """Decide a record's command in a digital game: the deal and the cards named by reveals and
    draws must be the ones the shuffled deck gives (RULES §3.4, §10.1)."""
    if position == 0 and isinstance(command, cmd.Deal):
        if len(command.hands) != len(state.players):
            raise MalformedCommand(
                f"deal needs {len(state.players)} hands, one per seat, not {len(command.hands)}"
            )
        for seat, hand in enumerate(command.hands):
            dealt = state.players[seat].hand
            if tuple(hand) != dealt:
                raise RuleViolation(
                    "3.4",
                    f"the record deals {state.name(seat)} {_cards(hand)}, but the shuffled deck "
                    f"deals {_cards(dealt)}",
                )
        return []
    if not isinstance(command, cmd.Reveal | cmd.Draw):
        return decide(state, command)
    facts = decide(state, type(command)(command.seat))
    seen = ev.cards_off_the_pile(facts)
    if command.cards is not None and tuple(seen) != tuple(command.cards):
        verb = "reveal" if isinstance(command, cmd.Reveal) else "draw"
        raise RuleViolation(
            "10.1",
            f"the record has {state.name(command.seat)} {verb} {_cards(command.cards)}, but the "
            f"shuffled draw pile gives {_cards(seen)}",
        )
    return facts


def import_facts(record: Record) -> list[ev.Event]:
    """The facts an import stores: every command re-decided under the record's own ruleset.
    IllegalRecord for the first command refused; RecordError if the recorded result is not the
    one the commands give, or if its ruleset is not its preset's (`check_preset`)."""
    check_preset(record.ruleset)
    replayed = replay_record(record)
    if replayed.failure is not None:
        raise IllegalRecord(replayed.failure)
    decided = replayed.result
    if record.result is not None and decided != record.result:
        names = record.seats
        if decided is None:
            raise RecordError(
                f"the record states a result ({standing_text(record.result, names)}), but after "
                f"its last command the game is still on (turn {replayed.state.turn}, phase "
                f"{replayed.state.phase})",
                "$.result",
            )
        given = standing_text(decided, names)
        if decided.scores == record.result.scores:
            given += f"; the record is wrong about {wrong_in_result(record.result, decided, names)}"
        raise RecordError(
            f"the record states {standing_text(record.result, names)}, but its commands give "
            f"{given}",
            "$.result",
        )
    return replayed.facts


def check_preset(ruleset: Ruleset) -> None:
    """RecordError unless `ruleset` is what its preset, player count and options resolve to.

    A stored game is listed and ranked under its preset's name, so a record may not carry a
    ruleset of its own making under a preset's name (RULES §2, §15): the beanometers, deal or
    deck it changed would be counted as that preset's. Verification, which stores nothing,
    checks such a record under its own ruleset and says how it differs."""
    path = "$.header.ruleset"
    try:
        differing = preset_differences(ruleset)
    except InvalidRuleset as error:
        raise RecordError(f"a record's ruleset must be a preset's: {error}", path) from None
    if differing:
        raise RecordError(
            f"the ruleset differs from what {ruleset.preset} for {ruleset.players} players"
            f"{' with its options' if ruleset.options else ''} resolves to in: "
            f"{', '.join(differing)}; a record's ruleset must be its preset's, changed only by "
            "options (RULES §2, §15)",
            path,
        )


def wrong_in_result(recorded: Result, result: Result, names: Sequence[str]) -> str:
    """What a recorded result with the right scores gets wrong, e.g. "the winners (Ben → Ana)
    and the hand sizes (Ben 5 → 4)"."""
    parts = []
    if recorded.winners != result.winners:
        parts.append(
            f"the winners ({names_text(recorded.winners, names)} → "
            f"{names_text(result.winners, names)})"
        )
    if recorded.decided_by != result.decided_by:
        parts.append(
            f"the tie-break ({recorded.decided_by or 'none'} → {result.decided_by or 'none'})"
        )
    if recorded.hand_sizes != result.hand_sizes:
        parts.append(f"the hand sizes ({changes(recorded.hand_sizes, result.hand_sizes, names)})")
    return " and ".join(parts)


def names_text(seats: Sequence[int], names: Sequence[str]) -> str:
    """E.g. "Ana and Ben"."""
    return " and ".join(names[seat] for seat in seats)


def changes(before: Sequence[int], after: Sequence[int], names: Sequence[str]) -> str:
    """The seats whose number changed, e.g. "Ben 5 → 4, Cleo 2 → 3"."""
    return ", ".join(
        f"{names[seat]} {old} → {new}"
        for seat, (old, new) in enumerate(zip(before, after, strict=True))
        if old != new
    )


def standing_text(result: Result, names: Sequence[str]) -> str:
    """E.g. "Ana 12, Ben 12, Cleo 9 — Ben wins (tie broken by most hand cards)"."""
    scores = ", ".join(f"{names[seat]} {score}" for seat, score in enumerate(result.scores))
    winners = " and ".join(names[seat] for seat in result.winners)
    verb = "wins" if len(result.winners) == 1 else "share the win"
    return f"{scores} — {winners} {verb}{tie_break_text(result.decided_by)}"
