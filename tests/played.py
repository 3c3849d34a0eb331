"""Games finished by bots for tests that need a finished game, not the playing of it.

`finish_stored` stores the rest of a stored game's facts as bots would have decided them: the
same facts `domain.bots.play_stored` stores command by command, decided once per process (the
rules are deterministic for a given game and seeded bots) and stored in one save. The tests of
playing itself (the application, the API's commands, concurrency) play their games command by
command; the tests of replays, notes, records and forks start from a game that is over."""

from __future__ import annotations

import json
import random
from functools import cache
from uuid import UUID

from domain.application import Bohnanza
from domain.bots import BOTS, Table
from domain.rules import events as ev
from domain.rules.decide import decide
from domain.rules.evolve import fold
from domain.rules.state import GameState


def finish_stored(app: Bohnanza, game_id: UUID, *, seed: int, bot: str = "greedy") -> GameState:
    """Store the facts bots (one `bot` per seat, choosing with `random.Random(seed)`) would play
    from the game's current state to its end, in one save; the final state."""
    game = app.game(game_id)
    so_far = app.facts(game_id)
    rest = _rest(_key(so_far), bot, seed)
    game.record(list(rest))
    app.save(game)
    return game.state


def _key(facts: list[ev.Event]) -> str:
    return json.dumps([[fact.kind, fact.payload()] for fact in facts], sort_keys=True)


@cache
def _rest(so_far: str, bot: str, seed: int) -> tuple[ev.Event, ...]:
    """The facts that follow `so_far` (as `_key` writes them) when the bots play to the end."""
    facts = [ev.EVENT_TYPES[kind](**payload) for kind, payload in json.loads(so_far)]
    state = fold(facts)
    table = Table([BOTS[bot]() for _ in state.players], random.Random(seed))
    rest: list[ev.Event] = []
    while not state.is_over:
        decided = decide(state, table.next_command(state))
        state = fold(decided, state)
        rest += decided
    return tuple(rest)
