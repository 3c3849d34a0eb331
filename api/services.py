"""The per-process services behind the API: built once per worker, after the server forks.

`Services` holds the one `Bohnanza` application of the process, the projector and the API's own
stores. `GameViews` keeps each game's facts (append-only) and each viewer's folded view, brought
up to date from the store on every read, so several worker processes stay consistent.
"""

from __future__ import annotations

import logging
import threading
from collections import OrderedDict
from dataclasses import dataclass, field
from datetime import timedelta
from typing import Any
from uuid import UUID

from domain.application import Bohnanza, RecordedFact
from domain.deadline import deadline, locked
from domain.rules import events as ev
from domain.rules.errata import Corrected, corrected, effective
from domain.rules.state import GameState
from projections.engine import projection_engine
from projections.runner import CatchUpInBackground, Projector
from projections.views import Viewer, ViewFold, render
from replays.steps import Replay

from . import tables
from .creation_keys import ANSWERS_KEPT, IN_FLIGHT_LIMIT, CreationKeys
from .live_hub import LiveHub
from .security import OldCommandKeys, TokenStore
from .settings import DATABASE_DEADLINE_SECONDS

log = logging.getLogger(__name__)

CACHED_GAMES = 256
"""Games whose facts and views each process keeps (least recently used forgotten first)."""
REPLAYS_KEPT = 32
"""Of those, games whose replay (its tables at every viewer's checkpoints) is kept: a replay of a
4-player game stepped through as seven viewers holds about 0.7 MB, so the replays of every kept
game could reach hundreds of MB a worker, asked for by anyone stepping through old games."""


@dataclass
class _Game:
    facts: list[RecordedFact] = field(default_factory=list)
    """The stream: every stored fact, corrections included (the game as recorded)."""
    game: Corrected = field(default_factory=Corrected)
    """The game as corrected, as of the stream held (the same facts when nothing was corrected),
    with the marks of what each correction changed."""
    views: dict[Viewer, tuple[int, ViewFold]] = field(default_factory=dict)
    """Each viewer's fold of the corrected facts, and how many of them it holds."""
    replays: dict[bool, Replay] = field(default_factory=dict)
    """The game to step through as corrected (False) and as recorded (True), for `facts`."""
    lock: threading.Lock = field(default_factory=threading.Lock)

    @property
    def corrected(self) -> list[ev.Event]:
        return self.game.facts

    @property
    def was_corrected(self) -> bool:
        return self.game.corrections > 0

    def add(self, recorded: list[RecordedFact], app: Bohnanza, game_id: UUID) -> None:
        """Facts read from the store or just stored: after a correction the game as corrected
        is the application's (it keeps the games it corrected), and every view is folded again;
        other facts carry it on."""
        self.facts += recorded
        self.replays.clear()
        facts = [r.fact for r in recorded]
        if any(isinstance(fact, ev.EntriesCorrected) for fact in facts):
            self.game = app.corrected(game_id, len(self.facts))
            self.views.clear()
        else:
            self.game.extend(facts)

    def corrected_at(self, version: int) -> list[ev.Event]:
        """The game as corrected when the stream was at `version`."""
        later = self.facts[version:]
        if not any(isinstance(r.fact, ev.EntriesCorrected) for r in later):
            return self.corrected[: len(self.corrected) - len(later)]
        return effective([r.fact for r in self.facts[:version]])


