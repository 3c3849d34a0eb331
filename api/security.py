"""Who is calling (seat and host tokens), and answering a retried request once (idempotency).

Tokens carry 192 random bits, are shown once when a game is created (and again to a retry of
that request with its Idempotency-Key: api/creation_keys.py keeps them in clear as long as an
answer is kept), and are otherwise stored only as SHA-256 digests; a presented token is looked
up by its digest and compared in constant time. No token is ever logged. The operator may replace
a game's tokens (`bohnanza reissue`), so each process remembers a token it has resolved for at
most `REMEMBERED_SECONDS` before it asks the database again: a replaced token stops working in a
running server within that time. A process remembers a token by the token itself, as presented,
so that a token it knows is not hashed again on every request (SHA-256 through OpenSSL 3 took
about 9 µs inside a command's request, 0.3 µs in a loop); the database holds digests alone.
"""

from __future__ import annotations

import hashlib
import hmac
import json
import logging
import re
import secrets
import threading
from collections import OrderedDict
from collections.abc import Iterable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from datetime import UTC, datetime
from time import monotonic
from typing import Any
from urllib.parse import quote, quote_plus
from uuid import UUID

from sqlalchemy import Engine, and_, delete, insert, null, or_, select, update

from domain.request_keys import REFUSED, VERSIONS_UNKNOWN, AppliedRequest, KeyRows
from domain.rules.errors import BohnanzaError
from projections.engine import durable_commit

from .tables import creations, idempotency, tokens

log = logging.getLogger(__name__)

TOKEN_PREFIX = "bzt_"
TOKEN_BYTES = 24
RESOLVED_TOKENS = 4096
"""Resolved tokens each process remembers (least recently used forgotten first)."""
REMEMBERED_SECONDS = 30.0
"""How long a process trusts a token it resolved without asking the database again."""
SEAT = "seat"
HOST = "host"
CREDENTIALS = ("Authorization", "X-Auditor-Token")
"""The headers that carry a credential: an answer to a request with one is the caller's alone."""
CREDENTIAL_KEYS = tuple(f"HTTP_{name.upper().replace('-', '_')}" for name in CREDENTIALS)
"""The credentials' headers as the WSGI environ names them."""
VARY_CREDENTIALS = ", ".join(CREDENTIALS)


def new_token() -> str:
    return TOKEN_PREFIX + secrets.token_urlsafe(TOKEN_BYTES)


def digest(text: str) -> str:
    return hashlib.sha256(text.encode()).hexdigest()


class Secrets:
    """Hides the secrets a request may carry (seat and host tokens, by their prefix, and the
    auditor's token if one is set) in text the server writes about a request: gunicorn's logs
    and the description of a request it cannot parse, which quotes the offending input.

    The auditor's token is found as written, as Python's repr and gunicorn's access log escape
    it, and as a URL encodes it. A header line gunicorn refuses, and the raw bytes it reports of
    a request cut short, are hidden whole: a token split over two lines has no prefix to find."""

    REPLACEMENT = "[redacted]"
    QUOTED_INPUT = re.compile(
        r"((?:Invalid HTTP Header|Invalid HTTP header name|Obsolete line folding is "
        r"unacceptable|No more data after): )b?(['\"]).*"
    )
    """gunicorn's descriptions that quote a header line or raw bytes (%r), to the end."""

    def __init__(self, auditor_token: str | None = None) -> None:
        patterns = [re.escape(TOKEN_PREFIX) + r"[A-Za-z0-9_\-]*"]
        if auditor_token:
            written = {
                auditor_token,
                repr(auditor_token)[1:-1],
                auditor_token.replace("\\", "\\\\").replace('"', '\\"'),
                quote(auditor_token, safe=""),
                quote(auditor_token),
                quote_plus(auditor_token),
            }
            patterns[:0] = [re.escape(form) for form in sorted(written, key=len, reverse=True)]
        self._pattern = re.compile("|".join(patterns))

    def redacted(self, text: str) -> str:
        text = self.QUOTED_INPUT.sub(rf"\1{self.REPLACEMENT}", text)
        return self._pattern.sub(self.REPLACEMENT, text)


@dataclass(frozen=True, slots=True)
class Caller:
    """The holder of a token for one game: a seat, or the host (the table's recorder)."""

    game_id: UUID
    role: str
    seat: int | None
    token_digest: str

    @property
    def name(self) -> str:
        return f"seat {self.seat}" if self.role == SEAT else self.role


