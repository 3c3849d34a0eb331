"""The gunicorn worker the service runs with: gunicorn's threaded worker (gthread), except that a
kept-alive connection stays with its thread for a moment after an answer.

In gthread, every request on a kept-alive connection crosses two threads: the main thread's
poller sees the socket become readable and hands the connection to the thread pool; when the
answer is sent, the connection goes back to the poller through a pipe. A client that sends its
next request at once (a recorder app uploading a game, a bot, a replay tool stepping through)
pays both hand-overs, and two thread wake-ups, on every request.

`KeepAliveThreadWorker` lets the thread that answered watch the same socket for up to
`LINGER_SECONDS` and, if the next request comes, serve it directly. It stops watching as soon as
another connection could use the thread: when no other thread of the pool is idle, or when a
connection is waiting for one. So a thread is never kept from other work for longer than one
`SLICE_SECONDS`, and with a single thread it never lingers at all. Everything else (keep-alive
limits and timeouts, graceful shutdown, max requests, HTTP/2) is gthread's own.

It also answers the errors gunicorn answers itself, before the app sees a request (a request
that is not HTTP, a URL or headers over gunicorn's limits), in the service's JSON error envelope
rather than gunicorn's HTML page, so that every error a client can get has the same form.

A request that stops arriving halfway (its headers or its body) is given up after
`BOHNANZA_READ_TIMEOUT_SECONDS` (15 s by default) without a byte: a body gets a 408, headers a
closed connection. gthread itself waits for ever, so that a few clients that open a request and
send no more would hold every thread of the worker.

And it says `Connection: close` on an answer given without reading the whole request body (a
413 for a body over the limit, a 415, a body sent with a GET): gunicorn would otherwise announce
keep-alive, then fail to skip the unread body (it reads past at most 64 KB of one) and close the
connection anyway, so that the client's next request on it would go unanswered.

And it serves a game's live stream (`GET /api/games/{id}/live`) without holding a thread for
it: once the stream's first message is out, the connection goes to the process's live hub
(api/live_hub.py), whose one thread writes every stream's messages without blocking. gthread
would keep a thread of its pool for each stream until the client leaves, so that as many
spectators as `--threads` would leave no thread for anyone else's requests.

Run it with `gunicorn --worker-class api.worker.KeepAliveThreadWorker --threads N …`; `bohnanza
serve` and the Dockerfile do.
"""

from __future__ import annotations

import json
import logging
import select
import socket
import struct
import threading
import time
from collections.abc import Callable
from typing import Any

from gunicorn import util
from gunicorn.http.errors import InvalidRequestLine
from gunicorn.workers.gthread import ThreadWorker

from .bodies import body_left_unread
from .errors import HTTP_CODES
from .live_hub import Stream
from .security import Secrets
from .settings import Settings

LINGER_SECONDS = 0.01
"""How long a thread watches its connection for the client's next request."""
SLICE_SECONDS = 0.001
"""How often a watching thread checks whether another connection needs it."""

WORKER_CLASS = f"{__name__}.KeepAliveThreadWorker"
"""The worker's name for gunicorn's `--worker-class`."""


