"""Live games: each viewer's stream of a running game, pushed as it happens (server-sent events).

A process has one `LiveHub`. Streams on one game by the same viewer (the public, a seat, the
host) share a channel: when the game moves on, the hub folds and renders that viewer's view
once, writes one message, and hands the same bytes to every stream of the channel. So a
command costs one message per kind of viewer watching, however many spectators there are;
what grows with them is copying those bytes to their connections, which the hub's own thread
does after the command has been answered.

Every message is what that viewer may see, built by the functions that answer its requests:
its view (`render` of the fold of its redacted facts, as `GET …/view` answers) and the new steps
with the line that viewer saw (as `GET …/steps` lists them).

How often: a game's followers get at most one message every `MESSAGE_INTERVAL_SECONDS`. The
first command after a quiet spell goes out at once; the commands of a burst that come within the
interval (a bot's turn, a recorder uploading a game, a client replaying one) go out together at
its end, as one message carrying all their steps. At a table's pace every command is its own
message, at once; a burst costs its followers one fold, one rendering and one copy to each
connection per interval, not per command.

Where news comes from: a command served by this process nudges the hub once its answer has
gone out; commands stored by other processes (other workers, the command line) are found by
asking the store for its latest position every `POLL_SECONDS` while anyone is watching.

Where the bytes go: a stream starts as the body of its request, an iterable that blocks
between messages (what any WSGI server can serve, one thread per stream). The service's
gunicorn worker (api/worker.py) instead hands the connection to the hub once the first message
is out, and the hub's thread writes to every such connection without blocking: long-lived
streams then hold no request thread.
"""

from __future__ import annotations

import contextlib
import dataclasses
import json
import logging
import os
import queue
import selectors
import socket
import threading
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any
from uuid import UUID

import orjson

from domain.rules import events as ev
from domain.rules.state import TABLETOP
from domain.rules.transcript import entries
from projections.views import PUBLIC_VIEWER, Viewer, redact, render
from replays.steps import StepCounter, step_line

if TYPE_CHECKING:
    from .services import GameViews

log = logging.getLogger(__name__)

HEARTBEAT_SECONDS = 15.0
"""A comment line on an idle stream this often: proxies keep it open, and a client that left
is found out."""
POLL_SECONDS = 0.5
"""How often the hub asks the store whether another process stored something, while watched."""
MESSAGE_INTERVAL_SECONDS = 0.05
"""A game's followers get at most one message this often (a burst of commands is one message)."""
STREAMS_LIMIT = 1000
"""Open streams one process serves at most; beyond, a 503 (each holds a socket)."""
BUFFER_LIMIT = 1 << 20
"""Bytes a client may leave unread before its stream is dropped (it reconnects and catches up)."""
RETRY_MILLISECONDS = 2000
"""How soon an EventSource reconnects after losing its stream."""

END = b"event: end\ndata: {}\n\n"
HEARTBEAT = b": still here\n\n"


class TooManyStreams(Exception):
    """This process serves `STREAMS_LIMIT` streams already."""


def _json(document: Any) -> bytes:
    try:
        return orjson.dumps(document)
    except orjson.JSONEncodeError:  # a lone surrogate in a name, say: the standard library's
        return json.dumps(document, separators=(",", ":")).encode()


def chunked(message: bytes) -> bytes:
    """`message` as one chunk of a body in chunked transfer coding (RFC 9112 §7.1)."""
    return b"%x\r\n%s\r\n" % (len(message), message)


def update_message(
    version: int, steps: list[dict[str, Any]], view: dict[str, Any], first_step: int | None = None
) -> bytes:
    """One server-sent event: the game at `version` as one viewer sees it, and the steps it
    saw since the last message, the first of them step `first_step` (after a correction of a
    tabletop game, step 1 again: the steps replace those sent before)."""
    first = None if not steps else first_step if first_step is not None else steps[0]["position"]
    data = _json({"version": version, "steps": steps, "first_step": first, "view": view})
    return b"id: %d\nevent: update\ndata: %s\n\n" % (version, data)


@dataclass(eq=False)
class _Channel:
    """One viewer's streams on one game, and the last message they were all sent."""

    viewer: Viewer
    sent: int
    """The game version the streams have been sent."""
    view: dict[str, Any]
    """The viewer's rendered view at `sent`."""
    streams: set[Stream] = field(default_factory=set)
    steps: int = 0
    """How many steps of the game as corrected the streams have been sent."""
    corrections: int = 0
    """How many corrections the game had when they were."""


