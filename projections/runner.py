"""The projector: keeps the read models current with the event store, exactly once.

In one process (the SQLite default) the web process catches up in a background thread shortly
after commands (`CatchUpInBackground`) and before reads; with PostgreSQL a separate process runs
`follow()`. Either way each batch's rows and its tracking position commit in one transaction, so
a crash loses nothing and two projectors never count an event twice. Reads that must see a write
wait for its position first (`wait`).
"""

from __future__ import annotations

import gc
import logging
import os
import threading
import time
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from types import TracebackType

from eventsourcing.persistence import InterfaceError, OperationalError
from sqlalchemy import Connection, Engine, Table, exc, inspect

from domain.application import Bohnanza
from domain.storage import first_line, opened_by_several_processes

from . import tracking
from .engine import projection_engine, schema_of
from .insights import GameInsights
from .reading import StoreReader
from .scoreboards import Scoreboards
from .tables import metadata
from .tables import tracking as tracking_table
from .tracking import Changes, Overtaken, Projection
from .workers import rebuild_apart

BATCH_SIZE = 1000
"""Store positions per transaction when catching up or following (the facts at them of the
topics the projections read): short transactions, prompt progress."""
UNAVAILABLE_WAIT_SECONDS = 5.0
"""The longest a following projector waits between attempts while the database is unavailable."""
REBUILD_BATCH_SIZE = 50000
"""Store positions per transaction in a rebuild: fewer, larger transactions read the whole store
faster (50,000 positions: about 37,000 facts of the topics read, 22 MB held until they commit;
a PostgreSQL rebuild took 0.46-0.51 s where batches of 20,000 took 0.56-0.59 s)."""
CREATE_ATTEMPTS = 3

log = logging.getLogger(__name__)

Progress = Callable[[int], None]
"""Called after each committed batch with how many store positions it moved past."""


@dataclass(frozen=True, slots=True)
class Status:
    """How far a projection has read, beside the end of the store."""

    name: str
    position: int
    store_position: int

    @property
    def behind(self) -> int:
        return max(self.store_position - self.position, 0)


@dataclass(frozen=True, slots=True)
class Rebuilt:
    """What a rebuild read: the store up to `position`, and of it, by projection, the events of
    the kinds each projection reads. The store's positions may have gaps (a transaction that
    rolled back on PostgreSQL has used its numbers), so events and positions differ."""

    position: int
    events: dict[str, int]


def default_projections(app: Bohnanza) -> list[Projection]:
    """Every projection the service keeps (reading a game's history from `app` when a
    correction changes it)."""
    return [Scoreboards(history=app.corrected_facts), GameInsights(history=app.corrected_facts)]