class KeepAliveThreadWorker(ThreadWorker):
    """gthread, with a thread serving its connection's next request itself if it comes soon."""

    def init_process(self) -> None:
        self._counts = threading.Lock()
        self._idle = self.cfg.threads
        """Threads of the pool not serving a connection."""
        self._waiting = 0
        """Connections handed to the pool that no thread has taken yet."""
        self._serving = threading.local()
        """The connection each thread of the pool is serving (`conn`)."""
        settings = Settings.from_env()
        self._read_timeout = settings.read_timeout_seconds
        self._secrets = Secrets(settings.auditor_token)
        errors = logging.getLogger("gunicorn.error")
        errors.addFilter(ReadTimeoutsInOneLine(self._read_timeout))
        for name in ("gunicorn.error", "gunicorn.access"):
            logging.getLogger(name).addFilter(SecretsRedacted(self._secrets))
        super().init_process()

    def load_wsgi(self) -> None:
        super().load_wsgi()
        self.wsgi = self._detaching_live_streams(closing_after_unread_bodies(self.wsgi))

    def enqueue_req(self, conn: Any) -> None:
        with self._counts:
            self._waiting += 1
        super().enqueue_req(conn)

    def handle(self, conn: Any) -> Any:
        with self._counts:
            self._waiting -= 1
            self._idle -= 1
        if not getattr(conn, "reads_limited", False):
            limit_waits_for_bytes(conn.sock, self._read_timeout)
            conn.reads_limited = True
            if not self.cfg.is_ssl:
                conn.init = refusing_tls(conn.init, conn.sock)
        self._serving.conn = conn
        try:
            keep_alive = super().handle(conn)
            while keep_alive is True and request_follows(conn, self._not_needed_elsewhere):
                keep_alive = super().handle(conn)
            return keep_alive
        finally:
            with self._counts:
                self._idle += 1

    def handle_error(self, req: Any, client: Any, addr: Any, exc: BaseException) -> None:
        """gunicorn's own error answer (it decides the status and logs), sent as the service's
        JSON error envelope instead of an HTML page."""
        page = _ErrorPage()
        super().handle_error(req, page, addr, exc)
        if not page.sent:
            return
        _, status, reason = page.sent.split(b"\r\n", 1)[0].decode("latin-1").split(" ", 2)
        try:
            answer = error_answer(int(status), reason, self._secrets.redacted(str(exc)))
            util.write_nonblock(client, answer)
        except Exception:
            self.log.debug("Failed to send error message.")

    def _detaching_live_streams(self, app: WsgiApp) -> WsgiApp:
        """`app`, with a live stream's connection handed to the live hub once its first message
        is sent (over plain HTTP/1: the hub writes to the socket itself)."""

        def serve(environ: dict[str, Any], start_response: Callable[..., Any]) -> Any:
            answer = app(environ, start_response)
            conn = getattr(self._serving, "conn", None)
            response = getattr(start_response, "__self__", None)  # gunicorn's Response
            if (
                not isinstance(answer, Stream)
                or answer.over
                or conn is None
                or response is None
                or conn.is_http2
                or self.cfg.is_ssl
            ):
                return answer
            response.force_close()  # the stream ends with its connection
            return _Detaching(answer, response, conn)

        return serve

    def _not_needed_elsewhere(self) -> bool:
        """Whether the thread can keep watching: the worker runs, another thread of the pool is
        idle and no connection is waiting for one."""
        return self.alive and self._idle > 0 and self._waiting == 0


class _Detaching:
    """A live stream's body as gunicorn writes it: the first message, then the connection is
    the hub's. gthread is left a stand-in socket to close, and a body with nothing more to end
    (no last chunk: the hub writes the stream's chunks from now on)."""

    def __init__(self, stream: Stream, response: Any, conn: Any) -> None:
        self.stream = stream
        self.response = response
        self.conn = conn
        self.detached = False

    def __iter__(self) -> Any:
        yield self.stream.first
        # gunicorn has written the headers and the first message: the rest is the hub's.
        chunked = self.response.chunked
        self.response.chunked = False
        sock, self.conn.sock = self.conn.sock, _Released()
        self.detached = True
        self.stream.detach(sock, chunked)

    def close(self) -> None:
        if not self.detached:  # the client left before the first message went out
            self.stream.close()


class _Released:
    """What gthread closes in place of a connection handed to the live hub: nothing."""

    def setblocking(self, flag: bool) -> None:
        pass

    def shutdown(self, how: int) -> None:
        raise OSError("the connection was handed to the live hub")

    def close(self) -> None:
        pass


TLS_ON_HTTP = "a TLS handshake (https://); this port speaks plain HTTP (http://)"
TLS_HANDSHAKE = 0x16
"""The first byte of a TLS record carrying a handshake (RFC 8446 §5.1): a ClientHello."""


def refusing_tls(init: Callable[[], None], sock: socket.socket) -> Callable[[], None]:
    """gthread's first step on a new connection, once its first bytes are there: a TLS
    handshake is refused then (gthread answers the error raised, a 400, and closes)."""

    def init_unless_tls() -> None:
        if opens_with_tls(sock):
            raise InvalidRequestLine(TLS_ON_HTTP)
        init()

    return init_unless_tls


def opens_with_tls(sock: socket.socket) -> bool:
    """Whether what the client sent first on a new connection is a TLS handshake, looked at
    without reading it. gunicorn would read it as a request line and, when its random bytes
    hold no line feed, wait for the rest of a line that never comes: the read timeout, then a
    close without a word. No HTTP request starts with this byte."""
    try:
        first = sock.recv(1, socket.MSG_PEEK | socket.MSG_DONTWAIT)
    except OSError:  # nothing sent yet, or gone: gunicorn's own reading decides
        return False
    return first == bytes([TLS_HANDSHAKE])


def limit_waits_for_bytes(sock: socket.socket, seconds: float) -> None:
    """Make a blocking read on `sock` fail (BlockingIOError) after `seconds` without a byte.
    gthread turns the socket blocking and non-blocking as it goes, which resets Python's own
    timeout but not the kernel's, so the limit holds for the connection's lifetime."""
    whole = int(seconds)
    limit = struct.pack("ll", whole, int((seconds - whole) * 1_000_000))
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_RCVTIMEO, limit)


