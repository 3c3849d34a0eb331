"""The projections (games, scoreboards, leaderboard) on each store, checked against the facts.

Per store, the module plays 21 bot games through the application, interleaved, while the
projections are kept current incrementally. The tests compare the tables with values computed here
from the facts alone, with a rebuild from scratch, and after failed batches, killed projectors and
projectors racing each other. Tests that need a second process run on the stores that allow one.
"""

from __future__ import annotations

import json
import os
import signal
import socket
import sqlite3
import subprocess
import sys
import threading
import time
from collections import Counter, defaultdict, deque
from collections.abc import Callable, Iterator, Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from pathlib import Path
from typing import Any
from uuid import UUID

import pytest
from click.testing import CliRunner
from eventsourcing.persistence import OperationalError
from sqlalchemy import Connection, Engine, exc, func, inspect, select

from api.cli import main
from domain.application import Bohnanza
from domain.bots import simulate
from domain.encoding import topics_of
from domain.network import DEAD_NETWORK_SECONDS, RECONNECT_SECONDS
from domain.rules import Command, fold
from domain.rules import events as ev
from domain.rules.errors import Conflict, NotFound
from domain.rules.transcript import commands_from_facts
from domain.storage import persistence_env
from projections import queries, tables
from projections.engine import projection_engine, schema_of
from projections.insights import GameInsights, game_insights, insights
from projections.reading import StoreReader
from projections.runner import Projector, Rebuilt
from projections.scoreboards import STANDING_SUMS, Scoreboards
from projections.tracking import Changes, Recorded
from projections.views import AUDITOR_VIEWER, Viewer
from projections.workers import WorkerFailed, rebuild_apart
from replays.forks import create_fork
from replays.games import export_game, import_record
from tests.conftest import PostgresTestDatabase

ROOT = Path(__file__).resolve().parents[2]


@dataclass(frozen=True, slots=True)
class GameSpec:
    preset: str
    players: int
    bot: str
    seed: int
    options: dict[str, Any] | None = None
    stop_after: int | None = None
    """Play only this many commands: the game stays in progress."""


SECRET = {"coin_counts_visible": False}
TABLES = [
    ("amigo", 3),
    ("amigo-1997", 4),
    ("rio-grande", 5),
    ("amigo", 5),
    ("rio-grande", 3),
    ("amigo-1997", 3),
    ("rio-grande", 6),
    ("amigo", 4),
    ("rio-grande", 2),
    ("rio-grande", 4),
]
GAMES = [
    *(GameSpec("rio-grande", 2, ("greedy", "random")[i % 2], seed=i) for i in range(3)),
    GameSpec("amigo", 3, "greedy", seed=103),
    GameSpec("amigo", 5, "greedy", seed=105),
    GameSpec("amigo-1997", 4, "greedy", seed=104),
    GameSpec("amigo-1997", 3, "random", seed=113),
    GameSpec("rio-grande", 3, "greedy", seed=122, options=SECRET),
    GameSpec("rio-grande", 3, "random", seed=123),
    GameSpec("rio-grande", 5, "greedy", seed=105),
    GameSpec("rio-grande", 7, "greedy", seed=107),
    *(
        GameSpec(
            preset,
            players,
            ("random", "greedy")[i % 2],
            seed=200 + i,
            options=SECRET if i % 5 == 0 else None,
            stop_after=10 + 10 * i,
        )
        for i, (preset, players) in enumerate(TABLES)
    ),
]
"""3 complete bean duels, 8 complete games of 3–7 players over the three presets, and 10 games
left in progress after 10 to 100 commands; some with secret coin counts."""


@dataclass
class PlayedStore:
    kind: str
    url: str
    app: Bohnanza
    projector: Projector
    specs: dict[UUID, GameSpec]
    facts: dict[UUID, list[ev.Event]]
    end: int
    """The store's last position."""
    incremental: dict[str, list[tuple[Any, ...]]]
    """Every projection table as incremental processing, during play, left it."""
    follower: tuple[int, str] | None
    """Exit code and output of the projector process that followed the store during play."""

    @property
    def engine(self) -> Engine:
        return self.projector.engine

    def game(self, spec: GameSpec) -> UUID:
        return next(game_id for game_id, known in self.specs.items() if known == spec)


@dataclass
class Playing:
    """A game being played: what it is, its id, the facts recorded so far and its next commands."""

    spec: GameSpec
    game_id: UUID
    facts: list[ev.Event]
    commands: deque[Command]


def start_games(
    app: Bohnanza, specs: Sequence[GameSpec], after_each: Callable[[], object]
) -> list[Playing]:
    """Start each game through the application (calling `after_each` after each start), with
    the commands its bots will play."""
    games = []
    for spec in specs:
        planned = simulate(
            spec.preset, spec.players, bot=spec.bot, seed=spec.seed, options=spec.options
        )
        first = planned[0]
        assert isinstance(first, ev.GameStarted)
        started = app.start_game(
            first.seats,
            preset=spec.preset,
            options=spec.options,
            start_seat=first.start_seat,
            seed=first.seed,
            deck=first.deck,
        )
        after_each()
        commands = commands_from_facts(planned, tabletop=False)[: spec.stop_after]
        games.append(Playing(spec, started.game_id, list(started.facts), deque(commands)))
    return games


def play_interleaved(
    app: Bohnanza, games: Sequence[Playing], after_each: Callable[[], object]
) -> None:
    """Play the games one command each in turn through the application, calling `after_each`
    after every command."""
    turns = deque(game for game in games if game.commands)
    while turns:
        game = turns.popleft()
        outcome = app.execute(game.game_id, game.commands.popleft())
        after_each()
        game.facts += outcome.facts
        if game.commands:
            turns.append(game)


def nothing() -> None:
    """Leave the projections to someone else."""


def now_and_then(
    action: Callable[[], object], gaps: Sequence[int] = (1, 2, 3, 5, 8)
) -> Callable[[], None]:
    """`action` after 1 call, then after 2 more, 3, 5, 8, 1, 2 …: the projections catch up on
    batches of one command and of several, of one game and of several, as a server's
    background catch-up does."""
    pending = deque(gaps)
    count = 0

    def maybe() -> None:
        nonlocal count
        count += 1
        if count == pending[0]:
            action()
            count = 0
            pending.rotate(-1)

    return maybe


def played_alone(app: Bohnanza, spec: GameSpec) -> Playing:
    """One bot game played through the application, the projections left alone."""
    games = start_games(app, [spec], nothing)
    play_interleaved(app, games, nothing)
    return games[0]


def dump(engine: Engine) -> dict[str, list[tuple[Any, ...]]]:
    """Every row of every projection table, in a stable order."""
    with engine.connect() as connection:
        return {
            table.name: sorted((tuple(row) for row in connection.execute(select(table))), key=repr)
            for table in tables.metadata.sorted_tables
        }


