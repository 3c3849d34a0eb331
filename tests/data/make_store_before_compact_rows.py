"""Writes a store as the checkout on the path stores it (see tests/data/README.md).

    PYTHONPATH=. python tests/data/make_store_before_compact_rows.py sqlite:////tmp/old.sqlite3 \
        /tmp/old.json
"""

from __future__ import annotations

import json
import random
import sys
import uuid

from domain.application import Bohnanza
from domain.bots import BOTS, Table, play_stored, simulate
from domain.rules import commands as cmd
from domain.rules.transcript import commands_from_facts, redecide
from replays.games import export_game


def main(url: str, out: str) -> None:
    ids = {}
    with Bohnanza.from_url(url) as app:
        game = app.start_game(["Ana", "Ben", "Cleo"], seed=11, game_id=uuid.UUID(int=1))
        bots = Table([BOTS["greedy"]() for _ in range(3)], random.Random(1))
        play_stored(app, game.game_id, bots)
        ids["finished"] = game.game_id

        game = app.start_game(
            ["Dan", "Eve", "Finn", "Gus"],
            preset="amigo",
            seed=12,
            game_id=uuid.UUID(int=2),
            options={"coin_counts_visible": False},
        )
        bots = Table([BOTS["random"]() for _ in range(4)], random.Random(2))
        for _ in range(150):
            app.execute(game.game_id, bots.next_command(app.state(game.game_id)))
        ids["running"] = game.game_id

        facts = redecide(simulate("rio-grande", 3, seed=1), tabletop=True)
        first = facts[0]
        game = app.start_game(
            list(first.seats),  # type: ignore[attr-defined]
            mode="tabletop",
            start_seat=first.start_seat,  # type: ignore[attr-defined]
            game_id=uuid.UUID(int=3),
        )
        for command in commands_from_facts(facts, tabletop=True):
            app.execute(game.game_id, command)
        app.execute(game.game_id, cmd.Correct((cmd.Change(625, cmd.INSERT, cmd.Harvest(1, 2)),)))
        ids["corrected"] = game.game_id

        records = {name: export_game(app, game_id) for name, game_id in ids.items()}
        states = {name: app.state(game_id).to_dict() for name, game_id in ids.items()}
    document = {"ids": {k: str(v) for k, v in ids.items()}, "records": records, "states": states}
    with open(out, "w") as file:
        json.dump(document, file, sort_keys=True, default=str)


if __name__ == "__main__":
    main(sys.argv[1], sys.argv[2])
