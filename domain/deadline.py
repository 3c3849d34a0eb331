"""A deadline for the database work of one request, so that an outage answers every request
within a bound instead of letting each store call wait and retry on its own.

The event store's library retries each call 10 times, each attempt waiting up to the connection
timeout for a connection; a request makes several calls (its key, the game, the save), and the
read models' pool let a request wait 30 s for a connection held by another. In an outage a
request's waits added up: 44 s for a read that began as the database went away, 25 s for the
health check (measured through a proxy that reset every connection).

Within `deadline(seconds)`, every wait for a database connection is cut to what is left of the
deadline, and once it has passed a request waits no more: a store call takes a connection that
is ready (a healthy database answers as usual) or fails at once with `DeadlinePassed`, which
the library does not retry.

And once a wait for a connection has failed while the event store's pool failed to connect
(the database unreachable, not merely busy), the process knows the database is down: until a
connection is had again, no request waits for one (each takes a ready connection or fails at
once), except one request a second, the probe, which waits up to `PROBE_SECONDS` and so finds
the database back. Requests under way when the database went away stop waiting as soon as one
of them finds it gone, and requests queued behind threads the outage tied up are answered at
once instead of each waiting its own deadline. Outside a deadline (the projector, the command
line) nothing changes.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable
from contextvars import ContextVar
from typing import Any, NamedTuple

from eventsourcing.persistence import PersistenceError

PAST = 0.001
"""How long a wait for a connection may be once the deadline has passed, or while the database
is known to be down: long enough to take an idle one, too short to wait for one."""

PROBE_INTERVAL = 1.0
"""While the database is known to be down, how often a request may wait for it (a probe)."""

PROBE_SECONDS = 2.0
"""How long a probe waits for the database: one attempt to connect."""


class DeadlinePassed(PersistenceError):
    """The request's time for database work ran out, or the database is known to be down (not
    an OperationalError, so that the event store's library does not try again)."""


class _Deadline(NamedTuple):
    at: float
    probe: bool
    """Whether this request waits for a database known to be down, to find it back."""
    floor: float
    """How long a query may take however little time is left (QUERY_FLOOR at most)."""


_DEADLINE: ContextVar[_Deadline | None] = ContextVar("bohnanza database deadline", default=None)


class _Outage:
    """Whether the database is known to be unreachable, and when a request may next probe it."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self.down = False
        self._next_probe = 0.0
        self._errors_seen = 0

    def probe_now(self, now: float) -> bool:
        """Whether a request starting now, while the database is down, is the probe."""
        with self._lock:
            if now < self._next_probe:
                return False
            self._next_probe = now + PROBE_INTERVAL
            return True

    def waited_in_vain(self, connection_errors: int) -> None:
        """A wait for a connection failed; the pool has failed to connect `connection_errors`
        times so far. Failures to connect since the last look mean the database is down; none
        mean it is only busy (every connection in use)."""
        with self._lock:
            if connection_errors > self._errors_seen:
                self.down = True
            self._errors_seen = connection_errors

    def answered(self, connection_errors: int) -> None:
        """A connection was had: the database answers. Failures to connect counted until now
        are of the outage that ended."""
        with self._lock:
            self.down = False
            self._errors_seen = connection_errors


OUTAGE = _Outage()


def deadline(seconds: float) -> _Within:
    """Database work in the block waits at most `seconds` in all for connections, and no
    longer than a deadline around it; while the database is known to be down, only a probe
    now and then waits at all."""
    return _Within(seconds)


class _Within:
    """`deadline`'s block: a class rather than a generator, for every request runs in one."""

    __slots__ = ("seconds", "token")

    def __init__(self, seconds: float) -> None:
        self.seconds = seconds

    def __enter__(self) -> None:
        seconds = self.seconds
        now = time.monotonic()
        probe = OUTAGE.down and OUTAGE.probe_now(now)
        at = now + (min(seconds, PROBE_SECONDS) if probe else seconds)
        floor = min(QUERY_FLOOR, seconds / 2)
        outer = _DEADLINE.get()
        if outer is not None:
            at, probe, floor = min(at, outer.at), probe or outer.probe, min(floor, outer.floor)
        self.token = _DEADLINE.set(_Deadline(at, probe, floor))

    def __exit__(self, *exc_info: object) -> None:
        _DEADLINE.reset(self.token)


