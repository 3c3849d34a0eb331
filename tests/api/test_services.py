"""What each process keeps of the games it serves (api/services.py)."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from uuid import UUID

import pytest

from api.services import GameViews
from domain.application import Bohnanza
from domain.rules import events as ev
from domain.rules.commands import Plant
from projections.views import HOST_VIEWER


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


def test_facts_another_process_stored_are_taken_from_the_load_of_the_game_not_read_again(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    url = f"sqlite:///{tmp_path / 'store.sqlite3'}"
    with Bohnanza.from_url(url) as here, Bohnanza.from_url(url) as elsewhere:
        views = GameViews(here)
        started = here.start_game(["Ana", "Ben", "Cleo"], seed=1)
        first = started.facts[0]
        assert isinstance(first, ev.GameStarted)
        views.view(started.game_id, HOST_VIEWER)  # held: the game as started
        elsewhere.execute(started.game_id, Plant(first.start_seat, 0))
        reads: list[int] = []
        read = here.recorded_facts
        monkeypatch.setattr(
            here, "recorded_facts", lambda *a, **k: reads.append(1) or read(*a, **k)
        )

        outcome = here.execute(started.game_id, Plant(first.start_seat, 1))
        views.record(started.game_id, outcome.recorded())
        held = views.facts_until(started.game_id, outcome.version)

        assert reads == []
        assert [r.version for r in held] == list(range(1, outcome.version + 1))
        assert [r.fact for r in held] == [r.fact for r in read(started.game_id)]
