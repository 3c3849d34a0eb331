"""The scoreboards projection: games, each game's per-seat scoreboard, and the leaderboard.

The leaderboard counts each game that was played once: not a sandbox (a what-if fork), and not a
copy of a game counted already. Each game's row keeps a running digest of the facts this
projection reads (`digest`); a game that ends with the digest of an earlier ended game (its record
exported and imported again, say) is a `duplicate_of` that game and adds no standing. Which one is
the original follows the store's order, so a rebuild decides the same.

A batch of facts is folded in memory over the rows it touches (loaded in one query), then each
touched row is written once: new rows inserted, changed rows updated, all with executemany. Only
the facts that change these tables are read from the store (`Scoreboards.topics`).

A correction of a tabletop game (`EntriesCorrected`) changes facts already counted: the game's rows
are counted again from its corrected facts (its history read from the store up to the correction),
and each standing it counted in, or counts in now, is counted again from the stored rows.
"""

from __future__ import annotations

import hashlib
from collections import Counter
from collections.abc import Callable, Iterable, Iterator, Sequence
from dataclasses import dataclass
from itertools import chain, groupby
from operator import attrgetter, itemgetter
from typing import Any, NamedTuple
from uuid import UUID

from sqlalchemy import (
    Connection,
    Table,
    and_,
    bindparam,
    case,
    delete,
    func,
    insert,
    or_,
    select,
    update,
)

from domain.encoding import topics_of
from domain.rules import events as ev

from .tables import game_counts, games, leaderboard, scoreboard
from .tracking import GameHistory, Recorded

IN_PROGRESS = "in-progress"
ENDED = "ended"
STATUSES = (IN_PROGRESS, ENDED)

CHUNK = 500
"""Keys per IN (...) list, well under every database's bound-parameter limit."""

GAME_CHANGES = ("status", "ended_at", "turns", "winners", "decided_by", "digest", "duplicate_of")
SEAT_CHANGES = (
    "coins",
    "coins_earned",
    "harvests",
    "trades",
    "donations",
    "donations_received",
    "offers_made",
    "offers_received",
    "accepted",
    "declined",
    "planted",
    "winner",
)
STANDING_SUMS = (
    "harvests",
    "coins_earned",
    "accepted",
    "declined",
    "donations",
    "donations_received",
)
"""A standing's sums of its games' scoreboard lines, beside games, wins, total and best score."""

Row = dict[str, Any]
StandingKey = tuple[str, str, int]

ALL_PRESETS = "*"
ALL_PLAYERS = 0
ALL_STATUSES = "*"
"""A standing's preset and player count when it sums over every preset, or every player count:
each game counts in four standings per seat (its preset and player count, its preset at any
count, any preset at its count, and overall), so each board the leaderboard shows is one range
of an index (`ix_projection_leaderboard_rank`), its top read first."""


def _scopes(name: str, preset: str, players: int) -> tuple[StandingKey, ...]:
    """The standings a seat of a game with this preset and player count counts in."""
    return (
        (name, preset, players),
        (name, preset, ALL_PLAYERS),
        (name, ALL_PRESETS, players),
        (name, ALL_PRESETS, ALL_PLAYERS),
    )


_GAMES_WITH_SEATS = select(games, scoreboard).join(
    scoreboard, scoreboard.c.game_id == games.c.game_id
)
_OF_GAMES = _GAMES_WITH_SEATS.where(games.c.game_id.in_(bindparam("ids", expanding=True)))
_OF_GAME = _GAMES_WITH_SEATS.where(games.c.game_id == bindparam("id"))
"""The common case after one command: one game, without re-rendering an expanding IN list."""
_STANDINGS_OF = select(leaderboard).where(
    leaderboard.c.name.in_(bindparam("names", expanding=True))
)
_UPDATE_GAME = update(games).where(games.c.game_id == bindparam("key_game_id"))
_UPDATE_SEAT = update(scoreboard).where(
    scoreboard.c.game_id == bindparam("key_game_id"), scoreboard.c.seat == bindparam("key_seat")
)
_UPDATE_STANDING = update(leaderboard).where(
    leaderboard.c.name == bindparam("key_name"),
    leaderboard.c.preset == bindparam("key_preset"),
    leaderboard.c.players == bindparam("key_players"),
)
_INSERT_GAME = insert(games)
_INSERT_SEAT = insert(scoreboard)
_INSERT_STANDING = insert(leaderboard)


