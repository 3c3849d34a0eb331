"""Stepping through recorded games: the step list, each viewer's table at any step, what changed,
jumps, who may see what — and, step by step over many complete games, that no viewer is shown a
card it did not see."""

from __future__ import annotations

import random
from functools import cache
from typing import Any

import pytest

from domain.bots import simulate
from domain.rules import events as ev
from domain.rules.beans import label
from domain.rules.errors import BohnanzaError, NotFound
from domain.rules.evolve import evolve, fold
from domain.rules.notation import describe
from domain.rules.state import TABLETOP, UNKNOWN, GameState, Phase
from projections.views import (
    AUDITOR_VIEWER,
    HOST_VIEWER,
    PUBLIC_VIEWER,
    Viewer,
    ViewFold,
    redact,
    render,
    view_of,
    viewers,
    visible_part,
)
from replays.steps import (
    Change,
    NotAllowed,
    Replay,
    UnknownKind,
    actor_of,
    diff,
    event_kind,
)
from replays.text import draw_view
from tests.games import CONFIGS, digital_game, tabletop_game
from tests.marks import slow_beyond


@cache
def secret_coins_game(seed: int) -> tuple[ev.Event, ...]:
    options = {"coin_counts_visible": False, "discard_pile_browsable": seed % 2 == 0}
    return tuple(simulate("rio-grande", 4, seed=seed, options=options))


def game(mode: str, preset: str, players: int, seed: int) -> tuple[ev.Event, ...]:
    if mode == "secret-coins":
        return secret_coins_game(seed)
    return (digital_game if mode == "digital" else tabletop_game)(preset, players, seed)


def names_of(facts: tuple[ev.Event, ...]) -> list[str]:
    first = facts[0]
    assert isinstance(first, ev.GameStarted)
    return first.seats


def public_line(fact: ev.Event, mode: str, names: list[str], turn: int) -> str:
    return f"T{turn} {describe(redact(fact, PUBLIC_VIEWER, mode), names)}"


def without_none(value: Any) -> Any:
    """A document with None values left out (a Change's None means "not there")."""
    if isinstance(value, dict):
        return {k: without_none(v) for k, v in value.items() if v is not None}
    if isinstance(value, list):
        return [without_none(item) for item in value]
    return value


def patched(document: dict[str, Any], changes: tuple[Change, ...]) -> dict[str, Any]:
    """`document` with every change's `after` written at its path (JSON Pointer)."""
    for change in changes:
        keys = [part.replace("~1", "/").replace("~0", "~") for part in change.path.split("/")[1:]]
        target: Any = document
        for key in keys[:-1]:
            target = target[int(key)] if isinstance(target, list) else target[key]
        last = keys[-1]
        if isinstance(target, list):
            target[int(last)] = change.after
        else:
            target[last] = change.after
    return document


def table_document(view: GameState, viewer: Viewer) -> dict[str, Any]:
    document = render(view, viewer)
    document.pop("legal", None)
    return document


# --- the leak check, step by step ---------------------------------------------------------------

LEAK_GAMES = [
    *[
        pytest.param("digital", preset, players, seed, id=f"{preset}-{players}p-{seed}")
        for preset, players in CONFIGS
        for seed in (1, 2, 3)
    ],
    *[
        pytest.param("tabletop", preset, players, seed, id=f"{preset}-{players}p-{seed}-tabletop")
        for preset, players in CONFIGS
        for seed in (4,)
    ],
    *[
        pytest.param("secret-coins", "rio-grande", 4, seed, id=f"secret-coins-{seed}")
        for seed in (5, 6)
    ],
]
RENDERED_EVERY_STEP = {"rio-grande-2p-1", "amigo-3p-4-tabletop", "secret-coins-6"}
"""Games whose every step is also checked rendered, change by change (rendering is slow)."""


def test_the_leak_check_covers_fifty_games_with_duels_tabletop_games_and_rendered_ones():
    ids = {param.id for param in LEAK_GAMES}

    assert len(ids) >= 50
    assert RENDERED_EVERY_STEP.issubset(ids)
    assert {"rio-grande-2p-1", "rio-grande-2p-4-tabletop", "amigo-5p-4-tabletop"} <= ids


