"""RULES §10.9 and §14 E6 together: when the reshuffle happens (`reshuffle`) and what an empty
discard pile at the reshuffle does (`empty_reshuffle`).

With on-next-draw the exhaustion is counted when the last card is drawn, but the reshuffle — and
with it the judgement of an empty discard pile — waits until a card is next needed: cards
discarded in between (a harvest) make the new pile. Under end-game an empty pile then triggers the
end as a final exhaustion does (§10.4: a reveal's phases 2 and 3 are played out; §10.5: a draw ends
at once), recorded as DrawFailed; under cascade it counts as the next exhaustion.
"""

from __future__ import annotations

import dataclasses
import random

import pytest

from domain.bots import GreedyBot, Table
from domain.rules import events as ev
from domain.rules import resolve_ruleset
from domain.rules.audit import audit
from domain.rules.commands import Command, Draw, EndTrading, Harvest, Plant, Reveal
from domain.rules.decide import decide, drawable, start_game
from domain.rules.evolve import fold
from domain.rules.legal import legal_commands
from domain.rules.state import DIGITAL, TABLETOP, GameState, Phase
from replays.verify import verify
from tests.builders import NAMES, run, table
from tests.unit.test_bot_games import check_complete_game

GOES_ON = "goes on"
NEXT_CARD = "ends when the next card is needed"
AT_EXHAUSTION = "ends at the exhaustion"

ROWS = [
    # reshuffle, empty_reshuffle, a harvest between, what happens, exhaustions counted after
    ("immediate", "cascade", True, GOES_ON, 2),
    ("immediate", "cascade", False, NEXT_CARD, 3),
    ("immediate", "end-game", False, AT_EXHAUSTION, 1),
    ("on-next-draw", "cascade", True, GOES_ON, 1),
    ("on-next-draw", "cascade", False, NEXT_CARD, 3),
    ("on-next-draw", "end-game", True, GOES_ON, 1),
    ("on-next-draw", "end-game", False, NEXT_CARD, 1),
]
"""An exhaustion with the discard pile empty, then (or not) a harvest of 5 Blue (1 coin, 4 Blue
to the discard pile), then the next card needed."""


def row_id(reshuffle: str, empty: str, harvest: bool, *_: object) -> str:
    return f"{reshuffle}-{empty}-{'harvest' if harvest else 'no-discard'}"


IN_BOTH_MODES = pytest.mark.parametrize("mode", [DIGITAL, TABLETOP])
EVERY_ROW = pytest.mark.parametrize(
    ("reshuffle", "empty", "harvest", "outcome", "exhaustions"),
    ROWS,
    ids=[row_id(*row) for row in ROWS],
)


def chance(kind: type[Command], seat: int, cards: str, mode: str) -> Command:
    """A reveal or draw; at a tabletop it names the cards seen."""
    return kind(seat, tuple(cards.split()) if mode == TABLETOP else None)


def next_card_needed(state: GameState, owed: int) -> int:
    """How many cards the next reveal or draw takes, as `legal_commands` and `drawable` say."""
    count = drawable(state, owed)
    legal = legal_commands(state, state.active)
    if state.mode == TABLETOP:
        assert legal.chance.count == count
    else:  # the service takes the cards: the step is a command, whatever the pile holds
        assert {Reveal(state.active), Draw(state.active)} & set(legal.commands)
    return count


def options(reshuffle: str, empty: str) -> dict[str, str]:
    return {"reshuffle": reshuffle, "empty_reshuffle": empty}


def empty_discards(reshuffle: str, empty: str, mode: str, **position: object) -> GameState:
    """Ana's turn, the discard pile empty, Ben with 5 Blue to harvest, the rest Dee's coins."""
    return table(
        options=options(reshuffle, empty),
        mode=mode,
        fields={1: ["5 blue", ""]},
        discard="",
        coins={3: "..."},
        **position,
    )


