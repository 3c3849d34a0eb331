"""Finished games as plays for the apps where players log them: BG Stats and BoardGameGeek.

Only what a play log holds leaves the service: the date, the length, the players in turn order
with their scores, who won and who started, and a comment naming the edition and the game. A play
is a game that ended and was played (a what-if fork is not); its date is when it started (UTC).

BG Stats reads a JSON document of `players`, `locations`, `games` and `plays`, each play with its
`playerScores` pointing at the players by id (`playerRefId`), as BG Stats itself writes its
export files. BoardGameGeek's play log is written as the `<plays>` document its XML API2 returns
(`/xmlapi2/plays`): one `<play>` per game, Bohnanza as the thing with object id 11, one `<player>`
per seat. docs/reference/replays-and-records.md says what each field holds and what was checked.
"""

from __future__ import annotations

import uuid
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime
from typing import Any, Protocol
from xml.etree import ElementTree

from domain.rules import events as ev

BGG_OBJECT_ID = 11
"""Bohnanza on BoardGameGeek (every edition this service plays is logged as the base game)."""
BGG_NAME = "Bohnanza"
BGG_YEAR = 1997
NAMESPACE = uuid.UUID("5b0c2a52-8d5e-4f0e-9a57-2f1f6b1f0b11")
"""Where the exported players' and the game's BG Stats uuids come from (the same on every
export, so that importing twice finds the same players)."""
SOURCE = "Bohnanza records"
TIME_FORMAT = "%Y-%m-%d %H:%M:%S"


class Stamped(Protocol):
    """A stored fact with the time it was recorded (the application's and the views' alike)."""

    @property
    def recorded_at(self) -> datetime: ...

    @property
    def fact(self) -> ev.Event: ...


class NotAPlay(ValueError):
    """A game that is no play to log: not over, or a what-if fork."""


@dataclass(frozen=True, slots=True)
class Play:
    """A finished game, as a play log tells it."""

    game_id: uuid.UUID
    preset: str
    seats: tuple[str, ...]
    start_seat: int
    scores: tuple[int, ...]
    winners: tuple[int, ...]
    decided_by: str | None
    turns: int
    started_at: datetime
    ended_at: datetime

    @classmethod
    def of(
        cls, game_id: uuid.UUID, facts: Sequence[ev.Event], started_at: datetime, ended_at: datetime
    ) -> Play:
        """The play of a game from its facts (as corrected) and when it started and ended."""
        first, last = facts[0], facts[-1]
        assert isinstance(first, ev.GameStarted), "a game's facts start with GameStarted"
        if not isinstance(last, ev.GameEnded):
            raise NotAPlay(f"game {game_id} is not over: only a finished game is a play to log")
        if first.sandbox:
            raise NotAPlay(f"game {game_id} is a what-if fork, not a play")
        turns = 1 + sum(isinstance(fact, ev.TurnEnded) for fact in facts)
        return cls(
            game_id,
            str(first.ruleset["preset"]),
            tuple(first.seats),
            first.start_seat,
            tuple(last.scores),
            tuple(last.winners),
            last.decided_by,
            turns,
            started_at,
            ended_at,
        )

    @classmethod
    def stored(
        cls, game_id: uuid.UUID, recorded: Sequence[Stamped], corrected: Sequence[ev.Event]
    ) -> Play:
        """The play of a stored game: its facts as corrected, and its stream's facts with the
        times they were recorded (it started with the first; it ended with the first GameEnded,
        a correction after the end changing who won but not when the table stopped)."""
        if not recorded:
            raise NotAPlay(f"game {game_id} has no facts")
        ended = next((r for r in recorded if isinstance(r.fact, ev.GameEnded)), recorded[-1])
        return cls.of(game_id, corrected, recorded[0].recorded_at, ended.recorded_at)

    @property
    def minutes(self) -> int:
        return max(0, round((self.ended_at - self.started_at).total_seconds() / 60))

    def position(self, seat: int) -> int:
        """The seat's place in turn order, 1 for the start player."""
        return (seat - self.start_seat) % len(self.seats) + 1

    def rank(self, seat: int) -> int:
        """1 for the winners; then by score, 1 + how many seats did better."""
        if seat in self.winners:
            return 1
        better = sum(
            1
            for other, score in enumerate(self.scores)
            if other in self.winners or score > self.scores[seat]
        )
        return better + 1

    @property
    def comment(self) -> str:
        tie = f"; tie broken by {self.decided_by.replace('-', ' ')}" if self.decided_by else ""
        return (
            f"{self.preset}, {len(self.seats)} players, {self.turns} turns{tie}. "
            f"Recorded with {SOURCE}, game {self.game_id}."
        )


