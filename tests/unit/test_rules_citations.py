"""Refusals cite the RULES section that says why: the duel's own turn (§11.2) rather than the
3–7 player phases, the preset's own fields (§9.4), the end of the game (§10.4, §11.4), and the
sections behind a game's setup (§2, §3) and the hand positions named (§4.2)."""

from __future__ import annotations

from collections.abc import Callable

import pytest

from domain.rules import resolve_ruleset
from domain.rules.commands import (
    Command,
    DiscardFromHand,
    Draw,
    EndTrading,
    Offer,
    Plant,
    Reveal,
)
from domain.rules.decide import start_game
from domain.rules.errors import BohnanzaError
from domain.rules.evolve import full_deck
from domain.rules.state import GameState
from tests.builders import NAMES, run, table
from tests.unit.test_duel import offered


def refused(state: GameState, *commands: Command) -> Callable[[], object]:
    return lambda: run(state, *commands)


def started(preset: str = "rio-grande", players: int = 4, **setup: object) -> Callable[[], object]:
    names = setup.pop("seats", NAMES[:players])
    return lambda: start_game(resolve_ruleset(preset, players), names, seed=1, **setup)


FULL_DECK = list(full_deck(resolve_ruleset("rio-grande", 4)))
END_IN_PHASE_2 = table(4, final_pass=True, draw_pile="red red")
"""Ana reveals the last two cards of the final pass: the end comes during phase 2."""
END_IN_STEP_3 = table(2, draw_pile="red red red")
"""The duel's step 3 draws the pile's last cards: the end comes during step 3."""

REFUSALS: dict[str, tuple[Callable[[], object], str]] = {
    "a reveal in duel step 1": (refused(offered(table(2), "red"), Reveal(0)), "11.2"),
    "a duel reveal by the player not on turn": (refused(table(2), Reveal(1)), "11.2"),
    "a duel plant by the player not on turn": (
        refused(table(2, hands={1: "red"}), Plant(1, 0)),
        "11.2",
    ),
    "a plant in duel step 4": (
        refused(table(2, phase="draw", hands={0: "red"}), Plant(0, 0)),
        "11.2",
    ),
    "a duel draw by the player not on turn": (refused(table(2, phase="draw"), Draw(1)), "11.2"),
    "a draw by the player not on turn": (refused(table(4, phase="draw"), Draw(1)), "5.4"),
    "field 3 in a 4-player amigo game": (
        refused(table(4, "amigo", hands={0: "red"}), Plant(0, 2)),
        "9.4",
    ),
    "field 3 not bought yet": (refused(table(4, hands={0: "red"}), Plant(0, 2)), "9.1"),
    "a draw in phase 2 after the end came in the reveal": (
        refused(END_IN_PHASE_2, Reveal(0), Draw(0)),
        "10.4",
    ),
    "a draw in phase 3 after the end came in the reveal": (
        refused(END_IN_PHASE_2, Reveal(0), EndTrading(0), Draw(0)),
        "10.4",
    ),
    "a draw in duel step 3 after the end came in it": (
        refused(END_IN_STEP_3, Reveal(0), Draw(0)),
        "11.4",
    ),
    "a hand position beyond the hand": (
        refused(table(4, phase="trade", hands={0: "red"}), Offer(0, 1, hand=(3,))),
        "4.2",
    ),
    "a hand position named twice": (
        refused(table(4, phase="trade", hands={0: "red blue"}), Offer(0, 1, hand=(1, 1))),
        "4.2",
    ),
    "a duel hand discard beyond the hand": (
        refused(table(2, hands={0: "red"}, planted=1), DiscardFromHand(0, 4)),
        "4.2",
    ),
    "a deck without the ruleset's cards": (started(deck=["red"] * 130), "3.3"),
    "a deck with one bean too many and one too few": (
        started(deck=[*FULL_DECK[:-1], FULL_DECK[0]]),
        "3.3",
    ),
    "a deck one card short": (started(deck=FULL_DECK[1:]), "3.3"),
    "a player count rio-grande lacks": (lambda: resolve_ruleset("rio-grande", 8), "2.1"),
    "a player count amigo-1997 lacks": (lambda: resolve_ruleset("amigo-1997", 6), "2.2"),
    "a player count amigo lacks": (lambda: resolve_ruleset("amigo", 2), "2.3"),
    "fewer seats than the ruleset's players": (started(seats=NAMES[:3]), "2.1"),
    "an unknown preset": (lambda: resolve_ruleset("turbo", 4), "15"),
    "an empty seat name": (started(seats=["Ana", "", "Cy", "Dee"]), "3.1"),
    "a seat name that is no name": (started(seats=["Ana", "Be\x00n", "Cy", "Dee"]), "3.1"),
    "two seats of one name": (started(seats=["Ana", "Ben", "Ana ", "Dee"]), "3.1"),
    "a start seat not at the table": (started(start_seat=4), "3.2"),
}


@pytest.mark.parametrize("case", list(REFUSALS))
def test_a_refusal_cites_the_rules_section_that_says_why(case):
    act, section = REFUSALS[case]

    with pytest.raises(BohnanzaError) as refusal:
        act()

    assert refusal.value.rule == f"RULES §{section}"
    assert str(refusal.value).startswith(f"RULES §{section} (")


def test_a_third_field_refusal_in_amigo_says_the_preset_has_two_fields_for_the_whole_game():
    with pytest.raises(BohnanzaError) as refusal:
        run(table(5, "amigo", hands={0: "red"}), Plant(0, 2))

    assert str(refusal.value) == (
        "RULES §9.4 (third bean field: not for sale): Ana has no field 3: under amigo, 5 players "
        "have 2 fields for the whole game and none for sale"
    )


def test_a_draw_after_the_end_came_in_the_reveal_says_phase_4_is_skipped():
    with pytest.raises(BohnanzaError) as refusal:
        run(END_IN_PHASE_2, Reveal(0), EndTrading(0), Draw(0))

    assert "every trade area is empty" not in str(refusal.value)
    assert "phase 4 is skipped" in str(refusal.value)