@IN_BOTH_MODES
@EVERY_ROW
def test_a_draw_empties_the_pile_and_the_next_player_s_reveal_needs_a_card(
    mode, reshuffle, empty, harvest, outcome, exhaustions
):
    state = empty_discards(
        reshuffle, empty, mode, phase="draw", hands={1: "chili"}, draw_pile="red red red"
    )

    state, facts = run(state, chance(Draw, 0, "red red red", mode))
    if outcome == AT_EXHAUSTION:
        assert ev.DeckExhausted(1, final=True) in facts
        assert state.is_over
        return
    assert ev.DeckExhausted(1, final=False) in facts
    state, _ = run(state, *([Harvest(1, 0)] if harvest else []), Plant(1, 1))
    goes_on = outcome == GOES_ON
    assert next_card_needed(state, 2) == (2 if goes_on else 0)

    state, facts = run(state, chance(Reveal, 1, "blue blue" if goes_on else "", mode))

    assert state.exhaustions == exhaustions
    if goes_on:
        reshuffled = next(f for f in facts if isinstance(f, ev.DiscardsReshuffled))
        assert reshuffled.size == 4  # the harvested cards are the new pile
        assert state.revealed == ("blue", "blue")
        assert not state.end_triggered
        return
    assert (state.end_triggered, state.revealed, state.phase) == (True, (), Phase.TRADE)
    assert (ev.DrawFailed(1, "reveal") in facts) == (empty == "end-game")
    state, facts = run(state, EndTrading(1))  # §10.4: phases 2 and 3 end the game
    assert state.is_over
    assert "TurnEnded" not in [f.kind for f in facts]


@IN_BOTH_MODES
@EVERY_ROW
def test_a_reveal_empties_the_pile_and_the_same_player_s_draw_needs_a_card(
    mode, reshuffle, empty, harvest, outcome, exhaustions
):
    state = empty_discards(reshuffle, empty, mode, draw_pile="red red")

    state, facts = run(state, chance(Reveal, 0, "red red", mode))
    assert ev.DeckExhausted(1, final=outcome == AT_EXHAUSTION) in facts
    state, _ = run(
        state,
        *([Harvest(1, 0)] if harvest else []),
        EndTrading(0),
        Plant(0, 0, "red"),
        Plant(0, 0, "red"),
    )
    if outcome == AT_EXHAUSTION:
        assert state.is_over  # §10.4: the end came in phase 2; phase 4 is skipped
        return
    goes_on = outcome == GOES_ON
    assert next_card_needed(state, 3) == (3 if goes_on else 0)

    state, facts = run(state, chance(Draw, 0, "blue blue blue" if goes_on else "", mode))

    assert state.exhaustions == exhaustions
    if goes_on:
        assert state.players[0].hand == ("blue", "blue", "blue")
        assert facts[-1] == ev.TurnEnded(0, 1, 1)
        return
    assert state.is_over  # §10.5: the end came in phase 4, which ends at once
    assert state.players[0].hand == ()
    assert (ev.DrawFailed(0, "draw") in facts) == (empty == "end-game")


# --- whole games from an explicit deck, audited and replayed at a table -------------------------

HANDS = (
    "blue stink stink green green",
    "chili chili green stink stink",
    "chili green stink chili green",
    "green stink chili green stink",
)
PILE = "blue blue blue blue blue"
"""A 25-card deck: after the deal, Ana's reveal and draw take the whole pile on turn 1."""


def small_deck_game(reshuffle: str, empty: str) -> list[ev.Event]:
    """A digital game of four on a 25-card house deck, with an explicit deck order."""
    ruleset = resolve_ruleset("rio-grande", 4, options(reshuffle, empty))
    counts = {"blue": 6, "chili": 5, "stink": 7, "green": 7}
    ruleset = dataclasses.replace(
        ruleset,
        beans=tuple(counts),
        counts=counts,
        meters={bean: ruleset.meters[bean] for bean in counts},
    )
    hands = [hand.split() for hand in HANDS]
    deck = [hand[i] for i in range(5) for hand in hands] + PILE.split()
    return start_game(ruleset, NAMES[:4], seed=7, deck=deck)


def play(facts: list[ev.Event], *commands: Command) -> list[ev.Event]:
    state = fold(facts)
    for command in commands:
        new = decide(state, command)
        state = fold(new, state)
        facts = [*facts, *new]
    return facts