_ORIGINALS = select(games.c.digest, games.c.game_id).where(
    games.c.digest.in_(bindparam("digests", expanding=True)),
    games.c.status == bindparam("ended"),
    games.c.duplicate_of.is_(None),
)
"""The ended games, themselves no copies, whose facts have these digests (one per digest: a
later game with an original's digest is its copy)."""

_GAME_NUMBER = attrgetter("game_id.int")
"""Runs of one game's facts, told apart by the id's integer (compared in C, unlike UUIDs)."""


class ProjectionError(RuntimeError):
    """The store holds a fact the projection cannot place (a bug, never a user error)."""


class Scoreboards:
    """Games, per-game scoreboards and the cross-game leaderboard."""

    name = "scoreboards"
    counts: tuple[type[ev.Event], ...] = (  # the facts it reads
        ev.GameStarted,
        ev.BeanPlanted,
        ev.TradeOffered,
        ev.TradeAccepted,
        ev.TradeDeclined,
        ev.FieldHarvested,
        ev.ThirdFieldBought,
        ev.TurnEnded,
        ev.GameEnded,
        ev.EntriesCorrected,
    )
    topics: tuple[str, ...] = topics_of(*counts)
    tables: tuple[Table, ...] = (games, scoreboard, leaderboard, game_counts)

    def __init__(self, history: GameHistory | None = None) -> None:
        self.history = history

    def prepare(self, connection: Connection, batch: Sequence[Recorded]) -> _Tally:
        """The rows a batch of facts touches, with the batch applied: each written once."""
        tally = _Tally.load(connection, batch, self.history)
        tally.apply_all(batch)
        tally.count_ended(connection)
        return tally


@dataclass(slots=True)
class _Game:
    """One game's rows while a batch is applied, and what the batch changed."""

    row: Row
    seats: list[Row]
    new: bool = False
    changed: bool = False
    seats_changed: bool = False
    counted_as: str | None = None
    """The status the game counts under in `projection_game_counts` before the batch (None:
    new)."""


class _Seat(NamedTuple):
    """A seat of a game as it ended: what it adds to its player's standings."""

    name: str
    score: int
    won: bool
    sums: list[int]
    """The seat's STANDING_SUMS, in their order."""


class _Ending(NamedTuple):
    """A played game the batch ended: its row, its digest and its seats then (a correction later
    in the same batch moves the digest on and replaces the rows; what the end counts stays as it
    was)."""

    row: Row
    digest: str
    seats: list[_Seat]


