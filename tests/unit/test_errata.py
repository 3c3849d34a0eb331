"""Corrections of a tabletop game's record (ARCHITECTURE §9): facts of their own that replace,
delete or insert entries; the game as corrected is the re-decision of its corrected entries, and
the entries they replaced stay in the stream."""

from __future__ import annotations

import random

import pytest

from domain.bots import simulate
from domain.rules import commands as cmd
from domain.rules import events as ev
from domain.rules.audit import audit
from domain.rules.errata import (
    CorrectionRefused,
    corrected,
    decide_correction,
    effective,
)
from domain.rules.errors import Forbidden, MalformedCommand
from domain.rules.evolve import fold
from domain.rules.transcript import commands_from_facts, entries, redecide

PLAYED = simulate("rio-grande", 4, seed=6)
"""A complete 4-player bot game; its tabletop record is corrected below."""
TABLETOP = redecide(PLAYED, tabletop=True)


def correct(stream: list[ev.Event], *changes: cmd.Change) -> list[ev.Event]:
    """The stream with one more correction, decided on the game as corrected so far."""
    return [*stream, decide_correction(effective(stream), cmd.Correct(changes))]


def first(kind: type[cmd.Command], facts: list[ev.Event], start: int = 0) -> int:
    """The number of the first entry of this kind (from entry `start`)."""
    found = entries(facts, tabletop=True)
    return next(n for n, e in enumerate(found) if n >= start and isinstance(e.command, kind))


def test_taking_back_the_last_entry_leaves_the_game_as_before_it() -> None:
    stream = TABLETOP[: entries(TABLETOP, tabletop=True)[40].stop]
    undone = [*stream, decide_correction(stream, cmd.Undo())]
    assert effective(undone) == TABLETOP[: entries(TABLETOP, tabletop=True)[39].stop]
    assert fold(undone) == fold(effective(undone))


def test_the_entries_a_correction_replaced_stay_in_the_stream() -> None:
    stream = TABLETOP[:200]
    undone = [*stream, decide_correction(stream, cmd.Undo())]
    assert undone[:200] == stream
    (fact,) = undone[200:]
    assert isinstance(fact, ev.EntriesCorrected)
    assert fact.replaced == [entries(stream, tabletop=True)[-1].command.to_dict()]


def test_a_corrected_reveal_is_decided_again_with_everything_after_it() -> None:
    reveal = first(cmd.Reveal, TABLETOP, start=5)
    entry = entries(TABLETOP, tabletop=True)[reveal]
    old = entry.command
    assert isinstance(old, cmd.Reveal)
    assert old.cards
    state = fold(TABLETOP[: entry.first])
    other = next(
        bean for bean in state.ruleset.beans if bean != old.cards[0] and bean in state.draw_pile
    )
    new = cmd.Reveal(old.seat, (other, *old.cards[1:]))
    # Only the entries up to the next turn: later ones may have needed the old card.
    stream = TABLETOP[: entries(TABLETOP, tabletop=True)[reveal].stop]
    stream = correct(stream, cmd.Change(reveal, cmd.REPLACE, new))
    game = effective(stream)
    assert entries(game, tabletop=True)[reveal].command == new
    assert audit(game) == []


def test_a_correction_that_makes_a_later_entry_illegal_is_refused_with_that_entry() -> None:
    trading_ends = first(cmd.EndTrading, TABLETOP, start=3)
    with pytest.raises(CorrectionRefused) as refused:
        correct(TABLETOP, cmd.Change(trading_ends, cmd.DELETE))
    assert refused.value.entry == trading_ends  # the entry after it, numbered as corrected
    message = str(refused.value)
    assert message.startswith(f"RULES §{refused.value.section} (")
    assert f"after this correction, entry {trading_ends} (" in message


