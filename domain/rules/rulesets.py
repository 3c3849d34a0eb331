"""Rulesets as data: presets per player count (RULES §2, §15) and the options a game may change.

A game stores its fully resolved `Ruleset` in its first event, so a later change to a preset never
changes an old game. The engine reads only the resolved values; presets and options exist to build
them.
"""

from __future__ import annotations

import dataclasses
import json
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from .beans import BASE_BEANS, BEANS, Meter
from .errors import InvalidRuleset

ANY_TIME = "any-time"
OWN_TURN = "own-turn"
DISCARD_PILE = "discard-pile"
OUT_OF_GAME = "out-of-game"
MOST_HAND_CARDS = "most-hand-cards"
SEAT_DISTANCE = "seat-distance"
SHARED = "shared"


@dataclass(frozen=True, slots=True)
class Ruleset:
    """Every rule value the engine reads, resolved for one player count."""

    preset: str
    players: int
    beans: tuple[str, ...]
    """Bean types in play, in RULES §1.1 table order."""
    counts: Mapping[str, int]
    meters: Mapping[str, Meter]
    deal: tuple[int, ...]
    """Cards dealt to each seat, clockwise from the start seat (RULES §2.1: 3/4/5/6 at 6–7)."""
    fields_at_start: int
    third_field: bool
    """Whether a third field may be bought (RULES §9)."""
    third_field_cost: int
    third_field_coins_to: str
    buy_timing: str
    reveal: int
    """Cards turned face up in phase 2 (the duel's step 3 draws this many)."""
    draw: int
    """Cards drawn in phase 4 (the duel's step 4)."""
    end_on_exhaustion: int
    """The game ends on this exhaustion of the draw pile (RULES §10.3)."""
    tie_break: tuple[str, ...]
    harvest_timing: str
    bean_protection: str
    trading: bool
    allow_retrade: bool
    implicit_harvest: bool
    end_trigger: str
    coin_counts_visible: bool
    discard_pile_browsable: bool
    reshuffle: str
    empty_reshuffle: str
    options: Mapping[str, Any]
    """The options given at creation, as given (after validation), for the record."""

    @property
    def duel(self) -> bool:
        """True for the 2-player bean duel (RULES §11)."""
        return self.players == 2

    @property
    def deck_size(self) -> int:
        return sum(self.counts[bean] for bean in self.beans)

    def to_dict(self) -> dict[str, Any]:
        """JSON primitives, for the GameStarted event."""
        data = {field.name: getattr(self, field.name) for field in dataclasses.fields(self)}
        data["beans"] = list(self.beans)
        data["counts"] = dict(self.counts)
        data["meters"] = {bean: list(meter) for bean, meter in self.meters.items()}
        data["deal"] = list(self.deal)
        data["tie_break"] = list(self.tie_break)
        data["options"] = {
            k: list(v) if isinstance(v, tuple) else v for k, v in self.options.items()
        }
        return data

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> Ruleset:
        """Inverse of `to_dict`."""
        values = dict(data)
        values["beans"] = tuple(values["beans"])
        values["counts"] = dict(values["counts"])
        values["meters"] = {bean: tuple(meter) for bean, meter in values["meters"].items()}
        values["deal"] = tuple(values["deal"])
        values["tie_break"] = tuple(values["tie_break"])
        values["options"] = dict(values["options"])
        return cls(**values)


@dataclass(frozen=True, slots=True)
class Preset:
    """A named edition: a description, its player counts and its values per player count."""

    id: str
    description: str
    source: str
    rows: Mapping[int, Mapping[str, Any]]

    @property
    def player_counts(self) -> tuple[int, ...]:
        return tuple(sorted(self.rows))

    @property
    def section(self) -> str:
        """The RULES section with its table by player count, e.g. "2.1"."""
        return self.source.removeprefix("RULES §")


def _all_but(*removed: str) -> tuple[str, ...]:
    return tuple(bean for bean in BEANS if bean not in removed)