@pytest.mark.parametrize(("mode", "preset", "players", "seed"), slow_beyond(LEAK_GAMES, keep=2))
def test_every_viewer_s_table_at_every_step_is_the_fold_of_the_facts_it_saw(
    request, mode, preset, players, seed
):
    facts = game(mode, preset, players, seed)
    replay = Replay(facts, checkpoint_every=1 + seed * 3)
    tables: list[GameState] = []
    for fact in facts:
        tables.append(evolve(tables[-1] if tables else None, fact))
    rendered = request.node.callspec.id in RENDERED_EVERY_STEP

    for viewer in viewers(players):
        seen = ViewFold(viewer)
        document: dict[str, Any] = {}
        for position, (fact, table) in enumerate(zip(facts, tables, strict=True), start=1):
            folded = seen.apply(fact)
            view = replay.view_at(position, viewer)
            assert view == folded, (position, viewer)
            assert view == visible_part(table, viewer), (position, viewer)
            assert replay.fact_at(position, viewer) == redact(fact, viewer, table.mode)
            if rendered:
                changed = replay.changes(position, viewer)
                document = patched(document, changed.changes)
                assert without_none(document) == without_none(table_document(folded, viewer))


@pytest.mark.parametrize(("mode", "preset", "players", "seed"), slow_beyond(LEAK_GAMES, keep=2))
def test_every_step_summary_is_written_from_the_public_part_of_its_fact(
    mode, preset, players, seed
):
    facts = game(mode, preset, players, seed)
    names = names_of(facts)
    steps = Replay(facts).steps()
    before: GameState | None = None

    for fact, step in zip(facts, steps, strict=True):
        turn = before.turn if before else 0
        assert step.summary == public_line(fact, facts[0].mode, names, turn)
        if isinstance(fact, ev.CardDrawn):
            assert step.summary.endswith(f"{names[fact.seat]} draws a card")
        before = evolve(before, fact)


@pytest.mark.parametrize(("mode", "preset", "players", "seed"), LEAK_GAMES[::6])
def test_a_viewer_s_own_line_names_only_cards_that_viewer_saw(mode, preset, players, seed):
    facts = game(mode, preset, players, seed)
    names = names_of(facts)
    replay = Replay(facts)
    drawn = [p for p, fact in enumerate(facts, 1) if isinstance(fact, ev.CardDrawn)][:40]

    for position in drawn:
        fact = facts[position - 1]
        assert isinstance(fact, ev.CardDrawn)
        for viewer in viewers(players):
            line = replay.changes(position, viewer).summary
            sees = viewer.seat == fact.seat or viewer.kind == "auditor"
            sees = sees or (viewer.kind == "host" and facts[0].mode == TABLETOP)
            card = label(fact.bean) if sees else "a card"
            assert line.endswith(f"{names[fact.seat]} draws {card}"), (line, viewer)


# --- the step list ------------------------------------------------------------------------------


def test_the_steps_number_every_fact_from_one_with_its_kind():
    facts = digital_game("rio-grande", 4, 1)

    steps = Replay(facts).steps()

    assert [step.position for step in steps] == list(range(1, len(facts) + 1))
    assert [step.kind for step in steps] == [fact.kind for fact in facts]
    assert steps[0].kind == "GameStarted"
    assert steps[-1].kind == "GameEnded"


def test_the_start_and_the_deal_are_turn_0_and_the_first_move_is_turn_1():
    facts = digital_game("rio-grande", 4, 1)

    steps = Replay(facts).steps()

    assert [(s.turn, s.phase, s.actor) for s in steps[:2]] == [
        (0, Phase.DEAL, None),
        (0, Phase.DEAL, None),
    ]
    assert steps[2].turn == 1
    assert steps[2].actor == facts[0].start_seat
    assert steps[0].summary.startswith("T0 Game started: Ana, Ben, Cleo, Dan")
    assert steps[1].summary == "T0 Cards dealt (Ana 5, Ben 5, Cleo 5, Dan 5)"


def test_a_turn_s_end_belongs_to_the_turn_that_ends_and_names_the_next_player():
    facts = digital_game("rio-grande", 3, 2)

    steps = Replay(facts).steps()

    for fact, step in zip(facts, steps, strict=True):
        if isinstance(fact, ev.TurnEnded):
            assert step.turn == fact.turn
            assert step.actor == fact.seat
            assert step.phase is Phase.DRAW


def test_a_harvest_step_reads_like_the_table_talks():
    facts = digital_game("rio-grande", 5, 2)
    names = names_of(facts)
    steps = Replay(facts).steps()
    position, fact = next(
        (p, f)
        for p, f in enumerate(facts, 1)
        if isinstance(f, ev.FieldHarvested) and f.coins > 1 and not f.final
    )

    step = steps[position - 1]

    assert step.summary == (
        f"T{step.turn} {names[fact.seat]} harvests field {fact.field + 1} "
        f"({fact.count} {label(fact.bean)}) → {fact.coins} coins"
    )
    assert step.actor == fact.seat
    assert step.kind == "FieldHarvested"