@pytest.fixture(scope="module")
def played(module_database_url: str) -> Iterator[PlayedStore]:
    """21 bot games played through the application, interleaved (10 are left in progress).

    Each store runs its projections as the service does: in one process (memory, SQLite) they
    catch up after a few commands at a time (`now_and_then`); on PostgreSQL a separate projector process follows the store
    while two threads play, as an API server's would."""
    url = module_database_url
    kind = url.partition(":")[0]
    with Bohnanza.from_url(url) as app, Projector.for_url(app, url) as projector:
        follower = None
        if kind == "postgresql":
            process = follow_in_another_process(url)
            try:
                games = start_games(app, GAMES, nothing)
                with ThreadPoolExecutor(2) as pool:
                    halves = [games[0::2], games[1::2]]
                    list(pool.map(lambda half: play_interleaved(app, half, nothing), halves))
                projector.wait(app.position(), timeout=60)
                process.send_signal(signal.SIGTERM)
                follower = stopped(process)
            finally:
                if process.poll() is None:
                    process.kill()
                    process.communicate()
        else:
            catch_up = now_and_then(projector.catch_up)
            games = start_games(app, GAMES, catch_up)
            play_interleaved(app, games, catch_up)
            projector.catch_up()  # the last few commands
        yield PlayedStore(
            kind=kind,
            url=url,
            app=app,
            projector=projector,
            specs={game.game_id: game.spec for game in games},
            facts={game.game_id: game.facts for game in games},
            end=app.position(),
            incremental=dump(projector.engine),
            follower=follower,
        )


def stopped(process: subprocess.Popen[str], timeout: float = 30.0) -> tuple[int, str]:
    """The exit code and output of a process told to stop. It is read while it ends (so that
    one with more to say than a pipe holds cannot block on its output); one still running after
    `timeout` seconds fails the test with its threads' stacks (faulthandler, on SIGABRT)."""
    try:
        output, _ = process.communicate(timeout=timeout)
    except subprocess.TimeoutExpired:
        process.send_signal(signal.SIGABRT)
        _, errors = process.communicate()
        pytest.fail(f"the process did not stop within {timeout} s; its stderr:\n{errors[-6000:]}")
    return process.returncode, output


def follow_in_another_process(url: str) -> subprocess.Popen[str]:
    """`bohnanza projections follow` on the store, as a projector process runs in production."""
    command = ["projections", "follow", "--poll-interval", "0.02"]
    return subprocess.Popen(
        [sys.executable, "-X", "faulthandler", "-m", "api.cli", "--database-url", url, *command],
        cwd=ROOT,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )


@pytest.fixture
def store(played: PlayedStore) -> PlayedStore:
    """The played store with its projections caught up (whatever an earlier test did)."""
    played.projector.catch_up()
    return played


@pytest.fixture
def shared_store(store: PlayedStore) -> PlayedStore:
    """The played store, where another process can open it too."""
    if store.kind == "memory":
        pytest.skip("an in-memory store lives in one process")
    return store


# --- what the tables should hold, computed from the facts alone ---------------------------------


@dataclass(frozen=True, slots=True)
class SeatLine:
    name: str
    coins: int
    coins_earned: int
    harvests: int
    trades: int
    donations: int
    donations_received: int
    offers_made: int
    offers_received: int
    accepted: int
    declined: int
    planted: int
    winner: bool


def expected_lines(facts: Sequence[ev.Event]) -> list[SeatLine]:
    """Each seat's scoreboard line, counted from a game's facts (or a prefix of them)."""
    started = facts[0]
    assert isinstance(started, ev.GameStarted)
    harvests: Counter[int] = Counter()
    earned: Counter[int] = Counter()
    paid: Counter[int] = Counter()
    trades: Counter[int] = Counter()
    donations: Counter[int] = Counter()
    received: Counter[int] = Counter()
    made: Counter[int] = Counter()
    asked: Counter[int] = Counter()
    accepted: Counter[int] = Counter()
    declined: Counter[int] = Counter()
    planted: Counter[int] = Counter()
    winners: set[int] = set()
    for fact in facts:
        if isinstance(fact, ev.TradeAccepted):
            accepted[fact.acceptor] += 1
        match fact:
            case ev.TradeOffered(proposer=proposer, to=to):
                made[proposer] += 1
                asked[to] += 1
            case ev.TradeDeclined(seat=seat):
                declined[seat] += 1
            case ev.BeanPlanted(seat=seat):
                planted[seat] += 1
            case ev.FieldHarvested(seat=seat, coins=coins):
                harvests[seat] += 1
                earned[seat] += coins
            case ev.ThirdFieldBought(seat=seat, coins=coin_cards):
                paid[seat] += len(coin_cards)
            case ev.TradeAccepted(proposer=proposer, acceptor=acceptor) if (
                fact.to_acceptor and fact.to_proposer
            ):
                trades[proposer] += 1
                trades[acceptor] += 1
            case ev.TradeAccepted(proposer=proposer, acceptor=acceptor, to_acceptor=given) if given:
                donations[proposer] += 1
                received[acceptor] += 1
            case ev.TradeAccepted(proposer=proposer, acceptor=acceptor, to_proposer=given) if given:
                donations[acceptor] += 1
                received[proposer] += 1
            case ev.GameEnded(winners=won):
                winners = set(won)
    return [
        SeatLine(
            name,
            earned[seat] - paid[seat],
            earned[seat],
            harvests[seat],
            trades[seat],
            donations[seat],
            received[seat],
            made[seat],
            asked[seat],
            accepted[seat],
            declined[seat],
            planted[seat],
            seat in winners,
        )
        for seat, name in enumerate(started.seats)
    ]


def ending(facts: Sequence[ev.Event]) -> ev.GameEnded | None:
    last = facts[-1]
    return last if isinstance(last, ev.GameEnded) else None


def expected_standings(
    facts: dict[UUID, list[ev.Event]], preset: str | None = None, players: int | None = None
) -> dict[str, tuple[int, int, int, int]]:
    """Per name over ended games, each counted once (no sandbox forks, no copies of a game):
    (games, wins, total score, best score)."""
    scores: defaultdict[str, list[int]] = defaultdict(list)
    wins: Counter[str] = Counter()
    played = {repr(game): game for game in facts.values()}.values()
    for game in played:
        started, ended = game[0], ending(game)
        assert isinstance(started, ev.GameStarted)
        if ended is None or started.sandbox or preset not in (None, started.ruleset["preset"]):
            continue
        if players not in (None, len(started.seats)):
            continue
        for seat, name in enumerate(started.seats):
            scores[name].append(ended.scores[seat])
            wins[name] += seat in ended.winners
    return {name: (len(s), wins[name], sum(s), max(s)) for name, s in scores.items()}


def stored_lines(connection: Connection, game_id: UUID) -> list[SeatLine]:
    rows = connection.execute(
        select(tables.scoreboard)
        .where(tables.scoreboard.c.game_id == game_id)
        .order_by(tables.scoreboard.c.seat)
    )
    return [
        SeatLine(
            r.name,
            r.coins,
            r.coins_earned,
            r.harvests,
            r.trades,
            r.donations,
            r.donations_received,
            r.offers_made,
            r.offers_received,
            r.accepted,
            r.declined,
            r.planted,
            r.winner,
        )
        for r in rows
    ]


def assert_tables_hold(engine: Engine, facts: dict[UUID, list[ev.Event]]) -> None:
    """The games, scoreboard and leaderboard tables hold exactly what these facts say."""
    with engine.connect() as connection:
        stored_games = {row.game_id: row for row in connection.execute(select(tables.games))}
        assert stored_games.keys() == facts.keys()
        for game_id, game in facts.items():
            assert stored_lines(connection, game_id) == expected_lines(game), game_id
            row, ended = stored_games[game_id], ending(game)
            assert row.status == ("ended" if ended else "in-progress")
            assert row.turns == 1 + sum(isinstance(fact, ev.TurnEnded) for fact in game)
            assert row.winners == (ended.winners if ended else None)
            assert row.sandbox == game[0].sandbox
    standings = queries.leaderboard(engine)
    overall = {s.name: (s.games, s.wins, s.total_score, s.best_score) for s in standings}
    assert overall == expected_standings(facts)
    sums = {s.name: tuple(getattr(s, column) for column in STANDING_SUMS) for s in standings}
    assert sums == expected_sums(facts)