_COMMON: dict[str, Any] = {
    "deal": 5,
    "fields_at_start": 2,
    "third_field": True,
    "third_field_cost": 3,
    "third_field_coins_to": DISCARD_PILE,
    "buy_timing": ANY_TIME,
    "reveal": 2,
    "draw": 3,
    "end_on_exhaustion": 3,
    "tie_break": (MOST_HAND_CARDS, SHARED),
    "harvest_timing": ANY_TIME,
    "bean_protection": "amigo",
    "trading": True,
    "allow_retrade": False,
    "implicit_harvest": False,
    "end_trigger": "last-card",
    "coin_counts_visible": True,
    "discard_pile_browsable": False,
    "reshuffle": "immediate",
    "empty_reshuffle": "cascade",
}

_RG_FOUR_FIVE = {"beans": _all_but("coffee")}
_RG_SIX_SEVEN = {
    "beans": _all_but("cocoa", "garden"),
    "deal": (3, 4, 5, 6),
    "third_field_cost": 2,
    "draw": 4,
}
_AMIGO_FOUR_FIVE = {"beans": BASE_BEANS, "third_field": False, "tie_break": (SEAT_DISTANCE,)}
_A97 = {"beans": BASE_BEANS}

PRESETS: dict[str, Preset] = {
    preset.id: preset
    for preset in (
        Preset(
            "rio-grande",
            "Rio Grande Games English edition, 2–7 players, 154 cards of 11 types (the default)",
            "RULES §2.1",
            {
                2: {
                    "beans": _all_but("garden", "cocoa"),
                    "third_field_coins_to": OUT_OF_GAME,
                    "reveal": 3,
                    "draw": 2,
                    "end_on_exhaustion": 1,
                    "harvest_timing": OWN_TURN,
                    "trading": False,
                },
                3: {
                    "beans": _all_but("cocoa"),
                    "fields_at_start": 3,
                    "third_field": False,
                    "end_on_exhaustion": 2,
                },
                4: _RG_FOUR_FIVE,
                5: _RG_FOUR_FIVE,
                6: _RG_SIX_SEVEN,
                7: _RG_SIX_SEVEN,
            },
        ),
        Preset(
            "amigo",
            "Current AMIGO base game, 3–5 players, 104 cards of 8 types, no third-field purchase",
            "RULES §2.3",
            {
                3: {**_AMIGO_FOUR_FIVE, "fields_at_start": 3},
                4: _AMIGO_FOUR_FIVE,
                5: _AMIGO_FOUR_FIVE,
            },
        ),
        Preset(
            "amigo-1997",
            "Original AMIGO 1997 edition, 3–5 players, 104 cards, third field once for 3 coins",
            "RULES §2.2",
            {3: _A97, 4: _A97, 5: _A97},
        ),
    )
}

DEFAULT_PRESET = "rio-grande"