@dataclass(eq=False)
class _Watched:
    """A game someone watches: its steps so far and a channel per viewer."""

    counter: StepCounter
    channels: dict[Viewer, _Channel] = field(default_factory=dict)
    corrections: int = 0
    """How many corrections the game had when `counter` began counting its steps."""
    _entries: tuple[int, dict[int, int]] = (0, {})

    def entries(self, facts: list[ev.Event]) -> dict[int, int]:
        """Each fact's entry number (by index), for the game as corrected (kept per length)."""
        if self._entries[0] != len(facts):
            found = entries(facts, tabletop=self.counter.mode == TABLETOP)
            numbers = {i: n for n, e in enumerate(found) for i in range(e.first, e.stop)}
            self._entries = (len(facts), numbers)
        return self._entries[1]

    lock: threading.Lock = field(default_factory=threading.Lock)
    quiet_until: float = 0.0
    """CLOCK_MONOTONIC before which the game's followers get no further message (the hub's
    thread alone reads and writes it)."""


class Stream:
    """One client's stream: the body of its request (an iterable of messages), until a server
    that can hands its connection to the hub (`detach`)."""

    def __init__(self, hub: LiveHub, game_id: UUID, viewer: Viewer, first: bytes, over: bool):
        self.hub = hub
        self.game_id = game_id
        self.viewer = viewer
        self.first = first
        self.over = over
        """The game had ended: the first message is the last."""
        self._queue: queue.SimpleQueue[bytes | None] = queue.SimpleQueue()
        self._outlet: _Outlet | None = None

    def __iter__(self) -> Iterator[bytes]:
        yield self.first
        if self.over:
            return
        while True:
            try:
                message = self._queue.get(timeout=self.hub.heartbeat_seconds)
            except queue.Empty:
                message = HEARTBEAT
            if message is None:
                return
            yield message

    def close(self) -> None:
        """The server is done with the body (the client left, or the stream ended)."""
        if self._outlet is None:
            self.hub.leave(self)

    def detach(self, sock: socket.socket, chunked: bool) -> None:
        """Hand the connection to the hub, the first message sent; `chunked`: the answer's body
        is in chunked transfer coding, which the hub's writes keep up."""
        self.hub.adopt(self, sock, chunked)

    def deliver(self, message: bytes, chunk: bytes | None = None) -> None:
        """Send a message (`chunk`: the same in chunked transfer coding, if made already)."""
        if self._outlet is not None:
            self._outlet.send(message, chunk)
        else:
            self._queue.put(message)

    def finish(self) -> None:
        """The game ended: the stream ends after what it was sent."""
        if self._outlet is not None:
            self._outlet.finish()
        else:
            self._queue.put(None)


class _Outlet:
    """A stream's connection, written by the hub's thread without blocking."""

    def __init__(self, hub: LiveHub, stream: Stream, sock: socket.socket, chunked: bool):
        self.hub = hub
        self.stream = stream
        self.sock = sock
        self.chunked = chunked
        self.buffer = bytearray()
        self.writing = False
        """Registered for the socket becoming writable (the buffer holds what it did not take)."""
        self.finishing = False
        self.closed = False
        sock.setblocking(False)

    def send(self, message: bytes, chunk: bytes | None = None) -> None:
        if self.closed or self.finishing:
            return
        data = (chunk or chunked(message)) if self.chunked else message
        if not self.buffer:  # the usual case: the socket takes it all, nothing is copied
            try:
                sent = self.sock.send(data)
            except BlockingIOError:
                sent = 0
            except OSError:
                self.hub._drop(self)
                return
            if sent == len(data):
                return
            data = data[sent:]
        self.buffer += data
        if len(self.buffer) > BUFFER_LIMIT:
            self.hub._drop(self)  # a client that does not read; it catches up when it returns
            return
        self.flush()

    def finish(self) -> None:
        if self.closed or self.finishing:
            return
        if self.chunked:
            self.buffer += b"0\r\n\r\n"
        self.finishing = True
        self.flush()

    def flush(self) -> None:
        try:
            while self.buffer:
                sent = self.sock.send(self.buffer)
                del self.buffer[:sent]
        except BlockingIOError:
            pass
        except OSError:
            self.hub._drop(self)
            return
        if not self.buffer and self.finishing:
            self.hub._drop(self)
            return
        if self.writing != bool(self.buffer):
            self.writing = bool(self.buffer)
            self.hub._want_write(self, self.writing)

    def readable(self) -> None:
        """The client sent something: the end of its side (anything else is ignored)."""
        try:
            data = self.sock.recv(4096)
        except BlockingIOError:
            return
        except OSError:
            data = b""
        if not data:
            self.hub._drop(self)

    def close(self) -> None:
        if not self.closed:
            self.closed = True
            with contextlib.suppress(OSError):
                self.sock.close()


