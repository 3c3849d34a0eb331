"""The demo games `bohnanza serve` creates on an empty store (api/cli_serve.py)."""

from __future__ import annotations

import pytest

from api.cli_serve import create_demo

from .conftest import web_app


def demo_hand() -> list[str]:
    """Ana's hand in the new demo game of a fresh store."""
    with web_app("memory://") as app:
        demo = create_demo(app)
        token = demo["new"]["seats"][0]["token"]
        view = app.test_client().get(
            f"/api/games/{demo['new']['game_id']}/view",
            headers={"Authorization": f"Bearer {token}"},
        )
    return view.get_json()["seats"][0]["hand"]


@pytest.mark.slow  # plays the demo game twice
def test_the_new_demo_game_is_shuffled_afresh_on_every_store() -> None:
    hands = {tuple(demo_hand()) for _ in range(3)}

    assert len(hands) > 1  # three equal 5-card hands of a random deal: about 1 in 10^5
