"""The event-sourced `Game` aggregate: a thin shell around the pure rules core.

Each command goes through `decide`; each resulting fact is triggered as a stored event whose
`apply` calls `evolve` (or, for a command just decided, takes the table deciding folded). The
stored event classes are generated from the rules' event vocabulary (`domain.rules.events`), one
class per fact with an explicit, stable topic `bohnanza:<Fact>`, so the vocabulary is written
down once. Changing a fact's fields later needs `class_version` and an upcaster on the stored
class.
"""

from __future__ import annotations

from dataclasses import fields
from typing import TYPE_CHECKING, Any, ClassVar, TypeVar, cast

from eventsourcing.domain import Aggregate
from eventsourcing.utils import register_topic

from .ids import new_game_id
from .rules import events as ev
from .rules.commands import Command
from .rules.decide import decided
from .rules.evolve import evolve

if TYPE_CHECKING:
    from datetime import datetime
    from uuid import UUID

    from .rules.state import GameState


class StoredFact:
    """Mixin for stored events that carry one rules event (a "fact")."""

    fact_type: ClassVar[type[ev.Event]]
    fact_fields: ClassVar[tuple[str, ...]]

    if TYPE_CHECKING:  # what the stored event class it is mixed into has
        originator_version: int
        timestamp: datetime

    def fact(self) -> ev.Event:
        """The rules event this stored event records."""
        return self.fact_type(**{name: getattr(self, name) for name in self.fact_fields})

    def apply(self, game: Game) -> None:
        ahead = game.__dict__.get(_FOLDED_AHEAD)
        if ahead:  # `Game.execute` decided this fact and folded it already
            game.state = ahead.pop(0)
        else:
            game.state = evolve(getattr(game, "state", None), self.fact())


_FOLDED_AHEAD = "_folded_ahead"
"""While `Game.execute` records the facts it decided: the table after each of them, as deciding
folded it, for each stored event's `apply` to take instead of folding its fact again. Only ever
set for that call (never in a snapshot or a cached copy)."""


_Base = TypeVar("_Base", bound=Aggregate.Event)


def _stored_class(fact_type: type[ev.Event], base: type[_Base], **versioning: Any) -> type[_Base]:
    """The stored event class of a fact; `versioning` gives it `class_version` and the
    `upcast_vN_vN+1` static methods that bring older stored events up to date."""
    name = fact_type.__name__
    stored = type(
        name,
        (StoredFact, base),
        {
            "__annotations__": {field.name: field.type for field in fields(fact_type)},
            "__module__": __name__,
            "__qualname__": f"Game.{name}",
            "TOPIC": f"bohnanza:{name}",
            "fact_type": fact_type,
            "fact_fields": tuple(field.name for field in fields(fact_type)),
            **versioning,
        },
    )
    return cast("type[_Base]", stored)  # a subclass of `base`, made by type()


def _started_v1_v2(state: dict[str, Any]) -> None:
    """GameStarted v2 added `sandbox`: every game stored before it was a played game."""
    state["sandbox"] = False


def _started_v2_v3(state: dict[str, Any]) -> None:
    """GameStarted v3 added `hands`: every game stored before it had known hands."""
    state["hands"] = "known"


class Game(Aggregate):
    """One game of Bohnanza. Its only state is `state`, the rules' immutable `GameState` (not a
    class annotation: annotations would make the aggregate a dataclass with that constructor)."""

    TOPIC = "bohnanza:Game"

    if TYPE_CHECKING:  # not at run time: see above
        state: GameState

    class Event(Aggregate.Event):
        TOPIC = "bohnanza:Game.Event"

    Created = _stored_class(
        ev.GameStarted,
        Aggregate.Created,
        class_version=3,
        upcast_v1_v2=staticmethod(_started_v1_v2),
        upcast_v2_v3=staticmethod(_started_v2_v3),
    )

    @staticmethod
    def create_id(*_: Any, **__: Any) -> UUID:
        """A new game's id, in time order (domain/ids.py)."""
        return new_game_id()

    def __deepcopy__(self, memo: dict[int, Any]) -> Game:
        """A deep copy, for the library's aggregate cache (which copies the cached game for
        every command): everything the game holds is immutable (its id, version, dates and
        `GameState`) but the list of pending events, so a new object with its own list is one.
        Python's generic deep copy had rebuilt the id and the dates on every command."""
        copied = object.__new__(type(self))
        copied.__dict__.update(self.__dict__)
        copied._pending_events = list(self._pending_events)
        return copied

    @classmethod
    def start(cls, started: ev.GameStarted, *, game_id: Any = None) -> Game:
        """A new game from its first fact."""
        return cls._create(cls.Created, id=game_id, **started.payload())

    def record(self, facts: list[ev.Event]) -> None:
        """Trigger stored events for facts already decided (the deal, an import)."""
        for fact in facts:
            self.trigger_event(STORED_TYPES[type(fact)], **fact.payload())

    def execute(self, command: Command) -> list[ev.Event]:
        """Decide `command` on the current state and record the facts it causes (a correction
        is decided on the game's record, by `Bohnanza.execute`). Deciding folds the facts as
        it goes; their stored events take those tables instead of folding them again."""
        facts, states = decided(self.state, command)
        assert len(states) == len(facts), "deciding folds each fact it emits"
        self.__dict__[_FOLDED_AHEAD] = states
        try:
            self.record(facts)
        finally:
            del self.__dict__[_FOLDED_AHEAD]
        return facts


STORED_TYPES: dict[type[ev.Event], type[Any]] = {ev.GameStarted: Game.Created}
for _fact_type in ev.EVENT_TYPES.values():
    if _fact_type is not ev.GameStarted:
        _stored = _stored_class(_fact_type, Game.Event)
        setattr(Game, _fact_type.__name__, _stored)
        register_topic(_stored.TOPIC, _stored)
        STORED_TYPES[_fact_type] = _stored
