"""Limits on PostgreSQL connections, so that a dead network is an error rather than a hang
(the event store's pool, the read models' engine and the lock taken while opening a store)."""

from __future__ import annotations

from typing import TypedDict

DEAD_NETWORK_SECONDS = 10
"""How long a PostgreSQL connection may wait for the network to acknowledge what it sent, or
for keepalive probes on an idle connection to be answered, before the kernel closes it."""


class NetworkLimits(TypedDict):
    """libpq connection parameters, by name (a TypedDict so that they unpack into psycopg's
    keyword arguments)."""

    connect_timeout: int
    keepalives: int
    keepalives_idle: int
    keepalives_interval: int
    keepalives_count: int
    tcp_user_timeout: int


def network_limits(connect_timeout: int) -> NetworkLimits:
    """libpq's connection parameters that make a dead network an error instead of a hang: a
    connection that cannot be made within `connect_timeout` seconds (0: no limit), and one whose
    packets go unacknowledged (TCP_USER_TIMEOUT), or which stops answering keepalives while
    idle, for DEAD_NETWORK_SECONDS. Without them, a query or the pool's check of a connection
    on which the database's host vanished waited for the system's TCP timeout (about 15
    minutes for unacknowledged data). A peer that acknowledges and never answers (a hung proxy)
    is not caught: that takes a query timeout, which would also end long legitimate ones."""
    return {
        "connect_timeout": connect_timeout,
        "keepalives": 1,
        "keepalives_idle": DEAD_NETWORK_SECONDS,
        "keepalives_interval": DEAD_NETWORK_SECONDS // 5,
        "keepalives_count": 5,
        "tcp_user_timeout": DEAD_NETWORK_SECONDS * 1000,
    }


RECONNECT_SECONDS = 5.0
"""How long the event store's connection pool keeps retrying one lost connection, waiting twice
as long after each failure, before it gives that attempt up (the next request that needs a
connection starts afresh, at once). psycopg_pool's default of 5 minutes let the waits grow to a
minute or more: after a 150 s outage the pool answered 76 s after the database came back,
against 0.8 s at 30 s; at 5 s, within 0.3 s of the database's return after 40 s and 120 s
outages (tests/e2e/proxy.py), where 30 s had left requests failing for up to 6 s while the
pool waited out its backoff."""
