"""How a game's events are stored: one compact row per fact, and every older row still read.

The library's default mapper stores an event as a JSON object of its attributes under a topic
such as `bohnanza:TradeDeclined`:

    bohnanza:TradeDeclined  {"timestamp":{"_type_":"datetime_iso","_data_":"2026-12-04T21:46:01.130481+00:00"},"offer":4,"seat":2}

`CompactMapper` stores the same event as a short code and a MessagePack array of its values, in
the order of the fact's fields, after the time in microseconds since 1970 (UTC); 12 bytes here,
against 102 (`bohnanza events GAME` shows rows decoded):

    TD  [1764884761130481, 4, 2]

The few large facts (a game's start with its ruleset and deck, the deal, a reshuffle's order, a
correction) are also compressed with zlib: their code says so (`_COMPRESSED`).

Nothing is lost: each code names one stored event class at one `class_version`, whose fields
(`StoredFact.fact_fields`) give the array's order, and a row decodes to the very event the
default mapper gives (the tests compare both on every kind of fact). The codes below are stable:
a fact whose fields change gets a new `class_version` on its stored class, and with it a new
code (the code and the version, e.g. `GS3`), while rows under the old code are read and upcast
by the class's `upcast_vN_vN+1` methods, as the library does for its own rows.

Rows written before this encoding (the library's JSON, long topics) are still read: a topic that
is no code goes to the library's mapper. Readers that select rows by topic ask for both
(`topics_of`). The store's compressor and cipher, if configured, apply to compact rows too.

A game's snapshot (the library's `Snapshot` of its `GameState`, a few kilobytes of JSON) is
stored as the library encodes it, then compressed with zlib under the code `SN`, unless the
store compresses or encrypts everything already. Events of other aggregates (notes, forks,
imports) keep the library's encoding.
"""

from __future__ import annotations

import zlib
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from typing import Any
from uuid import UUID

import msgpack
from eventsourcing.domain import Snapshot
from eventsourcing.persistence import Mapper, MapperDeserialisationError, StoredEvent
from eventsourcing.utils import get_topic

from .aggregate import STORED_TYPES, Game
from .ids import as_uuid
from .rules import events as ev

EPOCH = datetime(1970, 1, 1, tzinfo=UTC)
_MICROSECOND = timedelta(microseconds=1)

CODES: dict[type[ev.Event], str] = {
    ev.GameStarted: "GS",
    ev.CardsDealt: "CD",
    ev.BeanPlanted: "BP",
    ev.CardsRevealed: "CR",
    ev.TradeOffered: "TO",
    ev.TradeAccepted: "TA",
    ev.TradeDeclined: "TD",
    ev.TradeWithdrawn: "TW",
    ev.TradingEnded: "TE",
    ev.FieldHarvested: "FH",
    ev.ThirdFieldBought: "TF",
    ev.CardDrawn: "DR",
    ev.DeckExhausted: "DX",
    ev.DrawFailed: "DF",
    ev.DiscardsReshuffled: "RS",
    ev.TurnEnded: "TN",
    ev.GameEnded: "GE",
    ev.OfferedCardDiscarded: "OD",
    ev.HandCardDiscarded: "HD",
    ev.DiscardsMatched: "DM",
    ev.CardsOffered: "CO",
    ev.HandNoted: "HN",
    ev.HandShown: "HS",
    ev.EntriesCorrected: "EC",
}
"""Each fact's code, for good (a row's topic is its code and its stored class's version)."""

_COMPRESSED = frozenset({ev.GameStarted, ev.CardsDealt, ev.DiscardsReshuffled, ev.EntriesCorrected})
"""Facts whose rows are compressed too: hundreds of bytes of bean names each, where zlib pays."""


@dataclass(frozen=True, slots=True)
class _Kind:
    """One stored event class at one version, as compact rows store it."""

    stored: type[Any]
    fact_type: type[ev.Event]
    code: str
    """The row's topic: the fact's code, and its version if past the first."""
    version: int
    fields: tuple[str, ...]
    created: bool
    """The game's first event (the library's `Created`: it also names the aggregate's class)."""
    compressed: bool

    @property
    def width(self) -> int:
        """How many attributes the event has: its fields, the time, the game's id and version
        (and the game's class for the first event)."""
        return len(self.fields) + 3 + self.created


def _kind(fact_type: type[ev.Event]) -> _Kind:
    stored = STORED_TYPES[fact_type]
    version = getattr(stored, "class_version", 1)
    code = CODES[fact_type] + (str(version) if version > 1 else "")
    created = fact_type is ev.GameStarted
    compressed = fact_type in _COMPRESSED
    return _Kind(stored, fact_type, code, version, stored.fact_fields, created, compressed)


SNAPSHOT_CODE = "SN"
_SNAPSHOT_TOPIC = get_topic(Snapshot)

_BY_CLASS = {kind.stored: kind for kind in map(_kind, CODES)}
_OLDER: tuple[_Kind, ...] = ()
"""Kinds at versions before their class's current one (none yet): when a stored class gets a
new `class_version`, its old kind goes here, with the fields it had, so its rows are still read
(and upcast)."""
_BY_CODE = {kind.code: kind for kind in (*_BY_CLASS.values(), *_OLDER)}
_BY_CLASS_CODE = {kind.code: kind for kind in _BY_CLASS.values()}
"""The kinds at their class's current version, by code (rows decoded as they are)."""
_GAME_TOPIC = get_topic(Game)