def test_an_entry_a_correction_makes_illegal_may_be_corrected_in_the_same_correction() -> None:
    stream = TABLETOP[: entries(TABLETOP, tabletop=True)[60].stop]
    trading_ends = first(cmd.EndTrading, stream, start=3)
    tail = [
        cmd.Change(n, cmd.DELETE) for n in range(trading_ends, len(entries(stream, tabletop=True)))
    ]
    game = effective(correct(stream, *tail))
    assert len(entries(game, tabletop=True)) == trading_ends


def test_deleting_the_deal_is_refused() -> None:
    with pytest.raises(MalformedCommand, match="deal"):
        decide_correction(TABLETOP, cmd.Correct((cmd.Change(0, cmd.DELETE),)))


def test_an_undo_right_after_the_deal_is_refused_saying_the_deal_is_corrected_instead() -> None:
    dealt = TABLETOP[: entries(TABLETOP, tabletop=True)[0].stop]
    with pytest.raises(MalformedCommand, match=r"the last entry is the deal .* replaces entry 0"):
        decide_correction(dealt, cmd.Undo())


def test_an_undo_before_anything_was_entered_is_refused_saying_so() -> None:
    with pytest.raises(MalformedCommand, match="nothing has been entered yet"):
        decide_correction(TABLETOP[:1], cmd.Undo())


def test_a_missing_entry_is_inserted_and_an_extra_one_deleted() -> None:
    stream = TABLETOP[: entries(TABLETOP, tabletop=True)[60].stop]
    found = entries(stream, tabletop=True)
    gone = next(n for n in range(10, 60) if isinstance(found[n].command, cmd.Decline))
    without = correct(stream, cmd.Change(gone, cmd.DELETE))
    assert len(entries(effective(without), tabletop=True)) == len(found) - 1
    again = correct(without, cmd.Change(gone, cmd.INSERT, found[gone].command))
    assert effective(again) == stream


def test_a_correction_after_the_end_can_change_the_winner() -> None:
    game = redecide(simulate("rio-grande", 3, seed=1), tabletop=True)
    before = fold(game).result
    assert before is not None
    assert (before.scores, before.winners) == ((12, 22, 22), (1,))  # a tie broken by hand size
    # The table forgot that Ben harvested his third field a few turns before the end.
    stream = correct(game, cmd.Change(625, cmd.INSERT, cmd.Harvest(1, 2)))
    after = fold(stream).result
    assert after is not None
    assert (after.scores, after.winners) == ((12, 21, 22), (2,))
    assert fold(effective(stream)).result == after


def test_digital_games_take_no_corrections() -> None:
    with pytest.raises(Forbidden, match="digital"):
        decide_correction(PLAYED, cmd.Undo())


def test_the_game_as_corrected_is_the_re_decision_of_its_corrected_entries() -> None:
    rng = random.Random(21)
    stream = list(TABLETOP[: entries(TABLETOP, tabletop=True)[120].stop])
    for _ in range(6):
        found = entries(effective(stream), tabletop=True)
        doomed = rng.randrange(len(found) - 10, len(found))
        try:
            stream = correct(
                stream, *(cmd.Change(n, cmd.DELETE) for n in range(doomed, len(found)))
            )
        except (CorrectionRefused, MalformedCommand):
            continue
        game = effective(stream)
        assert game == redecide(game, tabletop=True)
        assert commands_from_facts(game, tabletop=True) == [e.command for e in found[:doomed]]
        assert audit(game) == []


def test_steps_changed_by_a_correction_are_marked_with_its_number() -> None:
    stream = TABLETOP[: entries(TABLETOP, tabletop=True)[30].stop]
    found = entries(stream, tabletop=True)
    stream = correct(stream, cmd.Change(29, cmd.REPLACE, found[29].command))
    stream = correct(stream, cmd.Change(29, cmd.REPLACE, found[29].command))
    game = corrected(stream)
    assert game.corrections == 2
    entry = entries(game.facts, tabletop=True)[29]
    assert set(game.marks[entry.first : entry.stop]) == {2}
    assert set(game.marks[: entry.first]) == {None}
