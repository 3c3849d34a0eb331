"""Hidden information: every viewer's folded view equals the visible part of the full state, after
every fact of hundreds of complete games, and no view or feed item holds a card it may not know."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from domain.bots import simulate, simulate_under
from domain.rules import events as ev
from domain.rules.commands import Draw, Reveal
from domain.rules.decide import decide, start_game
from domain.rules.evolve import evolve, fold, scan
from domain.rules.legal import ChanceStep, chance_step, legal_commands
from domain.rules.rulesets import Ruleset, resolve_ruleset
from domain.rules.state import TABLETOP, UNKNOWN, UNKNOWN_HANDS, GameState
from domain.rules.transcript import commands_from_facts
from projections.views import (
    _REDACTIONS,
    AUDITOR_VIEWER,
    HOST_VIEWER,
    PUBLIC_VIEWER,
    Viewer,
    ViewFold,
    feed,
    redact,
    render,
    view_of,
    viewers,
    visible_part,
)
from tests.games import CONFIGS, digital_game, sweep, tabletop_game
from tests.marks import slow_beyond

SEEDS = sweep(3)


def hidden_cards_are_unknown(view: GameState, viewer: Viewer) -> None:
    sees_all = viewer.kind == "auditor" or (viewer.kind == "host" and view.mode == TABLETOP)
    if sees_all:
        assert UNKNOWN not in view.draw_pile
        return
    assert view.seed is None
    assert set(view.draw_pile) <= {UNKNOWN}
    for seat, player in enumerate(view.players):
        if seat == viewer.seat:
            assert UNKNOWN not in player.hand
        else:
            assert set(player.hand) <= {UNKNOWN}
    for offer in view.offers:
        if offer.proposer != viewer.seat:
            assert offer.hand == ()


def secret_fields_are_withheld(
    fact: ev.Event, redacted: ev.Event, viewer: Viewer, mode: str
) -> None:
    """Every field an event declares secret is withheld from everyone it is not meant for."""
    if viewer.kind == "auditor" or (viewer.kind == "host" and mode == TABLETOP):
        assert redacted == fact
        return
    for name, audience in type(fact).secret.items():
        value = getattr(redacted, name)
        owner = getattr(fact, "proposer" if audience == "proposer" else "seat", None)
        if audience == "each-seat":
            for seat, cards in enumerate(value):
                if seat != viewer.seat:
                    assert set(cards) <= {UNKNOWN}, (fact, viewer)
        elif audience == "nobody" or owner != viewer.seat:
            assert value in (None, [], UNKNOWN) or set(value) <= {UNKNOWN}, (fact, name, viewer)


GAMES = [
    pytest.param(preset, players, seed, mode, id=f"{preset}-{players}p-{seed}-{mode}")
    for preset, players in CONFIGS
    for seed in SEEDS
    for mode in ("digital", "tabletop")
]


@pytest.mark.parametrize(("preset", "players", "seed", "mode"), slow_beyond(GAMES, keep=2))
def test_every_view_after_every_fact_is_the_visible_part_of_the_table(preset, players, seed, mode):
    facts = (digital_game if mode == "digital" else tabletop_game)(preset, players, seed)
    everyone = viewers(players)
    folds = {viewer: ViewFold(viewer) for viewer in everyone}
    state = None
    for fact in facts:
        state = evolve(state, fact)
        for viewer, view_fold in folds.items():
            view = view_fold.apply(fact)
            assert view == visible_part(state, viewer), (fact, viewer)
            hidden_cards_are_unknown(view, viewer)
            secret_fields_are_withheld(fact, redact(fact, viewer, state.mode), viewer, state.mode)


@pytest.mark.parametrize(("preset", "players"), CONFIGS[:6])
def test_a_seat_s_legal_commands_follow_from_its_own_view(preset, players):
    facts = digital_game(preset, players, 1)
    seats = [Viewer.of_seat(seat) for seat in range(players)]
    folds = {viewer: ViewFold(viewer) for viewer in seats}
    state = None
    for fact in facts:
        state = evolve(state, fact)
        for viewer, view_fold in folds.items():
            view = view_fold.apply(fact)
            assert legal_commands(view, viewer.seat) == legal_commands(state, viewer.seat)


def test_a_seat_sees_its_own_hand_in_order_and_other_hands_as_sizes():
    facts = digital_game("rio-grande", 4, 2)
    state = fold(facts[:40])

    document = render(view_of(facts[:40], Viewer.of_seat(1)), Viewer.of_seat(1))

    seats = document["seats"]
    assert seats[1]["hand"] == list(state.players[1].hand)
    assert [seat["hand"] for seat in seats if seat["seat"] != 1] == [None, None, None]
    assert [seat["hand_size"] for seat in seats] == [len(p.hand) for p in state.players]
    assert "cards" not in document["draw_pile"]
    assert "seed" not in document
    assert document["legal"]["commands"] or document["legal"]["offer"]


def test_an_empty_hand_the_viewer_may_not_see_is_null_like_any_other():
    facts = digital_game("amigo", 3, 1)
    states = enumerate(scan(facts), start=1)
    at = next(n for n, state in states if n > 2 and not state.players[2].hand)  # after the deal

    for viewer in (Viewer.of_seat(0), PUBLIC_VIEWER):
        document = render(view_of(facts[:at], viewer), viewer)
        assert document["seats"][2]["hand"] is None
        assert document["seats"][2]["hand_size"] == 0
    own = render(view_of(facts[:at], Viewer.of_seat(2)), Viewer.of_seat(2))
    assert own["seats"][2]["hand"] == []


def test_the_public_sees_no_hand_and_gets_no_legal_commands():
    facts = digital_game("rio-grande", 3, 3)

    document = render(view_of(facts[:60], PUBLIC_VIEWER), PUBLIC_VIEWER)

    assert all(seat["hand"] is None for seat in document["seats"])
    assert "legal" not in document


def test_the_host_of_a_tabletop_game_sees_every_hand_but_a_digital_host_does_not():
    tabletop = tabletop_game("rio-grande", 3, 4)
    digital = digital_game("rio-grande", 3, 4)

    at_table = render(view_of(tabletop[:30], HOST_VIEWER), HOST_VIEWER)
    online = render(view_of(digital[:30], HOST_VIEWER), HOST_VIEWER)

    assert all(seat["hand"] is not None for seat in at_table["seats"])
    assert all(seat["hand"] is None for seat in online["seats"])


def test_an_auditor_sees_the_draw_pile_in_order_and_the_seed():
    facts = digital_game("rio-grande", 5, 5)
    state = fold(facts)

    document = render(view_of(facts, AUDITOR_VIEWER), AUDITOR_VIEWER)

    assert document["draw_pile"]["cards"] == list(state.draw_pile)
    assert document["seed"] == state.seed


def test_secret_coin_counts_hide_other_players_coins_until_the_end():
    facts = simulate("rio-grande", 4, seed=6, options={"coin_counts_visible": False})
    mid = len(facts) // 2
    state = fold(facts[:mid])

    during = render(view_of(facts[:mid], Viewer.of_seat(0)), Viewer.of_seat(0))
    after = render(view_of(facts, Viewer.of_seat(0)), Viewer.of_seat(0))

    assert during["seats"][0]["coins"] == len(state.players[0].coins)
    assert [seat["coins"] for seat in during["seats"][1:]] == [None, None, None]
    assert all(seat["coins"] is not None for seat in after["seats"])


def test_only_the_top_of_the_discard_pile_is_shown_unless_it_may_be_browsed():
    facts = digital_game("rio-grande", 4, 7)
    browsable = simulate("rio-grande", 4, seed=7, options={"discard_pile_browsable": True})

    plain = render(view_of(facts[:200], PUBLIC_VIEWER), PUBLIC_VIEWER)
    browsed = render(view_of(browsable[:200], PUBLIC_VIEWER), PUBLIC_VIEWER)

    assert "cards" not in plain["discard_pile"]
    assert browsed["discard_pile"]["cards"][-1] == browsed["discard_pile"]["top"]


def test_a_feed_shows_a_seat_its_own_drawn_cards_and_others_as_unknown():
    facts = digital_game("rio-grande", 3, 8)
    drawn = [item for item in feed(facts, Viewer.of_seat(0)) if item["type"] == "CardDrawn"]

    assert {item["event"]["bean"] == UNKNOWN for item in drawn if item["event"]["seat"] != 0} == {
        True
    }
    assert UNKNOWN not in {item["event"]["bean"] for item in drawn if item["event"]["seat"] == 0}


def test_a_feed_starts_at_a_position_and_numbers_facts_from_one():
    facts = digital_game("amigo", 4, 9)

    items = list(feed(facts, PUBLIC_VIEWER, start=10))

    assert items[0]["position"] == 10
    assert items[-1]["position"] == len(facts)
    assert items[-1]["type"] == "GameEnded"


def test_a_feed_item_tells_a_seat_its_own_drawn_card_and_others_only_that_a_card_was_drawn():
    facts = digital_game("rio-grande", 3, 8)
    drawn = [item for item in feed(facts, Viewer.of_seat(0)) if item["type"] == "CardDrawn"]

    own = {item["summary"] for item in drawn if item["event"]["seat"] == 0}
    others = {item["summary"] for item in drawn if item["event"]["seat"] != 0}
    assert all(not line.endswith("draws a card") for line in own)
    assert all(line.endswith("draws a card") for line in others)


# --- what a table is waiting for -----------------------------------------------------------------

PILE_ENDINGS = [
    {},
    {"end_trigger": "failed-draw"},
    {"reshuffle": "on-next-draw"},
    {"empty_reshuffle": "end-game"},
]
"""The ways a draw pile can run out and end a game (RULES §10, §12.1)."""


@pytest.mark.parametrize("options", PILE_ENDINGS, ids=lambda o: ",".join(o) or "default")
@pytest.mark.parametrize(("preset", "players"), slow_beyond(CONFIGS, keep=1))
def test_a_table_is_asked_for_exactly_the_cards_each_reveal_and_draw_takes(
    preset: str, players: int, options: dict[str, object]
) -> None:
    facts = simulate(preset, players, bot="random", seed=players, options=options)
    first = facts[0]
    assert isinstance(first, ev.GameStarted)
    table = start_game(
        Ruleset.from_dict(first.ruleset), first.seats, start_seat=first.start_seat, mode=TABLETOP
    )
    state = fold(table)
    asked = 0
    for command in commands_from_facts(facts, tabletop=True):
        if isinstance(command, Reveal | Draw):
            step = ChanceStep(command.type, command.seat, len(command.cards or ()))
            seat_view = view_of(table, Viewer.of_seat(command.seat))
            assert chance_step(state) == step
            assert chance_step(view_of(table, HOST_VIEWER)) == step
            assert legal_commands(seat_view, command.seat).chance == step
            asked += 1
        new = decide(state, command)
        table += new
        state = fold(new, state)
    assert asked > 0
    assert state.is_over


def _unknown_hands_game(preset: str, players: int, seed: int) -> tuple[ev.Event, ...]:
    ruleset = resolve_ruleset(preset, players)
    return tuple(
        simulate_under(ruleset, bot="random", seed=seed, mode=TABLETOP, hands=UNKNOWN_HANDS)
    )


BATCHED = {
    "digital": digital_game,
    "tabletop": tabletop_game,
    "unknown hands": _unknown_hands_game,
}
BATCH_SIZES = (1, 3, 2, 7, 1, 12, 5)
"""The facts a view is brought on by at a time, in turn (a command's answer brings a seat's
view on by the facts stored since that seat last asked)."""


def batches(facts: tuple[ev.Event, ...]) -> Iterator[tuple[int, tuple[ev.Event, ...]]]:
    """The facts in batches of BATCH_SIZES in turn, each with how many facts it brings the
    view to."""
    seen, turn = 0, 0
    while seen < len(facts):
        batch = facts[seen : seen + BATCH_SIZES[turn % len(BATCH_SIZES)]]
        seen, turn = seen + len(batch), turn + 1
        yield seen, batch


@pytest.mark.parametrize("kind", list(BATCHED))
def test_a_view_brought_on_batch_by_batch_is_the_view_folded_from_all_its_facts(kind):
    facts = BATCHED[kind]("rio-grande", 4, 2)
    for viewer in (Viewer.of_seat(1), PUBLIC_VIEWER, HOST_VIEWER):
        kept = ViewFold(viewer)
        for seen, batch in batches(facts):
            view = kept.apply_all(batch)

            mode = facts[0].mode
            assert view == fold(redact(fact, viewer, mode) for fact in facts[:seen]), (kind, seen)
        assert kept.apply_all(()) is view


def _secret_coins_game(preset: str, players: int, seed: int) -> tuple[ev.Event, ...]:
    return tuple(simulate(preset, players, seed=seed, options={"coin_counts_visible": False}))


@pytest.mark.parametrize("kind", [*BATCHED, "secret coins"])
def test_a_view_rendered_with_the_seat_documents_kept_from_its_last_rendering_is_rendered_afresh(
    kind,
):
    """`render`'s `kept`: a seat whose `Player` no fact has replaced keeps its document from the
    viewer's last answer; every answer must still be what rendering the view afresh gives, to
    the end of the game (where secret coins are shown)."""
    facts = {**BATCHED, "secret coins": _secret_coins_game}[kind]("rio-grande", 4, 2)
    for viewer in (Viewer.of_seat(1), PUBLIC_VIEWER, HOST_VIEWER):
        fold_kept, reused = ViewFold(viewer), 0
        for seen, batch in batches(facts):
            view = fold_kept.apply_all(batch)
            before = {seat: held[2] for seat, held in fold_kept.seat_documents.items()}

            document = render(view, viewer, fold_kept.seat_documents)

            assert document == render(view, viewer), (kind, viewer, seen)
            reused += sum(before.get(seat) is shown for seat, shown in enumerate(document["seats"]))
        assert view.is_over
        assert reused > len(facts) // 4, (kind, viewer)


def test_every_event_type_with_secret_fields_has_its_redaction():
    """`redact` hands a fact of a type it has no redaction for on unchanged: that must be a type
    with nothing secret."""
    secret = {cls for cls in ev.event_classes() if cls.secret}

    assert secret == set(_REDACTIONS)
