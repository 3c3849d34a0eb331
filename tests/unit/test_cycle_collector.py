"""A projector's batch pauses Python's cycle collector (projections/runner.py): it runs again once
the last batch under way ends, however it ended, and one paused by someone else stays paused."""

from __future__ import annotations

import gc
import threading
from collections.abc import Iterator

import pytest

from projections.runner import _cycles_uncollected


@pytest.fixture(autouse=True)
def collector_as_it_was() -> Iterator[None]:
    was = gc.isenabled()
    yield
    (gc.enable if was else gc.disable)()


def test_the_collector_is_paused_during_a_batch_and_runs_again_after_it() -> None:
    gc.enable()

    with _cycles_uncollected():
        assert not gc.isenabled()

    assert gc.isenabled()


def test_the_collector_runs_again_after_a_batch_that_failed() -> None:
    gc.enable()

    with pytest.raises(RuntimeError), _cycles_uncollected():
        raise RuntimeError("the batch failed")

    assert gc.isenabled()


def test_the_collector_runs_again_only_when_the_last_of_two_overlapping_batches_ends() -> None:
    gc.enable()
    first_in, second_done, states = threading.Event(), threading.Event(), []

    def second() -> None:
        first_in.wait()
        with _cycles_uncollected():
            pass
        states.append(gc.isenabled())
        second_done.set()

    thread = threading.Thread(target=second)
    thread.start()
    with _cycles_uncollected():
        first_in.set()
        second_done.wait(5)
        states.append(gc.isenabled())
    thread.join()

    assert states == [False, False]
    assert gc.isenabled()


def test_a_collector_paused_by_the_process_stays_paused_after_a_batch() -> None:
    gc.disable()

    with _cycles_uncollected():
        pass

    assert not gc.isenabled()