@dataclass(frozen=True, slots=True)
class Option:
    """A documented knob a game may set at creation (RULES §12.1, §13, §15)."""

    name: str
    description: str
    section: str
    choices: tuple[Any, ...]
    """Valid values; for `tie_break` the valid list items."""
    duel_only: bool = False
    is_list: bool = False

    def validate(self, value: Any) -> Any:
        """The value in canonical form (a list option's as a tuple), or InvalidRuleset naming
        what is valid. Values come typed, as JSON carries them (true, 3, "amigo", a list);
        `from_text` reads what a command line writes."""
        if self.is_list:
            if not isinstance(value, list | tuple) or not value:
                raise InvalidRuleset(
                    f"option {self.name} takes a non-empty list of {self._valid()}, not {value!r}"
                )
            for item in value:
                if item not in self.choices:
                    raise InvalidRuleset(
                        f"option {self.name}: {item!r} is not one of {self._valid()}"
                    )
            if len(set(value)) != len(value):
                raise InvalidRuleset(f"option {self.name} lists a criterion twice: {value!r}")
            if SHARED in value and value[-1] != SHARED:
                raise InvalidRuleset(f"option {self.name}: {SHARED!r} can only come last")
            return tuple(value)
        for choice in self.choices:
            if value == choice and type(value) is type(choice):
                return choice
        raise InvalidRuleset(f"option {self.name} must be one of {self._valid()}, not {value!r}")

    def from_text(self, text: str) -> Any:
        """The value a command line's text names, in canonical form: JSON (true, 3, a list), a
        choice by its name in any case (True, amigo), or a list's items separated by commas
        (seat-distance,shared)."""
        try:
            return self.validate(json.loads(text))
        except (json.JSONDecodeError, InvalidRuleset):
            pass
        if self.is_list:
            return self.validate([part.strip() for part in text.split(",") if part.strip()])
        for choice in self.choices:
            if _show(choice).lower() == text.strip().lower():
                return choice
        raise InvalidRuleset(f"option {self.name} must be one of {self._valid()}, not {text!r}")

    def _valid(self) -> str:
        return ", ".join(_show(choice) for choice in self.choices)


def _show(value: Any) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    return str(value)


OPTIONS: dict[str, Option] = {
    option.name: option
    for option in (
        Option(
            "allow_retrade",
            "Cards received in a trade stay tradeable during phase 2 (trading-area house rule).",
            "12.1 H1",
            (False, True),
        ),
        Option(
            "implicit_harvest",
            "Planting a different bean on an occupied field harvests that field first "
            "(bean protection still applies).",
            "12.1 H2",
            (False, True),
        ),
        Option(
            "end_trigger",
            "last-card: the game ends when the last card of the final pass is drawn; "
            "failed-draw: it ends only when someone must draw from the empty pile.",
            "12.1 H3",
            ("last-card", "failed-draw"),
        ),
        Option(
            "coin_counts_visible",
            "Whether other players see how many coins each player has (false: secret treasuries).",
            "4.5",
            (True, False),
        ),
        Option(
            "discard_pile_browsable",
            "Whether the whole discard pile may be looked through, or only its top card.",
            "4.5",
            (False, True),
        ),
        Option(
            "bean_protection",
            "Which single-card fields may be harvested: amigo (not while another field holds 2+), "
            "rg-literal (only when every field holds exactly one card), none.",
            "8.3",
            ("amigo", "rg-literal", "none"),
        ),
        Option(
            "tie_break",
            "How a tie for most coins is broken, criteria in order: most-hand-cards, "
            "seat-distance (furthest clockwise from the start seat), shared (no more tie-break).",
            "10.7",
            (MOST_HAND_CARDS, SEAT_DISTANCE, SHARED),
            is_list=True,
        ),
        Option(
            "reshuffle",
            "immediate: the discard pile is shuffled the moment the last card is drawn; "
            "on-next-draw: only when a card is next needed.",
            "10.9",
            ("immediate", "on-next-draw"),
        ),
        Option(
            "empty_reshuffle",
            "When the discard pile is empty at a reshuffle (with on-next-draw: when a card is "
            "next needed): cascade (counts as the next exhaustion) or end-game (the game ends "
            "as at a final exhaustion).",
            "14 E6",
            ("cascade", "end-game"),
        ),
        Option(
            "duel_start_fields",
            "Fields each duel player starts with (3: the 'variant for three players' reading).",
            "11.1",
            (2, 3),
            duel_only=True,
        ),
        Option(
            "duel_coins_to",
            "Where the coins paid for a third field go in the duel.",
            "11.1",
            (OUT_OF_GAME, DISCARD_PILE),
            duel_only=True,
        ),
        Option(
            "duel_buy_timing",
            "When a duel player may buy the third field: any-time, or own-turn only.",
            "11.5",
            (ANY_TIME, OWN_TURN),
            duel_only=True,
        ),
    )
}