def code_of(fact_type: type[ev.Event]) -> str:
    """The topic of a fact's rows: its code, and its stored class's version past the first."""
    return _BY_CLASS[STORED_TYPES[fact_type]].code


def topics_of(*fact_types: type[ev.Event]) -> tuple[str, ...]:
    """The topics rows of these facts may have: their code now and the library's long topic
    (rows stored before the compact encoding), to select them from the store."""
    return tuple(
        topic
        for fact_type in fact_types
        for topic in (
            _BY_CLASS[STORED_TYPES[fact_type]].code,
            *(kind.code for kind in _OLDER if kind.fact_type is fact_type),
            STORED_TYPES[fact_type].TOPIC,
        )
    )


class CompactMapper(Mapper[UUID]):
    """The library's mapper, storing a game's events as compact rows (see the module)."""

    def to_stored_event(self, domain_event: Any) -> StoredEvent:
        kind = _BY_CLASS.get(type(domain_event))
        state = vars(domain_event)
        if kind is None or len(state) != kind.width:
            stored = super().to_stored_event(domain_event)
            if type(domain_event) is Snapshot and not (self.compressor or self.cipher):
                return StoredEvent(
                    originator_id=stored.originator_id,
                    originator_version=stored.originator_version,
                    topic=SNAPSHOT_CODE,
                    state=zlib.compress(stored.state),
                )
            return stored
        values = [(state["timestamp"] - EPOCH) // _MICROSECOND]
        values += [state[name] for name in kind.fields]
        try:
            data = _pack(values)
        except (OverflowError, TypeError):  # an int past 64 bits, say: the library's way
            return super().to_stored_event(domain_event)
        if kind.compressed:
            data = zlib.compress(data)
        return StoredEvent(
            originator_id=state["originator_id"],
            originator_version=state["originator_version"],
            topic=kind.code,
            state=self._seal(data),
        )

    def to_domain_event(self, stored_event: StoredEvent) -> Any:
        kind = _BY_CODE.get(stored_event.topic)
        if kind is None:
            if stored_event.topic == SNAPSHOT_CODE:
                stored_event = StoredEvent(
                    originator_id=stored_event.originator_id,
                    originator_version=stored_event.originator_version,
                    topic=_SNAPSHOT_TOPIC,
                    state=zlib.decompress(stored_event.state),
                )
            return super().to_domain_event(stored_event)
        values = self._values(stored_event, kind)
        state: dict[str, Any] = dict(zip(kind.fields, values[1:], strict=True))
        state["timestamp"] = EPOCH + values[0] * _MICROSECOND
        state["originator_id"] = as_uuid(stored_event.originator_id)
        state["originator_version"] = stored_event.originator_version
        if kind.created:
            state["originator_topic"] = _GAME_TOPIC
        current = getattr(kind.stored, "class_version", 1)
        for version in range(kind.version, current):
            getattr(kind.stored, f"upcast_v{version}_v{version + 1}")(state)
        event = object.__new__(kind.stored)
        object.__setattr__(event, "__dict__", state)
        return event

    def to_fact(self, stored_event: StoredEvent) -> tuple[datetime, ev.Event]:
        """A game's stored event as its time and its fact, the rules' event, without the
        stored event object between them where the row allows (what the read models read:
        a rebuild decodes every row of the store here, so the common row takes the shortest
        way, and anything unusual the full one)."""
        kind = _BY_CLASS_CODE.get(stored_event.topic)
        if kind is None:  # no compact row, or one of an older version: upcast on the way
            event = self.to_domain_event(stored_event)
            return event.timestamp, event.fact()
        if not (self.cipher or self.compressor):
            try:
                data = stored_event.state
                values = msgpack.unpackb(zlib.decompress(data) if kind.compressed else data)
                if type(values) is list:
                    # positional: a keyword argument costs timedelta 0.2 us more, once a row
                    return EPOCH + timedelta(0, 0, values[0]), kind.fact_type(*values[1:])
            except Exception:  # the full way below says what is wrong with it
                pass
        values = self._values(stored_event, kind)
        return EPOCH + values[0] * _MICROSECOND, kind.fact_type(*values[1:])

    def _seal(self, data: bytes) -> bytes:
        if self.compressor:
            data = self.compressor.compress(data)
        if self.cipher:
            data = self.cipher.encrypt(data)
        return data

    def _values(self, stored_event: StoredEvent, kind: _Kind) -> list[Any]:
        data = stored_event.state
        try:
            if self.cipher:
                data = self.cipher.decrypt(data)
            if self.compressor:
                data = self.compressor.decompress(data)
            if kind.compressed:
                data = zlib.decompress(data)
            values = _unpack(data)
        except Exception as error:
            raise MapperDeserialisationError(
                f"Failed to deserialise state of stored event with topic '{stored_event.topic}', "
                f"originator_id '{stored_event.originator_id}' and originator_version "
                f"{stored_event.originator_version}: {error}"
            ) from error
        if not isinstance(values, list):
            raise MapperDeserialisationError(
                f"stored event {stored_event.originator_id}/{stored_event.originator_version} "
                f"under code {stored_event.topic} is not an array"
            )
        return values


def _pack(values: list[Any]) -> bytes:
    """MessagePack of JSON-like values: lists (and tuples, as lists), dicts, str, int, bool, None
    (a Packer per call: one shared by threads would mix their buffers)."""
    return msgpack.packb(values, use_bin_type=True)  # type: ignore[no-any-return]


def _unpack(data: bytes) -> Any:
    return msgpack.unpackb(data, raw=False, strict_map_key=True)
