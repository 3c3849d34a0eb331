"""The `bohnanza` command line, run in-process against a SQLite file."""

from __future__ import annotations

import socket
from uuid import UUID

import pytest

from api import cli_serve
from domain.application import Bohnanza


def test_play_stores_a_complete_game_and_prints_the_winner(run):
    result = run("play", "--players", "Ana,Ben,Cleo", "--seed", "7")

    assert result.exit_code == 0
    assert "— Turn 1: Ana —" in result.output
    assert "Game over — Ana" in result.output
    assert "Stored as" in result.output


def test_play_prints_trades(run):
    result = run("play", "--players", "Ana,Ben,Cleo,Dan", "--seed", "2")

    assert " accepts: " in result.output


@pytest.mark.slow  # two whole games
def test_a_seeded_game_plays_the_same_twice(run):
    first = run("play", "--players", "Ana,Ben,Cleo", "--seed", "11", "--quiet")
    second = run("play", "--players", "Ana,Ben,Cleo", "--seed", "11", "--quiet")

    assert first.output.splitlines()[1] == second.output.splitlines()[1]


def test_games_lists_stored_games_with_their_results(run):
    run("play", "--players", "Ana,Ben", "--seed", "3", "--quiet")
    result = run("games")

    assert "rio-grande" in result.output
    assert "won" in result.output


def test_games_marks_a_copy_of_an_earlier_game_with_the_same_facts(run):
    first = run("play", "--players", "Ana,Ben", "--seed", "3", "--quiet")
    run("play", "--players", "Ana,Ben", "--seed", "3", "--quiet")

    header, *lines = run("games").output.splitlines()

    original = first.output.split()[1]
    assert header.split() == ["GAME", "STARTED", "(UTC)", "PRESET", "MODE", "SEATS", "STATUS"]
    assert len(lines) == 2
    assert "copy" not in lines[0]
    assert lines[1].endswith(f"; a copy of {original}")


def test_games_lists_the_games_in_columns_under_a_header(run):
    run("play", "--players", "Ana,Ben", "--seed", "3", "--quiet")

    header, line = run("games").output.splitlines()

    assert line.index("rio-grande") == header.index("PRESET")
    assert line.index("Ana, Ben") == header.index("SEATS")
    assert line.index("ended") == header.index("STATUS")


@pytest.mark.parametrize("players", ["Ana,,Ben", "Ana,Ben,", ",Ana,Ben", "Ana, ,Ben"])
def test_play_refuses_an_empty_seat_name_and_stores_nothing(run, players):
    result = run("play", "--players", players)

    assert result.exit_code == 2
    assert "has an empty name" in result.output
    assert "No games stored yet" in run("games").output


@pytest.mark.parametrize(
    ("count", "example"),
    [("3", "Ana,Ben,Cleo"), ("1", "Ana,Ben"), ("9", "Ana,Ben,Cleo,Dan,Eve,Fay,Gus")],
)
def test_play_given_a_count_of_players_says_it_takes_their_names(run, count, example):
    result = run("play", "--players", count)

    assert result.exit_code == 2
    assert f"takes the seats' names, not how many: e.g. --players {example}" in result.output
    assert "No games stored yet" in run("games").output


def test_play_takes_a_digit_that_is_no_number_as_a_name(run):
    result = run("play", "--players", "²")  # a digit to str.isdigit, not to int()

    assert result.exit_code == 1
    assert "rio-grande is for 2–7 players, not 1" in result.output


def test_an_ambiguous_part_of_an_id_is_refused_with_the_games_it_matches(run, tmp_path):
    ids = ["3a000000-0000-4000-8000-000000000001", "3b000000-0000-4000-8000-000000000002"]
    with Bohnanza.from_url(f"sqlite:///{tmp_path}/cli.sqlite3") as app:
        for game_id, seats in zip(ids, (["Ana", "Ben"], ["Cleo", "Dan", "Eva"]), strict=True):
            app.start_game(seats, seed=1, game_id=UUID(game_id))

    result = run("show", "000000")

    assert result.exit_code == 1
    header, first, second = result.output.splitlines()[1:]
    assert result.output.startswith("Error: 2 games' ids hold '000000'; give more of the id:")
    assert header.split() == ["GAME", "STARTED", "PRESET", "SEATS"]
    assert first.split()[0] == ids[0]
    assert first.endswith("Ana, Ben")
    assert second.split()[0] == ids[1]


def test_show_prints_the_table_and_the_event_log_by_the_last_characters_of_the_id(run):
    played = run(
        "play", "--players", "Ana,Ben,Cleo", "--ruleset", "amigo", "--seed", "5", "--quiet"
    )
    game_id = played.output.split()[1]

    result = run("show", game_id[-8:])

    assert result.exit_code == 0
    assert "amigo, 3 players" in result.output
    assert "Game started: Ana, Ben, Cleo" in result.output
    assert "Game over" in result.output


