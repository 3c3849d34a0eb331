"""The service's gunicorn worker (api/worker.py): after an answer on a kept-alive connection, the
thread watches that connection briefly for the next request, and stops as soon as it is needed
elsewhere."""

from __future__ import annotations

import io
import socket
import threading
import time
from collections.abc import Iterator
from types import SimpleNamespace

import pytest
from gunicorn.util import load_class
from gunicorn.workers.gthread import ThreadWorker

from api.worker import WORKER_CLASS, KeepAliveThreadWorker, request_follows


@pytest.fixture
def sockets() -> Iterator[tuple[socket.socket, socket.socket]]:
    """The server's end and the client's end of one connection."""
    server, client = socket.socketpair()
    yield server, client
    server.close()
    client.close()


def connection(sock: socket.socket, buffered: bytes = b"", http2: bool = False) -> SimpleNamespace:
    """What request_follows reads of gthread's connection object."""
    unreader = SimpleNamespace(buf=io.BytesIO(buffered))
    return SimpleNamespace(sock=sock, is_http2=http2, parser=SimpleNamespace(unreader=unreader))


def always() -> bool:
    return True


def never() -> bool:
    return False


def test_a_request_read_along_with_the_last_one_is_served_at_once(sockets) -> None:
    server, _ = sockets

    assert request_follows(connection(server, buffered=b"GET / HTTP/1.1\r\n"), never)


def test_a_request_sent_while_the_thread_watches_is_served_by_it(sockets) -> None:
    server, client = sockets
    threading.Timer(0.01, client.sendall, [b"GET / HTTP/1.1\r\n\r\n"]).start()

    assert request_follows(connection(server), always, linger=10.0)


def test_the_thread_stops_watching_when_the_linger_time_is_up(sockets) -> None:
    server, _ = sockets
    began = time.monotonic()

    assert not request_follows(connection(server), always, linger=0.02)
    assert time.monotonic() - began >= 0.02


def test_the_thread_stops_watching_as_soon_as_another_connection_needs_it(sockets) -> None:
    server, _ = sockets
    asked: list[bool] = []

    def free_twice() -> bool:
        asked.append(True)
        return len(asked) <= 2

    began = time.monotonic()

    assert not request_follows(connection(server), free_twice, linger=10.0)
    assert time.monotonic() - began < 1.0
    assert len(asked) == 3


def test_a_thread_that_is_needed_elsewhere_does_not_watch_at_all(sockets) -> None:
    server, client = sockets
    client.sendall(b"GET / HTTP/1.1\r\n\r\n")  # even with a request already on its way

    assert not request_follows(connection(server), never, linger=10.0)


def test_the_client_closing_the_connection_ends_the_watch_for_gthread_to_see(sockets) -> None:
    server, client = sockets
    threading.Timer(0.01, client.close).start()

    assert request_follows(connection(server), always, linger=10.0)


def test_http2_connections_are_left_to_gthread(sockets) -> None:
    server, client = sockets
    client.sendall(b"PRI * HTTP/2.0\r\n")

    assert not request_follows(connection(server, http2=True), always, linger=10.0)


def test_gunicorn_loads_the_worker_by_the_name_the_service_gives_it() -> None:
    worker = load_class(WORKER_CLASS)

    assert worker is KeepAliveThreadWorker
    assert issubclass(worker, ThreadWorker)
