"""Creating a game as safe to retry as a command: a request that creates one (a new game, an
imported record, a fork) sent with an `Idempotency-Key` creates it once and answers the same,
its game id and tokens included, however often it is sent.

The first request with a key chooses the game's id and tokens and keeps them with the key
(`api_creations`) before anything else, in one transaction with the tokens' digests, so that
every attempt creates the same game with the same tokens. The event store keeps the key with the
game's events (`store_key`, domain/request_keys.py): an attempt that finds the game stored
learns from the store whether an earlier attempt with the key stored it (its answer is rebuilt,
the same tokens in it) or another request did (an imported record's id derives from its facts).
A server that stops between storing the game and keeping the answer thus leaves no game that no
answer names: the retry gives its answer.

The answer, tokens included, is kept in clear as long as a command's (ANSWERS_KEPT): a retry
within that time gets the tokens again. After it, the tokens and the answer are cleared; the key
still refuses another request, and the same request is answered 410 `idempotency_answer_gone`
if it created its game (the tokens are no longer known), or runs again if it did not.
"""

from __future__ import annotations

import logging
import threading
from collections.abc import Callable
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from time import monotonic
from typing import Any
from uuid import UUID

from sqlalchemy import Connection, Engine, delete, insert, null, or_, select, update
from sqlalchemy.exc import IntegrityError

from projections.engine import durable_commit

from .security import (
    AnswerGone,
    IssuedTokens,
    KeyInFlight,
    KeyReused,
    Replay,
    TokenStore,
    request_digest,
)
from .tables import creations, tokens

IN_FLIGHT_LIMIT = timedelta(seconds=30)
"""A keyed request that creates a game, still unanswered after this long (the default of the
setting `BOHNANZA_IDEMPOTENCY_IN_FLIGHT_SECONDS`), has most likely stopped: its process died
after claiming the key, before storing the game or keeping its refusal. A retry then runs the
request again under the same key, which the event store keeps with the game's events
(domain/request_keys.py): if the first run stored it, the store says so and the answer is
rebuilt from what it stored; if not, the game is created now. Either way it is stored at most
once, even if the first request was only slow: the limit decides how soon a retry may try, not
whether a game can be stored twice. (Keyed commands claim nothing: see OldCommandKeys in
api/security.py.)"""


ANSWERS_KEPT = timedelta(hours=24)
"""How long the answer to a keyed request that creates a game is kept (the default of the setting
`BOHNANZA_IDEMPOTENCY_ANSWERS_KEPT_HOURS`): a retry within it gets that answer as it was given,
the new game's tokens in it. After the limit the key's row keeps only what the key covers (the
caller's token digest and the request's digest), so the same key with another request is still
refused; the same request sent again is answered from what the store holds (see `CreationKeys`).
(A keyed command's answer is kept with its key in the event store, as long as the game.)"""

RELEASED_AT = datetime(1970, 1, 1, tzinfo=UTC)
"""When a released claim counts as made: long enough ago for the next retry to take it over."""

FORGET_EVERY = timedelta(minutes=10)
"""How often each process clears the answers older than the limit (after a keyed creation)."""

log = logging.getLogger(__name__)

NO_CALLER = ""
"""The caller of a request sent without a token (creating a game or importing a record needs
none): the key and the request alone tie a retry to its first request."""


@dataclass(frozen=True, slots=True)
class Creation:
    """What an attempt is to create: the game's id and tokens, the same on every attempt."""

    game_id: UUID
    issued: IssuedTokens


def store_key(key: str) -> str:
    """The key as the event store keeps it with the new game's events: with a space, which no
    Idempotency-Key holds, so that it cannot be taken for a command's key in that game."""
    return f"create {key}"