def test_a_game_is_found_by_the_start_of_its_id_too(run, tmp_path):
    ids = ["3a000000-0000-4000-8000-000000000001", "3b000000-0000-4000-8000-000000000002"]
    with Bohnanza.from_url(f"sqlite:///{tmp_path}/cli.sqlite3") as app:
        for game_id in ids:
            app.start_game(["Ana", "Ben"], seed=1, game_id=UUID(game_id))

    result = run("show", "3B")

    assert result.exit_code == 0, result.output
    assert ids[1] in result.output


def test_show_refuses_an_unknown_game(run):
    result = run("show", "ffffffff")

    assert result.exit_code != 0
    assert "no game's id holds 'ffffffff'" in result.output


def test_play_refuses_an_unknown_option_listing_the_valid_ones(run):
    result = run("play", "--players", "Ana,Ben,Cleo", "--option", "turbo=true")

    assert result.exit_code != 0
    assert "unknown option 'turbo'" in result.output
    assert "allow_retrade" in result.output


def test_play_reads_option_values_as_a_command_line_writes_them(run, tmp_path):
    played = run(
        "play", "--players", "Ana,Ben,Cleo", "--seed", "3", "--quiet",
        "--option", "allow_retrade=True", "--option", "tie_break=seat-distance,shared",
    )  # fmt: skip
    game_id = UUID(played.output.split()[1])

    with Bohnanza.from_url(f"sqlite:///{tmp_path}/cli.sqlite3") as app:
        ruleset = app.state(game_id).ruleset

    assert played.exit_code == 0, played.output
    assert ruleset.allow_retrade is True
    assert ruleset.tie_break == ("seat-distance", "shared")


def test_play_refuses_an_option_value_naming_no_choice(run):
    result = run("play", "--players", "Ana,Ben,Cleo", "--option", "bean_protection=strict")

    assert result.exit_code != 0
    assert "amigo, rg-literal, none" in result.output


def test_play_refuses_a_player_count_the_ruleset_does_not_have(run):
    result = run("play", "--players", "Ana,Ben", "--ruleset", "amigo")

    assert result.exit_code != 0
    assert "ruleset amigo is for 3–5 players, not 2" in result.output


def test_rulesets_describes_every_preset_and_option(run):
    result = run("rulesets")

    for name in ("rio-grande", "amigo", "amigo-1997", "allow_retrade", "tie_break", "RULES §8.3"):
        assert name in result.output


def test_a_setting_that_cannot_be_used_stops_the_command_with_its_name(monkeypatch, run):
    monkeypatch.setenv("BOHNANZA_IDEMPOTENCY_ANSWERS_KEPT_HOURS", "1e8")

    result = run("games")

    assert result.exit_code == 1
    assert result.output == (
        "Error: BOHNANZA_IDEMPOTENCY_ANSWERS_KEPT_HOURS must be a number of hours above 0 and at "
        "most 87,600, not '1e8'\n"
    )


def test_verify_with_an_option_keeps_the_game_s_other_options(run):
    played = run(
        "play", "--players", "Ana,Ben", "--seed", "4", "--quiet",
        "--option", "duel_start_fields=3",
    )  # fmt: skip
    game_id = played.output.split()[1]

    result = run("verify", game_id, "--option", "tie_break=shared")

    assert result.exit_code == 0, result.output
    assert "Legal under rio-grande with duel_start_fields=3, tie_break=shared" in result.output


def test_verify_with_another_preset_keeps_the_game_s_options(run):
    played = run(
        "play", "--players", "Ana,Ben,Cleo", "--seed", "4", "--quiet",
        "--option", "allow_retrade=true",
    )  # fmt: skip
    game_id = played.output.split()[1]

    result = run("verify", game_id, "--ruleset", "amigo", "--json")

    assert '"allow_retrade": true' in result.output


def test_serve_on_a_store_with_games_starts_without_reading_them(run, monkeypatch):
    """Start-up asks the store's last position (an index), not a scan of every game's events."""
    run("play", "--players", "Ana,Ben", "--seed", "3", "--quiet")

    def scan(*_: object, **__: object) -> None:
        raise AssertionError("start-up read every game")

    monkeypatch.setattr(Bohnanza, "games", scan)
    monkeypatch.setattr(cli_serve._Server, "run", lambda self: None)
    with socket.socket() as free:
        free.bind(("127.0.0.1", 0))
        port = free.getsockname()[1]

    result = run("serve", "--port", str(port))

    assert "its last event is at position" in result.output
    assert "Created" not in result.output