def test_the_phase_of_a_step_is_the_phase_its_fact_happened_in():
    facts = digital_game("rio-grande", 4, 3)
    steps = Replay(facts).steps()
    phases = {
        ev.CardsRevealed: {Phase.PLANT},
        ev.TradeOffered: {Phase.TRADE},
        ev.TradingEnded: {Phase.TRADE},
        ev.CardDrawn: {Phase.DRAW},
    }

    for fact, step in zip(facts, steps, strict=True):
        if type(fact) in phases:
            assert step.phase in phases[type(fact)], (step, fact)


def test_the_actor_is_whoever_moved_and_none_for_what_the_rules_did_alone():
    offered = ev.TradeOffered(1, 2, 0, [0], [], [], ["blue"], [])
    accepted = ev.TradeAccepted(1, 2, 0, [0], [], [], [], [], [], ["blue"], [], [])

    assert actor_of(offered) == 2
    assert actor_of(accepted) == 0
    assert actor_of(ev.FieldHarvested(1, 0, "blue", 4, 1, final=False)) == 1
    assert actor_of(ev.FieldHarvested(1, 0, "blue", 4, 1, final=True)) is None
    assert actor_of(ev.DiscardsReshuffled(None, 30)) is None
    assert actor_of(ev.DeckExhausted(1, final=False)) is None
    assert actor_of(ev.CardDrawn(3, "soy")) == 3


def test_a_step_out_of_the_record_is_not_found_with_the_range():
    replay = Replay(digital_game("amigo", 3, 1))

    for position in (0, len(replay) + 1):
        with pytest.raises(NotFound, match=rf"no step {position}: .* steps 1–{len(replay)}"):
            replay.view_at(position, PUBLIC_VIEWER)
    with pytest.raises(NotFound):
        replay.step(0)
    with pytest.raises(NotFound):
        replay.changes(len(replay) + 1, PUBLIC_VIEWER)


def test_facts_that_do_not_start_a_game_are_refused():
    with pytest.raises(ValueError, match="start with GameStarted"):
        Replay([])
    with pytest.raises(ValueError, match="start with GameStarted"):
        Replay(digital_game("amigo", 3, 1)[1:])


# --- jumps ---------------------------------------------------------------------------------------


def test_a_turn_starts_at_its_first_step():
    replay = Replay(digital_game("rio-grande", 4, 2))
    steps = replay.steps()

    for turn in (1, 2, 7, replay.turns()[-1]):
        position = replay.turn_start(turn)
        assert steps[position - 1].turn == turn
        assert steps[position - 2].turn == turn - 1
    assert replay.turn_start(0) == 1


def test_a_turn_the_record_does_not_have_is_not_found():
    replay = Replay(digital_game("rio-grande", 4, 2))
    last = replay.turns()[-1]

    with pytest.raises(NotFound, match=rf"no turn {last + 1}: .* turns 0–{last}"):
        replay.turn_start(last + 1)


def test_the_next_and_previous_fact_of_a_kind_are_found_from_any_step():
    facts = digital_game("rio-grande", 4, 2)
    replay = Replay(facts)
    harvests = [p for p, fact in enumerate(facts, 1) if isinstance(fact, ev.FieldHarvested)]

    assert replay.next_of("FieldHarvested", 0) == harvests[0]
    assert replay.next_of("FieldHarvested", harvests[0]) == harvests[1]
    assert replay.next_of("FieldHarvested", harvests[0] - 1) == harvests[0]
    assert replay.previous_of("FieldHarvested", harvests[1]) == harvests[0]
    assert replay.previous_of("FieldHarvested", len(facts) + 1) == harvests[-1]
    assert replay.next_of("GameEnded", len(facts)) is None
    assert replay.previous_of("GameStarted", 1) is None


def test_a_kind_may_be_written_as_people_type_it():
    assert event_kind("field-harvested") == "FieldHarvested"
    assert event_kind("card_drawn") == "CardDrawn"
    assert event_kind("TRADEOFFERED") == "TradeOffered"


def test_an_unknown_kind_is_refused_with_the_kinds_there_are():
    replay = Replay(digital_game("amigo", 3, 1))

    with pytest.raises(UnknownKind, match=r"no kind of fact is called 'Harvest'.*FieldHarvested"):
        replay.next_of("Harvest", 0)
    assert issubclass(UnknownKind, BohnanzaError)


