"""Commands: what a seat (or, for chance in tabletop games, the recorder) asks to do.

Every command has a JSON form `{"type": "plant", "seat": 0, "field": 1}`; `parse_command` checks
its shape and raises MalformedCommand for anything that makes no sense in any game. Whether it is
legal *now* is `decide`'s question. Seats, fields and hand positions count from 0 (front card = 0);
messages for people count fields from 1.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import MISSING, dataclass, fields
from functools import cache
from typing import Any, ClassVar

from .beans import BEANS
from .errors import MalformedCommand
from .state import UNSEEN
from .values import written_out


@dataclass(frozen=True, slots=True)
class Command:
    type: ClassVar[str] = ""
    omitted_when_none: ClassVar[frozenset[str]] = frozenset()
    """Fields left out of the JSON form when None: fields added after records were first written,
    so that the commands of every older game read as they always did."""

    def to_dict(self) -> dict[str, Any]:
        """The command's JSON form. (Each command type has its own, written out from its fields:
        `_compiled_to_dict`.)"""
        data: dict[str, Any] = {"type": self.type}
        omitted = self.omitted_when_none
        for name in _field_names(type(self)):  # type: ignore[arg-type]  # hashable (python/mypy#20409)
            value = getattr(self, name)
            if value is None and name in omitted:
                continue
            if isinstance(value, tuple):
                value = [list(v) if isinstance(v, tuple) else v for v in value]
            data[name] = value
        return data


@cache
def _field_names(cls: type[Command]) -> tuple[str, ...]:
    """A command class's field names, in order (`dataclasses.fields` is slow to ask each time:
    every legal command in every view is turned into a dict)."""
    return tuple(field.name for field in fields(cls))


@dataclass(frozen=True, slots=True)
class Deal(Command):
    """Tabletop with known hands: the opening hands as dealt, one list per seat, front card first
    (RULES §3.4). (With unknown hands the deal is counted when the game is created.)"""

    type: ClassVar[str] = "deal"
    hands: tuple[tuple[str, ...], ...]


@dataclass(frozen=True, slots=True)
class Plant(Command):
    """Plant a card into `field`: the front hand card in phase 1 (`bean` optional and checked if
    the card is known, required if nobody has seen it), a trade-area card in phase 3, an offered or
    drawn card in the duel (`bean` required there)."""

    type: ClassVar[str] = "plant"
    seat: int
    field: int
    bean: str | None = None


@dataclass(frozen=True, slots=True)
class Reveal(Command):
    """End planting and turn the top cards face up (RULES §5.2). Tabletop games name the cards
    seen."""

    type: ClassVar[str] = "reveal"
    seat: int
    cards: tuple[str, ...] | None = None


@dataclass(frozen=True, slots=True)
class Offer(Command):
    """Offer hand cards (by position), face-up cards and (house rule) trade-area cards to `to`,
    for the beans in `wants`. An empty side makes it a donation or a request for one (RULES §6).
    `hand_beans` names the beans of the hand cards, in the order of `hand`: required for a card
    nobody has seen (a game with unknown hands), checked for a known one."""

    type: ClassVar[str] = "offer"
    seat: int
    to: int
    hand: tuple[int, ...] = ()
    revealed: tuple[str, ...] = ()
    trade_area: tuple[str, ...] = ()
    wants: tuple[str, ...] = ()
    hand_beans: tuple[str, ...] | None = None

    omitted_when_none: ClassVar[frozenset[str]] = frozenset({"hand_beans"})


@dataclass(frozen=True, slots=True)
class Accept(Command):
    """Accept offer `offer`, giving exactly the wanted beans from these hand positions and cards.
    `hand_beans` as for an offer; it may be left out when the wanted beans say which is which."""

    type: ClassVar[str] = "accept"
    seat: int
    offer: int
    hand: tuple[int, ...] = ()
    revealed: tuple[str, ...] = ()
    trade_area: tuple[str, ...] = ()
    hand_beans: tuple[str, ...] | None = None

    omitted_when_none: ClassVar[frozenset[str]] = frozenset({"hand_beans"})


@dataclass(frozen=True, slots=True)
class Decline(Command):
    """Decline offer `offer`, made to this seat."""

    type: ClassVar[str] = "decline"
    seat: int
    offer: int


@dataclass(frozen=True, slots=True)
class Withdraw(Command):
    """Withdraw this seat's own open offer `offer`."""

    type: ClassVar[str] = "withdraw"
    seat: int
    offer: int