class Projector:
    """Runs projections over one application's event store into SQL tables on `engine`."""

    def __init__(
        self,
        app: Bohnanza,
        engine: Engine,
        projections: Sequence[Projection] | None = None,
        *,
        owns_engine: bool = False,
        tables_ready: bool = False,
    ) -> None:
        self.app = app
        self.engine = engine
        """On the store's own database (projection_engine): the projector reads the events
        through it too."""
        self.reader = StoreReader(app)
        self.projections = {p.name: p for p in projections or default_projections(app)}
        self.database_url: str | None = None
        """The store's URL, when the projector was made from it (`for_url`, so with the default
        projections) and other processes can open it too: a rebuild can then run the projections
        in processes of their own."""
        self._owns_engine = owns_engine
        self._known: dict[str, int] = {}
        """Positions this projector last committed or read: a hint that saves a query per catch
        up. Another projector may have moved one on (the guarded advance detects that) or back
        to 0 by a rebuild (looked up whenever the hint says there is nothing to do)."""
        if not tables_ready:  # a rebuild's worker process: its parent has just made them
            self._create_tables()

    @classmethod
    def for_url(cls, app: Bohnanza, database_url: str, *, tables_ready: bool = False) -> Projector:
        """A projector writing to the database of the store `database_url` names (whose tables
        it creates, or brings to its projections' shape, unless `tables_ready`)."""
        projector = cls(
            app, projection_engine(database_url), owns_engine=True, tables_ready=tables_ready
        )
        if opened_by_several_processes(database_url):
            projector.database_url = database_url
        return projector

    def close(self) -> None:
        if self._owns_engine:
            self.engine.dispose()

    def __enter__(self) -> Projector:
        return self

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc_value: BaseException | None,
        traceback: TracebackType | None,
    ) -> None:
        self.close()

    # --- running -------------------------------------------------------------------------------

    def catch_up(self, batch_size: int = BATCH_SIZE, progress: Progress | None = None) -> int:
        """Process every event stored so far; the number of store positions moved past (by each
        projection: two projections that read the whole store move past it twice)."""
        target = self.app.position()
        return self._catch_up(list(self.projections.values()), target, batch_size, progress)[0]

    def rebuild(
        self,
        name: str | None = None,
        batch_size: int = REBUILD_BATCH_SIZE,
        progress: Progress | None = None,
        *,
        apart: bool | None = None,
    ) -> Rebuilt:
        """Drop a projection's tables (every projection's if no name) and rebuild them from the
        whole store, up to its position now; what they read.

        With several projections, each after the first is rebuilt in a worker process of its own
        (projections/workers.py) if `apart`, or by default where that can be done and pays: the
        projector was made from the store's URL, and the machine has more than one CPU.
        Otherwise they are rebuilt here, in one reading of the store."""
        target = self.app.position()
        chosen = self._chosen(name)
        for projection in chosen:
            self._reset(projection)
        if apart is None:
            apart = self.database_url is not None and (os.cpu_count() or 1) > 1
        if apart and len(chosen) > 1:
            if self.database_url is None:
                raise ValueError("a rebuild in several processes needs the store's URL (for_url)")
            return Rebuilt(target, rebuild_apart(self, chosen, target, batch_size, progress))
        return Rebuilt(target, self.catch_up_to(chosen, target, batch_size, progress))

    def catch_up_to(
        self,
        projections: Sequence[Projection],
        target: int,
        batch_size: int = BATCH_SIZE,
        progress: Progress | None = None,
    ) -> dict[str, int]:
        """Bring `projections` up to store position `target`; the events each read."""
        return self._catch_up(projections, target, batch_size, progress)[1]

    def reset(self, name: str | None = None) -> None:
        """Drop a projection's tables (every projection's if no name) and put it back to the
        start of the store, empty; the next catch up rebuilds it."""
        for projection in self._chosen(name):
            self._reset(projection)

    def follow(
        self,
        poll_interval: float = 0.5,
        stop: threading.Event | None = None,
        batch_size: int = BATCH_SIZE,
        reached: Callable[[], object] | None = None,
    ) -> bool:
        """Keep catching up until `stop` is set, polling the store when there is nothing new;
        whether the database answered the last round.

        A database that goes away is waited for, asking again less and less often (up to every
        `UNAVAILABLE_WAIT_SECONDS`), with one warning when it goes and one when it is back; a
        projection that fails raises. `reached` is called after every round that reached the
        database and between the batches of a long catch up (the projector's heartbeat:
        projections/heartbeat.py); `stop` is seen there too, so a projector told to stop
        halfway through a large backlog stops after the batch at hand."""
        stop = stop or threading.Event()

        def between_batches(_moved: int) -> None:
            if reached is not None:
                reached()
            if stop.is_set():
                raise _Stopped

        failures = 0
        while not stop.is_set():
            try:
                advanced = self.catch_up(batch_size, progress=between_batches)
            except _Stopped:
                return True
            except (
                exc.OperationalError,
                exc.InterfaceError,
                OperationalError,
                InterfaceError,
            ) as error:
                failures += 1
                if failures == 1:  # an outage is expected: what the driver said, no traceback
                    log.warning("projector: database unavailable (%s); retrying", first_line(error))
                stop.wait(min(poll_interval * 2**failures, UNAVAILABLE_WAIT_SECONDS))
                continue
            if reached is not None:
                reached()
            if failures:
                log.warning("projector: database available again after %d attempts", failures)
                failures = 0
            if not advanced:
                stop.wait(poll_interval)
        return failures == 0

    def wait(self, position: int, timeout: float = 5.0) -> None:
        """Return once every projection has processed `position`; TimeoutError after `timeout`
        seconds (read-your-writes: pass a command's `Outcome.position`)."""
        deadline = time.monotonic() + timeout
        delay = 0.002
        while True:
            lowest = self._lowest_position()
            if lowest >= position:
                return
            remaining = deadline - time.monotonic()
            if remaining <= 0:
                raise TimeoutError(
                    f"projections reached position {lowest}, not {position}, within {timeout}s"
                )
            time.sleep(min(delay, remaining))
            delay = min(delay * 2, 0.1)

    def status(self) -> list[Status]:
        """Each projection's position beside the store's. The read models are asked first: in
        an outage their engine fails at once (or after `connect_timeout`), where the event
        store's library tries its call 10 times (about 22 s) before it gives up; and the
        store's position, read second, is never behind what the projections have read."""
        with self.engine.connect() as connection:
            known = tracking.positions(connection)
        store = self.app.position()
        return [Status(name, known.get(name, 0), store) for name in self.projections]

    # --- one projection ------------------------------------------------------------------------

    def _chosen(self, name: str | None) -> list[Projection]:
        if name is None:
            return list(self.projections.values())
        if name not in self.projections:
            raise KeyError(f"no projection {name!r}; projections: {', '.join(self.projections)}")
        return [self.projections[name]]

    def _reset(self, projection: Projection) -> None:
        with self.engine.begin() as connection:
            tracking.reset(connection, projection.name)  # first: it takes the tracking lock
            metadata.drop_all(connection, tables=list(projection.tables))
            metadata.create_all(connection, tables=list(projection.tables))
        self._known[projection.name] = 0

    def _catch_up(
        self,
        projections: Sequence[Projection],
        target: int,
        batch_size: int,
        progress: Progress | None,
    ) -> tuple[int, dict[str, int]]:
        """Bring `projections` up to `target`; the store positions they moved past, summed, and
        the events each read.

        Projections at the same position read the store together: the events of any of their
        topics in the next `batch_size` positions, decoded once, each projection given its own
        topics' events, all of them advanced in one transaction. One behind the others catches
        up alone until it reaches them (after a reset, say)."""
        advanced = 0
        read = dict.fromkeys((projection.name for projection in projections), 0)
        at = {
            projection.name: self._position_hint(projection.name, target)
            for projection in projections
        }
        while True:
            behind = [projection for projection in projections if at[projection.name] < target]
            if not behind:
                return advanced, read
            position = min(at[projection.name] for projection in behind)
            group = [projection for projection in behind if at[projection.name] == position]
            end = min(position + batch_size, target)
            topics = _topics(group)
            try:
                with _cycles_uncollected():
                    prepared = self._prepare(group, position, end, topics)
                    with self.engine.begin() as connection:
                        for projection in group:  # first: the row locks make a rival wait
                            tracking.advance(connection, projection.name, position, end)
                        for changes, _ in prepared.values():
                            changes.write(connection)
            except Overtaken:
                for projection in group:
                    at[projection.name] = self._position(projection.name)
                continue
            except BaseException:
                for projection in group:
                    self._known.pop(projection.name, None)
                raise
            moved = (end - position) * len(group)
            advanced += moved
            for projection in group:
                self._known[projection.name] = at[projection.name] = end
                read[projection.name] += prepared[projection.name][1]
            if progress is not None:
                progress(moved)

    def _prepare(
        self, group: Sequence[Projection], position: int, end: int, topics: Sequence[str]
    ) -> dict[str, tuple[Changes, int]]:
        """What the facts after `position` up to `end` change in each projection of the group
        (each given its own topics' facts, in order), and how many facts each read; Overtaken if
        one is no longer at `position`.

        The positions, the page of facts and the rows the projections read are read in one
        consistent read (a snapshot) before the transaction that writes them: on SQLite that
        transaction holds the database's write lock from its first write until it commits, so
        commands, and the projectors of other read models, wait only while rows are written."""
        with self.engine.connect() as reading:
            if reading.dialect.name == "postgresql":  # SQLite's transactions are snapshots
                reading = reading.execution_options(isolation_level="REPEATABLE READ")
            with reading.begin():
                stored = tracking.positions(reading)
                for projection in group:
                    if stored.get(projection.name, 0) != position:
                        raise Overtaken(f"projection {projection.name} is no longer at {position}")
                page = self.reader.page(reading, position, end, topics)
                prepared: dict[str, tuple[Changes, int]] = {}
                for projection in group:
                    wanted = _topic_set(projection)
                    batch = [recorded for topic, recorded in page if topic in wanted]
                    prepared[projection.name] = (projection.prepare(reading, batch), len(batch))
                return prepared

    def _position_hint(self, name: str, target: int) -> int:
        """The projection's position as this projector last knew it, or as stored when it knows
        none or it seems to have nothing to do (another projector may have reset it)."""
        position = self._known.get(name)
        if position is None or position >= target:
            position = self._position(name)
        return position

    def _lowest_position(self) -> int:
        with self.engine.connect() as connection:
            known = tracking.positions(connection)
        return min(known.get(name, 0) for name in self.projections)

    def _position(self, name: str) -> int:
        with self.engine.connect() as connection:
            position = self._known[name] = tracking.position_of(connection, name)
        return position

    def _create_tables(self) -> None:
        tables = [tracking_table]
        for projection in self.projections.values():
            tables += projection.tables
        for attempt in range(CREATE_ATTEMPTS):
            try:
                metadata.create_all(self.engine, tables=tables)
                break
            except exc.DBAPIError:
                # Two processes creating the tables at once: one loses the race; look again.
                if attempt == CREATE_ATTEMPTS - 1:
                    raise
        for name in self.projections:
            tracking.ensure_tracked(self.engine, name)
        for projection in self.projections.values():
            self._reset_if_reshaped(projection)

    def _reset_if_reshaped(self, projection: Projection) -> None:
        """Empty a projection whose stored tables have other columns or indexes than its code
        makes (an older version made them) and put it back to the start of the store: the next catch up
        fills them again. Read models are derived; the events alone are kept for ever."""
        if not _reshaped(self.engine, projection.tables):
            return
        with self.engine.connect() as connection, connection.begin() as transaction:
            tracking.reset(connection, projection.name)  # first: it takes the tracking lock
            reshaped = _reshaped(connection, projection.tables)
            if not reshaped:  # another process has just done it
                transaction.rollback()
                return
            metadata.drop_all(connection, tables=list(projection.tables))
            metadata.create_all(connection, tables=list(projection.tables))
        self._known[projection.name] = 0
        log.warning(
            "projection %s: the columns of %s changed; emptied, to be rebuilt from the store",
            projection.name,
            ", ".join(reshaped),
        )


