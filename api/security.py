"""Who is calling (seat and host tokens), and answering a retried request once (idempotency).

Tokens carry 192 random bits, are shown once when a game is created (and again to a retry of
that request with its Idempotency-Key: api/creation_keys.py keeps them in clear as long as an
answer is kept), and are otherwise stored only as SHA-256 digests; a presented token is looked
up by its digest and compared in constant time. No token is ever logged. The operator may replace
a game's tokens (`bohnanza reissue`), so each process remembers a token it has resolved (by
digest) for at most `REMEMBERED_SECONDS` before it asks the database again: a replaced token stops
working in a running server within that time.
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
from collections.abc import Callable, Iterable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from time import monotonic
from typing import Any
from urllib.parse import quote, quote_plus
from uuid import UUID

from sqlalchemy import Connection, Engine, Table, and_, delete, insert, null, or_, select, update
from sqlalchemy.exc import IntegrityError

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
        with self._lock:
            for known in digests:
                self._resolved.pop(known, None)

    def resolve(self, game_id: UUID, token: str) -> Caller | None:
        """The caller a token stands for in this game, or None for an unknown or foreign token."""
        presented = digest(token)
        caller = self._remembered_caller(presented) or self._look_up(presented)
        if caller is None or not hmac.compare_digest(caller.token_digest, presented):
            return None
        return caller if caller.game_id == game_id else None

    def _remembered_caller(self, presented: str) -> Caller | None:
        with self._lock:
            remembered = self._resolved.get(presented)
            if remembered is None:
                return None
            caller, since = remembered
            if monotonic() - since > self._remembered_seconds:
                del self._resolved[presented]  # it may have been replaced: ask the database
                return None
            self._resolved.move_to_end(presented)
            return caller

    def _look_up(self, presented: str) -> Caller | None:
        with self.engine.connect() as connection:
            row = connection.execute(
                select(tokens.c.digest, tokens.c.game_id, tokens.c.role, tokens.c.seat).where(
                    tokens.c.digest == presented
                )
            ).first()
        if row is None:
            return None
        caller = Caller(row.game_id, row.role, row.seat, row.digest)
        with self._lock:
            self._resolved[presented] = (caller, monotonic())
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


IN_FLIGHT_LIMIT = timedelta(seconds=30)
"""A request still unanswered after this long (the default of the setting
`BOHNANZA_IDEMPOTENCY_IN_FLIGHT_SECONDS`) has most likely stopped: its process died after
claiming the key, before storing its command (a stored command answers for its key at once) or
keeping its refusal. A retry then runs the command again under the same key,
which the event store keeps with the command's events (domain/request_keys.py): if the first run
stored it, the store says so and the answer is rebuilt from what it stored; if not, the command
runs now. Either way it is stored at most once, even if the first request was only slow: the limit
decides how soon a retry may try, not whether a command can be stored twice."""


RELEASED_AT = datetime(1970, 1, 1, tzinfo=UTC)
"""When a released claim counts as made: long enough ago for the next retry to take it over."""

ANSWERS_KEPT = timedelta(hours=24)
"""How long the answer to a keyed command that stored nothing (a refusal) is kept (the default of
the setting `BOHNANZA_IDEMPOTENCY_ANSWERS_KEPT_HOURS`): a retry within it gets that answer as it
was given. (A stored command keeps none: its answer is rebuilt from the store; versions before
5 Dec 2026 kept those too, and they are cleared in the same way.)
An answer holds the caller's whole view, so keeping every one for ever would make the table grow
by kilobytes a command. After the limit the key's row keeps only what the key covers (the
caller's token digest and the request's digest), so the same key with another request is still
refused; the same request sent again runs again under the key, as after a stopped server (see
IN_FLIGHT_LIMIT): the event store refuses it if it was stored, and the answer is rebuilt from what
it stored, or it is decided now (a command refused then may be a legal move now)."""
FORGET_EVERY = timedelta(minutes=10)
"""How often each process clears the answers older than the limit (after a keyed command)."""


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


@dataclass(frozen=True, slots=True)
class Claim:
    """The key is this request's to run. `fresh`: no request held it before, so the event store
    holds no command under it (the command's own insert would still refuse a second one)."""

    fresh: bool


def _stored_a_command(status: int | None) -> bool:
    """Whether a key's answer says its command was stored (None: still running)."""
    return status is not None and 200 <= status < 300


def request_digest(request: Any) -> str:
    return digest(json.dumps(request, sort_keys=True, separators=(",", ":")))


class KeyedAnswers:
    """What the stores of keyed requests' answers share: how long a request counts as running
    and its answer is kept, whether the event store holds a key, taking a claim over, releasing
    it, and clearing old answers. A key's row is found by its owner (`owner`, a column of
    `table`: the game a command is for, what a creation creates) and the key."""

    table: Table
    owner: str

    def __init__(
        self,
        engine: Engine,
        in_flight_limit: timedelta = IN_FLIGHT_LIMIT,
        answers_kept: timedelta = ANSWERS_KEPT,
        *,
        stored: Callable[[UUID, str], bool],
    ) -> None:
        """`stored(game_id, key)`: whether the event store holds the key with the events its
        request stored in that game (domain/request_keys.py)."""
        self.engine = engine
        self.stored = stored
        self.in_flight_limit = in_flight_limit
        self.answers_kept = answers_kept
        self._next_forgetting = monotonic()
        self._forgetting = threading.Lock()

    def _key(self, owner: Any, key: str) -> tuple[Any, Any]:
        """The where-clause of a key's row."""
        return self.table.c[self.owner] == owner, self.table.c.key == key

    def _claimed_again(self, connection: Connection, row: Any, **values: Any) -> bool:
        """Claim the key of `row` anew for this request (with these other values), unless
        another retry did first (the row is no longer as it was read)."""
        status = self.table.c.status
        taken = connection.execute(
            update(self.table)
            .where(
                *self._key(row._mapping[self.owner], row.key),
                status.is_(None) if row.status is None else status == row.status,
                self.table.c.created_at == row.created_at,
            )
            .values(created_at=datetime.now(UTC), status=None, response=null(), **values)
        )
        return taken.rowcount == 1

    def release(self, owner: Any, key: str) -> None:
        """Give up the claim of a request that decided nothing or failed unexpectedly, so that a
        retry of it runs at once: the claim counts as made long ago (RELEASED_AT), as if its
        server had stopped. The key keeps what it covers: freeing it for another request would
        let that request be answered as the first one, whose work the event store may hold
        under the key already (stored before the failure)."""
        with self.engine.begin() as connection:
            connection.execute(
                update(self.table)
                .where(*self._key(owner, key), self.table.c.status.is_(None))
                .values(created_at=RELEASED_AT)
            )

    def _keep_answer(
        self, owner: Any, key: str, status: int, response: dict[str, Any], **values: Any
    ) -> None:
        """Keep the answer to the key's request (and these other values), and now and then
        clear the old ones."""
        with self.engine.begin() as connection:
            connection.execute(
                update(self.table)
                .where(*self._key(owner, key))
                .values(status=status, response=response, **values)
            )
        self._forget_now_and_then()

    def forget_old_answers(self) -> int:
        """Clear every answer older than `answers_kept`; how many were cleared."""
        raise NotImplementedError

    def _cleared(self, *where: Any, **values: Any) -> int:
        """Set these values (to SQL null) in the rows claimed longer ago than `answers_kept`
        that match `where`; how many."""
        cutoff = datetime.now(UTC) - self.answers_kept
        with self.engine.begin() as connection:
            cleared = connection.execute(
                update(self.table).where(self.table.c.created_at < cutoff, *where).values(**values)
            )
        return cleared.rowcount

    def _forget_now_and_then(self) -> None:
        """`forget_old_answers`, if this process has not for FORGET_EVERY. A failure is logged,
        not raised: the request's work and its answer are stored, and the next time clears them."""
        now = monotonic()
        if now < self._next_forgetting or not self._forgetting.acquire(blocking=False):
            return
        try:
            self._next_forgetting = now + FORGET_EVERY.total_seconds()
            forgotten = self.forget_old_answers()
            if forgotten:
                log.info(
                    "forgot %d answers to keyed requests older than %s",
                    forgotten,
                    self.answers_kept,
                )
        except Exception:  # housekeeping: the request's work and its answer are stored already
            log.warning(
                "the answers to keyed requests older than %s could not be cleared",
                self.answers_kept,
                exc_info=True,
            )
        finally:
            self._forgetting.release()


class IdempotencyStore(KeyedAnswers):
    """One answer per (game, Idempotency-Key): the first request runs, retries get its answer."""

    table = idempotency
    owner = "game_id"

    def begin(self, game_id: UUID, key: str, caller: Caller, request: Any) -> Replay | Claim:
        """Claim the key for this request; the stored answer if it was already given.

        A command the event store holds under the key has no answer here: its answer is built
        from what the store holds (the claim says to run it, and the store answers that it was
        stored). So a command stored under a key costs one transaction besides its claim: its
        events and its key, together."""
        fingerprint = request_digest(request)
        try:
            with self.engine.begin() as connection:
                connection.execute(
                    insert(idempotency).values(
                        game_id=game_id,
                        key=key,
                        caller=caller.token_digest,
                        request=fingerprint,
                        status=None,
                        response=null(),
                        created_at=datetime.now(UTC),
                    )
                )
            return Claim(fresh=True)
        except IntegrityError:
            pass
        with self.engine.connect() as connection:
            row = connection.execute(
                select(idempotency).where(*self._key(game_id, key))
            ).one_or_none()
        if row is None:  # the service never removes a key's row, but a person may have
            raise KeyInFlight(f"the request with Idempotency-Key {key!r} is changing hands")
        if row.caller != caller.token_digest or row.request != fingerprint:
            raise KeyReused(
                f"Idempotency-Key {key!r} was already used for a different request in this game"
            )
        age = datetime.now(UTC) - row.created_at
        kept = row.status is not None and row.response is not None and age <= self.answers_kept
        # A refusal is not given again once the store holds the key's command: a retry was
        # refused on the game before an earlier attempt, still running then, stored it. It runs
        # again, and the answer is rebuilt from what that attempt stored.
        if kept and (_stored_a_command(row.status) or not self.stored(game_id, key)):
            return Replay(row.status, row.response)
        if row.status is None and self.stored(game_id, key):
            return Claim(fresh=False)  # its command is stored: the store answers
        if row.status is None and age <= self.in_flight_limit:
            raise KeyInFlight(f"the request with Idempotency-Key {key!r} is still being processed")
        if _stored_a_command(row.status) and not self.stored(game_id, key):
            return self._answer_of_unkept_key(key, row)
        # its request stopped (IN_FLIGHT_LIMIT), or its answer is forgotten (ANSWERS_KEPT)
        with self.engine.begin() as connection:
            if self._claimed_again(connection, row):
                return Claim(fresh=False)  # run it again, under the same key
        raise KeyInFlight(f"the request with Idempotency-Key {key!r} is still being processed")

    @staticmethod
    def _answer_of_unkept_key(key: str, row: Any) -> Replay:
        """The answer to a command stored under a key the event store does not hold: stored by
        a version of the service that kept keys only here. Running it again would store it a
        second time, so it never runs again: the answer is given while this table still holds
        it, and once cleared (ANSWERS_KEPT) the key is refused."""
        if row.response is not None:
            return Replay(row.status, row.response)
        raise AnswerGone(
            f"the command sent with Idempotency-Key {key!r} was stored on "
            f"{row.created_at:%Y-%m-%d}, and its answer is no longer kept; the game's view "
            "shows where the game is now"
        )

    def finish(self, game_id: UUID, key: str, status: int, response: dict[str, Any]) -> None:
        """Keep the answer to a request that stored no command (a refusal): a retry gets it
        again. A command stored under the key needs none (see `begin`)."""
        self._keep_answer(game_id, key, status, response)

    def stored_its_command(self) -> None:
        """The key's command was stored with its key: nothing to keep here; now and then, clear
        the old answers."""
        self._forget_now_and_then()

    def forget_old_answers(self) -> int:
        """Clear every answer older than `answers_kept`, keeping what its key covers (see
        ANSWERS_KEPT); how many were cleared."""
        return self._cleared(
            idempotency.c.status.is_not(None), idempotency.c.response.is_not(None), response=null()
        )