class SecretsRedacted(logging.Filter):
    """Tokens never reach gunicorn's logs, whatever a client sends (docs/reference/http-api.md, Tokens)."""

    def __init__(self, secrets: Secrets) -> None:
        super().__init__()
        self.secrets = secrets

    def filter(self, record: logging.LogRecord) -> bool:
        message = record.getMessage()
        redacted = self.secrets.redacted(message)
        if redacted != message:
            record.msg, record.args = redacted, None
        if record.exc_info and not record.exc_text:  # formatters print exc_text when it is set
            traceback = logging.Formatter().formatException(record.exc_info)
            record.exc_text = self.secrets.redacted(traceback)
        return True


class ReadTimeoutsInOneLine(logging.Filter):
    """gunicorn logs any socket error while it reads a request with its traceback; a client
    that stopped sending is not a fault of the service: one line, at INFO."""

    def __init__(self, seconds: float) -> None:
        super().__init__()
        self.seconds = seconds

    def filter(self, record: logging.LogRecord) -> bool:
        error = record.exc_info[1] if record.exc_info else None
        if isinstance(error, BlockingIOError | TimeoutError):
            record.msg, record.args = (
                "gave up a request: no byte of it came for %s s",
                (self.seconds,),
            )
            record.exc_info, record.exc_text = None, None
            record.levelno, record.levelname = logging.INFO, "INFO"
        return True


def request_follows(conn: Any, free: Callable[[], bool], linger: float = LINGER_SECONDS) -> bool:
    """Whether gthread's connection `conn` has another request within `linger` seconds. Asks
    `free()` every `SLICE_SECONDS` whether the thread may keep waiting; False once it may not."""
    if conn.is_http2:
        return False
    if conn.parser.unreader.buf.getvalue():  # the client sent it with the last one
        return True
    readable = select.poll()
    readable.register(conn.sock, select.POLLIN)
    deadline = time.monotonic() + linger
    while free():
        left = deadline - time.monotonic()
        if left <= 0:
            return False
        if readable.poll(min(left, SLICE_SECONDS) * 1000):
            return True  # a request, or the client closing: gthread's handle() sees which
    return False


WsgiApp = Callable[[dict[str, Any], Callable[..., Any]], Any]


def closing_after_unread_bodies(app: WsgiApp) -> WsgiApp:
    """`app`, closing the connection after an answer given without reading the whole request
    body: the answer then says `Connection: close`, and the client opens a new connection for its
    next request instead of losing it."""

    def serve(environ: dict[str, Any], start_response: Callable[..., Any]) -> Any:
        answer = app(environ, start_response)  # the headers go out when gunicorn writes it
        if body_left_unread(environ.get("wsgi.input")):
            response = getattr(start_response, "__self__", None)  # gunicorn's Response
            if response is not None:
                response.force_close()
        return answer

    return serve


SERVER_ERROR_MESSAGES = {
    400: "The request is not valid HTTP",
    414: "The request's URL is too long",
    431: "The request's headers are too large",
    417: "The request's Expect header asks for something this server does not do",
    501: "The request's transfer coding is not supported: send the body as it is, or chunked",
    500: "Something went wrong on our side; it has been logged.",
}
DETAIL_LIMIT = 200
"""At most this much of gunicorn's own description of a bad request goes into the message."""


def error_answer(status: int, reason: str, detail: str) -> bytes:
    """A whole HTTP response carrying the error envelope, for an error gunicorn answers itself
    (`detail`: its description of the request's fault); the connection closes after it, as after
    gunicorn's own error page. No cache may keep it: the request it answers may have carried a
    credential, which gunicorn has not read."""
    message = SERVER_ERROR_MESSAGES.get(status, reason)
    detail = detail[:DETAIL_LIMIT]
    if status < 500 and detail:
        message = f"{message}: {detail}"
    body = json.dumps(
        {
            "code": HTTP_CODES.get(status, "http_error"),
            "status": status,
            "message": message,
            "errors": {},
        },
        separators=(",", ":"),
    ).encode()
    head = (
        f"HTTP/1.1 {status} {reason}\r\nConnection: close\r\nCache-Control: no-store\r\n"
        f"Content-Type: application/json\r\nContent-Length: {len(body)}\r\n\r\n"
    )
    return head.encode("latin-1") + body


class _ErrorPage:
    """Stands in for the client's socket while gunicorn writes its error page, and keeps it."""

    def __init__(self) -> None:
        self.sent = b""

    def gettimeout(self) -> float:
        return 0.0

    def sendall(self, data: bytes) -> None:
        self.sent += data