@dataclass(frozen=True, slots=True)
class EndTrading(Command):
    """The active player ends phase 2."""

    type: ClassVar[str] = "end-trading"
    seat: int


@dataclass(frozen=True, slots=True)
class Harvest(Command):
    """Harvest `field`: the beanometer's coins to the seat, the other cards to the discard pile
    (RULES §8)."""

    type: ClassVar[str] = "harvest"
    seat: int
    field: int


@dataclass(frozen=True, slots=True)
class BuyField(Command):
    """Buy the third bean field (RULES §9)."""

    type: ClassVar[str] = "buy-field"
    seat: int


@dataclass(frozen=True, slots=True)
class Draw(Command):
    """Phase 4: draw to the back of the hand. Tabletop games with known hands name the cards
    drawn; with unknown hands they go into the hand unseen (no `cards`, or UNSEEN ones)."""

    type: ClassVar[str] = "draw"
    seat: int
    cards: tuple[str, ...] | None = None


@dataclass(frozen=True, slots=True)
class DiscardOffered(Command):
    """Duel step 1: discard one of the cards the opponent offered."""

    type: ClassVar[str] = "discard-offered"
    seat: int
    bean: str


@dataclass(frozen=True, slots=True)
class DiscardFromHand(Command):
    """Duel step 2: discard the card at `position` (0 = front) after planting; `bean` as for a
    plant from the hand."""

    type: ClassVar[str] = "discard-from-hand"
    seat: int
    position: int
    bean: str | None = None

    omitted_when_none: ClassVar[frozenset[str]] = frozenset({"bean"})


@dataclass(frozen=True, slots=True)
class OfferRest(Command):
    """Duel step 3: stop planting drawn cards; the rest become the offer to the opponent."""

    type: ClassVar[str] = "offer-rest"
    seat: int


@dataclass(frozen=True, slots=True)
class NoteHand(Command):
    """A game with unknown hands: a seat notes, for its own view only, the beans it holds, front
    first (UNSEEN where it notes none). It names no card for the game."""

    type: ClassVar[str] = "note-hand"
    seat: int
    cards: tuple[str, ...]


@dataclass(frozen=True, slots=True)
class ShowHand(Command):
    """After the end of a game with unknown hands: a seat's hand shown to the table, front first."""

    type: ClassVar[str] = "show-hand"
    seat: int
    cards: tuple[str, ...]


@dataclass(frozen=True, slots=True)
class Change:
    """One change of a correction: replace, delete or insert (before) entry `entry`."""

    entry: int
    action: str
    command: Command | None = None

    def to_dict(self) -> dict[str, Any]:
        return {
            "entry": self.entry,
            "action": self.action,
            "command": None if self.command is None else self.command.to_dict(),
        }


REPLACE, DELETE, INSERT = "replace", "delete", "insert"
ACTIONS = (REPLACE, DELETE, INSERT)


@dataclass(frozen=True, slots=True)
class Correct(Command):
    """The host corrects the record of a tabletop game: the changes, each to an entry (a command,
    numbered from 0 in the game as it stands), applied together."""

    type: ClassVar[str] = "correct"
    changes: tuple[Change, ...]

    def to_dict(self) -> dict[str, Any]:
        return {"type": self.type, "changes": [change.to_dict() for change in self.changes]}


@dataclass(frozen=True, slots=True)
class Undo(Command):
    """The host takes back the last entry of a tabletop game (a correction deleting it)."""

    type: ClassVar[str] = "undo"


