"""Plays for BG Stats and BoardGameGeek (`replays.exports`): the fields their files hold."""

from __future__ import annotations

import json
import uuid
from datetime import UTC, datetime, timedelta
from xml.etree import ElementTree

import jsonschema
import pytest
from click.testing import CliRunner

from api.cli import main
from domain.bots import simulate
from replays.exports import NotAPlay, Play, bgg, bgstats

BGSTATS_FILE = jsonschema.Draft202012Validator(
    {
        "type": "object",
        "required": ["players", "locations", "games", "plays"],
        "properties": {
            "players": {
                "type": "array",
                "items": {
                    "type": "object",
                    "required": ["id", "uuid", "name", "isAnonymous"],
                    "properties": {"id": {"type": "integer"}, "name": {"type": "string"}},
                },
            },
            "games": {
                "type": "array",
                "items": {
                    "type": "object",
                    "required": ["id", "uuid", "name", "bggId", "highestWins", "cooperative"],
                },
            },
            "plays": {
                "type": "array",
                "items": {
                    "type": "object",
                    "required": ["uuid", "gameRefId", "playDate", "playerScores", "ignored"],
                    "properties": {
                        "playDate": {"pattern": r"^\d{4}-\d\d-\d\d \d\d:\d\d:\d\d$"},
                        "playerScores": {
                            "type": "array",
                            "items": {
                                "type": "object",
                                "required": ["playerRefId", "score", "winner", "rank"],
                                "properties": {
                                    "playerRefId": {"type": "integer"},
                                    "score": {"type": "string"},
                                    "winner": {"type": "boolean"},
                                    "rank": {"type": "integer", "minimum": 1},
                                    "seatOrder": {"type": "integer", "minimum": 1},
                                    "startPlayer": {"type": "boolean"},
                                },
                            },
                        },
                    },
                },
            },
        },
    }
)
"""The fields BG Stats' own export files hold and its import reads (see
docs/reference/replays-and-records.md for what was checked)."""

START = datetime(2026, 12, 4, 19, 0, tzinfo=UTC)


def play_of(seed: int, players: int = 4) -> Play:
    facts = simulate("rio-grande", players, seed=seed)
    return Play.of(uuid.uuid4(), facts, START, START + timedelta(minutes=47))


def test_a_play_holds_the_players_in_turn_order_from_the_start_player() -> None:
    play = play_of(seed=2)  # seat 2 starts (simulate starts seed % players)
    assert play.start_seat == 2
    assert [play.position(seat) for seat in range(4)] == [3, 4, 1, 2]
    assert play.minutes == 47


@pytest.mark.parametrize(
    ("scores", "winners", "ranks"),
    [
        ((12, 9, 7), (0,), [1, 2, 3]),
        ((12, 12, 7), (1,), [2, 1, 3]),
        ((12, 12, 7), (0, 1), [1, 1, 3]),
        ((5, 9, 9), (1,), [3, 1, 2]),
    ],
    ids=["plain", "tie broken", "shared win", "tied behind"],
)
def test_the_winners_rank_first_and_the_others_by_score(
    scores: tuple[int, ...], winners: tuple[int, ...], ranks: list[int]
) -> None:
    play = Play(
        uuid.uuid4(), "rio-grande", ("A", "B", "C"), 0, scores, winners, None, 9, START, START
    )
    assert [play.rank(seat) for seat in range(3)] == ranks


def test_many_plays_share_their_players_in_one_bg_stats_file() -> None:
    plays = [play_of(seed=1), play_of(seed=2, players=3)]
    document = bgstats(plays)

    BGSTATS_FILE.validate(document)
    assert [p["name"] for p in document["players"]] == ["Ana", "Ben", "Cleo", "Dan"]
    assert [len(p["playerScores"]) for p in document["plays"]] == [4, 3]
    starts = [[s["startPlayer"] for s in p["playerScores"]] for p in document["plays"]]
    assert starts == [[False, True, False, False], [False, False, True]]
    assert document["plays"][0]["playDate"] == "2026-12-04 19:00:00"
    assert json.loads(json.dumps(document)) == document


def test_the_boardgamegeek_file_is_its_xml_api_play_log() -> None:
    plays = [play_of(seed=1), play_of(seed=3)]
    root = ElementTree.fromstring(bgg(plays))

    assert root.tag == "plays"
    assert root.get("total") == "2"
    for element, play in zip(root.findall("play"), plays, strict=True):
        assert element.get("date") == "2026-12-04"
        assert element.get("length") == "47"
        assert element.find("item").get("objecttype") == "thing"
        names = [p.get("name") for p in element.findall("players/player")]
        assert names == list(play.seats)
        wins = [p.get("win") for p in element.findall("players/player")]
        assert wins == ["1" if seat in play.winners else "0" for seat in range(len(play.seats))]


def test_a_game_that_is_not_over_is_no_play() -> None:
    facts = simulate("rio-grande", 3, seed=1)[:100]
    with pytest.raises(NotAPlay, match="not over"):
        Play.of(uuid.uuid4(), facts, START, START)


def test_bohnanza_plays_writes_every_finished_game_for_bg_stats_or_boardgamegeek(
    tmp_path,
) -> None:
    url = f"sqlite:///{tmp_path}/plays.sqlite3"
    runner = CliRunner()
    for seed in ("5", "6"):
        played = runner.invoke(
            main,
            ["--database-url", url, "play", "--players", "Ana,Ben,Cleo", "--seed", seed, "--quiet"],
        )
        assert played.exit_code == 0, played.output

    document = json.loads(runner.invoke(main, ["--database-url", url, "plays"]).output)
    BGSTATS_FILE.validate(document)
    assert len(document["plays"]) == 2
    written = runner.invoke(
        main, ["--database-url", url, "plays", "--format", "bgg", "-o", str(tmp_path / "p.xml")]
    )
    assert written.output.strip() == f"Wrote 2 plays to {tmp_path / 'p.xml'}"
    assert ElementTree.parse(tmp_path / "p.xml").getroot().get("total") == "2"
