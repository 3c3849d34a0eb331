"""`bohnanza replay`, run in-process on a local command group against a SQLite file."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from uuid import UUID

import click
import pytest
from click.testing import CliRunner

from api.cli_replay import replay
from api.settings import Settings
from domain.application import Bohnanza
from domain.bots import simulate
from domain.rules import events as ev
from domain.rules.beans import label
from domain.rules.transcript import commands_from_facts


@click.group()
@click.option("--database-url", required=True)
@click.pass_context
def cli(ctx: click.Context, database_url: str) -> None:
    ctx.obj = Settings(database_url=database_url, data_dir=Path(database_url).parent)


cli.add_command(replay)


@dataclass
class Stored:
    url: str
    game_id: UUID
    facts: list[ev.Event]
    running_id: UUID


def store(app: Bohnanza, facts: list[ev.Event], commands: int | None = None) -> UUID:
    first = facts[0]
    assert isinstance(first, ev.GameStarted)
    outcome = app.start_game(
        first.seats,
        preset=first.ruleset["preset"],
        start_seat=first.start_seat,
        seed=first.seed,
        deck=first.deck,
    )
    for command in commands_from_facts(facts, tabletop=False)[:commands]:
        outcome = app.execute(outcome.game_id, command)
    return outcome.game_id


@pytest.fixture(scope="module")
def stored(tmp_path_factory: pytest.TempPathFactory) -> Stored:
    url = f"sqlite:///{tmp_path_factory.mktemp('replay') / 'cli.sqlite3'}"
    facts = simulate("amigo", 3, bot="greedy", seed=4)
    with Bohnanza.from_url(url) as app:
        game_id = store(app, facts)
        running_id = store(app, facts, commands=40)
        assert app.facts(game_id) == facts
    return Stored(url, game_id, facts, running_id)


@pytest.fixture
def run(stored: Stored):
    runner = CliRunner()

    def invoke(*args: str, input: str | None = None):
        return runner.invoke(cli, ["--database-url", stored.url, "replay", *args], input=input)

    return invoke


def test_list_prints_every_step_with_its_public_summary(run, stored):
    result = run(str(stored.game_id), "--list")

    assert result.exit_code == 0, result.output
    lines = result.output.splitlines()
    assert len(lines) == len(stored.facts)
    assert lines[0].split()[:2] == ["1", "deal"]
    assert "T0 Game started: Ana, Ben, Cleo" in lines[0]
    assert "T0 Cards dealt (Ana 5, Ben 5, Cleo 5)" in lines[1]
    assert "Game over" in lines[-1]
    assert all("draws a card" in line for line in lines if " draws " in line)


def test_list_with_a_turn_prints_only_that_turn_s_steps(run, stored):
    result = run(str(stored.game_id)[-8:], "--list", "--turn", "3")

    assert result.exit_code == 0, result.output
    assert {line.split()[2] for line in result.output.splitlines()} == {"T3"}


def test_a_step_as_a_seat_shows_what_changed_and_the_table_with_its_own_hand(run, stored):
    position, fact = next(
        (p, f) for p, f in enumerate(stored.facts, 1) if isinstance(f, ev.CardDrawn) and p > 20
    )
    name = ("Ana", "Ben", "Cleo")[fact.seat]

    result = run(str(stored.game_id), "--as", str(fact.seat), "--step", str(position))

    assert result.exit_code == 0, result.output
    assert f"Step {position}/{len(stored.facts)} · turn " in result.output
    assert f"{name} draws {label(fact.bean)}" in result.output
    assert f"/seats/{fact.seat}/hand_size: " in result.output
    assert f"seen by {name} (seat {fact.seat})" in result.output


def test_a_seat_may_be_named_and_sees_another_seat_s_draw_as_a_card(run, stored):
    position, fact = next(
        (p, f) for p, f in enumerate(stored.facts, 1) if isinstance(f, ev.CardDrawn) and f.seat != 1
    )

    result = run(str(stored.game_id), "--as", "ben", "--step", str(position))

    assert result.exit_code == 0, result.output
    assert "draws a card" in result.output
    assert "seen by Ben (seat 1)" in result.output
    assert f"/seats/{fact.seat}/hand: " not in result.output


def test_a_turn_prints_its_first_step(run, stored):
    result = run(str(stored.game_id), "--turn", "2")

    assert result.exit_code == 0, result.output
    assert " · turn 2 · " in result.output.splitlines()[1]


def test_the_auditor_sees_every_hand_once_the_game_is_over(run, stored):
    result = run(str(stored.game_id), "--as", "auditor", "--step", "30")

    assert result.exit_code == 0, result.output
    assert "seen by an auditor" in result.output
    assert " cards\n" not in result.output


def test_the_auditor_s_view_of_a_running_game_is_refused(run, stored):
    result = run(str(stored.running_id), "--as", "auditor", "--step", "3")

    assert result.exit_code == 1
    assert "only once the game is over" in result.output


def test_a_seat_may_replay_a_running_game(run, stored):
    result = run(str(stored.running_id), "--as", "0", "--step", "3")

    assert result.exit_code == 0, result.output


def test_without_a_terminal_every_step_is_printed_with_tables_at_each_turn_s_end(run, stored):
    result = run(str(stored.game_id), "--as", "public")

    assert result.exit_code == 0, result.output
    turns = sum(isinstance(fact, ev.TurnEnded) for fact in stored.facts)
    assert result.output.count("Step ") == len(stored.facts)
    assert result.output.count("\ndraw pile ") == turns + 2
    assert "[Enter] next" not in result.output


def test_paging_waits_for_enter_and_jumps_on_request(run, stored):
    keys = "\n".join(["", "t 3", "n card-drawn", "b", "p TurnEnded", "7", "q"]) + "\n"

    result = run(str(stored.game_id), "--page", input=keys)

    assert result.exit_code == 0, result.output
    headings = [line for line in result.output.splitlines() if line.startswith("Step ")]
    turn_3 = next(
        p for p, f in enumerate(stored.facts, 1) if isinstance(f, ev.TurnEnded) and f.turn == 2
    )
    drawn = next(
        p for p, f in enumerate(stored.facts, 1) if isinstance(f, ev.CardDrawn) and p > turn_3 + 1
    )
    ended = max(
        p for p, f in enumerate(stored.facts[: drawn - 2], 1) if isinstance(f, ev.TurnEnded)
    )
    total = len(stored.facts)
    assert [h.split(" · ")[0] for h in headings] == [
        f"Step {p}/{total}" for p in (1, 2, turn_3 + 1, drawn, drawn - 1, ended, 7)
    ]


def test_paging_explains_an_answer_it_does_not_understand(run, stored):
    result = run(str(stored.game_id), "--page", input="x\nn Harvest\nq\n")

    assert result.exit_code == 0, result.output
    assert "'x'? [Enter] next" in result.output
    assert "no kind of fact is called 'Harvest'" in result.output


def test_a_step_out_of_the_record_is_an_error(run, stored):
    result = run(str(stored.game_id), "--step", "100000")

    assert result.exit_code == 1
    assert f"no step 100000: this game's record has steps 1–{len(stored.facts)}" in result.output


def test_an_unknown_viewer_is_a_usage_error_listing_the_seats(run, stored):
    result = run(str(stored.game_id), "--as", "Zed")

    assert result.exit_code == 2
    assert "0 (Ana), 1 (Ben), 2 (Cleo)" in result.output


def test_an_unknown_game_is_an_error(run):
    result = run("ffff")

    assert result.exit_code == 1
    assert "no game's id holds 'ffff'" in result.output