def _reshaped(bind: Engine | Connection, tables: Sequence[Table]) -> list[str]:
    """The tables whose stored columns or indexes are not the ones `tables` define."""
    inspector, schema = inspect(bind), schema_of(bind)
    return [
        table.name
        for table in tables
        if {column["name"] for column in inspector.get_columns(table.name, schema)}
        != set(table.c.keys())
        or {index["name"] for index in inspector.get_indexes(table.name, schema)}
        != {index.name for index in table.indexes}
    ]


_uncollected = 0
_uncollected_lock = threading.Lock()
_collector_paused = False


@contextmanager
def _cycles_uncollected() -> Iterator[None]:
    """Python's cycle collector paused while a batch is read and applied.

    A batch makes tens of thousands of small objects (rows, facts, their lists) and keeps them
    until it commits; each of them counts towards the collector's next pass, and the passes it
    triggers walk every object of the process. In a rebuild that doubled the time of reading
    and decoding (measured in docs/performance.md). Facts hold no reference cycles: their
    memory goes back as each batch ends, without the collector. Paused only if it was running,
    and resumed when the last batch under way in the process (any thread) ends."""
    global _uncollected, _collector_paused
    with _uncollected_lock:
        _uncollected += 1
        if _uncollected == 1 and gc.isenabled():
            gc.disable()
            _collector_paused = True
    try:
        yield
    finally:
        with _uncollected_lock:
            _uncollected -= 1
            if _uncollected == 0 and _collector_paused:
                _collector_paused = False
                gc.enable()