def bgstats(plays: Sequence[Play]) -> dict[str, Any]:
    """The plays as a BG Stats import document."""
    names = list(dict.fromkeys(name for play in plays for name in play.seats))
    ids = {name: index + 1 for index, name in enumerate(names)}
    now = max((play.ended_at for play in plays), default=None)
    stamp = now.strftime(TIME_FORMAT) if now else ""
    return {
        "about": f"Plays of Bohnanza exported by {SOURCE}, to open with BG Stats.",
        "players": [
            {
                "id": ids[name],
                "uuid": str(uuid.uuid5(NAMESPACE, f"player:{name}")),
                "name": name,
                "isAnonymous": False,
                "modificationDate": stamp,
                "bggUsername": "",
            }
            for name in names
        ],
        "locations": [
            {
                "id": 1,
                "uuid": str(uuid.uuid5(NAMESPACE, "location")),
                "name": SOURCE,
                "modificationDate": stamp,
            }
        ],
        "games": [
            {
                "id": 1,
                "uuid": str(uuid.uuid5(NAMESPACE, "game:bohnanza")),
                "name": BGG_NAME,
                "modificationDate": stamp,
                "cooperative": False,
                "highestWins": True,
                "noPoints": False,
                "usesTeams": False,
                "bggId": BGG_OBJECT_ID,
                "bggName": BGG_NAME,
                "bggYear": BGG_YEAR,
            }
        ],
        "plays": [
            {
                "uuid": str(play.game_id),
                "gameRefId": 1,
                "locationRefId": 1,
                "playDate": play.started_at.strftime(TIME_FORMAT),
                "entryDate": play.ended_at.strftime(TIME_FORMAT),
                "modificationDate": play.ended_at.strftime(TIME_FORMAT),
                "durationMin": play.minutes,
                "ignored": False,
                "manualWinner": False,
                "rounds": play.turns,
                "usesTeams": False,
                "board": play.preset,
                "comments": play.comment,
                "playerScores": [
                    {
                        "playerRefId": ids[name],
                        "score": str(play.scores[seat]),
                        "winner": seat in play.winners,
                        "newPlayer": False,
                        "startPlayer": seat == play.start_seat,
                        "rank": play.rank(seat),
                        "seatOrder": play.position(seat),
                    }
                    for seat, name in enumerate(play.seats)
                ],
            }
            for play in plays
        ],
    }


def bgg(plays: Sequence[Play]) -> str:
    """The plays as BoardGameGeek's XML API2 lists a play log (`<plays>`)."""
    root = ElementTree.Element("plays", {"total": str(len(plays))})
    for play in plays:
        element = ElementTree.SubElement(
            root,
            "play",
            {
                "date": play.started_at.strftime("%Y-%m-%d"),
                "quantity": "1",
                "length": str(play.minutes),
                "incomplete": "0",
                "nowinstats": "0",
                "location": SOURCE,
            },
        )
        item = ElementTree.SubElement(
            element,
            "item",
            {"name": BGG_NAME, "objecttype": "thing", "objectid": str(BGG_OBJECT_ID)},
        )
        subtypes = ElementTree.SubElement(item, "subtypes")
        ElementTree.SubElement(subtypes, "subtype", {"value": "boardgame"})
        ElementTree.SubElement(element, "comments").text = play.comment
        players = ElementTree.SubElement(element, "players")
        for seat, name in enumerate(play.seats):
            ElementTree.SubElement(
                players,
                "player",
                {
                    "username": "",
                    "userid": "0",
                    "name": name,
                    "startposition": str(play.position(seat)),
                    "color": "",
                    "score": str(play.scores[seat]),
                    "new": "0",
                    "rating": "0",
                    "win": "1" if seat in play.winners else "0",
                },
            )
    ElementTree.indent(root)
    return '<?xml version="1.0" encoding="utf-8"?>\n' + ElementTree.tostring(root, "unicode")