@dataclass(frozen=True, slots=True)
class IssuedTokens:
    seats: list[str]
    host: str

    @classmethod
    def new(cls, seats: int) -> IssuedTokens:
        """Fresh tokens for every seat of a game and its host."""
        return cls([new_token() for _ in range(seats)], new_token())

    def digests(self) -> list[str]:
        return [digest(token) for token in (*self.seats, self.host)]

    def rows(self, game_id: UUID) -> list[dict[str, Any]]:
        """The tokens' rows in `api_tokens` (digests only) for the game they open."""
        now = datetime.now(UTC)
        roles = [(SEAT, seat) for seat in range(len(self.seats))] + [(HOST, None)]
        return [
            {"digest": hashed, "game_id": game_id, "role": role, "seat": seat, "created_at": now}
            for hashed, (role, seat) in zip(self.digests(), roles, strict=True)
        ]

    def to_json(self) -> dict[str, Any]:
        return {"seats": self.seats, "host": self.host}

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> IssuedTokens:
        return cls(list(data["seats"]), data["host"])


@dataclass(frozen=True, slots=True)
class ReissuedTokens:
    """The tokens that replaced a game's old ones: by seat, and the host's if it was replaced."""

    seats: dict[int, str]
    host: str | None


class TokenStore:
    def __init__(
        self,
        engine: Engine,
        remembered: int = RESOLVED_TOKENS,
        remembered_seconds: float = REMEMBERED_SECONDS,
    ) -> None:
        self.engine = engine
        self._remembered = remembered
        self._remembered_seconds = remembered_seconds
        self._resolved: OrderedDict[str, tuple[Caller, float]] = OrderedDict()
        self._lock = threading.Lock()

    def issue(self, game_id: UUID, seats: int) -> IssuedTokens:
        """New tokens for every seat and the host of a new game (stored as digests only)."""
        issued = IssuedTokens.new(seats)
        with self.engine.begin() as connection:
            durable_commit(connection)  # the engine's commits need not wait; a game's tokens must
            connection.execute(insert(tokens), issued.rows(game_id))
        return issued

    def reissue(self, game_id: UUID, seats: Iterable[int], *, host: bool) -> ReissuedTokens:
        """New tokens for these seats (and the host) of a stored game, in place of any they had:
        the old ones stop working at once here and within REMEMBERED_SECONDS in other processes.
        The other seats keep theirs."""
        reissued = ReissuedTokens(
            {seat: new_token() for seat in sorted(set(seats))}, new_token() if host else None
        )
        replaced = [_row(game_id, SEAT, seat, token) for seat, token in reissued.seats.items()]
        old = and_(tokens.c.role == SEAT, tokens.c.seat.in_(list(reissued.seats)))
        if reissued.host is not None:
            replaced.append(_row(game_id, HOST, None, reissued.host))
            old = or_(old, tokens.c.role == HOST)
        with self.engine.begin() as connection:
            durable_commit(connection)
            gone = connection.execute(
                delete(tokens).where(tokens.c.game_id == game_id, old).returning(tokens.c.digest)
            )
            digests = list(gone.scalars())
            if replaced:
                connection.execute(insert(tokens), replaced)
            # A creation's kept answer holds the old tokens in clear: a retry of that request
            # must not hand them out again (it is answered 410, its tokens no longer known).
            connection.execute(
                update(creations)
                .where(creations.c.game_id == game_id)
                .values(tokens=null(), response=null())
            )
        self._forget(digests)
        return reissued

    @contextmanager
    def issued_for(self, game_id: UUID, seats: int) -> Iterator[IssuedTokens]:
        """New tokens for a game about to be created in the block; if creating it fails, they
        are forgotten again (only they: the id may be taken by a game that keeps its own)."""
        issued = self.issue(game_id, seats)
        try:
            yield issued
        except BaseException:
            self.revoke(issued)
            raise

    def revoke(self, issued: IssuedTokens) -> None:
        """Forget these tokens."""
        digests = issued.digests()
        with self.engine.begin() as connection:
            connection.execute(delete(tokens).where(tokens.c.digest.in_(digests)))
        self._forget(digests)

    def _forget(self, digests: list[str]) -> None:
        gone = set(digests)
        with self._lock:
            for token in [t for t, (who, _) in self._resolved.items() if who.token_digest in gone]:
                del self._resolved[token]

    def resolve(self, game_id: UUID, token: str) -> Caller | None:
        """The caller a token stands for in this game, or None for an unknown or foreign token."""
        caller = self._remembered_caller(token) or self._look_up(token)
        return caller if caller is not None and caller.game_id == game_id else None

    def _remembered_caller(self, token: str) -> Caller | None:
        """The caller of a token resolved in the last REMEMBERED_SECONDS. (Found by the dict's
        hash of the token, then its equality: a guess's characters are compared only once its
        64-bit hash, keyed by a secret of the process, equals a token's, so the time a lookup
        takes says nothing of how much of a guess matches a token.)"""
        with self._lock:
            remembered = self._resolved.get(token)
            if remembered is None:
                return None
            caller, since = remembered
            if monotonic() - since > self._remembered_seconds:
                del self._resolved[token]  # it may have been replaced: ask the database
                return None
            self._resolved.move_to_end(token)
            return caller

    def _look_up(self, token: str) -> Caller | None:
        presented = digest(token)
        with self.engine.connect() as connection:
            row = connection.execute(
                select(tokens.c.digest, tokens.c.game_id, tokens.c.role, tokens.c.seat).where(
                    tokens.c.digest == presented
                )
            ).first()
        if row is None or not hmac.compare_digest(row.digest, presented):
            return None
        caller = Caller(row.game_id, row.role, row.seat, row.digest)
        with self._lock:
            self._resolved[token] = (caller, monotonic())
            while len(self._resolved) > self._remembered:
                self._resolved.popitem(last=False)
        return caller