def _topic_set(projection: Projection) -> frozenset[str]:
    return frozenset(projection.topics)


def _topics(projections: Sequence[Projection]) -> tuple[str, ...]:
    """The topics any of these projections reads, each once, in a stable order."""
    return tuple(dict.fromkeys(topic for projection in projections for topic in projection.topics))


class _Stopped(Exception):
    """`follow` was told to stop between two batches of a catch up (each batch is committed)."""


class CatchUpInBackground:
    """Catches the read models up in a background thread of this process, after writes.

    `nudge()` after storing something; the thread waits `delay` seconds, so that the commands of
    a busy moment are processed together (one transaction instead of one each), then calls
    `catch_up`. The writer never waits for the read models, and a reader that must see them
    current catches them up itself first. The thread starts on the first nudge, and again after
    a fork (threads do not survive one), so a server may build this before forking workers.
    """

    def __init__(self, catch_up: Callable[[], object], delay: float = 0.05) -> None:
        self._catch_up = catch_up
        self.delay = delay
        self._fresh()

    def _fresh(self) -> None:
        """New synchronisation for this process (a forked child must not share its parent's)."""
        self._pid = os.getpid()
        self._pending = False
        """A nudge came since the last catch up began."""
        self._wanted = threading.Event()
        self._stopping = threading.Event()
        self._thread: threading.Thread | None = None
        self._starting = threading.Lock()

    def nudge(self) -> None:
        """Something was stored: catch up within `delay` seconds or so."""
        if self._pid != os.getpid():
            self._fresh()
        thread = self._thread
        if thread is None or not thread.is_alive():
            self._start()
        self._pending = True
        self._wanted.set()

    def close(self, timeout: float = 5.0) -> None:
        """Stop the thread, after a last catch up if one was wanted."""
        self._stopping.set()
        self._wanted.set()
        thread = self._thread
        if thread is not None and thread.is_alive():
            thread.join(timeout)

    def _start(self) -> None:
        with self._starting:
            if self._stopping.is_set():
                return
            if self._thread is None or not self._thread.is_alive():
                self._thread = threading.Thread(
                    target=self._run, name="read-models-catch-up", daemon=True
                )
                self._thread.start()

    def _run(self) -> None:
        while True:
            self._wanted.wait()
            stopping = self._stopping.wait(self.delay)
            self._wanted.clear()
            if self._pending:
                self._pending = False
                try:
                    self._catch_up()
                except Exception:  # the events stay stored; the next catch up processes them
                    log.exception("the read models could not catch up")
            # `close` may have come after the wait above timed out: its wake-up is cleared
            # by now, so it is its stop that says so (the thread had waited for ever).
            if stopping or self._stopping.is_set():
                return