class CreationKeys:
    """One game and one answer per (what is created, Idempotency-Key): the first request runs
    (its claim counts as running for `in_flight_limit`), retries get its answer (kept for
    `answers_kept`, then cleared now and then)."""

    def __init__(
        self,
        engine: Engine,
        in_flight_limit: timedelta = IN_FLIGHT_LIMIT,
        answers_kept: timedelta = ANSWERS_KEPT,
        *,
        stored: Callable[[UUID, str], bool],
        tokens: TokenStore,
    ) -> None:
        """`stored(game_id, key)`: whether the event store holds the key with the events its
        request stored in that game (domain/request_keys.py)."""
        self.tokens = tokens
        self.engine = engine
        self.stored = stored
        self.in_flight_limit = in_flight_limit
        self.answers_kept = answers_kept
        self._next_forgetting = monotonic()
        self._forgetting = threading.Lock()

    @staticmethod
    def _key(scope: str, key: str) -> tuple[Any, Any]:
        """The where-clause of a key's row."""
        return creations.c.scope == scope, creations.c.key == key

    def _claimed_again(self, connection: Connection, row: Any, **values: Any) -> bool:
        """Claim the key of `row` anew for this request (with these other values), unless
        another retry did first (the row is no longer as it was read)."""
        status = creations.c.status
        taken = connection.execute(
            update(creations)
            .where(
                *self._key(row.scope, row.key),
                status.is_(None) if row.status is None else status == row.status,
                creations.c.created_at == row.created_at,
            )
            .values(created_at=datetime.now(UTC), status=None, response=null(), **values)
        )
        return taken.rowcount == 1

    def release(self, scope: str, key: str) -> None:
        """Give up the claim of a request that decided nothing or failed unexpectedly, so that a
        retry of it runs at once: the claim counts as made long ago (RELEASED_AT), as if its
        server had stopped. The key keeps what it covers: freeing it for another request would
        let that request be answered as the first one, whose work the event store may hold
        under the key already (stored before the failure)."""
        with self.engine.begin() as connection:
            connection.execute(
                update(creations)
                .where(*self._key(scope, key), creations.c.status.is_(None))
                .values(created_at=RELEASED_AT)
            )

    def _keep_answer(
        self, scope: str, key: str, status: int, response: dict[str, Any], **values: Any
    ) -> None:
        """Keep the answer to the key's request (and these other values), and now and then
        clear the old ones."""
        with self.engine.begin() as connection:
            connection.execute(
                update(creations)
                .where(*self._key(scope, key))
                .values(status=status, response=response, **values)
            )
        self._forget_now_and_then()

    def _cleared(self, *where: Any, **values: Any) -> int:
        """Set these values (to SQL null) in the rows claimed longer ago than `answers_kept`
        that match `where`; how many."""
        cutoff = datetime.now(UTC) - self.answers_kept
        with self.engine.begin() as connection:
            cleared = connection.execute(
                update(creations).where(creations.c.created_at < cutoff, *where).values(**values)
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

    def begin(
        self, scope: str, key: str, caller: str, request: Any, *, game_id: UUID, seats: int
    ) -> Replay | Creation:
        """Claim the key for this request, choosing `game_id` and new tokens for its game; the
        game and tokens an earlier attempt chose, if it stopped; or the answer given already."""
        fingerprint = request_digest(request)
        issued = IssuedTokens.new(seats)
        try:
            with self.engine.begin() as connection:
                durable_commit(connection)  # tokens are kept as the game's events are
                connection.execute(
                    insert(creations).values(
                        scope=scope,
                        key=key,
                        caller=caller,
                        request=fingerprint,
                        game_id=game_id,
                        tokens=issued.to_json(),
                        status=None,
                        response=null(),
                        created_at=datetime.now(UTC),
                    )
                )
                connection.execute(insert(tokens), issued.rows(game_id))
            return Creation(game_id, issued)
        except IntegrityError:
            pass
        with self.engine.connect() as connection:
            row = connection.execute(select(creations).where(*self._key(scope, key))).one_or_none()
        if row is None:  # the service never removes a key's row, but a person may have
            raise KeyInFlight(f"the request with Idempotency-Key {key!r} is changing hands")
        if row.caller != caller or row.request != fingerprint:
            raise KeyReused(f"Idempotency-Key {key!r} was already used for a different request")
        age = datetime.now(UTC) - row.created_at
        if row.status is not None and row.response is not None and age <= self.answers_kept:
            return Replay(row.status, row.response)
        if row.status is None and age <= self.in_flight_limit:
            raise KeyInFlight(f"the request with Idempotency-Key {key!r} is still being processed")
        kept = None if row.status is not None or row.tokens is None else row.tokens
        if kept is None and self._created(row, key):
            raise AnswerGone(
                f"the game {row.game_id} was created with Idempotency-Key {key!r} on "
                f"{row.created_at:%Y-%m-%d}, and its answer (its tokens) is no longer kept"
            )
        # its request stopped (IN_FLIGHT_LIMIT), or its refusal is forgotten (ANSWERS_KEPT)
        again = issued if kept is None else IssuedTokens.from_json(kept)
        if self._take_over(row, again):
            return Creation(row.game_id, again)
        raise KeyInFlight(f"the request with Idempotency-Key {key!r} is still being processed")

    def _created(self, row: Any, key: str) -> bool:
        """Whether the key's request created its game (its answer says so, or the store)."""
        if row.status is not None:
            return 200 <= row.status < 300
        return self.stored(row.game_id, store_key(key))

    def _take_over(self, row: Any, issued: IssuedTokens) -> bool:
        """Claim the key anew with these tokens (stored again: a refusal revoked them), unless
        another retry did first."""
        with self.engine.begin() as connection:
            durable_commit(connection)
            if not self._claimed_again(connection, row, tokens=issued.to_json()):
                return False
            connection.execute(delete(tokens).where(tokens.c.digest.in_(issued.digests())))
            connection.execute(insert(tokens), issued.rows(row.game_id))
        return True

    def finish(
        self, scope: str, key: str, status: int, response: dict[str, Any], issued: IssuedTokens
    ) -> None:
        """Keep the answer. A refusal revokes the tokens first: no game has them."""
        if 200 <= status < 300:
            self._keep_answer(scope, key, status, response)
        else:
            self.tokens.revoke(issued)
            self._keep_answer(scope, key, status, response, tokens=null())

    def forget_old_answers(self) -> int:
        """Clear the tokens and answers of every key claimed longer ago than `answers_kept`; how
        many were cleared."""
        return self._cleared(
            or_(creations.c.tokens.is_not(None), creations.c.response.is_not(None)),
            tokens=null(),
            response=null(),
        )