_OPTION_TARGET = {
    "duel_start_fields": "fields_at_start",
    "duel_coins_to": "third_field_coins_to",
    "duel_buy_timing": "buy_timing",
}


def resolve_ruleset(
    preset: str = DEFAULT_PRESET, players: int = 4, options: Mapping[str, Any] | None = None
) -> Ruleset:
    """The full ruleset for a preset, a player count and options; InvalidRuleset if any is wrong."""
    known = PRESETS.get(preset)
    if known is None:
        raise InvalidRuleset(
            f"unknown ruleset {preset!r}; valid presets: {', '.join(PRESETS)}", "ruleset", "15"
        )
    row = known.rows.get(players)
    if row is None:
        counts = known.player_counts
        raise InvalidRuleset(
            f"ruleset {preset} is for {counts[0]}–{counts[-1]} players, not {players}",
            "ruleset",
            known.section,
        )
    values: dict[str, Any] = {**_COMMON, **row}
    beans = tuple(values.pop("beans"))
    deal = values.pop("deal")
    deal = tuple(deal) if isinstance(deal, tuple) else (deal,)
    deal = (deal + (deal[-1],) * players)[:players]
    chosen: dict[str, Any] = {}
    for name, value in (options or {}).items():
        option = OPTIONS.get(name)
        if option is None:
            raise InvalidRuleset(f"unknown option {name!r}; valid options: {', '.join(OPTIONS)}")
        if option.duel_only and players != 2:
            raise InvalidRuleset(
                f"option {name} applies only to the 2-player bean duel (RULES §11)"
            )
        chosen[name] = option.validate(value)
        values[_OPTION_TARGET.get(name, name)] = chosen[name]
    if chosen.get("allow_retrade") and not values["trading"]:
        raise InvalidRuleset(
            "option allow_retrade needs trading, and the bean duel has none (RULES §11.1)"
        )
    if values["tie_break"][-1] not in (SHARED, SEAT_DISTANCE):
        values["tie_break"] = (*values["tie_break"], SHARED)
    if values["fields_at_start"] >= 3:
        values["third_field"] = False
    return Ruleset(
        preset=preset,
        players=players,
        beans=beans,
        counts={bean: BEANS[bean].count for bean in beans},
        meters={bean: BEANS[bean].meter for bean in beans},
        deal=deal,
        options=chosen,
        **values,
    )


def player_count_section(preset: str) -> str:
    """The RULES section that gives `preset`'s player counts ("2" for a preset not known)."""
    known = PRESETS.get(preset)
    return "2" if known is None else known.section


def check_deal(ruleset: Ruleset) -> None:
    """InvalidRuleset if the deal needs more cards than the deck holds (RULES §3.3–3.4).

    No preset does, but a record's header may carry any resolved ruleset, and a game under one
    whose deal runs past the deck's last card cannot start. The deal is all that leaves the pile
    before the first turn: reveals and draws come in turn, where an empty pile is an exhaustion
    (RULES §10.1), so a deal of the whole deck is playable."""
    needed = sum(ruleset.deal)
    if needed > ruleset.deck_size:
        hands = " + ".join(map(str, ruleset.deal))
        raise InvalidRuleset(
            f"the deal needs {needed} cards ({hands}), but the deck holds only "
            f"{ruleset.deck_size} (RULES §3.4)"
        )


def preset_differences(ruleset: Ruleset) -> list[str]:
    """The fields in which `ruleset` differs from what its preset, player count and options
    resolve to (empty: it is exactly that); InvalidRuleset if they resolve to nothing.

    Games are listed and ranked by their preset's name, so a ruleset that bears a preset's name
    must be that preset's: the only changes a game may make are its options (RULES §2, §15)."""
    resolved = resolve_ruleset(ruleset.preset, ruleset.players, ruleset.options).to_dict()
    return [key for key, value in ruleset.to_dict().items() if resolved[key] != value]