def finish(facts: list[ev.Event]) -> list[ev.Event]:
    """The game played to its end by greedy bots."""
    state = fold(facts)
    bots = Table([GreedyBot() for _ in state.players], random.Random(0))
    while not state.is_over:
        new = decide(state, bots.next_command(state))
        state = fold(new, state)
        facts = [*facts, *new]
    return facts


def opening(reshuffle: str, empty: str, harvest: bool) -> list[ev.Event]:
    """Ana plants three Blue and draws the pile's last card with the discard pile empty; Ana
    harvests her Blue (or not) and Ben plants, then reveals: the next card needed."""
    ana_turn = (
        Plant(0, 0),
        Reveal(0),
        EndTrading(0),
        Plant(0, 0, "blue"),
        Plant(0, 0, "blue"),
        Draw(0),
    )
    facts = play(small_deck_game(reshuffle, empty), *ana_turn)
    if fold(facts).is_over:
        return facts
    return play(facts, *([Harvest(0, 0)] if harvest else []), Plant(1, 0), Reveal(1))


GAME_ROWS = [row for row in ROWS if row[3] != AT_EXHAUSTION or not row[2]]
EVERY_GAME_ROW = pytest.mark.parametrize(
    ("reshuffle", "empty", "harvest", "outcome", "exhaustions"),
    GAME_ROWS,
    ids=[row_id(*row) for row in GAME_ROWS],
)


@EVERY_GAME_ROW
def test_a_whole_game_with_an_explicit_deck_audits_sound_and_replays_at_a_table(
    reshuffle, empty, harvest, outcome, exhaustions
):
    facts = opening(reshuffle, empty, harvest)
    state = fold(facts)

    assert state.exhaustions == exhaustions
    if outcome == GOES_ON:
        assert (state.revealed, state.end_triggered) == (("blue", "blue"), False)
    else:
        assert state.end_triggered
    check_complete_game(finish(facts))


TAMPERED = {
    "on-next-draw-ends-at-the-exhaustion": (
        ("on-next-draw", "end-game"),
        lambda facts: _flag_first_exhaustion_final(facts),
        "exhaustion 1 was final; the rules make it not final",
    ),
    "end-game-goes-on-after-an-empty-reshuffle": (
        ("on-next-draw", "cascade"),
        lambda facts: _under(facts, empty_reshuffle="end-game"),
        "the discard pile was empty at the reshuffle, yet the game went on",
    ),
    "cascade-ends-at-an-empty-reshuffle": (
        ("on-next-draw", "end-game"),
        lambda facts: _under(facts, empty_reshuffle="cascade"),
        "a draw failed although the rules had a card for it",
    ),
    "immediate-ending-under-on-next-draw": (
        ("immediate", "end-game"),
        lambda facts: _under(facts, reshuffle="on-next-draw"),
        "exhaustion 1 was final; the rules make it not final",
    ),
}
"""Records of the games with no discard in between, each made to end (or go on) against the rule."""


def _under(facts: list[ev.Event], **changes: str) -> list[ev.Event]:
    started = facts[0]
    ruleset = {**started.ruleset, **changes}
    return [dataclasses.replace(started, ruleset=ruleset), *facts[1:]]


def _flag_first_exhaustion_final(facts: list[ev.Event]) -> list[ev.Event]:
    return [
        dataclasses.replace(f, final=True)
        if isinstance(f, ev.DeckExhausted) and f.count == 1
        else f
        for f in facts
    ]


@pytest.mark.parametrize("case", list(TAMPERED))
def test_the_audit_finds_an_ending_the_empty_discard_pile_rule_does_not_give(case):
    (reshuffle, empty), tamper, problem = TAMPERED[case]
    facts = finish(opening(reshuffle, empty, harvest=False))
    assert audit(facts) == []

    problems = audit(tamper(facts))

    assert any(problem in p.message for p in problems), problems


@EVERY_GAME_ROW
def test_verification_re_decides_the_game_legal_with_the_outcome_played(
    reshuffle, empty, harvest, outcome, exhaustions
):
    """(A game on a deck of its own: a record holds a preset's ruleset only, so these games are
    checked as facts, as `bohnanza verify GAME` checks a stored game.)"""
    facts = finish(opening(reshuffle, empty, harvest))

    report = verify(facts)

    assert (report.legal, report.same_outcome, report.mode) == (True, True, DIGITAL)
