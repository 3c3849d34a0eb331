"""`bohnanza reissue`: the operator replaces a stored game's tokens, and the API honours the new
ones only (a lost token cannot be shown again: tokens are stored as digests)."""

from __future__ import annotations

import re
from pathlib import Path
from uuid import UUID

import pytest
from click.testing import CliRunner, Result

from api import security
from api.cli import main
from api.cli_tokens import reissue
from api.security import REMEMBERED_SECONDS, TokenStore
from projections.engine import projection_engine

from .conftest import web_app
from .support import CreatedGame, bearer, create_game


@pytest.fixture
def url(tmp_path: Path) -> str:
    return f"sqlite:///{tmp_path / 'api.sqlite3'}"


@pytest.fixture
def game(url: str) -> CreatedGame:
    with web_app(url) as app:
        return create_game(app.test_client())


def bohnanza(url: str, *args: str) -> Result:
    return CliRunner().invoke(main, ["--database-url", url, *args], catch_exceptions=False)


def printed_tokens(result: Result) -> dict[str, str]:
    """The reissued tokens by seat number or "host"."""
    return dict(re.findall(r"^  (\d+|host) .*?(bzt_\S+)$", result.output, re.MULTILINE))


def answers(url: str, game: CreatedGame, token: str) -> int:
    """The status a new server process gives this token on the game's view."""
    with web_app(url) as app:
        return app.test_client().get(f"{game.url}/view", headers=bearer(token)).status_code


def test_reissue_replaces_every_seat_s_token_and_the_host_s(url, game):
    result = bohnanza(url, "reissue", game.id[-8:])

    tokens = printed_tokens(result)
    assert result.exit_code == 0, result.output
    assert result.output.splitlines()[1].split() == ["SEAT", "PLAYER", "TOKEN"]
    assert sorted(tokens) == ["0", "1", "2", "host"]
    assert answers(url, game, tokens["1"]) == 200
    assert answers(url, game, tokens["host"]) == 200
    assert answers(url, game, game.seat_tokens[1]) == 401
    assert answers(url, game, game.host_token) == 401


def test_reissue_of_one_seat_leaves_the_other_seats_and_the_host_their_tokens(url, game):
    result = bohnanza(url, "reissue", game.id, "--seat", "ben")

    tokens = printed_tokens(result)
    assert list(tokens) == ["1"]
    assert answers(url, game, tokens["1"]) == 200
    assert answers(url, game, game.seat_tokens[1]) == 401
    assert answers(url, game, game.seat_tokens[0]) == 200
    assert answers(url, game, game.host_token) == 200


def test_a_game_played_on_the_command_line_gets_its_first_tokens(url):
    played = bohnanza(url, "play", "--players", "Ana,Ben", "--seed", "3", "--quiet")
    game_id = played.output.split()[1]

    tokens = printed_tokens(bohnanza(url, "reissue", game_id))

    created = CreatedGame(game_id, [], "", {})
    assert sorted(tokens) == ["0", "1", "host"]
    assert answers(url, created, tokens["0"]) == 200


def test_a_seat_the_game_does_not_have_is_refused_with_its_seats(url, game):
    result = bohnanza(url, "reissue", game.id, "--seat", "Zed")

    assert result.exit_code == 2
    assert "'Zed' is no seat of this game: 0 (Ana), 1 (Ben), 2 (Cleo)" in result.output
    assert answers(url, game, game.seat_tokens[0]) == 200


def test_a_running_server_stops_accepting_a_replaced_token_once_it_stops_trusting_its_memory(
    url, game
):
    engine = projection_engine(url)
    try:
        server = TokenStore(engine, remembered_seconds=0.0)
        assert server.resolve(UUID(game.id), game.seat_tokens[0]) is not None  # remembered now

        TokenStore(engine).reissue(UUID(game.id), [0], host=False)  # the operator, elsewhere

        assert server.resolve(UUID(game.id), game.seat_tokens[0]) is None
    finally:
        engine.dispose()


def test_a_reissue_in_the_same_process_forgets_the_old_tokens_at_once(url, game):
    engine = projection_engine(url)
    try:
        tokens = TokenStore(engine)
        assert tokens.resolve(UUID(game.id), game.host_token) is not None

        new = tokens.reissue(UUID(game.id), [], host=True)

        assert tokens.resolve(UUID(game.id), game.host_token) is None
        assert new.host is not None
        assert tokens.resolve(UUID(game.id), new.host) is not None
    finally:
        engine.dispose()


def test_the_help_says_how_long_a_running_server_may_accept_a_replaced_token():
    assert f"within {REMEMBERED_SECONDS:g} seconds" in (reissue.help or "")


def test_a_token_the_process_remembers_is_answered_without_hashing_it_again(url, game, monkeypatch):
    with web_app(url) as app:
        other_game = UUID(create_game(app.test_client()).id)
    hashed: list[str] = []
    digest = security.digest
    monkeypatch.setattr(security, "digest", lambda token: hashed.append(token) or digest(token))
    engine = projection_engine(url)
    try:
        tokens = TokenStore(engine)
        first = tokens.resolve(UUID(game.id), game.seat_tokens[1])
        again = tokens.resolve(UUID(game.id), game.seat_tokens[1])
        elsewhere = tokens.resolve(other_game, game.seat_tokens[1])
    finally:
        engine.dispose()

    assert first is not None
    assert first.seat == 1
    assert again == first
    assert elsewhere is None  # remembered, but this game's token
    assert hashed == [game.seat_tokens[1]]  # looked up in the database by its digest once