COMMAND_TYPES: dict[str, type[Command]] = {
    cls.type: cls
    for cls in (
        Deal,
        Plant,
        Reveal,
        Offer,
        Accept,
        Decline,
        Withdraw,
        EndTrading,
        Harvest,
        BuyField,
        Draw,
        DiscardOffered,
        DiscardFromHand,
        OfferRest,
        NoteHand,
        ShowHand,
        Correct,
        Undo,
    )
}


_SCALARS = frozenset(("int", "str", "str | None"))
"""Field types whose values go into the JSON form as they are."""


def _compiled_to_dict(cls: type[Command]) -> Callable[[Command], dict[str, Any]]:
    """`cls.to_dict` written out from its fields, as the generic `Command.to_dict` makes it:
    tuples as lists (and tuples in them), the fields of `omitted_when_none` left out when None,
    in field order. Every legal command of every view a seat is sent goes through it; the
    generic loop over the fields took several times as long."""
    lines = ["def to_dict(self):", f"    data = {{'type': {cls.type!r}}}"]
    for field in fields(cls):
        name = field.name
        value = "v"
        if field.type == "tuple[tuple[str, ...], ...]":
            value = "([list(i) if i.__class__ is tuple else i for i in v] if v.__class__ is tuple else v)"
        elif field.type not in _SCALARS:
            value = "(list(v) if v.__class__ is tuple else v)"
        lines.append(f"    v = self.{name}")
        if name in cls.omitted_when_none:
            lines.append(f"    if v is not None: data[{name!r}] = {value}")
        else:
            lines.append(f"    data[{name!r}] = {value}")
    lines.append("    return data")
    to_dict: Callable[[Command], dict[str, Any]] = written_out(
        "to_dict", lines, {}, Command.to_dict.__doc__
    )
    return to_dict


for _cls in COMMAND_TYPES.values():
    if "to_dict" not in vars(_cls):  # Correct writes its own
        setattr(_cls, "to_dict", _compiled_to_dict(_cls))  # noqa: B010  # a method per class


def _int(name: str, value: Any) -> int:
    if not isinstance(value, int) or isinstance(value, bool):
        raise MalformedCommand(f"{name} must be a whole number, not {value!r}")
    if value < 0:
        raise MalformedCommand(f"{name} must not be negative, not {value}")
    return value


def _bean(name: str, value: Any) -> str:
    if not isinstance(value, str) or value.lower() not in BEANS:
        raise MalformedCommand(f"{name}: unknown bean {value!r}; beans are {', '.join(BEANS)}")
    return value.lower()


def _list(name: str, value: Any) -> list[Any]:
    if not isinstance(value, list | tuple):
        raise MalformedCommand(f"{name} must be a list, not {value!r}")
    return list(value)


def _ints(name: str, value: Any) -> tuple[int, ...]:
    items = tuple(_int(f"{name}[{i}]", v) for i, v in enumerate(_list(name, value)))
    if len(set(items)) != len(items):
        raise MalformedCommand(f"{name} names a position twice: {list(items)}")
    return items


def _beans(name: str, value: Any) -> tuple[str, ...]:
    return tuple(_bean(f"{name}[{i}]", v) for i, v in enumerate(_list(name, value)))


def _card(name: str, value: Any) -> str:
    """A bean, or UNSEEN ("?") for a card nobody has seen."""
    return UNSEEN if value == UNSEEN else _bean(name, value)


def _cards(name: str, value: Any) -> tuple[str, ...]:
    return tuple(_card(f"{name}[{i}]", v) for i, v in enumerate(_list(name, value)))


def _hands(name: str, value: Any) -> tuple[tuple[str, ...], ...]:
    return tuple(_cards(f"{name}[{i}]", hand) for i, hand in enumerate(_list(name, value)))


