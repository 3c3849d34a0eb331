"""What-if forks: a sandbox game that starts from the first steps of another, linked to it.

The fork is a tabletop game with the parent's resolved ruleset, reached by re-deciding the parent's
commands in tabletop form (each reveal and draw naming its cards), so from the fork point on the
analyst chooses every card that comes off the pile. A fork starts at a command boundary: asked for
step k, it takes every whole command whose facts end at or before k. Its GameStarted says
`sandbox`: a fork is played like any game, but no standing (the leaderboard) counts it.

Both games get a `Lineage` record (event-sourced): the fork knows its parent and the step it left
from; the parent lists its forks. The fork and both records are saved in one transaction.

A comparison of a fork with its parent shows each game's coins as that game's view shows them to
the one asking: a running game's secret treasuries stay secret there too.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any
from uuid import NAMESPACE_URL, UUID, uuid5

from eventsourcing.domain import Aggregate, event

from domain.aggregate import Game
from domain.application import Bohnanza
from domain.ids import new_game_id
from domain.rules import events as ev
from domain.rules.decide import decide, start_game
from domain.rules.errors import Conflict, InvalidInput, NotFound
from domain.rules.evolve import fold
from domain.rules.rulesets import Ruleset
from domain.rules.state import TABLETOP, GameState
from domain.rules.transcript import commands_from_facts
from projections.views import AUDITOR_VIEWER, Viewer, render, view_of

SAVE_ATTEMPTS = 10
"""How many times a fork is tried while other forks of its parent are stored at once."""


class Lineage(Aggregate):
    """Where a game came from (if it is a fork) and the forks made from it."""

    TOPIC = "bohnanza:Lineage"

    class Event(Aggregate.Event):
        TOPIC = "bohnanza:Lineage.Event"

    @staticmethod
    def create_id(game_id: str) -> UUID:
        return uuid5(NAMESPACE_URL, f"/bohnanza/games/{game_id}/lineage")

    @event("Opened", topic="bohnanza:LineageOpened")
    def __init__(self, game_id: str) -> None:
        self.game_id = game_id
        self.parent: dict[str, Any] | None = None
        self.forks: list[dict[str, Any]] = []

    @event("ForkedFrom", topic="bohnanza:ForkedFrom")
    def forked_from(self, parent: str, step: int) -> None:
        self.parent = {"game_id": parent, "step": step}

    @event("ForkAdded", topic="bohnanza:ForkAdded")
    def fork_added(self, fork: str, step: int) -> None:
        self.forks.append({"game_id": fork, "step": step})


@dataclass(frozen=True, slots=True)
class Fork:
    game_id: UUID
    parent: UUID
    step: int
    """The parent's step the fork continues from (its last fact is the parent's fact `step`)."""
    facts: list[ev.Event]


def _lineage(app: Bohnanza, game_id: UUID) -> Lineage:
    found = app.find(Lineage.create_id(str(game_id)), Lineage)
    return Lineage(game_id=str(game_id)) if found is None else found


def fork_facts(facts: Sequence[ev.Event], step: int) -> list[ev.Event]:
    """The facts of a tabletop game replaying `facts` command by command up to step `step`."""
    if not 1 <= step <= len(facts):
        raise InvalidInput(f"step {step} does not exist; this game has steps 1–{len(facts)}")
    first = facts[0]
    assert isinstance(first, ev.GameStarted)
    ruleset = Ruleset.from_dict(first.ruleset)
    replayed = start_game(
        ruleset,
        first.seats,
        start_seat=first.start_seat,
        mode=TABLETOP,
        sandbox=True,
        hands=first.hands,
    )
    state: GameState = fold(replayed)
    for command in commands_from_facts(facts, tabletop=True):
        new = decide(state, command)
        if len(replayed) + len(new) > step:
            break
        replayed += new
        state = fold(new, state)
    return replayed


def create_fork(
    app: Bohnanza,
    parent: UUID,
    step: int,
    *,
    fork_id: UUID | None = None,
    request_key: str | None = None,
) -> Fork:
    """Store a new tabletop game continuing from `parent`'s step `step` (of the game as
    corrected), and link the two. With
    `request_key` (and the `fork_id` chosen before the first attempt), the fork is stored once:
    AlreadyApplied if an earlier attempt with the key stored it (`Bohnanza.save_new`)."""
    facts = fork_facts(app.corrected_facts(parent), step)
    first, *rest = facts
    assert isinstance(first, ev.GameStarted)
    fork_id = fork_id or new_game_id()
    attempt = 1
    while True:
        game = Game.start(first, game_id=fork_id)
        game.record(rest)
        origin = Lineage(game_id=str(fork_id))
        origin.forked_from(str(parent), len(facts))
        family = _lineage(app, parent)
        family.fork_added(str(fork_id), len(facts))
        try:
            app.save_new(game, origin, family, request_key=request_key)
        except Conflict:
            if attempt == SAVE_ATTEMPTS:
                raise
            attempt += 1  # another fork of the parent was stored first: list this one after it
            continue
        return Fork(fork_id, parent, len(facts), facts)


def forks_of(app: Bohnanza, game_id: UUID) -> list[dict[str, Any]]:
    """The forks made from a game: [{game_id, step}], oldest first."""
    return list(_lineage(app, game_id).forks)


def parent_of(app: Bohnanza, game_id: UUID) -> dict[str, Any] | None:
    """{game_id, step} of the game this one was forked from, or None."""
    return _lineage(app, game_id).parent


def ancestors(app: Bohnanza, game_id: UUID) -> list[UUID]:
    """The games this one descends from, its parent first; none for a game played from the
    start."""
    found: list[UUID] = []
    parent = parent_of(app, game_id)
    while parent is not None and (ancestor := UUID(parent["game_id"])) not in found:
        found.append(ancestor)
        parent = parent_of(app, ancestor)
    return found


def _everything(game_id: UUID) -> Viewer:
    """The command line's eyes: the operator holds the store, so every coin is theirs to see."""
    return AUDITOR_VIEWER


