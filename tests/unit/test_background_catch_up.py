"""The web process's background catch up of the read models (projections/runner.py)."""

from __future__ import annotations

import sys
import threading
import time

from projections.runner import CatchUpInBackground


class Counted:
    """A catch up that counts its calls and lets a test wait for the next one."""

    def __init__(self) -> None:
        self.calls = 0
        self.called = threading.Event()

    def __call__(self) -> None:
        self.calls += 1
        self.called.set()


def test_nudges_within_the_delay_are_caught_up_together() -> None:
    catch_up = Counted()
    background = CatchUpInBackground(catch_up, delay=0.2)

    for _ in range(5):
        background.nudge()
    assert catch_up.called.wait(10)
    background.close()

    assert catch_up.calls == 1


def test_a_nudge_after_a_catch_up_brings_another() -> None:
    catch_up = Counted()
    background = CatchUpInBackground(catch_up, delay=0.01)

    background.nudge()
    assert catch_up.called.wait(10)
    catch_up.called.clear()
    background.nudge()
    assert catch_up.called.wait(10)
    background.close()

    assert catch_up.calls == 2


def test_without_a_nudge_nothing_runs_and_no_thread_starts() -> None:
    catch_up = Counted()
    background = CatchUpInBackground(catch_up)

    background.close()

    assert catch_up.calls == 0
    assert background._thread is None


def test_closing_catches_up_at_once_what_a_nudge_asked_for() -> None:
    catch_up = Counted()
    background = CatchUpInBackground(catch_up, delay=60.0)

    background.nudge()
    background.close()

    assert catch_up.calls == 1


def test_a_failing_catch_up_does_not_stop_the_thread(caplog) -> None:
    outcomes = iter([RuntimeError("the database went away"), None])
    done = threading.Event()

    def flaky() -> None:
        outcome = next(outcomes)
        if outcome is not None:
            raise outcome
        done.set()

    background = CatchUpInBackground(flaky, delay=0.01)
    background.nudge()
    background.nudge()  # may land during the first, failing catch up or after it
    while not done.wait(0.05):
        background.nudge()
    background.close()

    assert "could not catch up" in caplog.text


def test_a_forked_child_starts_its_own_thread() -> None:
    catch_up = Counted()
    background = CatchUpInBackground(catch_up, delay=0.01)
    background.nudge()
    assert catch_up.called.wait(10)
    parents = background._thread

    background._pid = -1  # as a forked child sees it: the parent's thread is not its own
    catch_up.called.clear()
    background.nudge()
    assert catch_up.called.wait(10)
    background.close()

    assert background._thread is not parents


def test_a_close_just_as_the_wait_for_more_nudges_runs_out_stops_the_thread() -> None:
    """Closed just as the thread's wait for more nudges ran out, the thread had missed the
    close's wake-up and waited for ever (in the tests, many an app then took 5 s to close)."""
    interval = sys.getswitchinterval()
    sys.setswitchinterval(1.0)  # this thread keeps running until it waits: past the delay
    try:
        background = CatchUpInBackground(Counted(), delay=0.005)
        background.nudge()
        time.sleep(0.05)  # the thread catches up and waits for the next nudge
        background.nudge()
        time.sleep(0.001)  # the thread wakes and waits out its delay...
        spin_until = time.perf_counter() + 0.02
        while time.perf_counter() < spin_until:  # ...which runs out while this one runs on
            pass
        background.close(timeout=2.0)
    finally:
        sys.setswitchinterval(interval)

    thread = background._thread
    assert thread is not None
    assert not thread.is_alive()
