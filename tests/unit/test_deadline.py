"""A request's deadline for database work (domain/deadline.py), with a stand-in for the event
store's connection pool."""

from __future__ import annotations

import threading
import time
from collections.abc import Iterator

import pytest
from eventsourcing.persistence import OperationalError

from domain import deadline as dl
from domain.deadline import DeadlinePassed, deadline, locked, remaining, within_deadline


class FakePool:
    """A pool whose getconn waits `timeout` and fails while `reachable` is False (counting a
    failure to connect), or hands out a connection at once."""

    timeout = 2.0

    def __init__(self) -> None:
        self.reachable = True
        self.busy = False
        self.waits: list[float | None] = []
        self.errors = 0

    def getconn(self, timeout: float | None = None) -> str:
        self.waits.append(timeout)
        if self.busy or not self.reachable:
            if not self.reachable:
                self.errors += 1
            raise TimeoutError(f"couldn't get a connection after {timeout} sec")
        return "a connection"

    def get_stats(self) -> dict[str, int]:
        return {"connections_errors": self.errors}


@pytest.fixture(autouse=True)
def no_outage() -> Iterator[None]:
    dl.OUTAGE.answered(0)
    yield
    dl.OUTAGE.answered(0)


def test_outside_a_deadline_the_pool_waits_as_it_would() -> None:
    pool = FakePool()

    within_deadline(pool)()

    assert pool.waits == [None]
    assert remaining() is None


def test_a_wait_for_a_connection_is_cut_to_what_the_deadline_leaves() -> None:
    pool = FakePool()

    with deadline(0.5):
        within_deadline(pool)()

    assert pool.waits[0] is not None
    assert 0.4 < pool.waits[0] <= 0.5


def test_past_the_deadline_a_ready_connection_is_still_taken() -> None:
    pool = FakePool()

    with deadline(0.01):
        time.sleep(0.02)
        connection = within_deadline(pool)()

    assert connection == "a connection"
    assert pool.waits == [dl.PAST]


def test_past_the_deadline_a_failed_wait_is_a_deadline_passed_not_retried_by_the_library() -> None:
    pool = FakePool()
    pool.reachable = False

    with deadline(0.01):
        time.sleep(0.02)
        with pytest.raises(DeadlinePassed):
            within_deadline(pool)()

    assert not issubclass(DeadlinePassed, OperationalError)


def test_a_failed_wait_while_the_pool_failed_to_connect_marks_the_database_down() -> None:
    pool = FakePool()
    pool.reachable = False

    with deadline(5.0), pytest.raises(DeadlinePassed):  # down: no time left to wait
        within_deadline(pool)()

    assert dl.OUTAGE.down


def test_a_failed_wait_on_a_busy_pool_that_connects_fine_is_no_outage() -> None:
    pool = FakePool()
    pool.busy = True

    with deadline(5.0), pytest.raises(TimeoutError):
        within_deadline(pool)()

    assert not dl.OUTAGE.down


def test_while_the_database_is_down_only_one_request_a_second_waits_for_it() -> None:
    dl.OUTAGE.waited_in_vain(1)
    budgets = []
    for _ in range(3):
        with deadline(5.0):
            budgets.append(remaining())

    assert budgets[0] is not None
    assert 0 < budgets[0] <= dl.PROBE_SECONDS  # the probe, one connection attempt long
    assert budgets[1:] == [0.0, 0.0]


def test_a_connection_had_again_ends_the_outage() -> None:
    pool = FakePool()
    dl.OUTAGE.waited_in_vain(1)
    dl.OUTAGE.probe_now(time.monotonic())  # the probe of this second is taken

    with deadline(5.0):
        within_deadline(pool)()  # a ready connection: the database answers

    assert not dl.OUTAGE.down


def test_a_deadline_within_another_ends_no_later_than_it() -> None:
    with deadline(0.2), deadline(10.0):
        left = remaining()

    assert left is not None
    assert left <= 0.2


def test_a_lock_held_past_the_deadline_is_a_deadline_passed() -> None:
    lock = threading.Lock()
    lock.acquire()
    try:
        with deadline(0.05), pytest.raises(DeadlinePassed), locked(lock):
            pass
    finally:
        lock.release()


def test_a_free_lock_is_taken_and_released() -> None:
    lock = threading.Lock()

    with deadline(1.0), locked(lock):
        assert lock.locked()

    assert not lock.locked()