class _Tally:
    """The rows one batch touches, as plain dicts ready to be written."""

    def __init__(self, stored: dict[UUID, _Game], history: GameHistory | None) -> None:
        self.games = stored
        self.history = history
        self.standings: dict[StandingKey, Row] = {}
        self.recount: set[StandingKey] = set()
        """Standings a correction changed: counted again from the stored rows once written."""
        self.ended: dict[str, UUID] = {}
        """Digests of the games this batch ended (no copies): the originals of later copies."""
        self.ending: list[_Ending] = []
        """The games the batch ended, in order, to count once their originals are known."""
        self._apply: dict[type[ev.Event], Callable[[_Game, Recorded, Any], None]] = {
            ev.BeanPlanted: _planted,
            ev.TradeOffered: _offered,
            ev.TradeAccepted: _traded,
            ev.TradeDeclined: _declined,
            ev.FieldHarvested: _harvested,
            ev.ThirdFieldBought: _bought_field,
            ev.TurnEnded: _turn_ended,
            ev.GameEnded: self._ended,
            ev.EntriesCorrected: self._corrected,
        }

    @classmethod
    def load(
        cls, connection: Connection, batch: Sequence[Recorded], history: GameHistory | None = None
    ) -> _Tally:
        """The stored rows of the games the batch continues (games it starts are new)."""
        starts: dict[UUID, bool] = {}  # whether the game's first fact in the batch starts it
        for _, run in groupby(batch, key=_GAME_NUMBER):
            first = next(run)
            starts.setdefault(first.game_id, type(first.fact) is ev.GameStarted)
        earlier = [game_id for game_id, started in starts.items() if not started]
        stored: dict[UUID, _Game] = {}
        for chunk in _chunks(earlier):
            if len(chunk) == 1:
                rows = connection.execute(_OF_GAME, {"id": chunk[0]})
            else:
                rows = connection.execute(_OF_GAMES, {"ids": chunk})
            for row in rows:
                values = row._mapping
                game = stored.get(values[games.c.game_id])
                if game is None:
                    game_row = {column.name: values[column] for column in games.c}
                    game = stored[game_row["game_id"]] = _Game(
                        game_row, [], counted_as=game_row["status"]
                    )
                game.seats.append({column.name: values[column] for column in scoreboard.c})
        missing = set(earlier) - stored.keys()
        if missing:
            raise ProjectionError(f"facts of games never started: {sorted(map(str, missing))}")
        for game in stored.values():
            game.seats.sort(key=itemgetter("seat"))
        return cls(stored, history)

    def apply_all(self, batch: Iterable[Recorded]) -> None:
        """Apply the facts in order; consecutive facts of one game share one look-up."""
        apply = self._apply
        for _, run in groupby(batch, key=_GAME_NUMBER):
            first = next(run)
            game = self.games.get(first.game_id)
            for recorded in chain((first,), run):
                fact = recorded.fact
                if game is None:
                    game = self._started(recorded, fact)
                else:
                    game.row["digest"] = _digest(game.row["digest"], fact)
                    game.changed = True
                    apply[type(fact)](game, recorded, fact)

    def _started(self, r: Recorded, fact: ev.Event) -> _Game:
        if not isinstance(fact, ev.GameStarted):
            raise ProjectionError(f"game {r.game_id} has a {fact.kind} before its start")
        row, seats = _fresh_rows(r, fact)
        game = self.games[r.game_id] = _Game(row, seats, new=True)
        return game

    def _corrected(self, game: _Game, r: Recorded, fact: ev.EntriesCorrected) -> None:
        """The game's rows counted again from its corrected facts, and its standings (before and
        after) marked to be counted again."""
        if self.history is None:
            raise ProjectionError(f"game {r.game_id} was corrected: its history is needed")
        corrected = self.history(r.game_id, r.version)
        started = corrected[0]
        assert isinstance(started, ev.GameStarted)
        self.recount |= _standing_keys(game.row)
        ended_at, started_at = game.row["ended_at"], game.row["started_at"]
        game.row, game.seats = _fresh_rows(r, started)
        game.row["started_at"] = started_at
        game.changed = game.seats_changed = True
        apply = self._apply
        kinds = _COUNTED_KINDS
        for later in corrected[1:]:
            if type(later) in kinds:
                game.row["digest"] = _digest(game.row["digest"], later)
                apply[type(later)](game, r, later)
        if game.row["status"] == ENDED:
            game.row["ended_at"] = ended_at or r.recorded_at
            self.recount |= _standing_keys(game.row)

    def _ended(self, game: _Game, r: Recorded, fact: ev.GameEnded) -> None:
        row = game.row
        row["status"] = ENDED
        row["ended_at"] = r.recorded_at
        row["winners"] = list(fact.winners)
        row["decided_by"] = fact.decided_by
        game.changed = game.seats_changed = True
        winners = set(fact.winners)
        for seat in range(len(row["seats"])):
            game.seats[seat]["winner"] = seat in winners
        if not row["sandbox"]:  # a what-if fork has its own scoreboard, no standing
            seats = [
                _Seat(name, score, seat in winners, [sums[c] for c in STANDING_SUMS])
                for seat, (name, score, sums) in enumerate(
                    zip(row["seats"], fact.scores, game.seats, strict=True)
                )
            ]
            self.ending.append(_Ending(row, row["digest"], seats))

    def count_ended(self, connection: Connection) -> None:
        """Count the games the batch ended, in order, each in the standings unless it is a copy
        of one that ended before (in this batch or an earlier one: those are asked for in one
        query), which it is then marked `duplicate_of`. The batch's rows are not written yet,
        so a game never finds itself."""
        asked = sorted({ending.digest for ending in self.ending} - self.ended.keys())
        stored: dict[str, UUID] = {}
        for chunk in _chunks(asked):
            for digest, game_id in connection.execute(
                _ORIGINALS, {"digests": chunk, "ended": ENDED}
            ):
                stored.setdefault(digest, game_id)
        for ending in self.ending:
            row = ending.row
            original = self.ended.get(ending.digest) or stored.get(ending.digest)
            if original is not None:
                row["duplicate_of"] = original
                continue  # its own scoreboard, no standing
            self.ended[ending.digest] = row["game_id"]
            for seat in ending.seats:
                for key in _scopes(seat.name, row["preset"], row["players"]):
                    standing = self.standings.setdefault(key, _no_standing(seat.score))
                    standing["games"] += 1
                    standing["wins"] += seat.won
                    standing["total_score"] += seat.score
                    standing["best_score"] = max(standing["best_score"], seat.score)
                    for column, value in zip(STANDING_SUMS, seat.sums, strict=True):
                        standing[column] += value
        self.ending.clear()

    # --- writing -------------------------------------------------------------------------------

    def write(self, connection: Connection) -> None:
        """Insert the new rows and update the changed ones, each exactly once."""
        new = [game for game in self.games.values() if game.new]
        if new:
            connection.execute(_INSERT_GAME, [game.row for game in new])
            connection.execute(_INSERT_SEAT, [seat for game in new for seat in game.seats])
        changed = [game.row for game in self.games.values() if game.changed and not game.new]
        if changed:
            connection.execute(
                _UPDATE_GAME,
                [
                    {"key_game_id": row["game_id"], **{c: row[c] for c in GAME_CHANGES}}
                    for row in changed
                ],
            )
        seats = [
            seat
            for game in self.games.values()
            if game.seats_changed and not game.new
            for seat in game.seats
        ]
        if seats:
            connection.execute(
                _UPDATE_SEAT,
                [
                    {
                        "key_game_id": seat["game_id"],
                        "key_seat": seat["seat"],
                        **{c: seat[c] for c in SEAT_CHANGES},
                    }
                    for seat in seats
                ],
            )
        _count_games(connection, self.games.values())
        for key in self.recount:
            self.standings.pop(key, None)
        if self.standings:
            self._write_standings(connection)
        for key in sorted(self.recount):
            _recount(connection, key)

    def _write_standings(self, connection: Connection) -> None:
        names = sorted({name for name, _preset, _players in self.standings})
        stored: dict[StandingKey, Row] = {}
        for chunk in _chunks(names):
            for row in connection.execute(_STANDINGS_OF, {"names": chunk}):
                stored[(row.name, row.preset, row.players)] = row._asdict()
        new: list[Row] = []
        changed: list[Row] = []
        for (name, preset, players), standing in self.standings.items():
            old = stored.get((name, preset, players))
            if old is None:
                new.append(
                    {"name": name, "preset": preset, "players": players, **_ranked(standing)}
                )
            else:
                summed = {column: old[column] + standing[column] for column in _ADDED}
                summed["best_score"] = max(old["best_score"], standing["best_score"])
                changed.append(
                    {
                        "key_name": name,
                        "key_preset": preset,
                        "key_players": players,
                        **_ranked(summed),
                    }
                )
        if new:
            connection.execute(_INSERT_STANDING, new)
        if changed:
            connection.execute(_UPDATE_STANDING, changed)