def expected_sums(facts: dict[UUID, list[ev.Event]]) -> dict[str, tuple[int, ...]]:
    """Per name over the games the leaderboard counts: the sums of their scoreboard lines'
    STANDING_SUMS columns."""
    sums: defaultdict[str, list[int]] = defaultdict(lambda: [0] * len(STANDING_SUMS))
    for game in {repr(game): game for game in facts.values()}.values():
        started = game[0]
        assert isinstance(started, ev.GameStarted)
        if ending(game) is None or started.sandbox:
            continue
        for line in expected_lines(game):
            for index, column in enumerate(STANDING_SUMS):
                sums[line.name][index] += getattr(line, column)
    return {name: tuple(values) for name, values in sums.items()}


def facts_up_to(app: Bohnanza, position: int) -> dict[UUID, list[ev.Event]]:
    """The store's facts up to a position, by game (the store's other aggregates left out)."""
    facts: dict[UUID, list[ev.Event]] = defaultdict(list)
    topics = topics_of(*ev.EVENT_TYPES.values())
    for notification in app.recorder.select_notifications(
        1, position, stop=position, topics=topics
    ):
        stored: Any = app.mapper.to_domain_event(notification)
        facts[stored.originator_id].append(stored.fact())
    return dict(facts)


def assert_insights_hold(app: Bohnanza, engine: Engine) -> None:
    """The insights table holds, per game, the numbers of its facts up to the insights
    projection's own position, counted straight from them."""
    facts = facts_up_to(app, tracked_position(engine, "insights"))
    with engine.connect() as connection:
        counted = connection.scalar(select(func.count()).select_from(tables.insights))
    assert counted == len(facts)
    for game_id, game in facts.items():
        assert game_insights(engine, game_id, AUDITOR_VIEWER) == insights(game, AUDITOR_VIEWER)


def tracked_position(engine: Engine, name: str = "scoreboards") -> int:
    with engine.connect() as connection:
        found = connection.scalar(
            select(tables.tracking.c.position).where(tables.tracking.c.name == name)
        )
    return found or 0


# --- values ----------------------------------------------------------------------------------


@pytest.mark.slow  # the module's 21 bot games on each store
def test_each_seat_s_scoreboard_line_counts_what_the_facts_record(store: PlayedStore) -> None:
    with store.engine.connect() as connection:
        for game_id, facts in store.facts.items():
            lines = stored_lines(connection, game_id)

            assert lines == expected_lines(facts)
            state = fold(facts)
            assert [line.coins for line in lines] == [len(p.coins) for p in state.players]
            ended = ending(facts)
            if ended is not None:
                assert [line.coins for line in lines] == ended.scores


@pytest.mark.slow  # the module's 21 bot games on each store
def test_the_bot_games_trade_donate_and_buy_fields_so_every_column_is_exercised(
    store: PlayedStore,
) -> None:
    with store.engine.connect() as connection:
        lines = [line for game_id in store.facts for line in stored_lines(connection, game_id)]

    assert any(line.trades for line in lines)
    assert any(line.donations for line in lines)
    assert any(line.coins < line.coins_earned for line in lines)


@pytest.mark.slow  # the module's 21 bot games on each store
def test_the_games_table_records_each_game_s_ruleset_seats_turns_and_result(
    store: PlayedStore,
) -> None:
    records = {record.game_id: record for record in queries.games(store.engine)}

    assert records.keys() == store.facts.keys()
    for game_id, facts in store.facts.items():
        started, ended, record = facts[0], ending(facts), records[game_id]
        assert isinstance(started, ev.GameStarted)
        spec = store.specs[game_id]
        assert (record.preset, record.players, record.mode) == (
            spec.preset,
            spec.players,
            "digital",
        )
        assert record.seats == started.seats
        assert record.coins_visible == (spec.options != SECRET)
        assert record.turns == fold(facts).turn
        if ended is None:
            assert (record.status, record.ended_at, record.winners) == ("in-progress", None, [])
        else:
            assert record.status == "ended"
            assert record.ended_at is not None
            assert record.ended_at >= record.started_at
            assert record.winners == [started.seats[seat] for seat in ended.winners]
            assert record.decided_by == ended.decided_by


@pytest.mark.slow  # the module's 21 bot games on each store
def test_games_are_listed_oldest_first_and_filtered_by_status_player_and_preset(
    store: PlayedStore,
) -> None:
    every = queries.games(store.engine)
    running = {g for g, facts in store.facts.items() if ending(facts) is None}

    assert [record.game_id for record in every] == list(store.facts)
    assert {r.game_id for r in queries.games(store.engine, status="in-progress")} == running
    assert {r.game_id for r in queries.games(store.engine, status="ended")} == (
        store.facts.keys() - running
    )
    assert {r.game_id for r in queries.games(store.engine, player="Gus")} == {
        g for g, spec in store.specs.items() if spec.players == 7
    }
    assert {
        r.game_id for r in queries.games(store.engine, preset="amigo-1997", status="ended")
    } == {g for g, spec in store.specs.items() if spec.preset == "amigo-1997" and g not in running}


@pytest.mark.slow  # the module's 21 bot games on each store
def test_the_leaderboard_sums_each_player_s_ended_games_overall_by_preset_and_by_player_count(
    store: PlayedStore,
) -> None:
    presets = {spec.preset for spec in GAMES}
    counts = {spec.players for spec in GAMES}
    scopes = [(None, None), *((p, None) for p in presets), *((None, n) for n in counts)]
    scopes += [(p, n) for p in presets for n in counts]

    for preset, players in scopes:
        board = queries.leaderboard(store.engine, preset=preset, players=players)

        got = {s.name: (s.games, s.wins, s.total_score, s.best_score) for s in board}
        assert got == expected_standings(store.facts, preset, players), (preset, players)
        assert [(s.wins, s.win_rate) for s in board] == sorted(
            ((s.wins, s.win_rate) for s in board), reverse=True
        )
        for standing in board:
            assert standing.average_score == standing.total_score / standing.games


@pytest.mark.slow  # the module's 21 bot games on each store
def test_the_leaderboard_read_a_page_at_a_time_is_the_whole_board_in_order(
    store: PlayedStore,
) -> None:
    whole = queries.leaderboard(store.engine)
    assert len(whole) > 5

    pages = [queries.leaderboard(store.engine, limit=3, offset=at) for at in range(0, 99, 3)]

    assert [standing for page in pages for standing in page] == whole
    ranked = [(-s.wins, -s.win_rate, -s.average_score, s.name) for s in whole]
    assert ranked == sorted(ranked)


@pytest.mark.slow  # the module's 21 bot games on each store
def test_the_leaderboard_of_names_starting_with_a_prefix_holds_exactly_those(
    store: PlayedStore,
) -> None:
    whole = queries.leaderboard(store.engine)
    prefix = whole[0].name[:1]

    board = queries.leaderboard(store.engine, name_prefix=prefix)

    assert board == [standing for standing in whole if standing.name.startswith(prefix)]
    assert queries.leaderboard(store.engine, name_prefix=prefix.swapcase() + "\uffff") == []


