"""The service's gunicorn worker (api/worker.py) in a real gunicorn: threads that watch their
kept-alive connection never keep a request on another connection from being answered."""

from __future__ import annotations

import http.client
import json
import socket
import threading
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any
from urllib.parse import quote, urlsplit

import pytest

from .server import gunicorn

pytestmark = pytest.mark.slow  # real servers

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


def raw_exchange(server: tuple[str, int], request: bytes) -> tuple[int, dict[str, str], bytes]:
    """Send bytes as they are (no client library would send these) and read the answer, until
    the server closes the connection."""
    with socket.create_connection(server, timeout=10) as connection:
        connection.sendall(request)
        answer = b""
        while chunk := connection.recv(65536):
            answer += chunk
    head, _, body = answer.partition(b"\r\n\r\n")
    status_line, *header_lines = head.decode("latin-1").split("\r\n")
    headers = dict(line.split(": ", 1) for line in header_lines)
    return int(status_line.split(" ")[1]), headers, body


@pytest.mark.parametrize(
    ("request_bytes", "status", "code"),
    [
        (b"GET /" + b"a" * 5000 + b" HTTP/1.1\r\nHost: x\r\n\r\n", 414, "uri_too_long"),
        (
            b"GET / HTTP/1.1\r\nHost: x\r\nX-Big: " + b"b" * 9000 + b"\r\n\r\n",
            431,
            "request_header_fields_too_large",
        ),
        (b"NOT HTTP AT ALL\r\n\r\n", 400, "bad_request"),
        (b"GET / HTTP/9.9\r\nHost: x\r\n\r\n", 400, "bad_request"),
    ],
    ids=["url-too-long", "headers-too-large", "not-http", "unknown-http-version"],
)
def test_errors_gunicorn_answers_itself_come_in_the_json_envelope(
    two_threads: tuple[str, int], request_bytes: bytes, status: int, code: str
) -> None:
    answered, headers, answer = raw_exchange(two_threads, request_bytes)
    body = json.loads(answer)

    assert answered == status
    assert headers["Content-Type"] == "application/json"
    assert headers["Connection"] == "close"
    assert headers["Cache-Control"] == "no-store"  # the request may have carried a credential
    assert body["code"] == code
    assert body["status"] == status
    assert body["errors"] == {}
    assert body["message"]


AUDITOR_TOKEN = 'a\\Kq7wPz"Vb3nM8+/='
"""With the characters that Python's repr, gunicorn's access log and URLs each write otherwise."""
TELLTALES = ("Kq7wPz", "Vb3nM8", "Hx5tRy2Lm")
"""Runs of a secret that every way of writing it keeps: none may show anywhere."""


@pytest.fixture(scope="module")
def logged(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[tuple[str, int], Path]]:
    """gunicorn serving the echo app with an auditor's token set: its address and its log."""
    log = tmp_path_factory.mktemp("logged") / "gunicorn.log"
    env = {"BOHNANZA_AUDITOR_TOKEN": AUDITOR_TOKEN}
    with gunicorn("sqlite://", workers=1, app=ECHO_APP, warm=False, log=log, env=env) as base:
        host, port = urlsplit(base).netloc.split(":")
        yield (host, int(port)), log


def logged_after(log: Path, path: str) -> str:
    """The log once `path`'s access line is in it (written after the answer goes out)."""
    deadline = time.monotonic() + 5
    while path not in log.read_text() and time.monotonic() < deadline:
        time.sleep(0.05)
    return log.read_text()