def remaining() -> float | None:
    """Seconds left for waiting on the database (0 once past, or while it is known to be down
    for any request but the probe), or None outside a deadline."""
    current = _DEADLINE.get()
    if current is None:
        return None
    if OUTAGE.down and not current.probe:
        return 0.0
    return max(0.0, current.at - time.monotonic())


def bounded_wait(timeout: float) -> float:
    """`timeout` for a wait for a connection, cut to what the deadline leaves."""
    left = remaining()
    return timeout if left is None else max(PAST, min(timeout, left))


def locked(lock: threading.Lock) -> _Locked:
    """Hold `lock` for the block, waiting for it no longer than the deadline leaves (DeadlinePassed
    then): a lock held by a thread whose database work hangs must not hold every request that
    needs it past its deadline."""
    return _Locked(lock)


class _Locked:
    """`locked`'s block: a class rather than a generator, for it runs several times a request."""

    __slots__ = ("lock",)

    def __init__(self, lock: threading.Lock) -> None:
        self.lock = lock

    def __enter__(self) -> None:
        lock = self.lock
        if lock.acquire(blocking=False):  # free: no deadline to look up
            return
        left = remaining()
        if not lock.acquire(timeout=-1 if left is None else max(PAST, left)):
            raise DeadlinePassed("the database work this request waits for did not end in time")

    def __exit__(self, *exc_info: object) -> None:
        self.lock.release()


QUERY_FLOOR = 5.0
"""However little of its deadline a request has left, a query it sends may take this long (or
half the deadline, if less): a healthy database's queries are not cut short; a database that
stopped answering on an open connection holds a request at most this much past its deadline."""


def bounded_connections(connection_class: type[Any]) -> type[Any]:
    """A psycopg connection class whose waits for the server, within a deadline, end with it
    (but last at least QUERY_FLOOR): a connection on which the database stopped answering (a
    proxy holding the bytes, a server hung) raises DeadlinePassed and is closed, instead of
    holding its request until the database answers again. The network limits of
    domain/network.py do not catch this: the network itself acknowledges what was sent."""
    import psycopg  # only here: a process on SQLite never imports it

    class DeadlineConnection(connection_class):  # type: ignore[misc]
        def wait(self, gen: Any, interval: float = 0.1, timeout: float | None = None) -> Any:
            current = _DEADLINE.get()
            if current is None or timeout is not None:
                return super().wait(gen, interval, timeout)
            limit = max(current.at - time.monotonic(), current.floor)
            started = time.monotonic()
            try:
                return super().wait(gen, interval, limit)
            except psycopg.OperationalError as error:
                if time.monotonic() - started < limit:
                    raise  # the connection's own failure, not the wait's
                self.close()  # in the middle of a query: of no use to anyone now
                raise DeadlinePassed(
                    f"the database did not answer this request's query in time: {error}"
                ) from error

    DeadlineConnection.__name__ = DeadlineConnection.__qualname__ = connection_class.__name__
    return DeadlineConnection


def within_deadline(pool: Any) -> Callable[[float | None], Any]:
    """A psycopg connection pool's `getconn(timeout=None)` that waits at most what the deadline
    leaves, raises DeadlinePassed instead of the pool's timeout once there is no time left,
    and tells OUTAGE whether the database answers."""
    getconn = pool.getconn
    default_timeout = pool.timeout

    def bounded(timeout: float | None = None) -> Any:
        if _DEADLINE.get() is None:
            return getconn(timeout)
        try:
            connection = getconn(bounded_wait(default_timeout if timeout is None else timeout))
        except Exception as error:
            OUTAGE.waited_in_vain(pool.get_stats().get("connections_errors", 0))
            if remaining() == 0.0:
                raise DeadlinePassed(
                    f"the database did not answer in time for this request: {error}"
                ) from error
            raise
        if OUTAGE.down:
            OUTAGE.answered(pool.get_stats().get("connections_errors", 0))
        return connection

    return bounded