def test_a_leaderboard_page_is_read_from_its_ranking_index(tmp_path: Path) -> None:
    url = f"sqlite:///{tmp_path}/plan.sqlite3"
    with Bohnanza.from_url(url) as app, Projector.for_url(app, url) as projector:
        query = str(
            queries.leaderboard_query(preset="amigo", players=4, limit=20).compile(
                projector.engine, compile_kwargs={"literal_binds": True}
            )
        )
        with projector.engine.connect() as connection:
            plan = " ".join(
                row[-1] for row in connection.exec_driver_sql(f"EXPLAIN QUERY PLAN {query}")
            )

    assert "USING INDEX ix_projection_leaderboard_rank" in plan
    assert "TEMP B-TREE" not in plan  # no sort: the index's order is the board's


@pytest.mark.slow  # the module's 21 bot games on each store
def test_a_running_secret_treasury_game_shows_coins_to_their_owner_only(
    store: PlayedStore,
) -> None:
    running = [s for s in GAMES if s.options == SECRET and s.stop_after]
    game_id = store.game(max(running, key=lambda spec: spec.stop_after or 0))
    truth = expected_lines(store.facts[game_id])

    public = queries.scoreboard(store.engine, game_id)
    as_seat_1 = queries.scoreboard(store.engine, game_id, viewer=Viewer.of_seat(1))

    assert [(line.coins, line.coins_earned) for line in public] == [(None, None)] * len(truth)
    assert [line.coins for line in as_seat_1] == [
        truth[seat].coins if seat == 1 else None for seat in range(len(truth))
    ]
    assert [line.harvests for line in public] == [line.harvests for line in truth]


@pytest.mark.slow  # the module's 21 bot games on each store
def test_an_ended_secret_treasury_game_shows_every_seat_s_coins(store: PlayedStore) -> None:
    game_id = store.game(next(s for s in GAMES if s.options == SECRET and not s.stop_after))

    lines = queries.scoreboard(store.engine, game_id)

    assert [line.coins for line in lines] == [
        line.coins for line in expected_lines(store.facts[game_id])
    ]


@pytest.mark.slow  # the module's 21 bot games on each store
def test_a_running_game_with_open_treasuries_shows_every_seat_s_coins(store: PlayedStore) -> None:
    game_id = store.game(next(s for s in GAMES if s.options is None and s.stop_after))

    lines = queries.scoreboard(store.engine, game_id)

    assert [line.coins for line in lines] == [
        line.coins for line in expected_lines(store.facts[game_id])
    ]


@pytest.mark.slow  # the module's 21 bot games on each store
def test_a_game_the_projections_never_saw_has_no_scoreboard(store: PlayedStore) -> None:
    with pytest.raises(NotFound):
        queries.scoreboard(store.engine, UUID(int=0))


# --- rebuilding, crashes and concurrency ----------------------------------------------------------


@pytest.mark.slow  # the module's 21 bot games on each store
def test_catching_up_after_every_command_builds_what_a_rebuild_from_scratch_builds(
    store: PlayedStore,
) -> None:
    rebuilt = store.projector.rebuild()

    assert rebuilt == Rebuilt(
        store.end,
        {
            "scoreboards": events_read(store.app, Scoreboards),
            "insights": events_read(store.app, GameInsights),
        },
    )
    assert dump(store.engine) == store.incremental
    assert_tables_hold(store.engine, store.facts)
    assert_insights_hold(store.app, store.engine)


@pytest.mark.slow  # the module's 21 bot games on each store
def test_a_rebuild_in_small_batches_builds_the_same_tables(store: PlayedStore) -> None:
    store.projector.rebuild(batch_size=25, apart=False)

    assert dump(store.engine) == store.incremental


@pytest.mark.slow  # the module's 21 bot games on each store
@pytest.mark.parametrize(
    ("after", "end"), [(0, 1), (0, 10**6), (37, 1_212), (1_000, 1_000), (2_500, 10**6)]
)
@pytest.mark.parametrize("topics", [Scoreboards.topics, GameInsights.topics, ()], ids=len)
def test_a_page_the_projector_reads_is_what_the_librarys_notifications_hold(
    store: PlayedStore, after: int, end: int, topics: tuple[str, ...]
) -> None:
    end = min(end, store.end)
    expected = [
        (
            n.topic,
            Recorded(n.id, n.originator_id, *store.app.recorded_fact(n), n.originator_version),
        )
        for n in store.app.recorder.select_notifications(after + 1, 10**6, stop=end, topics=topics)
        if n.topic in topics or (not topics and n.topic != "SN")
    ]
    reader = StoreReader(store.app)

    with store.engine.connect() as connection:
        page = reader.page(connection, after, end, topics or tuple({t for t, _ in expected}))

    assert page == expected
    assert reader.reads_sql == (store.kind != "memory")


class Crash(Exception):
    pass