_COUNTS_OF = select(game_counts).where(
    game_counts.c.status.in_(bindparam("statuses", expanding=True)),
    game_counts.c.preset.in_(bindparam("presets", expanding=True)),
)
_UPDATE_COUNT = update(game_counts).where(
    game_counts.c.status == bindparam("key_status"), game_counts.c.preset == bindparam("key_preset")
)


_DELETE_COUNT = delete(game_counts).where(
    game_counts.c.status == bindparam("key_status"), game_counts.c.preset == bindparam("key_preset")
)


def _count_games(connection: Connection, touched: Iterable[_Game]) -> None:
    """Move the counts of the games by status and preset as this batch started or ended games
    (a correction may end one, or take its end back)."""
    deltas: Counter[tuple[str, str]] = Counter()
    for game in touched:
        status, preset = game.row["status"], game.row["preset"]
        if status == game.counted_as:
            continue
        for scope in (preset, ALL_PRESETS):
            deltas[(status, scope)] += 1
            if game.counted_as is None:
                deltas[(ALL_STATUSES, scope)] += 1
            else:
                deltas[(game.counted_as, scope)] -= 1
    deltas = Counter({key: delta for key, delta in deltas.items() if delta})
    if not deltas:
        return
    stored = {
        (row.status, row.preset): row.games
        for row in connection.execute(
            _COUNTS_OF,
            {
                "statuses": sorted({status for status, _ in deltas}),
                "presets": sorted({preset for _, preset in deltas}),
            },
        )
    }
    new = [
        {"status": status, "preset": preset, "games": delta}
        for (status, preset), delta in deltas.items()
        if (status, preset) not in stored
    ]
    changed = [
        {"key_status": status, "key_preset": preset, "games": stored[(status, preset)] + delta}
        for (status, preset), delta in deltas.items()
        if (status, preset) in stored
    ]
    if new:
        connection.execute(insert(game_counts), new)
    kept = [row for row in changed if row["games"]]
    gone = [row for row in changed if not row["games"]]  # as a rebuild would never make it
    if kept:
        connection.execute(_UPDATE_COUNT, kept)
    if gone:
        connection.execute(_DELETE_COUNT, gone)