def test_a_jump_from_a_step_out_of_the_record_is_not_found():
    replay = Replay(digital_game("amigo", 3, 1))

    with pytest.raises(NotFound):
        replay.next_of("CardDrawn", len(replay) + 1)
    with pytest.raises(NotFound):
        replay.previous_of("CardDrawn", 0)


# --- tables at a step ----------------------------------------------------------------------------


@pytest.mark.parametrize("every", [1, 5, 32, 10_000])
def test_tables_asked_in_any_order_are_the_folds_of_the_facts_up_to_that_step(every):
    facts = digital_game("rio-grande", 5, 3)
    replay = Replay(facts, checkpoint_every=every)
    rng = random.Random(every)
    positions = [rng.randrange(1, len(facts) + 1) for _ in range(25)]
    positions += [
        len(facts),
        1,
        *(p for p in (every - 1, every, every + 1) if 1 <= p <= len(facts)),
    ]

    for viewer in (Viewer.of_seat(2), PUBLIC_VIEWER, AUDITOR_VIEWER):
        for position in positions:
            assert replay.view_at(position, viewer) == view_of(facts[:position], viewer)


def test_stepping_back_and_forth_gives_the_same_tables():
    facts = digital_game("rio-grande", 3, 1)
    replay = Replay(facts, checkpoint_every=8)
    seat = Viewer.of_seat(0)

    forward = [replay.view_at(p, seat) for p in range(1, 60)]
    backward = [replay.view_at(p, seat) for p in range(59, 0, -1)]

    assert forward == backward[::-1]


def test_a_seat_sees_its_own_past_hand_and_other_hands_only_as_unknown_cards():
    facts = digital_game("rio-grande", 4, 2)
    replay = Replay(facts)

    view = replay.view_at(40, Viewer.of_seat(1))

    assert view.players[1].hand == fold(facts[:40]).players[1].hand
    assert all(set(p.hand) <= {UNKNOWN} for s, p in enumerate(view.players) if s != 1)
    assert set(view.draw_pile) == {UNKNOWN}
    assert view.seed is None


# --- who may see what ----------------------------------------------------------------------------


def test_the_auditor_s_view_of_a_game_still_running_is_refused():
    facts = digital_game("rio-grande", 4, 2)[:300]
    replay = Replay(facts)

    assert not replay.is_over
    with pytest.raises(NotAllowed, match="only once the game is over, or to auditors"):
        replay.view_at(10, AUDITOR_VIEWER)
    with pytest.raises(NotAllowed):
        replay.changes(10, AUDITOR_VIEWER)
    with pytest.raises(NotAllowed):
        replay.fact_at(10, AUDITOR_VIEWER)


def test_someone_with_auditor_rights_sees_everything_of_a_game_still_running():
    facts = digital_game("rio-grande", 4, 2)[:300]

    view = Replay(facts).view_at(10, AUDITOR_VIEWER, auditor_rights=True)

    assert view == fold(facts[:10])


def test_after_the_end_an_auditor_sees_every_hand_at_every_step():
    facts = digital_game("rio-grande", 4, 2)
    replay = Replay(facts)

    assert replay.is_over
    assert replay.view_at(10, AUDITOR_VIEWER) == fold(facts[:10])


def test_after_the_end_seats_and_the_public_still_see_only_what_they_saw_then():
    facts = digital_game("rio-grande", 4, 2)
    replay = Replay(facts)

    assert replay.view_at(10, PUBLIC_VIEWER) == visible_part(fold(facts[:10]), PUBLIC_VIEWER)
    seat = Viewer.of_seat(3)
    assert replay.view_at(10, seat) == visible_part(fold(facts[:10]), seat)


def test_seats_the_public_and_the_host_may_replay_a_game_still_running():
    facts = digital_game("rio-grande", 4, 2)[:300]
    replay = Replay(facts)

    for viewer in (Viewer.of_seat(0), PUBLIC_VIEWER, HOST_VIEWER):
        assert replay.view_at(300, viewer) == view_of(facts, viewer)


def test_a_seat_the_game_does_not_have_is_not_found():
    replay = Replay(digital_game("rio-grande", 4, 2))

    with pytest.raises(NotFound, match="no seat 4: this game has seats 0–3"):
        replay.view_at(5, Viewer.of_seat(4))


# --- what changed ------------------------------------------------------------------------------


