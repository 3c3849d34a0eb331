"""RULES §4: the global invariants, checked at every step of random games."""

from collections import Counter
from dataclasses import fields

import pytest

from domain.rules.audit import cards_on_table
from domain.rules.evolve import _SCALARS, _ZONES, _Draft, full_deck
from tests.builders import random_game
from tests.marks import slow_beyond

GAMES = [
    *[pytest.param("rio-grande", n, "digital", id=f"rio-grande-{n}p") for n in (3, 4, 5, 6, 7)],
    *[pytest.param("amigo", n, "digital", id=f"amigo-{n}p") for n in (3, 4, 5)],
    *[pytest.param("amigo-1997", n, "digital", id=f"amigo-1997-{n}p") for n in (3, 4, 5)],
    pytest.param("rio-grande", 7, "tabletop", id="rio-grande-7p-tabletop"),
    pytest.param("amigo-1997", 4, "tabletop", id="amigo-1997-4p-tabletop"),
]


@pytest.mark.parametrize(("preset", "players", "mode"), slow_beyond(GAMES, keep=1))
def test_every_card_exists_exactly_once_at_every_step(preset, players, mode):
    for state in random_game(players, preset, mode=mode, seed=11):
        assert cards_on_table(state) == Counter(full_deck(state.ruleset))


def test_a_fold_of_no_further_facts_gives_back_every_field_of_the_state():
    """evolve's draft copies the state's zones and scalars one by one (written out, for speed):
    a field of GameState it does not carry would be lost on the next fact."""
    state = list(random_game(4, "rio-grande", seed=5))[40]
    draft = _Draft(state)
    kept_as_is = {"ruleset", "mode", "seed", "start_seat", "players"}  # from the base state
    assert {field.name for field in fields(state)} == kept_as_is | set(_ZONES) | set(_SCALARS)
    assert set(draft.frozen) == set(_ZONES)
    assert draft.freeze() == state