def _digest(before: str, fact: ev.Event) -> str:
    """The running digest of a game's facts after `fact` (`before`: the digest until then)."""
    return hashlib.sha256(f"{before}{_repr(fact)}".encode()).hexdigest()


def _repr(fact: ev.Event) -> str:
    """`repr(fact)`, without the guard dataclasses put around it against a value that holds
    itself (a fact's values are plain data): a third of a digest's time, once per fact read."""
    plain = _PLAIN_REPRS.get(type(fact))
    if plain is None:
        plain = _PLAIN_REPRS[type(fact)] = getattr(type(fact).__repr__, "__wrapped__", repr)
    return plain(fact)


_PLAIN_REPRS: dict[type[ev.Event], Callable[[ev.Event], str]] = {}


def _fresh_rows(r: Recorded, fact: ev.GameStarted) -> tuple[Row, list[Row]]:
    """A game's row and its seats' rows as its start makes them."""
    row = {
        "game_id": r.game_id,
        "preset": fact.ruleset["preset"],
        "players": len(fact.seats),
        "mode": fact.mode,
        "sandbox": fact.sandbox,
        "seats": list(fact.seats),
        "coins_visible": bool(fact.ruleset["coin_counts_visible"]),
        "status": IN_PROGRESS,
        "started_at": r.recorded_at,
        "ended_at": None,
        "turns": 1,
        "winners": None,
        "decided_by": None,
        "digest": _digest("", fact),
        "duplicate_of": None,
    }
    seats = [
        {
            "game_id": r.game_id,
            "seat": seat,
            "name": name,
            "coins": 0,
            "coins_earned": 0,
            "harvests": 0,
            "trades": 0,
            "donations": 0,
            "donations_received": 0,
            "offers_made": 0,
            "offers_received": 0,
            "accepted": 0,
            "declined": 0,
            "planted": 0,
            "winner": False,
        }
        for seat, name in enumerate(fact.seats)
    ]
    return row, seats


_ADDED = ("games", "wins", "total_score", *STANDING_SUMS)
"""A standing's columns that add up over its games (best_score is their maximum)."""


def _ranked(standing: Row) -> Row:
    """A standing with the ratios it is ranked by (most wins, then the best win rate, then the
    best average score), kept beside its sums so the ranking is an index's order."""
    games = standing["games"]
    return {
        **standing,
        "win_rate": standing["wins"] / games,
        "average_score": standing["total_score"] / games,
    }


def _no_standing(score: int) -> Row:
    return {"games": 0, "wins": 0, "total_score": 0, "best_score": score} | dict.fromkeys(
        STANDING_SUMS, 0
    )


