"""The service's gunicorn worker (api/worker.py) in a real gunicorn: threads that watch their
kept-alive connection never keep a request on another connection from being answered."""

from __future__ import annotations

import http.client
import threading
from collections.abc import Iterator
from urllib.parse import urlsplit

import pytest

from .server import gunicorn

ECHO_APP = "tests.e2e.echo_app:app"


@pytest.fixture(scope="module")
def two_threads() -> Iterator[tuple[str, int]]:
    """gunicorn with one worker of two threads serving the echo app: its host and port."""
    with gunicorn("sqlite://", "--threads", "2", workers=1, app=ECHO_APP, warm=False) as base:
        host, port = urlsplit(base).netloc.split(":")
        yield host, int(port)


def ask(connection: http.client.HTTPConnection, path: str) -> str:
    connection.request("GET", path)
    answer = connection.getresponse()
    assert answer.status == 200
    return answer.read().decode()


def test_more_kept_alive_connections_than_threads_are_all_answered_in_turn(two_threads) -> None:
    connections = [http.client.HTTPConnection(*two_threads, timeout=10) for _ in range(5)]

    answers = [ask(c, f"/{i}/{n}") for n in range(20) for i, c in enumerate(connections)]

    assert answers == [f"/{i}/{n}" for n in range(20) for i in range(5)]
    for c in connections:
        c.close()


def test_a_request_is_answered_while_the_other_thread_is_busy(two_threads) -> None:
    slow = http.client.HTTPConnection(*two_threads, timeout=10)
    quick = [http.client.HTTPConnection(*two_threads, timeout=10) for _ in range(3)]
    finished: list[str] = []
    busy = threading.Thread(target=lambda: finished.append(ask(slow, "/slow?sleep=1")))
    busy.start()

    answers = [ask(c, f"/quick/{n}") for n in range(10) for c in quick]
    done_before_the_slow_one = not finished
    busy.join()

    assert answers == [f"/quick/{n}" for n in range(10) for _ in quick]
    assert done_before_the_slow_one
    assert finished == ["/slow"]


def test_a_client_that_hangs_up_after_its_answer_leaves_the_worker_serving(two_threads) -> None:
    for n in range(5):
        hanging_up = http.client.HTTPConnection(*two_threads, timeout=10)
        assert ask(hanging_up, f"/bye/{n}") == f"/bye/{n}"
        hanging_up.close()

    assert ask(http.client.HTTPConnection(*two_threads, timeout=10), "/still") == "/still"