def _changes(name: str, value: Any) -> tuple[Change, ...]:
    items = _list(name, value)
    if not items:
        raise MalformedCommand(f"{name} must name at least one change")
    return tuple(_change(f"{name}[{i}]", item) for i, item in enumerate(items))


def _change(name: str, value: Any) -> Change:
    if not isinstance(value, dict):
        raise MalformedCommand(f"{name} must be an object with entry, action and command")
    unknown = sorted(set(value) - {"entry", "action", "command"})
    if unknown:
        raise MalformedCommand(
            f"{name} has no field {unknown[0]!r}; fields: entry, action, command"
        )
    entry = _int(f"{name}.entry", value.get("entry"))
    action = value.get("action")
    if action not in ACTIONS:
        raise MalformedCommand(f"{name}.action must be one of {', '.join(ACTIONS)}, not {action!r}")
    command = value.get("command")
    if action == DELETE:
        if command is not None:
            raise MalformedCommand(f"{name}: a deletion names no command")
        return Change(entry, action)
    if command is None:
        raise MalformedCommand(f"{name}: a {action} needs the command")
    parsed = parse_command(command)
    if isinstance(parsed, Correct | Undo):
        raise MalformedCommand(f"{name}: a correction changes entries, not corrections")
    return Change(entry, action, parsed)


_PARSERS = {
    "seat": _int,
    "to": _int,
    "field": _int,
    "offer": _int,
    "position": _int,
    "bean": _bean,
    "cards": _cards,
    "hand": _ints,
    "revealed": _beans,
    "trade_area": _beans,
    "wants": _beans,
    "hands": _hands,
    "hand_beans": _beans,
    "changes": _changes,
}


@cache
def _parser(cls: type[Command]) -> Callable[[dict[str, Any]], Command]:
    """How `parse_command` reads a command class, written out from its fields (every command a
    seat sends is read by it; a loop over a table of the fields took twice as long): the keys
    its JSON form may hold; then each field in order, its absence refused if it is required,
    null kept if it may be null, otherwise read by its parser (`_PARSERS`)."""
    names = [field.name for field in fields(cls)]
    namespace: dict[str, Any] = {
        "Malformed": MalformedCommand,
        "cls": cls,
        "known": frozenset({"type", *names}),
        "fields_text": ", ".join(names),
    }
    lines = [
        "def parse(data):",
        "    if not data.keys() <= known:",
        "        unknown = sorted(data.keys() - known)",
        f"        raise Malformed(f'{cls.type} has no field {{unknown[0]!r}}; fields: {{fields_text}}')",
    ]
    for number, field in enumerate(fields(cls)):
        name, value = field.name, f"v{number}"
        namespace[f"parse_{name}"] = _PARSERS[name]
        namespace[f"default_{name}"] = field.default
        read = f"parse_{name}({name!r}, {value})"
        if field.default is None:
            read = f"None if {value} is None else {read}"
        missing = (
            f'raise Malformed("{cls.type} needs {name!r}")'
            if field.default is MISSING
            else f"{value} = default_{name}"
        )
        lines += [
            f"    if {name!r} in data:",
            f"        {value} = data[{name!r}]",
            f"        {value} = {read}",
            "    else:",
            f"        {missing}",
        ]
    lines.append(f"    return cls({', '.join(f'v{number}' for number in range(len(names)))})")
    parse: Callable[[dict[str, Any]], Command] = written_out("parse", lines, namespace, None)
    return parse


def parse_command(data: Any) -> Command:
    """The command a JSON object describes, or MalformedCommand saying what is wrong with it."""
    if not isinstance(data, dict):
        raise MalformedCommand(f"a command is a JSON object, not {type(data).__name__}")
    kind = data.get("type")
    cls = COMMAND_TYPES.get(kind) if isinstance(kind, str) else None
    if cls is None:
        raise MalformedCommand(
            f"unknown command type {kind!r}; types are {', '.join(COMMAND_TYPES)}"
        )
    return _parser(cls)(data)  # type: ignore[arg-type]  # hashable (python/mypy#20409)