_COUNTED_SEATS = (
    select(
        func.count().label("games"),
        func.sum(case((scoreboard.c.winner, 1), else_=0)).label("wins"),
        func.sum(scoreboard.c.coins).label("total_score"),
        func.max(scoreboard.c.coins).label("best_score"),
        *(func.sum(scoreboard.c[column]).label(column) for column in STANDING_SUMS),
    )
    .select_from(scoreboard.join(games, games.c.game_id == scoreboard.c.game_id))
    .where(
        and_(
            scoreboard.c.name == bindparam("name"),
            or_(bindparam("preset") == ALL_PRESETS, games.c.preset == bindparam("preset")),
            or_(bindparam("players") == ALL_PLAYERS, games.c.players == bindparam("players")),
            games.c.status == ENDED,
            games.c.sandbox.is_(False),
            games.c.duplicate_of.is_(None),
        )
    )
)
_DELETE_STANDING = leaderboard.delete().where(
    leaderboard.c.name == bindparam("key_name"),
    leaderboard.c.preset == bindparam("key_preset"),
    leaderboard.c.players == bindparam("key_players"),
)


def _recount(connection: Connection, key: StandingKey) -> None:
    """One standing counted again from the stored rows of the games it counts (a correction
    changed one of them)."""
    name, preset, players = key
    counted = (
        connection.execute(_COUNTED_SEATS, {"name": name, "preset": preset, "players": players})
        .one()
        ._asdict()
    )
    keys = {"key_name": name, "key_preset": preset, "key_players": players}
    connection.execute(_DELETE_STANDING, keys)
    if counted["games"]:
        sums = {column: value or 0 for column, value in counted.items()}
        connection.execute(
            _INSERT_STANDING, {"name": name, "preset": preset, "players": players, **_ranked(sums)}
        )


def _standing_keys(row: Row) -> set[StandingKey]:
    """The standings an ended game's row counts in (none for a sandbox or a copy)."""
    if row["status"] != ENDED or row["sandbox"] or row["duplicate_of"] is not None:
        return set()
    return {key for name in row["seats"] for key in _scopes(name, row["preset"], row["players"])}


_COUNTED_KINDS = frozenset(Scoreboards.counts) - {ev.GameStarted, ev.EntriesCorrected}
"""The facts this projection counts after a game's start."""


# --- one function per fact that changes a game already started --------------------------------


def _planted(game: _Game, r: Recorded, fact: ev.BeanPlanted) -> None:
    game.seats[fact.seat]["planted"] += 1
    game.seats_changed = True


def _offered(game: _Game, r: Recorded, fact: ev.TradeOffered) -> None:
    game.seats[fact.proposer]["offers_made"] += 1
    game.seats[fact.to]["offers_received"] += 1
    game.seats_changed = True


def _traded(game: _Game, r: Recorded, fact: ev.TradeAccepted) -> None:
    seats = game.seats
    seats[fact.acceptor]["accepted"] += 1
    if fact.to_acceptor and fact.to_proposer:
        seats[fact.proposer]["trades"] += 1
        seats[fact.acceptor]["trades"] += 1
    elif fact.to_acceptor:
        seats[fact.proposer]["donations"] += 1
        seats[fact.acceptor]["donations_received"] += 1
    elif fact.to_proposer:
        seats[fact.acceptor]["donations"] += 1
        seats[fact.proposer]["donations_received"] += 1
    game.seats_changed = True


def _declined(game: _Game, r: Recorded, fact: ev.TradeDeclined) -> None:
    game.seats[fact.seat]["declined"] += 1
    game.seats_changed = True


def _harvested(game: _Game, r: Recorded, fact: ev.FieldHarvested) -> None:
    seat = game.seats[fact.seat]
    seat["harvests"] += 1
    seat["coins_earned"] += fact.coins
    seat["coins"] += fact.coins
    game.seats_changed = True


def _bought_field(game: _Game, r: Recorded, fact: ev.ThirdFieldBought) -> None:
    game.seats[fact.seat]["coins"] -= len(fact.coins)
    game.seats_changed = True


def _turn_ended(game: _Game, r: Recorded, fact: ev.TurnEnded) -> None:
    game.row["turns"] = fact.turn + 1
    game.changed = True


def _chunks(keys: Sequence[Any]) -> Iterator[Sequence[Any]]:
    for start in range(0, len(keys), CHUNK):
        yield keys[start : start + CHUNK]
