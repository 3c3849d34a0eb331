"""What replays tell of hidden things: notes a viewer may not read, coins a secret treasury keeps.

On the in-memory store; the HTTP side is in tests/api/test_replays.py."""

from __future__ import annotations

from collections.abc import Iterator
from uuid import UUID, uuid4

import pytest

from domain.aggregate import Game
from domain.application import Bohnanza
from domain.bots import simulate
from domain.rules import events as ev
from domain.rules.errors import Forbidden, NotFound
from domain.rules.evolve import fold
from projections.views import PUBLIC_VIEWER, Viewer
from replays.annotations import Author, add_note, delete_note, edit_note
from replays.forks import compare, create_fork

ANA = Author("seat", "Ana", 0)
BEN = Author("seat", "Ben", 1)
HOST = Author("host", "host")


@pytest.fixture
def app() -> Iterator[Bohnanza]:
    with Bohnanza.from_url("memory://") as application:
        yield application


def stored(app: Bohnanza, facts: list[ev.Event]) -> UUID:
    first, *rest = facts
    assert isinstance(first, ev.GameStarted)
    game = Game.start(first, game_id=uuid4())
    game.record(rest)
    app.save(game)
    return game.id


def running_secret_game(app: Bohnanza, coins: int = 5) -> tuple[UUID, list[int]]:
    """A bot game whose ruleset keeps treasuries secret, stored up to the first fact after which
    its seats hold `coins` coins between them; its id and each seat's coins."""
    facts = simulate("rio-grande", 3, seed=4, options={"coin_counts_visible": False})
    for end in range(1, len(facts)):
        state = fold(facts[:end])
        if sum(len(player.coins) for player in state.players) >= coins:
            assert not state.is_over
            return stored(app, facts[:end]), [len(player.coins) for player in state.players]
    raise AssertionError("the game ended before its seats held that many coins")


@pytest.fixture
def private_note(app: Bohnanza) -> tuple[UUID, int]:
    """A finished game with Ana's private note on step 3: the game and the note's number."""
    game_id = stored(app, simulate("rio-grande", 3, seed=4))
    facts = app.facts(game_id)
    note = add_note(app, game_id, facts, step=3, author=ANA, text="mine", visibility="author")
    return game_id, note.id


@pytest.mark.parametrize("editor", [BEN, HOST], ids=["another seat", "the host"])
def test_editing_a_note_the_editor_may_not_read_is_not_found(app, private_note, editor):
    game_id, note = private_note

    with pytest.raises(NotFound) as refused:
        edit_note(app, game_id, app.facts(game_id), note, editor=editor, text="x")

    assert str(refused.value) == f"no note {note} on game {game_id}"


@pytest.mark.parametrize("editor", [BEN, HOST], ids=["another seat", "the host"])
def test_deleting_a_note_the_editor_may_not_read_is_not_found(app, private_note, editor):
    game_id, note = private_note

    with pytest.raises(NotFound) as refused:
        delete_note(app, game_id, note, editor=editor)

    assert str(refused.value) == f"no note {note} on game {game_id}"


def test_changing_a_note_the_editor_may_read_but_did_not_write_is_forbidden(app, private_note):
    game_id, _ = private_note
    facts = app.facts(game_id)
    ours = add_note(app, game_id, facts, step=3, author=ANA, text="ours", visibility="table")

    with pytest.raises(Forbidden, match=f"note {ours.id} is Ana's"):
        edit_note(app, game_id, facts, ours.id, editor=BEN, text="x")


def test_a_comparison_shows_a_secret_treasury_s_coins_only_to_those_who_may_see_them(app):
    parent, coins = running_secret_game(app)
    fork = create_fork(app, parent, len(app.facts(parent))).game_id

    seen = compare(
        app, fork, viewer_in=lambda game: Viewer.of_seat(2) if game == fork else PUBLIC_VIEWER
    )

    assert seen["fork"]["scores"] == [None, None, coins[2]]
    assert seen["parent"]["scores"] == [None, None, None]


def test_the_operator_s_comparison_shows_every_coin(app):
    parent, coins = running_secret_game(app)
    fork = create_fork(app, parent, len(app.facts(parent))).game_id

    seen = compare(app, fork)

    assert seen["fork"]["scores"] == coins
    assert seen["parent"]["scores"] == coins