class LiveHub:
    """The process's live streams: channels per game and viewer, fed after every command."""

    def __init__(
        self,
        views: GameViews,
        position: Callable[[], int],
        *,
        poll_seconds: float = POLL_SECONDS,
        interval_seconds: float = MESSAGE_INTERVAL_SECONDS,
        heartbeat_seconds: float = HEARTBEAT_SECONDS,
        limit: int = STREAMS_LIMIT,
    ) -> None:
        self.views = views
        self.position = position
        self.poll_seconds = poll_seconds
        self.interval_seconds = interval_seconds
        self.heartbeat_seconds = heartbeat_seconds
        self.limit = limit
        self._games: dict[UUID, _Watched] = {}
        self._lock = threading.Lock()
        """Guards `_games` and the stream count; taken before a game's own lock."""
        self._streams = 0
        self._pending = threading.Lock()
        self._nudged: set[UUID] = set()
        self._due: dict[UUID, float] = {}
        """Games with news held back until their interval ends, and when it does (the hub's
        thread alone reads and writes it)."""
        self._adopted: list[tuple[Stream, socket.socket, bool]] = []
        self._outlets: dict[int, _Outlet] = {}
        self._left: list[Stream] = []
        """Streams whose connection the hub closed, to leave their channels once no game's lock
        is held (a connection may close while its game's message is being handed out)."""
        self._selector: selectors.BaseSelector | None = None
        self._wake_read, self._wake_write = -1, -1
        self._thread: threading.Thread | None = None
        self._stopping = False

    # --- what request threads call -------------------------------------------------------------

    def subscribe(self, game_id: UUID, viewer: Viewer, after: int | None) -> Stream:
        """A new stream of the game as `viewer` sees it. Its first message is the viewer's view
        now and the steps after version `after` (none if None); the next follow the game."""
        self._start()
        with self._lock:
            if self._streams >= self.limit:
                raise TooManyStreams(f"this server streams {self.limit} games already")
            watched = self._games.get(game_id)
            if watched is None:
                started = self.views.started(game_id)
                watched = self._games[game_id] = _Watched(StepCounter(started.seats, started.mode))
            with watched.lock:
                channel = watched.channels.get(viewer)
                if channel is None:
                    view, version = self.views.view(game_id, viewer)
                    channel = _Channel(
                        viewer, version, {**render(view, viewer), "version": version}
                    )
                    watched.channels[viewer] = channel
                start = channel.sent if after is None else max(0, min(after, channel.sent))
                corrected = self.views.corrected_until(game_id, channel.sent)[1] > 0
                # a corrected game's steps are not one per version: all of them, from step 1
                first_step, steps, count, corrections = self._steps(
                    game_id, watched, viewer, start, channel.sent, restart=corrected
                )
                if not channel.streams:
                    channel.steps, channel.corrections = count, corrections
                first = b"retry: %d\n\n" % RETRY_MILLISECONDS
                first += update_message(channel.sent, steps, channel.view, first_step)
                over = channel.view["phase"] == "ended"
                stream = Stream(self, game_id, viewer, first + (END if over else b""), over)
                if not over:
                    channel.streams.add(stream)
                    self._streams += 1
                elif not channel.streams:
                    del watched.channels[viewer]
            if not watched.channels:
                del self._games[game_id]
        if after is not None and after > channel.sent:
            self.nudge(game_id)  # the client has seen more than this channel: bring it on
        return stream

    def follows(self, game_id: UUID) -> bool:
        """Whether a stream of this process follows the game. A stream that starts later reads
        the game as stored then: what was stored before it needs no nudge for it."""
        return game_id in self._games

    def nudge(self, game_id: UUID) -> None:
        """The game may have moved on (a command of this process was answered)."""
        if game_id not in self._games:
            return
        with self._pending:
            self._nudged.add(game_id)
        self._wake()

    def leave(self, stream: Stream) -> None:
        """The stream's client is gone (or its stream ended)."""
        with self._lock:
            watched = self._games.get(stream.game_id)
            if watched is None:
                return
            with watched.lock:
                channel = watched.channels.get(stream.viewer)
                if channel is None or stream not in channel.streams:
                    return
                channel.streams.discard(stream)
                self._streams -= 1
                if not channel.streams:
                    del watched.channels[stream.viewer]
            if not watched.channels:
                del self._games[stream.game_id]

    def adopt(self, stream: Stream, sock: socket.socket, chunked: bool) -> None:
        """Take over a stream's connection (its first message sent)."""
        self._start()
        with self._pending:
            self._adopted.append((stream, sock, chunked))
        self._wake()

    def streams(self) -> int:
        """How many streams are open."""
        return self._streams

    def close(self) -> None:
        """End every stream and stop the hub's thread."""
        self._stopping = True
        thread = self._thread
        if thread is not None and thread.is_alive():
            self._wake()
            thread.join(5)
        with self._lock:
            for watched in self._games.values():
                for channel in watched.channels.values():
                    for stream in channel.streams:
                        stream.finish()
            self._games.clear()
            self._streams = 0

    # --- messages --------------------------------------------------------------------------------

    def _steps(
        self,
        game_id: UUID,
        watched: _Watched,
        viewer: Viewer,
        start: int,
        end: int,
        *,
        restart: bool,
    ) -> tuple[int, list[dict[str, Any]], int, int]:
        """The steps of the game as corrected at version `end` from step `start`+1, as `viewer`
        saw them (under the game's lock): the first step's number, the steps, how many there are
        in all and how many corrections the game had. A game never corrected has a step per
        version; after a correction (`restart`, or one the counter has not seen) every step is
        sent again from step 1."""
        facts, corrections, marks = self.views.corrected_until(game_id, end)
        counter = watched.counter
        if corrections != watched.corrections:
            counter = watched.counter = StepCounter(counter.names, counter.mode)
            watched.corrections = corrections
        start = 0 if restart else min(start, len(facts))
        if len(counter.steps) < len(facts):
            counter.extend(facts[len(counter.steps) :])
        numbers = watched.entries(facts)
        steps = [
            dataclasses.replace(
                step, corrected=marks[step.position - 1], entry=numbers.get(step.position - 1)
            )
            for step in counter.steps[start : len(facts)]
        ]
        if viewer == PUBLIC_VIEWER:
            lines = [step.to_dict() for step in steps]
        else:
            lines = [
                {
                    **step.to_dict(),
                    "summary": step_line(
                        _seen(fact, viewer, counter.mode), counter.names, step.turn
                    ),
                }
                for step, fact in zip(steps, facts[start : len(facts)], strict=True)
            ]
        return start + 1, lines, len(facts), corrections

    def _advance(self, game_id: UUID) -> bool:
        """Send each channel of the game what happened since its last message; whether any
        channel was sent something."""
        watched = self._games.get(game_id)
        if watched is None:
            return False
        sent = False
        with watched.lock:
            for channel in list(watched.channels.values()):
                view, version = self.views.view(game_id, channel.viewer)
                if version <= channel.sent:
                    continue
                sent = True
                corrections = self.views.corrected_until(game_id, version)[1]
                restart = corrections != channel.corrections
                first_step, steps, count, corrections = self._steps(
                    game_id, watched, channel.viewer, channel.steps, version, restart=restart
                )
                document = {**render(view, channel.viewer), "version": version}
                message = update_message(version, steps, document, first_step)
                channel.sent, channel.view = version, document
                channel.steps, channel.corrections = count, corrections
                over = view.is_over
                chunk = chunked(message)
                for stream in list(channel.streams):
                    stream.deliver(message, chunk)
                    if over:
                        stream.deliver(END)
                        stream.finish()
                if over:
                    with_streams = len(channel.streams)
                    channel.streams.clear()
                    del watched.channels[channel.viewer]
                    self._streams -= with_streams
        if not watched.channels:
            with self._lock:
                if not watched.channels and self._games.get(game_id) is watched:
                    del self._games[game_id]
        return sent

    # --- the hub's thread ------------------------------------------------------------------------

    def _start(self) -> None:
        """Start the hub's thread, once (the services, and so the hub, are built after a server
        forks its workers)."""
        if self._thread is not None or self._stopping:
            return
        with self._pending:
            if self._thread is not None:
                return
            self._selector = selectors.DefaultSelector()
            self._wake_read, self._wake_write = os.pipe()
            os.set_blocking(self._wake_read, False)
            os.set_blocking(self._wake_write, False)
            self._selector.register(self._wake_read, selectors.EVENT_READ, None)
            self._thread = threading.Thread(target=self._run, name="live-streams", daemon=True)
            self._thread.start()

    def _wake(self) -> None:
        if self._wake_write < 0:
            return
        with contextlib.suppress(OSError):  # the pipe is full: the thread is awake already
            os.write(self._wake_write, b"\0")

    def _run(self) -> None:
        selector = self._selector
        assert selector is not None
        last_position = self._position_or(0)
        next_poll = time.monotonic() + self.poll_seconds
        next_heartbeat = time.monotonic() + self.heartbeat_seconds
        try:
            while not self._stopping:
                wake_at = min(next_poll, next_heartbeat, *self._due.values())
                timeout = max(0.0, wake_at - time.monotonic())
                for key, events in selector.select(timeout):
                    if key.data is None:
                        self._drain_wake()
                        continue
                    outlet: _Outlet = key.data
                    if events & selectors.EVENT_READ:
                        outlet.readable()
                    if events & selectors.EVENT_WRITE and not outlet.closed:
                        outlet.flush()
                self._take_pending()
                now = time.monotonic()
                for game_id, due in list(self._due.items()):
                    if due <= now:
                        self._bring_on(game_id, now)
                if now >= next_poll:
                    next_poll = now + self.poll_seconds
                    if self._games:
                        position = self._position_or(last_position)
                        if position != last_position:
                            last_position = position
                            for game_id in list(self._games):
                                self._bring_on(game_id, now)
                            self._leave_closed()
                if now >= next_heartbeat:
                    next_heartbeat = now + self.heartbeat_seconds
                    for outlet in list(self._outlets.values()):
                        outlet.send(HEARTBEAT)
                    self._leave_closed()
        finally:
            for outlet in list(self._outlets.values()):
                outlet.finish()
                self._drop(outlet)
            selector.close()
            os.close(self._wake_read)
            os.close(self._wake_write)
            self._wake_read = self._wake_write = -1

    def _position_or(self, fallback: int) -> int:
        try:
            return self.position()
        except Exception:  # the store is away: try again at the next poll
            log.warning("live streams: the store's position could not be read", exc_info=True)
            return fallback

    def _drain_wake(self) -> None:
        try:
            while os.read(self._wake_read, 4096):
                pass
        except BlockingIOError:
            pass

    def _take_pending(self) -> None:
        self._leave_closed()
        with self._pending:
            nudged, self._nudged = self._nudged, set()
            adopted, self._adopted = self._adopted, []
        for stream, sock, chunked in adopted:
            self._attach(stream, sock, chunked)
        now = time.monotonic()
        for game_id in nudged:
            self._bring_on(game_id, now)
        self._leave_closed()

    def _bring_on(self, game_id: UUID, now: float) -> None:
        """Send the game's followers its news now, or at the end of its interval if a message
        went out less than `interval_seconds` ago."""
        watched = self._games.get(game_id)
        if watched is None:
            self._due.pop(game_id, None)
            return
        if now < watched.quiet_until:
            self._due.setdefault(game_id, watched.quiet_until)
            return
        self._due.pop(game_id, None)
        if self._advance_logged(game_id):
            watched.quiet_until = now + self.interval_seconds

    def _leave_closed(self) -> None:
        left, self._left = self._left, []
        for stream in left:
            self.leave(stream)

    def _advance_logged(self, game_id: UUID) -> bool:
        try:
            return self._advance(game_id)
        except Exception:
            log.exception("live streams: game %s could not be brought up to date", game_id)
            return False

    def _attach(self, stream: Stream, sock: socket.socket, chunked: bool) -> None:
        """Write the stream's messages to its connection from now on, those queued first."""
        assert self._selector is not None
        outlet = _Outlet(self, stream, sock, chunked)
        self._outlets[sock.fileno()] = outlet
        self._selector.register(sock, selectors.EVENT_READ, outlet)
        queued: list[bytes | None] = []
        while True:
            try:
                queued.append(stream._queue.get_nowait())
            except queue.Empty:
                break
        stream._outlet = outlet
        for message in queued:
            if message is None:
                outlet.finish()
            else:
                outlet.send(message)

    def _want_write(self, outlet: _Outlet, wanted: bool) -> None:
        if outlet.closed or self._selector is None:
            return
        events = selectors.EVENT_READ | (selectors.EVENT_WRITE if wanted else 0)
        with contextlib.suppress(KeyError, ValueError):
            self._selector.modify(outlet.sock, events, outlet)

    def _drop(self, outlet: _Outlet) -> None:
        """Close a connection the hub writes to, and leave its channel."""
        if outlet.closed:
            return
        if self._selector is not None:
            with contextlib.suppress(KeyError, ValueError):
                self._selector.unregister(outlet.sock)
        self._outlets.pop(outlet.sock.fileno(), None)
        outlet.close()
        self._left.append(outlet.stream)


def _seen(fact: ev.Event, viewer: Viewer, mode: str) -> ev.Event:
    return redact(fact, viewer, mode) if type(fact).secret else fact
