"""A TCP proxy between the service and its database that a test can switch off and on, to
stage outages: `cut()` resets every connection through it and refuses new ones (a database
that crashed, a proxy or host that went away), `hang()` accepts new connections and answers
nothing on any (a database that stopped responding), `restore()` forwards again."""

from __future__ import annotations

import selectors
import socket
import threading
from collections.abc import Iterator
from contextlib import contextmanager, suppress

UP, CUT, HUNG = "up", "cut", "hung"


class SwitchableProxy:
    """Forwards connections on a free loopback port to `target`, in one thread."""

    def __init__(self, target: tuple[str, int]) -> None:
        self.target = target
        self.state = UP
        self._listener = socket.create_server(("127.0.0.1", 0))
        self.port = self._listener.getsockname()[1]
        self._selector = selectors.DefaultSelector()
        self._selector.register(self._listener, selectors.EVENT_READ, None)
        self._peers: dict[socket.socket, socket.socket] = {}
        self._lock = threading.Lock()
        self._stopped = threading.Event()
        self._thread = threading.Thread(target=self._run, name="proxy", daemon=True)
        self._thread.start()

    def cut(self) -> None:
        """Reset every connection and refuse new ones until `restore()`."""
        with self._lock:
            self.state = CUT
            for sock in list(self._peers):
                self._drop(sock, reset=True)

    def hang(self) -> None:
        """Accept connections but pass nothing on, either way, until `restore()`."""
        with self._lock:
            self.state = HUNG

    def restore(self) -> None:
        with self._lock:
            self.state = UP

    def close(self) -> None:
        self._stopped.set()
        self._thread.join(timeout=5)
        with self._lock:
            for sock in list(self._peers):
                self._drop(sock, reset=True)
        self._listener.close()

    def _run(self) -> None:
        while not self._stopped.is_set():
            for key, _ in self._selector.select(timeout=0.05):
                with self._lock:
                    if key.fileobj is self._listener:
                        self._accept()
                    elif self.state == UP:
                        self._forward(key.fileobj)  # type: ignore[arg-type]

    def _accept(self) -> None:
        client, _ = self._listener.accept()
        if self.state == CUT:
            _reset(client)
            return
        if self.state == HUNG:  # held open, never read: its connect or query waits
            self._peers[client] = client
            return
        try:
            server = socket.create_connection(self.target, timeout=5)
        except OSError:
            _reset(client)
            return
        for sock in (client, server):
            sock.settimeout(5)  # read only when readable; a send may wait for the peer
            self._selector.register(sock, selectors.EVENT_READ, None)
        self._peers[client], self._peers[server] = server, client

    def _forward(self, sock: socket.socket) -> None:
        other = self._peers.get(sock)
        if other is None:
            return
        try:
            data = sock.recv(65536)
            if data:
                other.sendall(data)
                return
        except OSError:
            pass
        self._drop(sock, reset=False)

    def _drop(self, sock: socket.socket, *, reset: bool) -> None:
        other = self._peers.pop(sock, None)
        for each in (sock, other):
            if each is None:
                continue
            self._peers.pop(each, None)
            with suppress(KeyError, ValueError):
                self._selector.unregister(each)
            _reset(each) if reset else each.close()


def _reset(sock: socket.socket) -> None:
    """Close with a reset (RST), as a host that went away would leave its peer."""
    with suppress(OSError):
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, b"\x01\x00\x00\x00\x00\x00\x00\x00")
    sock.close()


@contextmanager
def proxy_to(target: tuple[str, int]) -> Iterator[SwitchableProxy]:
    proxy = SwitchableProxy(target)
    try:
        yield proxy
    finally:
        proxy.close()