def test_a_seat_s_own_draw_changes_its_hand_and_is_named_in_its_own_line():
    facts = digital_game("rio-grande", 4, 2)
    names = names_of(facts)
    replay = Replay(facts)
    position = replay.next_of("CardDrawn", 0)
    assert position is not None
    fact = facts[position - 1]
    assert isinstance(fact, ev.CardDrawn)
    seat = fact.seat

    changed = replay.changes(position, Viewer.of_seat(seat))

    paths = {change.path: change for change in changed.changes}
    assert paths[f"/seats/{seat}/hand"].after[-1] == fact.bean
    assert paths[f"/seats/{seat}/hand_size"].after == paths[f"/seats/{seat}/hand_size"].before + 1
    assert paths["/draw_pile/size"].after == paths["/draw_pile/size"].before - 1
    assert changed.fact == fact
    assert changed.summary.endswith(f"{names[seat]} draws {label(fact.bean)}")


def test_another_seat_s_draw_changes_only_the_size_of_a_hand_it_cannot_see():
    facts = digital_game("rio-grande", 4, 2)
    replay = Replay(facts)
    position = replay.next_of("CardDrawn", 0)
    assert position is not None
    fact = facts[position - 1]
    assert isinstance(fact, ev.CardDrawn)
    other = Viewer.of_seat((fact.seat + 1) % 4)

    changed = replay.changes(position, other)

    assert {change.path for change in changed.changes} == {
        f"/seats/{fact.seat}/hand_size",
        "/draw_pile/size",
    }
    assert changed.fact == ev.CardDrawn(fact.seat, UNKNOWN)
    assert changed.summary.endswith("draws a card")


def test_the_first_step_changes_everything_from_nothing():
    replay = Replay(digital_game("amigo", 3, 1))

    changed = replay.changes(1, PUBLIC_VIEWER)

    assert all(change.before is None for change in changed.changes)
    assert {change.path for change in changed.changes} >= {"/seats", "/draw_pile", "/turn"}


def test_what_the_seat_could_do_next_is_not_a_change_of_the_table():
    replay = Replay(digital_game("amigo", 3, 1))

    changes = [replay.changes(p, Viewer.of_seat(0)).changes for p in range(2, 30)]

    assert not any(change.path.startswith("/legal") for step in changes for change in step)


def test_a_diff_names_each_changed_value_by_its_json_pointer():
    before = {"a": 1, "seats": [{"hand": ["blue"], "n": 1}], "x/y": 0, "gone": 2}
    after = {"a": 1, "seats": [{"hand": ["blue", "soy"], "n": 2}], "x/y": 1, "new": 3}

    assert diff(before, after) == [
        Change("/seats/0/hand", ["blue"], ["blue", "soy"]),
        Change("/seats/0/n", 1, 2),
        Change("/x~1y", 0, 1),
        Change("/gone", 2, None),
        Change("/new", None, 3),
    ]


def test_a_list_that_grew_or_shrank_is_one_change():
    assert diff({"offers": [{"id": 1}]}, {"offers": []}) == [Change("/offers", [{"id": 1}], [])]


# --- the table drawn as text -------------------------------------------------------------------


def test_a_seat_s_drawn_table_shows_its_hand_and_counts_the_others():
    facts = digital_game("rio-grande", 3, 2)
    replay = Replay(facts)
    seat = Viewer.of_seat(1)
    view = replay.view_at(40, seat)

    text = draw_view(view, seat)

    hand = " ".join(label(bean) for bean in view.players[1].hand)
    assert f"    hand: {hand}" in text
    assert f"    hand: {len(view.players[0].hand)} cards" in text
    assert "seen by Ben (seat 1)" in text
    assert UNKNOWN not in text


def test_the_public_s_drawn_table_shows_no_hand_and_secret_coins_as_hidden():
    facts = secret_coins_game(6)
    replay = Replay(facts)
    view = replay.view_at(len(facts) // 2, PUBLIC_VIEWER)

    text = draw_view(view, PUBLIC_VIEWER)

    hands = [line for line in text.splitlines() if line.startswith("    hand: ")]
    assert all(line.endswith((" cards", " card")) for line in hands)
    assert "coins: hidden" in text


def test_an_auditor_s_drawn_table_shows_the_top_of_the_draw_pile():
    facts = digital_game("rio-grande", 3, 2)
    replay = Replay(facts)
    view = replay.view_at(50, AUDITOR_VIEWER)

    text = draw_view(view, AUDITOR_VIEWER)

    top = " ".join(label(bean) for bean in view.draw_pile[:10])
    assert f"top first: {top} …" in text