class GameViews:
    """Each game's facts and each viewer's view, kept current from the store."""

    def __init__(
        self, app: Bohnanza, size: int = CACHED_GAMES, replays: int = REPLAYS_KEPT
    ) -> None:
        self.app = app
        self.size = size
        self.replays = replays
        self._games: OrderedDict[UUID, _Game] = OrderedDict()
        self._replayed: OrderedDict[UUID, _Game] = OrderedDict()
        self._lock = threading.Lock()
        app.on_facts_read(self._read_by_the_application)

    def _entry(self, game_id: UUID) -> _Game:
        with self._lock:
            entry = self._games.get(game_id)
            if entry is not None:
                self._games.move_to_end(game_id)
                return entry
            entry = self._games[game_id] = _Game()
            while len(self._games) > self.size:
                self._games.popitem(last=False)
            return entry

    def facts(self, game_id: UUID) -> list[RecordedFact]:
        """Every fact of the game so far (NotFound for an unknown game)."""
        entry = self._entry(game_id)
        with locked(entry.lock):
            self._refresh(game_id, entry)
            return list(entry.facts)

    def facts_until(self, game_id: UUID, version: int) -> list[RecordedFact]:
        """The game's first `version` facts, asking the store only if this process holds
        fewer (a view's version is one this process has held)."""
        entry = self._entry(game_id)
        with locked(entry.lock):
            if len(entry.facts) < version:
                self._refresh(game_id, entry)
            return entry.facts[:version]

    def corrected_until(
        self, game_id: UUID, version: int
    ) -> tuple[list[ev.Event], int, list[int | None]]:
        """The game as corrected when it was at `version`, how many corrections it had then, and
        each fact's mark (the correction that changed its entry)."""
        entry = self._entry(game_id)
        with locked(entry.lock):
            if len(entry.facts) < version:
                self._refresh(game_id, entry)
            corrections = sum(
                isinstance(recorded.fact, ev.EntriesCorrected) for recorded in entry.facts[:version]
            )
            facts = entry.corrected_at(version)
            marks = entry.game.marks[: len(facts)]
            return facts, corrections, marks

    def started(self, game_id: UUID) -> ev.GameStarted:
        """The game's first fact (NotFound for an unknown game): it never changes, so the store
        is asked only for a game this process has not seen yet."""
        held = self._games.get(game_id)  # without the locks: a held game's first fact is fixed
        if held is not None and held.facts:
            first = held.facts[0].fact
        else:
            entry = self._entry(game_id)
            with locked(entry.lock):
                if not entry.facts:
                    self._refresh(game_id, entry)
                first = entry.facts[0].fact
        assert isinstance(first, ev.GameStarted)
        return first

    def corrected(self, game_id: UUID) -> list[ev.Event]:
        """The game as corrected now (NotFound for an unknown game)."""
        entry = self._entry(game_id)
        with locked(entry.lock):
            self._refresh(game_id, entry)
            return list(entry.corrected)

    def view(self, game_id: UUID, viewer: Viewer) -> tuple[GameState, int]:
        """The viewer's view now (of the game as corrected), and the game version it reflects."""
        entry = self._entry(game_id)
        with locked(entry.lock):
            self._refresh(game_id, entry)
            fold = self._fold_to(entry, viewer, len(entry.corrected))
            assert fold is not None  # the kept fold is never past the facts held
            view, version = fold.state, len(entry.facts)
        assert view is not None, "a game's facts start with GameStarted"
        return view, version

    def document_at(self, game_id: UUID, viewer: Viewer, version: int) -> dict[str, Any]:
        """The viewer's view at `version` exactly, rendered, with its version (a command's answer
        shows the game as that command left it, even when another command was stored right
        after it). From the viewer's kept fold, the seats no fact touched since its last
        rendering keep their documents (`render`'s `kept`)."""
        entry = self._entry(game_id)
        with locked(entry.lock):
            if len(entry.facts) < version:
                self._refresh(game_id, entry)
            fold = None
            if version == len(entry.facts):
                fold = self._fold_to(entry, viewer, len(entry.corrected))
            if fold is None:
                fold = ViewFold(viewer)
                fold.apply_all(entry.corrected_at(version))
            view = fold.state  # the kept fold may move on once the lock is let go
        assert view is not None, "a game's facts start with GameStarted"
        document = render(view, viewer, fold.seat_documents)
        document["version"] = version
        return document

    @staticmethod
    def _fold_to(entry: _Game, viewer: Viewer, count: int) -> ViewFold | None:
        """The viewer's kept fold of the corrected facts brought on to `count` of them; None if
        it is past them already."""
        seen, fold = entry.views.get(viewer) or (0, ViewFold(viewer))
        if seen > count:
            return None
        fold.apply_all(entry.corrected[seen:count])
        entry.views[viewer] = (count, fold)
        return fold

    def record(self, game_id: UUID, recorded: list[RecordedFact]) -> None:
        """Add the facts a command just stored (`Outcome.recorded`), sparing a trip to the
        store, if this process held every earlier fact (otherwise the next read fetches them
        all)."""
        entry = self._entry(game_id)
        with locked(entry.lock):
            self._take(game_id, entry, recorded)

    def _read_by_the_application(self, game_id: UUID, read: list[RecordedFact]) -> None:
        """Take the facts the application read loading a game (Bohnanza.on_facts_read): a
        command loads its game just before its answer folds the caller's view, and with several
        processes the commands stored since this one last held the game are read once, not
        twice. Only into a game held already, and never waiting for its lock (the loading
        thread may be a request's that holds another): it is only a saving."""
        with self._lock:
            entry = self._games.get(game_id)
        if entry is None or not entry.lock.acquire(blocking=False):
            return
        try:
            if not any(isinstance(r.fact, ev.EntriesCorrected) for r in read):
                self._take(game_id, entry, read)
        finally:
            entry.lock.release()

    def _take(self, game_id: UUID, entry: _Game, recorded: list[RecordedFact]) -> None:
        """Add those of `recorded` the entry lacks, if they follow on from what it holds."""
        held = len(entry.facts)
        if recorded and recorded[0].version <= held + 1 <= recorded[-1].version:
            entry.add(recorded[held + 1 - recorded[0].version :], self.app, game_id)

    def replay(self, game_id: UUID, *, as_recorded: bool = False) -> Replay:
        """The game to step through, folded once per version (NotFound for an unknown game): as
        corrected, or `as_recorded` (the same, for a game never corrected)."""
        entry = self._entry(game_id)
        with locked(entry.lock):
            self._refresh(game_id, entry)
            recorded = as_recorded and entry.was_corrected
            replay = entry.replays.get(recorded)
            if replay is None:
                if recorded:
                    stream = [r.fact for r in entry.facts]
                    replay = Replay(stream, recorded=corrected(stream, keep_tables=True))
                else:
                    replay = Replay(entry.corrected, marks=entry.game.marks)
                entry.replays[recorded] = replay
        self._keep_replay(game_id, entry)
        return replay

    def _keep_replay(self, game_id: UUID, entry: _Game) -> None:
        """Count `entry`'s replay among the `replays` most recently asked for, and let go of
        the replay asked for least recently beyond them (a request using it keeps its own)."""
        with self._lock:
            self._replayed.pop(game_id, None)
            self._replayed[game_id] = entry
            while len(self._replayed) > self.replays:
                _, oldest = self._replayed.popitem(last=False)
                oldest.replays.clear()

    def _refresh(self, game_id: UUID, entry: _Game) -> None:
        new = self.app.recorded_facts(game_id, after=len(entry.facts))
        if new:
            entry.add(new, self.app, game_id)