class CrashingOnItsThirdBatch:
    """A projection that writes half of its third batch's rows, then fails, as a crash mid-batch
    would."""

    def __init__(self, projection: Scoreboards | GameInsights) -> None:
        self.projection = projection
        self.name, self.topics, self.tables = projection.name, projection.topics, projection.tables
        self.batches = 0

    def prepare(self, connection: Connection, batch: Sequence[Recorded]) -> Changes:
        self.batches += 1
        if self.batches == 3:
            return HalfWrittenThenCrashing(
                self.projection.prepare(connection, batch[: len(batch) // 2])
            )
        return self.projection.prepare(connection, batch)


@dataclass(frozen=True)
class HalfWrittenThenCrashing:
    half: Changes

    def write(self, connection: Connection) -> None:
        self.half.write(connection)
        raise Crash("injected in the middle of a batch")


class WritingBesideIt:
    """A projection that, while it works out each batch, writes to the SQLite store from a
    connection of its own that does not wait for the write lock, as a command's insert would
    (and notes whether it could)."""

    def __init__(self, projection: Scoreboards | GameInsights, path: Path) -> None:
        self.projection, self.path = projection, path
        self.name, self.topics, self.tables = projection.name, projection.topics, projection.tables
        self.wrote: list[bool] = []

    def prepare(self, connection: Connection, batch: Sequence[Recorded]) -> Changes:
        changes = self.projection.prepare(connection, batch)
        other = sqlite3.connect(self.path, timeout=0, isolation_level=None)
        try:
            other.execute("BEGIN IMMEDIATE")  # the write lock, or "database is locked" at once
            other.execute("ROLLBACK")
            self.wrote.append(True)
        except sqlite3.OperationalError:
            self.wrote.append(False)
        finally:
            other.close()
        return changes


@pytest.mark.parametrize("projection", [Scoreboards, GameInsights], ids=["scoreboards", "insights"])
def test_on_sqlite_a_command_writes_while_a_projection_works_out_its_batch_without_waiting(
    tmp_path: Path, projection: type[Scoreboards | GameInsights]
) -> None:
    path = tmp_path / "store.sqlite3"
    url = f"sqlite:///{path}"
    with Bohnanza.from_url(url) as app, Projector.for_url(app, url) as projector:
        played_alone(app, GAMES[0])
        beside = WritingBesideIt(projection(), path)
        Projector(app, projector.engine, [beside]).catch_up(batch_size=100)

        caught_up = dump(projector.engine)
        projector.rebuild(projection.name)

        assert len(beside.wrote) > 1
        assert all(beside.wrote)  # no transaction of the projector's held the lock meanwhile
        assert dump(projector.engine) == caught_up


def test_a_projector_whose_read_models_another_moved_on_reads_on_from_there_counting_nothing_twice(
    tmp_path: Path,
) -> None:
    url = f"sqlite:///{tmp_path / 'store.sqlite3'}"
    with (
        Bohnanza.from_url(url) as app,
        Projector.for_url(app, url) as first,
        Projector.for_url(app, url) as second,
    ):
        played_alone(app, GAMES[0])
        first.catch_up()  # `first` knows where it left the read models
        played_alone(app, GAMES[1])
        second.catch_up()  # and `second` moves them on behind its back
        moved_on_to = app.position()
        played_alone(app, GAMES[2])

        advanced = first.catch_up(batch_size=100)
        caught_up = dump(first.engine)
        first.rebuild()

        assert advanced == (app.position() - moved_on_to) * len(first.projections)
        assert dump(first.engine) == caught_up


@pytest.mark.slow  # the module's 21 bot games on each store
@pytest.mark.parametrize("projection", [Scoreboards, GameInsights], ids=["scoreboards", "insights"])
def test_a_batch_that_fails_midway_leaves_no_trace_and_is_processed_once_later(
    store: PlayedStore, projection: type[Scoreboards | GameInsights]
) -> None:
    crashing = Projector(store.app, store.engine, [CrashingOnItsThirdBatch(projection())])
    crashing.reset()

    with pytest.raises(Crash):
        crashing.catch_up(batch_size=200)

    position = tracked_position(store.engine, projection.name)
    assert position == 400  # two batches of 200 store positions
    if projection is Scoreboards:
        assert_tables_hold(store.engine, facts_up_to(store.app, position))
    else:
        assert_insights_hold(store.app, store.engine)
    assert store.projector.catch_up() == store.end - position
    assert dump(store.engine) == store.incremental


@pytest.mark.slow  # the module's 21 bot games on each store
def test_a_projector_killed_during_a_rebuild_resumes_without_loss_or_double_counting(
    shared_store: PlayedStore,
) -> None:
    store = shared_store
    rebuild = subprocess.Popen(
        [
            sys.executable,
            "-m",
            "api.cli",
            "--database-url",
            store.url,
            "projections",
            "rebuild",
            "--batch-size",
            "5",
        ],
        cwd=ROOT,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
    )
    try:
        deadline = time.monotonic() + 60
        while not (  # the insights are rebuilt by a worker process, the scoreboards here
            0 < tracked_position(store.engine) < store.end * 3 // 4
            and 0 < tracked_position(store.engine, "insights") < store.end
        ):
            assert rebuild.poll() is None, rebuild.stderr.read() if rebuild.stderr else ""
            assert time.monotonic() < deadline, "the rebuild never got going"
            time.sleep(0.002)
        workers = children_of(rebuild.pid)
        rebuild.send_signal(signal.SIGKILL)
    finally:
        rebuild.wait()
        if rebuild.stderr:
            rebuild.stderr.close()
    assert len(workers) == 1
    wait_until(lambda: all(map(ended, workers)), "the worker outlived the rebuild it worked for")

    killed_at = {name: tracked_position(store.engine, name) for name in ("scoreboards", "insights")}
    assert all(0 < position < store.end for position in killed_at.values()), killed_at
    assert_tables_hold(store.engine, facts_up_to(store.app, killed_at["scoreboards"]))
    assert_insights_hold(store.app, store.engine)  # up to the insights' own position
    with Projector.for_url(store.app, store.url) as resumed:
        assert resumed.catch_up() == sum(store.end - position for position in killed_at.values())
    assert dump(store.engine) == store.incremental


@pytest.mark.slow  # the module's 21 bot games on each store
@pytest.mark.parametrize("apart", [True, False], ids=["in worker processes", "in one process"])
def test_a_rebuild_in_worker_processes_builds_what_one_in_one_process_builds(
    shared_store: PlayedStore, apart: bool
) -> None:
    moved: list[int] = []

    rebuilt = shared_store.projector.rebuild(batch_size=2_000, progress=moved.append, apart=apart)

    assert rebuilt == Rebuilt(
        shared_store.end,
        {
            "scoreboards": events_read(shared_store.app, Scoreboards),
            "insights": events_read(shared_store.app, GameInsights),
        },
    )
    assert dump(shared_store.engine) == shared_store.incremental
    assert sum(moved) == 2 * shared_store.end  # each projection's batches, in either process


def test_a_store_only_this_process_holds_is_rebuilt_in_this_process() -> None:
    with (
        Bohnanza.from_url("memory://") as app,
        Projector.for_url(app, "memory://") as projector,
    ):
        assert projector.database_url is None
        with pytest.raises(ValueError, match="needs the store's URL"):
            projector.rebuild(apart=True)
        assert projector.rebuild() == Rebuilt(0, {"scoreboards": 0, "insights": 0})


@pytest.mark.slow  # the module's 21 bot games on each store
def test_a_worker_process_that_fails_fails_the_rebuild_and_names_its_projection(
    shared_store: PlayedStore,
) -> None:
    projector = shared_store.projector
    projector.reset()
    unknown = Scoreboards()
    unknown.name = "no-such-projection"

    with pytest.raises(WorkerFailed, match=r"rebuilding no-such-projection failed:(.|\n)*KeyError"):
        rebuild_apart(
            projector, [projector.projections["scoreboards"], unknown], shared_store.end, 500, None
        )

    assert tracked_position(shared_store.engine) == shared_store.end  # its own part was done


@pytest.mark.slow  # the module's 21 bot games on each store
def test_a_worker_process_ends_as_soon_as_its_parent_closes_its_input(
    shared_store: PlayedStore,
) -> None:
    store = shared_store
    store.projector.reset("insights")
    worker = subprocess.Popen(
        [sys.executable, "-m", "projections.workers"],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        cwd=ROOT,
        text=True,
    )
    assert worker.stdin is not None
    assert worker.stdout is not None
    task = {"database_url": store.url, "name": "insights", "target": store.end, "batch_size": 5}
    worker.stdin.write(json.dumps(task) + "\n")
    worker.stdin.flush()
    assert json.loads(worker.stdout.readline()) == {"moved": 5}

    worker.stdin.close()  # as when the parent ends, killed or not

    assert worker.wait(timeout=10) == 1
    worker.stdout.close()
    assert 0 < tracked_position(store.engine, "insights") < store.end
    assert_insights_hold(store.app, store.engine)  # its batch under way was rolled back


def children_of(pid: int) -> list[int]:
    """The processes `pid` started that are still its children (Linux)."""
    return [int(child) for child in Path(f"/proc/{pid}/task/{pid}/children").read_text().split()]


def ended(pid: int) -> bool:
    """Whether process `pid` has ended (gone, or a zombie no one has reaped yet)."""
    try:
        stat = Path(f"/proc/{pid}/stat").read_text()
    except FileNotFoundError:
        return True
    return stat.rpartition(")")[2].split()[0] in ("Z", "X")


def wait_until(condition: Callable[[], bool], failure: str, timeout: float = 10) -> None:
    deadline = time.monotonic() + timeout
    while not condition():
        assert time.monotonic() < deadline, failure
        time.sleep(0.01)


@pytest.mark.slow  # the module's 21 bot games on each store
def test_two_projectors_catching_up_at_once_in_threads_count_every_event_once(
    store: PlayedStore,
) -> None:
    second_engine = store.engine if store.kind == "memory" else projection_engine(store.url)
    first = Projector(store.app, store.engine)
    second = Projector(store.app, second_engine)
    first.reset()
    start = threading.Barrier(2)

    def catch_up(projector: Projector) -> int:
        start.wait()
        return projector.catch_up(batch_size=50)

    with ThreadPoolExecutor(2) as pool:
        advanced = list(pool.map(catch_up, [first, second]))
    if second_engine is not store.engine:
        second_engine.dispose()

    assert sum(advanced) == store.end * len(first.projections)  # each projection read it all
    assert dump(store.engine) == store.incremental


CATCH_UP_WHEN_TOLD = """
import sys
from domain.application import Bohnanza
from projections.runner import Projector

url = sys.argv[1]
with Bohnanza.from_url(url) as app, Projector.for_url(app, url) as projector:
    print("ready", flush=True)
    sys.stdin.readline()
    print(projector.catch_up(batch_size=25), flush=True)
"""


@pytest.mark.slow  # the module's 21 bot games on each store
def test_two_projector_processes_catching_up_at_once_count_every_event_once(
    shared_store: PlayedStore,
) -> None:
    store = shared_store
    store.projector.reset()
    processes = [
        subprocess.Popen(
            [sys.executable, "-c", CATCH_UP_WHEN_TOLD, store.url],
            cwd=ROOT,
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
        )
        for _ in range(2)
    ]
    for process in processes:
        assert process.stdout is not None
        line = process.stdout.readline()
        if line != "ready\n":  # it failed to start: show why (seen once in a full run)
            process.kill()
            _, error = process.communicate()
            pytest.fail(f"a projector process did not start ({line!r}):\n{error}")
    outputs = [process.communicate("go\n", timeout=120)[0] for process in processes]

    assert all(process.returncode == 0 for process in processes)
    projections = len(store.projector.projections)  # each projection reads the store once
    assert sum(int(output) for output in outputs) == store.end * projections
    assert dump(store.engine) == store.incremental


@pytest.mark.slow  # the module's 21 bot games on each store
def test_a_follower_process_kept_up_with_the_play_and_stopped_cleanly_on_sigterm(
    store: PlayedStore,
) -> None:
    if store.follower is None:
        pytest.skip("this store's projections caught up in the playing process")

    returncode, output = store.follower

    assert returncode == 0
    assert output.endswith(f"Stopped at position {store.end}.\n")


@pytest.mark.slow  # the module's 21 bot games on each store
@pytest.mark.parametrize("options", [[], ["--one-process"]], ids=" ".join)
def test_the_cli_rebuilds_the_projections_and_reports_them_up_to_date(
    shared_store: PlayedStore, options: list[str]
) -> None:
    store = shared_store
    runner = CliRunner()
    store.projector.reset()

    behind = runner.invoke(main, ["--database-url", store.url, "projections", "status"])
    rebuilt = runner.invoke(main, ["--database-url", store.url, "projections", "rebuild", *options])
    status = runner.invoke(main, ["--database-url", store.url, "projections", "status"])

    header, *lines = behind.output.splitlines()
    assert header.split() == ["PROJECTION", "POSITION", "STORE", "STATE"]
    end = str(store.end)
    assert [line.split() for line in lines] == [
        [name, "0", end, end, "events", "behind"] for name in ("scoreboards", "insights")
    ]
    assert rebuilt.exit_code == 0, rebuilt.output
    read = events_read(store.app, Scoreboards), events_read(store.app, GameInsights)
    assert (
        f"Rebuilt scoreboards from {read[0]} events and insights from {read[1]} events, "
        f"the store up to position {end}." in rebuilt.output
    )
    _, *lines = status.output.splitlines()
    assert [line.split() for line in lines] == [
        [name, end, end, "up", "to", "date"] for name in ("scoreboards", "insights")
    ]
    assert dump(store.engine) == store.incremental


def test_the_cli_reports_the_events_a_rebuild_read_where_the_store_s_positions_have_a_gap(
    shared_database_url: str,
) -> None:
    url = shared_database_url
    with Bohnanza.from_url(url) as app:
        first = app.start_game(["Ana", "Ben", "Cleo"], seed=1)
        with pytest.raises(Conflict):  # its insert rolls back: on PostgreSQL, a gap
            app.start_game(["Ana", "Ben", "Cleo"], seed=1, game_id=first.game_id)
        if url.startswith("sqlite"):  # SQLite numbers rows after the last: leave a gap by hand
            leave_a_gap_before_the_last_event(url)
        app.start_game(["Dan", "Eve", "Finn"], seed=2)
        end, stored, read = app.position(), len(stored_events(app)), events_read(app, Scoreboards)
    assert end > stored

    rebuilt = CliRunner().invoke(
        main, ["--database-url", url, "projections", "rebuild", "scoreboards"]
    )

    assert rebuilt.exit_code == 0, rebuilt.output
    assert f"Rebuilt scoreboards from {read} events, the store up to position {end}." in (
        rebuilt.output
    )


def stored_events(app: Bohnanza, topics: Sequence[str] = ()) -> list[Any]:
    """Every event in the store (of these topics, if any)."""
    return app.recorder.select_notifications(1, 10**9, topics=topics)


def events_read(app: Bohnanza, projection: type[Scoreboards | GameInsights]) -> int:
    """How many events of the store a projection reads: those of its topics."""
    return len(stored_events(app, projection.topics))


def leave_a_gap_before_the_last_event(url: str) -> None:
    """Number the store's last event 3 past where it was, as PostgreSQL does after two inserts
    that rolled back."""
    with sqlite3.connect(url.removeprefix("sqlite:///")) as connection:
        connection.execute(
            "UPDATE stored_events SET rowid = rowid + 3 WHERE rowid = "
            "(SELECT MAX(rowid) FROM stored_events)"
        )


# --- one game at a time ----------------------------------------------------------------------------


@pytest.fixture
def projector(app: Bohnanza, database_url: str) -> Iterator[Projector]:
    with Projector.for_url(app, database_url) as running:
        yield running


def test_catching_up_after_every_command_of_a_game_builds_what_a_rebuild_builds(
    app: Bohnanza, projector: Projector
) -> None:
    games = start_games(app, [GameSpec("amigo-1997", 3, "greedy", seed=2)], projector.catch_up)
    play_interleaved(app, games, projector.catch_up)
    incremental = dump(projector.engine)

    projector.rebuild()

    assert dump(projector.engine) == incremental
    assert_tables_hold(projector.engine, {game.game_id: game.facts for game in games})
    assert_insights_hold(app, projector.engine)


def test_a_sandbox_fork_has_a_scoreboard_but_the_leaderboard_does_not_count_it(
    app: Bohnanza, projector: Projector
) -> None:
    parent = played_alone(app, GameSpec("rio-grande", 3, "greedy", seed=4))
    fork = create_fork(app, parent.game_id, len(parent.facts))  # the end: the fork ends too
    projector.catch_up()

    standings = queries.leaderboard(projector.engine)
    fork_game = next(g for g in queries.games(projector.engine) if g.game_id == fork.game_id)

    assert fork_game.sandbox
    assert fork_game.status == "ended"
    assert queries.scoreboard(projector.engine, fork.game_id)
    assert {(s.name, s.games) for s in standings} == {(name, 1) for name in fork_game.seats}
    assert_tables_hold(
        projector.engine, {parent.game_id: parent.facts, fork.game_id: app.facts(fork.game_id)}
    )
    assert_insights_hold(app, projector.engine)


def test_a_copy_of_an_ended_game_is_listed_but_the_leaderboard_counts_the_game_once(
    app: Bohnanza, projector: Projector
) -> None:
    original = played_alone(app, GameSpec("amigo", 4, "greedy", seed=8))
    copy = import_record(app, export_game(app, original.game_id))  # the same game, a new id
    projector.catch_up()

    listed = {game.game_id: game for game in queries.games(projector.engine)}
    standings = queries.leaderboard(projector.engine)

    assert listed[copy.game_id].duplicate_of == original.game_id
    assert listed[original.game_id].duplicate_of is None
    assert {s.games for s in standings} == {1}
    incremental = dump(projector.engine)
    projector.rebuild()
    assert dump(projector.engine) == incremental


@pytest.mark.parametrize(
    "caught_up_between", [False, True], ids=["in the originals' batch", "in a later one"]
)
def test_copies_of_ended_games_count_once_whether_they_end_with_their_originals_or_later(
    app: Bohnanza, projector: Projector, caught_up_between: bool
) -> None:
    specs = [GameSpec("amigo", 4, "greedy", seed=8), GameSpec("rio-grande", 3, "greedy", seed=4)]
    originals = [played_alone(app, spec) for spec in specs]
    if caught_up_between:
        projector.catch_up()  # the originals are stored rows when their copies end
    records = [export_game(app, original.game_id) for original in originals]
    copies = [(import_record(app, r), o) for r, o in zip(records, originals, strict=True)]
    projector.catch_up(batch_size=10**6)  # the rest in one batch

    listed = {game.game_id: game.duplicate_of for game in queries.games(projector.engine)}
    assert [listed[copy.game_id] for copy, _ in copies] == [o.game_id for _, o in copies]
    assert [listed[original.game_id] for original in originals] == [None, None]
    with Bohnanza.from_url("memory://") as alone, Projector.for_url(alone, "memory://") as only:
        for record in records:
            import_record(alone, record)
        only.catch_up()
        assert (
            dump(projector.engine)["projection_leaderboard"]
            == dump(only.engine)["projection_leaderboard"]
        )


OLDER_SHAPES = {
    "a column less": (
        "ALTER TABLE {table} DROP COLUMN sandbox",
        lambda inspector, schema: {
            c["name"] for c in inspector.get_columns("projection_games", schema)
        },
        "sandbox",
    ),
    "an index less": (
        "DROP INDEX {index}",
        lambda inspector, schema: {
            i["name"] for i in inspector.get_indexes("projection_games", schema)
        },
        "ix_projection_games_started",
    ),
}


@pytest.mark.parametrize("shape", OLDER_SHAPES)
def test_tables_left_by_an_older_version_are_emptied_and_rebuilt_from_the_store(
    app: Bohnanza, database_url: str, shape: str
) -> None:
    change, found, lost = OLDER_SHAPES[shape]
    game = played_alone(app, GameSpec("rio-grande", 3, "greedy", seed=4))
    with Projector.for_url(app, database_url) as first:
        first.catch_up()
        schema = schema_of(first.engine)
        qualified = (lambda name: name) if schema is None else (lambda name: f'"{schema}".{name}')
        sql = change.format(table=qualified("projection_games"), index=qualified(lost))
        with first.engine.begin() as connection:
            connection.exec_driver_sql(sql)
        assert lost not in found(inspect(first.engine), schema)

    with Projector.for_url(app, database_url) as later:
        later.catch_up()

        assert lost in found(inspect(later.engine), schema)
        assert_tables_hold(later.engine, {game.game_id: game.facts})


def test_wait_returns_once_the_projections_reach_the_position(
    app: Bohnanza, projector: Projector
) -> None:
    started = app.start_game(["Ana", "Ben", "Cleo"], seed=1)
    later = threading.Timer(0.05, projector.catch_up)
    later.start()

    projector.wait(started.position or 0, timeout=10)

    later.join()
    assert [s.position for s in projector.status()] == [started.position] * 2


def test_wait_times_out_while_the_projections_stay_behind(
    app: Bohnanza, projector: Projector
) -> None:
    started = app.start_game(["Ana", "Ben", "Cleo"], seed=1)

    with pytest.raises(TimeoutError):
        projector.wait(started.position or 0, timeout=0.05)


def test_a_follower_keeps_the_projections_current_until_stopped(
    app: Bohnanza, projector: Projector
) -> None:
    stop = threading.Event()
    follower = threading.Thread(target=projector.follow, args=(0.01, stop))
    follower.start()
    try:
        started = app.start_game(["Ana", "Ben"], seed=4)
        projector.wait(started.position or 0, timeout=10)
    finally:
        stop.set()
        follower.join(timeout=10)

    assert not follower.is_alive()
    assert [record.game_id for record in queries.games(projector.engine)] == [started.game_id]


class _CountedStop(threading.Event):
    """A stop event that records each wait and is set after `waits` of them."""

    def __init__(self, waits: int) -> None:
        super().__init__()
        self.waits: list[float] = []
        self.limit = waits

    def wait(self, timeout: float | None = None) -> bool:
        self.waits.append(timeout or 0.0)
        if len(self.waits) >= self.limit:
            self.set()
        return self.is_set()


def scripted_catch_ups(
    projector: Projector, monkeypatch: pytest.MonkeyPatch, outcomes: list[int | Exception]
) -> list[str]:
    """Make the projector's catch ups answer `outcomes` in turn (positions moved past, or an
    error raised); the rounds as they went, "reached" or "failed"."""
    rounds: list[str] = []
    remaining = iter(outcomes)

    def catch_up(_batch_size: int, progress: object = None) -> int:
        outcome = next(remaining)
        rounds.append("failed" if isinstance(outcome, Exception) else "reached")
        if isinstance(outcome, Exception):
            raise outcome
        return outcome

    monkeypatch.setattr(projector, "catch_up", catch_up)
    return rounds


def test_a_follower_waits_longer_and_longer_for_a_database_that_went_away_and_warns_once(
    projector: Projector, monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture
) -> None:
    scripted_catch_ups(projector, monkeypatch, [OperationalError("gone")] * 4 + [0])
    stop = _CountedStop(waits=5)

    with caplog.at_level("WARNING", logger="projections.runner"):
        projector.follow(0.5, stop)

    assert stop.waits == [1.0, 2.0, 4.0, 5.0, 0.5]
    assert [r.getMessage() for r in caplog.records] == [
        "projector: database unavailable (gone); retrying",
        "projector: database available again after 4 attempts",
    ]
    assert all(record.exc_info is None for record in caplog.records)  # no traceback


def test_a_follower_beats_its_heartbeat_after_every_round_that_reached_the_database(
    projector: Projector, monkeypatch: pytest.MonkeyPatch
) -> None:
    gone = OperationalError("gone")
    rounds = scripted_catch_ups(projector, monkeypatch, [3, 0, gone, gone, 0])
    beats: list[int] = []

    answered = projector.follow(
        0.5, _CountedStop(waits=4), reached=lambda: beats.append(len(rounds))
    )

    assert rounds == ["reached", "reached", "failed", "failed", "reached"]
    assert beats == [1, 2, 5]
    assert answered


def test_a_follower_stopped_during_an_outage_says_the_database_did_not_answer(
    projector: Projector, monkeypatch: pytest.MonkeyPatch
) -> None:
    scripted_catch_ups(projector, monkeypatch, [0, OperationalError("gone")])

    assert projector.follow(0.5, _CountedStop(waits=2)) is False


def test_a_follower_beats_its_heartbeat_between_the_batches_of_a_long_catch_up(
    app: Bohnanza, projector: Projector
) -> None:
    for seed in range(3):
        app.start_game(["Ana", "Ben", "Cleo"], seed=seed)
    stop = _CountedStop(waits=1)
    beats: list[int] = []

    projector.follow(0.01, stop, batch_size=2, reached=lambda: beats.append(_lowest(projector)))

    assert len(beats) > app.position() // 2  # a beat a batch of each projection, and a round's
    assert beats[-1] == app.position()


def test_a_follower_told_to_stop_halfway_through_a_backlog_stops_after_the_batch_at_hand(
    app: Bohnanza, projector: Projector
) -> None:
    for seed in range(3):
        app.start_game(["Ana", "Ben", "Cleo"], seed=seed)
    stop = threading.Event()

    projector.follow(0.01, stop, batch_size=2, reached=stop.set)

    processed = [status.position for status in projector.status()]
    assert 0 < max(processed) < app.position()


def _lowest(projector: Projector) -> int:
    return min(status.position for status in projector.status())


@pytest.mark.slow  # a projector process, waiting for its database
def test_a_follower_started_before_its_database_is_reachable_waits_for_it_until_stopped(
    tmp_path: Path,
) -> None:
    unreachable = "postgresql://postgres@127.0.0.1:1/bohnanza"  # nothing listens on port 1
    heartbeat = tmp_path / "projector.heartbeat"
    process = subprocess.Popen(
        [
            *[sys.executable, "-m", "api.cli", "--database-url", unreachable],
            *["projections", "follow", "--heartbeat", str(heartbeat)],
        ],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    try:
        assert process.stderr is not None
        warning = process.stderr.readline()
        still_waiting = process.poll() is None
        process.send_signal(signal.SIGTERM)
        returncode = process.wait(timeout=30)
    finally:
        process.kill()

    assert warning.startswith("projector: the database is unavailable (")
    assert warning.endswith("); trying again every 2 s\n")
    assert still_waiting
    assert returncode == 0
    assert not heartbeat.exists()  # so its health check fails: it cannot work


@pytest.mark.slow  # a projector process, waiting for its database
def test_a_follower_touches_its_heartbeat_once_it_reaches_the_database(tmp_path: Path) -> None:
    heartbeat = tmp_path / "projector.heartbeat"
    url = f"sqlite:///{tmp_path / 'store.sqlite3'}"
    process = subprocess.Popen(
        [
            *[sys.executable, "-m", "api.cli", "--database-url", url],
            *["projections", "follow", "--poll-interval", "0.05", "--heartbeat", str(heartbeat)],
        ],
        stdout=subprocess.PIPE,
        text=True,
    )
    try:
        assert process.stdout is not None
        assert process.stdout.readline().startswith("Following the store")
        first = heartbeat.stat().st_mtime_ns
        deadline = time.monotonic() + 10
        while heartbeat.stat().st_mtime_ns == first and time.monotonic() < deadline:
            time.sleep(0.05)
        beating = heartbeat.stat().st_mtime_ns > first
        healthy = subprocess.run(
            [sys.executable, "-m", "projections.heartbeat", str(heartbeat), "--max-age", "30"],
            capture_output=True,
            text=True,
        )
        process.send_signal(signal.SIGTERM)
        returncode = process.wait(timeout=30)
    finally:
        process.kill()

    assert beating
    assert healthy.returncode == 0, healthy.stderr
    assert healthy.stdout.startswith("the projector reached the database ")
    assert returncode == 0


def test_an_empty_heartbeat_path_is_refused(tmp_path: Path) -> None:
    url = f"sqlite:///{tmp_path / 'store.sqlite3'}"

    result = CliRunner().invoke(
        main, ["--database-url", url, "projections", "follow", "--heartbeat", " "]
    )

    assert result.exit_code == 2
    assert "Invalid value for --heartbeat: name a file" in result.output


def test_a_heartbeat_file_that_cannot_be_written_stops_the_follower_at_once(
    tmp_path: Path,
) -> None:
    url = f"sqlite:///{tmp_path / 'store.sqlite3'}"
    heartbeat = tmp_path / "no such directory" / "projector.heartbeat"

    result = CliRunner().invoke(
        main, ["--database-url", url, "projections", "follow", "--heartbeat", str(heartbeat)]
    )

    assert result.exit_code == 1
    assert "cannot write the heartbeat file" in result.output


@pytest.mark.slow  # waits out the connect timeout
@pytest.mark.parametrize("store", ["event store", "read models"])
def test_a_database_that_never_answers_is_given_up_after_the_urls_connect_timeout(
    store: str,
) -> None:
    """A server that takes the connection and then says nothing (packets dropped on the way):
    both the event store and the read models' engine stop waiting after `connect_timeout`."""
    with socket.socket() as silent:
        silent.bind(("127.0.0.1", 0))
        silent.listen()  # connections queue up; none is ever accepted or answered
        url = f"postgresql://postgres@127.0.0.1:{silent.getsockname()[1]}/beans?connect_timeout=1"
        connect = {
            "event store": lambda: Bohnanza.from_url(url),
            "read models": lambda: projection_engine(url).connect(),
        }[store]
        began = time.monotonic()
        with pytest.raises((OperationalError, exc.OperationalError)):
            connect()
        waited = time.monotonic() - began

    assert waited < 15  # the event store's library tries a connection a few times


TCP_USER_TIMEOUT = 18  # linux/tcp.h: how long sent data may go unacknowledged (ms)


def test_postgresql_connections_give_up_on_a_dead_network(
    postgres_database: PostgresTestDatabase,
) -> None:
    """Both the event store's and the read models' connections ask the kernel to close them
    when the network stops acknowledging, and probe idle ones (domain/network.py)."""
    url = postgres_database.new_store_url()
    with (
        Bohnanza.from_url(url) as app,
        app.recorder.datastore.get_connection() as store,
        projection_engine(url).connect() as read_models,
    ):
        assert app.recorder.datastore.pool.reconnect_timeout == RECONNECT_SECONDS
        connections = [store, read_models.connection.driver_connection]
        for connection in connections:
            parameters = connection.info.get_parameters()
            assert parameters["tcp_user_timeout"] == str(DEAD_NETWORK_SECONDS * 1000)
            assert parameters["keepalives"] == "1"
            if sys.platform == "linux":
                with socket.socket(fileno=os.dup(connection.fileno())) as sock:
                    limit = sock.getsockopt(socket.IPPROTO_TCP, TCP_USER_TIMEOUT)
                    keepalive = sock.getsockopt(socket.SOL_SOCKET, socket.SO_KEEPALIVE)
                assert (limit, keepalive) == (DEAD_NETWORK_SECONDS * 1000, 1)


def test_an_unknown_projection_cannot_be_rebuilt(projector: Projector) -> None:
    with pytest.raises(KeyError, match="no projection 'scores'"):
        projector.rebuild("scores")


def test_the_read_models_live_beside_the_events_in_the_same_database(
    shared_database_url: str,
) -> None:
    schema = persistence_env(shared_database_url).get("POSTGRES_SCHEMA")
    events_table = "bohnanza_events" if schema else "stored_events"

    with (
        Bohnanza.from_url(shared_database_url) as app,
        Projector.for_url(app, shared_database_url) as projector,
    ):
        names = set(inspect(projector.engine).get_table_names(schema=schema))

    assert {events_table, *(table.name for table in tables.metadata.sorted_tables)} <= names


def test_playing_on_the_command_line_keeps_the_projections_up_to_date(tmp_path: Path) -> None:
    url = f"sqlite:///{tmp_path}/cli.sqlite3"
    runner = CliRunner()

    played = runner.invoke(main, ["--database-url", url, "play", "--players", "Ana,Ben", "--quiet"])
    status = runner.invoke(main, ["--database-url", url, "projections", "status"])

    assert played.exit_code == 0, played.output
    assert status.output.endswith(" up to date\n")
    with Bohnanza.from_url(url) as app, Projector.for_url(app, url) as projector:
        (record,) = queries.games(projector.engine)
    assert record.status == "ended"
