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

from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Any
from uuid import UUID

from sqlalchemy import delete, insert, null, or_, select
from sqlalchemy.exc import IntegrityError

from projections.engine import durable_commit

from .security import (
    AnswerGone,
    IssuedTokens,
    KeyedAnswers,
    KeyInFlight,
    KeyReused,
    Replay,
    TokenStore,
    request_digest,
)
from .tables import creations, tokens

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


class CreationKeys(KeyedAnswers):
    """One game and one answer per (what is created, Idempotency-Key)."""

    table = creations
    owner = "scope"

    def __init__(self, *args: Any, tokens: TokenStore, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.tokens = tokens

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
