"""The pure rules core: no storage, no web, no clock, no randomness beyond the game's own seed.

`start_game` and `decide` turn commands into events; `evolve` applies events to a `GameState`;
`legal_commands` lists what a seat may do. Live play, replays, audits and forks all run this code.
"""

from .commands import Command, parse_command
from .decide import decide, start_game
from .errors import (
    BohnanzaError,
    Conflict,
    InvalidRuleset,
    MalformedCommand,
    NotFound,
    RuleViolation,
)
from .events import Event
from .evolve import evolve, fold
from .legal import Legal, chance_step, host_legal_commands, legal_commands
from .rulesets import Ruleset, resolve_ruleset
from .state import GameState, Phase

__all__ = [
    "BohnanzaError",
    "Command",
    "Conflict",
    "Event",
    "GameState",
    "InvalidRuleset",
    "Legal",
    "MalformedCommand",
    "NotFound",
    "Phase",
    "RuleViolation",
    "Ruleset",
    "chance_step",
    "decide",
    "evolve",
    "fold",
    "host_legal_commands",
    "legal_commands",
    "parse_command",
    "resolve_ruleset",
    "start_game",
]
