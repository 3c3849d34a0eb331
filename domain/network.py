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


RECONNECT_SECONDS = 0.5
"""How long the event store's connection pool keeps retrying one lost connection before it gives
that attempt up; the next request that finds no connection ready starts a new attempt at once.
psycopg_pool waits 1 s after a first failure and twice as long after each next one, up to this
limit, so the limit is the longest the pool can leave the database's return unnoticed while
requests come. Its default of 5 minutes let the waits grow to a minute or more (after a 150 s
outage the pool answered 76 s after the database came back); at 5 s, a short outage ending
between two attempts went unnoticed for up to 2 s (a 4 s outage through tests/e2e/proxy.py:
requests refused 0.95-0.97 s after the return, where the test allows 1 s); at 0.5 s the last
refusal came at most 0.03 s after it, in five runs. While the database is down, each lost
connection costs one attempt at once and one half a second later, then one per request that
needs a connection, one at a time (the pool's growth)."""