@pytest.mark.parametrize(
    "lines",
    [
        "Authorization Bearer bzt_Kq7wPz",
        f"X-Auditor-Token {AUDITOR_TOKEN}",
        "Authorization: Bearer bzt_\r\nHx5tRy2Lm",
    ],
    ids=["seat-token", "auditor-token", "token-split-over-two-lines"],
)
def test_a_token_in_a_header_gunicorn_cannot_parse_is_neither_logged_nor_echoed(
    logged: tuple[tuple[str, int], Path], lines: str
) -> None:
    server, log = logged

    answered, _, answer = raw_exchange(
        server, f"GET / HTTP/1.1\r\nHost: x\r\n{lines}\r\n\r\n".encode()
    )

    assert answered == 400
    assert "[redacted]" in json.loads(answer)["message"]
    assert "Invalid" in log.read_text()  # gunicorn did log the request, without the secret
    assert not [telltale for telltale in TELLTALES if telltale in log.read_text()]
    assert not [telltale for telltale in TELLTALES if telltale in answer.decode()]


@pytest.mark.parametrize(
    "query",
    ["token=bzt_Kq7wPz", f"auditor={quote(AUDITOR_TOKEN, safe='')}", f"a={quote(AUDITOR_TOKEN)}"],
    ids=["seat-token", "auditor-token-encoded", "auditor-token-with-its-slash"],
)
def test_a_token_in_a_url_is_not_in_the_access_log(
    logged: tuple[tuple[str, int], Path], query: str
) -> None:
    server, log = logged
    connection = http.client.HTTPConnection(*server, timeout=10)
    path = f"/page-{len(log.read_text())}"

    assert ask(connection, f"{path}?{query}") == path

    written = logged_after(log, path)
    assert f"{path}?{query.split('=')[0]}=[redacted]" in written
    assert not [telltale for telltale in TELLTALES if telltale in written]


def post(connection: http.client.HTTPConnection, path: str, body: Any) -> http.client.HTTPResponse:
    connection.request("POST", path, body, encode_chunked=not isinstance(body, bytes))
    answer = connection.getresponse()
    answer.read()
    return answer


def in_chunks(size: int) -> Iterator[bytes]:
    for start in range(0, size, 4096):
        yield b"x" * min(4096, size - start)


@pytest.mark.parametrize(
    "body",
    [b"x" * 10, b"x" * 200_000, in_chunks(10), in_chunks(200_000)],
    ids=["small", "large", "small-chunked", "large-chunked"],
)
def test_an_answer_given_without_reading_the_body_closes_the_connection(
    two_threads: tuple[str, int], body: Any
) -> None:
    if isinstance(body, bytes):
        framing = f"Content-Length: {len(body)}".encode()
        sent = body
    else:
        chunks = list(body)
        framing = b"Transfer-Encoding: chunked"
        sent = b"".join(b"%x\r\n%s\r\n" % (len(c), c) for c in chunks) + b"0\r\n\r\n"
    request = b"POST /skipped?unread HTTP/1.1\r\nHost: x\r\n" + framing + b"\r\n\r\n" + sent

    status, headers, answer = raw_exchange(two_threads, request)  # returns once the server closes

    assert status == 200
    assert headers["Connection"] == "close"
    assert answer == b"/skipped"


def test_after_an_answer_that_closed_the_connection_a_client_goes_on_on_a_new_one(
    two_threads: tuple[str, int],
) -> None:
    connection = http.client.HTTPConnection(*two_threads, timeout=10)

    skipped = post(connection, "/skipped?unread", b"x" * 200_000)

    assert skipped.getheader("Connection") == "close"
    assert ask(connection, "/next") == "/next"


@pytest.mark.parametrize("body", [b"x" * 200_000, in_chunks(200_000)], ids=["length", "chunked"])
def test_answers_after_reading_the_whole_body_keep_the_connection_open(
    two_threads: tuple[str, int], body: Any
) -> None:
    connection = http.client.HTTPConnection(*two_threads, timeout=10)
    connection.connect()
    opened = connection.sock

    answers = [post(connection, f"/read/{n}", body if n == 0 else b"x" * 10) for n in range(3)]

    assert [a.getheader("Connection") for a in answers] == ["keep-alive"] * 3
    assert connection.sock is opened
