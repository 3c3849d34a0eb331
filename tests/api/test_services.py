"""What each process keeps of the games it serves (api/services.py)."""

from __future__ import annotations

from collections.abc import Iterator
from uuid import UUID

import pytest

from api.services import GameViews
from domain.application import Bohnanza


@pytest.fixture
def app() -> Iterator[Bohnanza]:
    app = Bohnanza.from_url("memory://")
    yield app
    app.close()


def new_games(app: Bohnanza, count: int) -> list[UUID]:
    return [app.start_game(["Ana", "Ben", "Cleo"], seed=n).game_id for n in range(count)]


def test_only_the_replays_asked_for_most_recently_are_kept(app: Bohnanza) -> None:
    views = GameViews(app, size=10, replays=2)
    first, second, third = new_games(app, 3)
    replays = {game: views.replay(game) for game in (first, second, third)}

    assert views.replay(third) is replays[third]
    assert views.replay(second) is replays[second]
    assert views.replay(first) is not replays[first]  # let go, and folded again when asked
    assert views.replay(second) is replays[second]
    assert views.replay(third) is not replays[third]


def test_a_replay_let_go_still_answers_for_whoever_holds_it(app: Bohnanza) -> None:
    views = GameViews(app, size=10, replays=1)
    first, second = new_games(app, 2)
    held = views.replay(first)

    views.replay(second)

    assert len(held) == len(views.replay(first)) == 2