class Services:
    """Everything a request needs, for one process."""

    def __init__(
        self,
        database_url: str,
        *,
        inline_projections: bool,
        in_flight_limit: timedelta = IN_FLIGHT_LIMIT,
        answers_kept: timedelta = ANSWERS_KEPT,
        database_deadline: float = DATABASE_DEADLINE_SECONDS,
    ) -> None:
        self.database_url = database_url
        self.database_deadline = database_deadline
        self.app = Bohnanza.from_url(database_url)
        self.engine = projection_engine(database_url)
        try:
            tables.create_missing(self.engine)
            OldCommandKeys(self.engine).hand_over(self.app.keys)
            self.projector = Projector(self.app, self.engine)
        except BaseException:
            self.engine.dispose()  # and the store's pool, so that a retry starts clean
            self.app.close()
            raise
        self.tokens = TokenStore(self.engine)
        self.creations = CreationKeys(
            self.engine,
            in_flight_limit,
            answers_kept,
            stored=self.app.request_key_stored,
            tokens=self.tokens,
        )
        self.views = GameViews(self.app)
        self.live = LiveHub(self.views, self.app.position)
        """The streams of games followed live (api/live.py)."""
        self.inline_projections = inline_projections
        self._catching_up = threading.Lock()
        self.background = (
            CatchUpInBackground(self._catch_up_in_background) if inline_projections else None
        )

    def after_write(self) -> None:
        """Something was stored: if this process keeps the read models (the SQLite default),
        they catch up in the background shortly, several commands at a time."""
        if self.background is not None:
            self.background.nudge()

    def catch_up(self) -> None:
        """Bring the read models up to date now, if this process keeps them. A failure is
        logged, not raised: the events stay stored and a later catch up processes them."""
        if not self.inline_projections:
            return
        with locked(self._catching_up):  # the background thread and readers take turns
            try:
                self.projector.catch_up()
            except Exception:
                log.exception("the projections could not catch up")

    def _catch_up_in_background(self) -> None:
        """A catch up after writes, under a request's deadline: in an outage it gives the
        readers waiting for it their turn (and their 503) as soon as a request would."""
        with deadline(self.database_deadline):
            self.catch_up()

    def before_read(self) -> None:
        """Catch the read models up before reading them, if this process keeps them: writes
        leave that to the background, so a read may come first."""
        self.catch_up()

    def close(self) -> None:
        self.live.close()
        if self.background is not None:
            self.background.close()
        self.projector.close()
        self.engine.dispose()
        self.app.close()