def _outcome(facts: Sequence[ev.Event], viewer: Viewer) -> dict[str, Any]:
    """A game's outcome as `viewer` sees it. Its coins are the ones the game's view renders for
    that viewer (`render`, which keeps a secret treasury's coins from whoever may not see them
    while the game runs), so a comparison tells no more than the views."""
    shown = render(view_of(facts, viewer), viewer)
    result = shown["result"]
    if result is None:
        return {
            "status": "in-progress",
            "scores": [seat["coins"] for seat in shown["seats"]],
            "winners": None,
            "decided_by": None,
        }
    return {
        "status": "ended",
        "scores": result["scores"],
        "winners": result["winners"],
        "decided_by": result["decided_by"],
    }


def compare(
    app: Bohnanza, fork: UUID, *, viewer_in: Callable[[UUID], Viewer] = _everything
) -> dict[str, Any]:
    """The fork's outcome beside its parent's: scores (coins so far if running) and winners, each
    game's as `viewer_in(its id)` may see them (a coin hidden from it is None); `same_outcome`
    is None while either game is still running (there is no outcome yet, and a running game's
    scores may be hidden)."""
    origin = parent_of(app, fork)
    if origin is None:
        raise NotFound(f"game {fork} is not a fork: there is no parent to compare it with")
    parent = UUID(origin["game_id"])
    mine = _outcome(app.corrected_facts(fork), viewer_in(fork))
    theirs = _outcome(app.corrected_facts(parent), viewer_in(parent))
    same = None
    if mine["status"] == theirs["status"] == "ended":
        same = (mine["scores"], mine["winners"]) == (theirs["scores"], theirs["winners"])
    return {
        "fork": {"game_id": fork, **mine},
        "parent": {"game_id": parent, **theirs},
        "step": origin["step"],
        "same_outcome": same,
    }