def _row(game_id: UUID, role: str, seat: int | None, token: str) -> dict[str, Any]:
    return {
        "digest": digest(token),
        "game_id": game_id,
        "role": role,
        "seat": seat,
        "created_at": datetime.now(UTC),
    }


class IdempotencyError(BohnanzaError):
    """An Idempotency-Key that cannot be honoured."""


class KeyReused(IdempotencyError):
    """The key was first used for a different request."""


class KeyInFlight(IdempotencyError):
    """The first request with this key has not finished yet."""


class AnswerGone(IdempotencyError):
    """The key's command was stored, but neither its answer nor the key is kept any more."""


@dataclass(frozen=True, slots=True)
class Replay:
    status: int
    response: dict[str, Any]

    def kept(self) -> str:
        """As a refused command's answer is kept in its key's row in the store."""
        return json.dumps({"status": self.status, "response": self.response}, separators=(",", ":"))

    @classmethod
    def of_kept(cls, answer: str) -> Replay:
        kept = json.loads(answer)
        return cls(kept["status"], kept["response"])


def _stored_a_command(status: int | None) -> bool:
    """Whether a key's answer says its command was stored (None: still running)."""
    return status is not None and 200 <= status < 300


def request_digest(request: Any) -> str:
    return digest(json.dumps(request, sort_keys=True, separators=(",", ":")))


class OldCommandKeys:
    """What versions before 5 Dec 2026 kept beside the event store for keyed commands (a claim per
    key, and the answers of refusals), handed over to the store's key rows (domain/request_keys.py)
    when a process starts. Since then a keyed command writes nothing here: its key's row in the
    store, written in the command's own transaction, says what the key covers and what its
    command did (its versions, or the refusal it was answered with)."""

    HAND_OVER_BATCH = 500

    def __init__(self, engine: Engine) -> None:
        self.engine = engine

    def hand_over(self, keys: KeyRows) -> int:
        """Move every row of this table into the store's key rows, and delete it: what it covers
        (so that another request with its key is still refused), a refusal's answer while it is
        kept, and a command stored before the store kept keys (its versions, read from its
        answer; once that answer was cleared, the key is answered 410). A claim whose command was
        never stored is dropped: a retry runs it. How many rows were handed over. Safe to run
        in several processes at once; the old version must no longer be running."""
        handed = 0
        while True:
            with self.engine.connect() as connection:
                rows = connection.execute(
                    select(idempotency)
                    .order_by(idempotency.c.game_id, idempotency.c.key)
                    .limit(self.HAND_OVER_BATCH)
                ).all()
            if not rows:
                break
            for row in rows:
                self._hand_over_row(keys, row)
            with self.engine.begin() as connection:
                for row in rows:
                    connection.execute(delete(idempotency).where(*_row_key(row)))
            handed += len(rows)
        if handed:
            log.info("handed %d keyed commands' rows over to the event store", handed)
        return handed

    @staticmethod
    def _hand_over_row(keys: KeyRows, row: Any) -> None:
        covers = key_covers_digest(row.caller, row.request)
        if keys.cover(row.game_id, row.key, covers):
            return  # its command is stored under the key: the store answers for it
        if row.status is None:
            return  # claimed, never stored: a retry runs it
        if not _stored_a_command(row.status):
            if row.response is not None:  # a refusal, still kept
                answer = Replay(row.status, row.response).kept()
                keys.keep(row.game_id, row.key, AppliedRequest(REFUSED, REFUSED, covers, answer))
            return  # a refusal whose answer was cleared: the same request is decided anew
        # stored by a version that kept keys only here: never run again
        answer = row.response or {}
        last, events = answer.get("version"), answer.get("events")
        if not (isinstance(last, int) and isinstance(events, list) and 0 < len(events) <= last):
            last = first = VERSIONS_UNKNOWN  # its answer cleared: what it stored is unknown
        else:
            first = last - len(events) + 1
        keys.keep(row.game_id, row.key, AppliedRequest(first, last, covers))


def _row_key(row: Any) -> tuple[Any, Any]:
    return idempotency.c.game_id == row.game_id, idempotency.c.key == row.key


def key_covers(caller: Caller, request: Any) -> str:
    """What an Idempotency-Key given with this request covers: the caller and the request."""
    return key_covers_digest(caller.token_digest, request_digest(request))


def key_covers_digest(caller_digest: str, request_digest: str) -> str:
    return digest(f"{caller_digest} {request_digest}")
