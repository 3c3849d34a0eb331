"""`bohnanza note | notes | fork | forks` against a SQLite file."""

from __future__ import annotations

import re
import shutil
from pathlib import Path
from uuid import UUID

import pytest
from click.testing import CliRunner

from api.cli import main
from domain.application import Bohnanza
from domain.rules import events as ev


@pytest.fixture(scope="module")
def played(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, str]:
    """A store holding one game the bots played by the command line, and the game's id."""
    folder = tmp_path_factory.mktemp("played")
    url = f"sqlite:///{folder}/cli.sqlite3"
    played = CliRunner().invoke(
        main, ["--database-url", url, "play", "--players", "Ana,Ben,Cleo", "--seed", "5", "--quiet"]
    )
    assert played.exit_code == 0, played.output
    return folder, played.output.split()[1]


@pytest.fixture
def game(played: tuple[Path, str], tmp_path: Path) -> str:
    """That game, in this test's own copy of the store (what `run` opens)."""
    folder, game_id = played
    for file in folder.glob("cli.sqlite3*"):
        shutil.copy(file, tmp_path / file.name)
    return game_id


def test_a_note_is_added_as_a_seat_and_listed_for_viewers_who_may_read_it(run, game):
    added = run(
        "note",
        game,
        "--step",
        "4",
        "--text",
        "brave",
        "--glyph",
        "!?",
        "--as",
        "Ana",
        "--visibility",
        "table",
    )

    assert re.fullmatch(r"note [1-9][0-9]* on step 4 by Ana", added.output.strip())
    header, line = run("notes", game, "--as", "Ben").output.splitlines()
    assert header.split() == ["STEP", "GLYPH", "AUTHOR", "VISIBILITY", "NOTE"]
    assert line.split() == ["4", "!?", "Ana", "table", "brave"]
    assert run("notes", game).output.strip() == "No notes."


def test_a_note_on_a_step_that_does_not_exist_is_refused(run, game):
    result = run("note", game, "--step", "99999", "--text", "?")

    assert result.exit_code == 1
    assert "step 99999 does not exist" in result.output


def test_a_fork_is_made_from_a_step_and_compared_with_its_parent(run, game):
    made = run("fork", game, "--step", "120")
    fork_id = made.output.split()[1]

    listed = run("forks", game)
    compared = run("forks", fork_id)

    assert f"fork {fork_id} from step" in listed.output
    assert f"forked from {game}" in compared.output
    assert "no outcome yet: a game is still being played" in compared.output


def test_games_marks_a_fork(run, game):
    fork_id = run("fork", game, "--step", "120").output.split()[1]

    listed = {line.split()[0]: line for line in run("games").output.splitlines()}

    assert listed[fork_id].endswith("in progress; a what-if fork")
    assert "fork" not in listed[game]


def test_an_exported_note_comes_back_with_an_import(run, game, tmp_path):
    run("note", game, "--step", "4", "--text", "keep the Chili", "--glyph", "!")
    record = tmp_path / "game.json"
    run("export", game, "-o", str(record))

    imported = run("import", str(record))
    new_game = next(word for word in imported.output.split() if word.count("-") == 4)

    assert "1 annotations stored with it" in imported.output
    _, line = run("notes", new_game).output.splitlines()
    assert line.split() == ["4", "!", "host", "public", "keep", "the", "Chili"]


def test_an_export_to_a_folder_that_does_not_exist_is_an_error_not_a_traceback(run, game, tmp_path):
    result = run("export", game, "-o", str(tmp_path / "no-such-folder" / "record.json"))

    assert result.exit_code == 1
    assert "Could not open file" in result.output
    assert "Traceback" not in result.output


def _first_step(tmp_path, game: str, kind: type[ev.Event]) -> int:
    with Bohnanza.from_url(f"sqlite:///{tmp_path}/cli.sqlite3") as app:
        facts = app.facts(UUID(game))
    return next(step for step, fact in enumerate(facts, 1) if isinstance(fact, kind))


def test_a_public_note_on_a_step_with_a_drawn_card_warns_who_cannot_read_it(run, game, tmp_path):
    step = _first_step(tmp_path, game, ev.CardDrawn)

    added = run("note", game, "--step", str(step), "--text", "lucky", "--as", "host")

    assert added.exit_code == 0
    assert f"Warning: step {step} holds cards that the public" in added.output
    assert "cannot read this public note." in added.output


def test_a_public_note_on_a_step_everyone_saw_whole_warns_nobody(run, game, tmp_path):
    step = _first_step(tmp_path, game, ev.FieldHarvested)

    added = run("note", game, "--step", str(step), "--text", "well sold", "--as", "host")

    assert added.exit_code == 0
    assert "Warning" not in added.output


def test_a_seat_note_for_the_seat_that_drew_the_card_warns_nobody(run, game, tmp_path):
    with Bohnanza.from_url(f"sqlite:///{tmp_path}/cli.sqlite3") as app:
        facts = app.facts(UUID(game))
    step, drawn = next(
        (step, fact) for step, fact in enumerate(facts, 1) if isinstance(fact, ev.CardDrawn)
    )

    added = run(
        "note", game, "--step", str(step), "--text", "mine", "--visibility", "seat",
        "--for-seat", str(drawn.seat),
    )  # fmt: skip

    assert added.exit_code == 0
    assert "Warning" not in added.output
