"""Compact rows (`domain/encoding.py`): a game's events stored as a code and an array decode to
the very events the library's own mapper gives, and a store written before them still reads,
plays on, exports and rebuilds its read models."""

from __future__ import annotations

import gzip
import json
import random
import shutil
from collections.abc import Iterator
from datetime import UTC, datetime
from pathlib import Path
from typing import Any
from uuid import UUID, uuid4

import pytest
from eventsourcing.compressor import ZlibCompressor
from eventsourcing.persistence import Mapper, StoredEvent
from eventsourcing.utils import get_topic

from domain.aggregate import STORED_TYPES, Game
from domain.application import Bohnanza
from domain.bots import BOTS, Table, play_stored, simulate
from domain.encoding import CODES, CompactMapper, code_of
from domain.rules import commands as cmd
from domain.rules import events as ev
from domain.rules.errata import decide_correction, effective
from projections.insights import game_insights, insights
from projections.runner import Projector
from projections.views import AUDITOR_VIEWER
from replays.games import export_game
from tests.games import CONFIGS, OPTION_VALUES, digital_game, tabletop_game

DATA = Path(__file__).parent.parent / "data"
OLD_STORE = DATA / "store-before-compact-rows.sqlite3.gz"
OLD_SAYINGS = DATA / "store-before-compact-rows.json.gz"


def every_kind_of_fact() -> Iterator[ev.Event]:
    """Facts of every kind: complete games of every preset and player count, every option, a
    tabletop game with a correction, and the facts no bot game records."""
    for preset, players in CONFIGS:
        yield from digital_game(preset, players, 1)
    for option, value in OPTION_VALUES:
        yield from digital_game_with(option, value)
    tabletop = list(tabletop_game("rio-grande", 3, 1))
    yield from tabletop
    yield decide_correction(
        effective(tabletop), cmd.Correct((cmd.Change(625, cmd.INSERT, cmd.Harvest(1, 2)),))
    )
    yield ev.TradeWithdrawn(3, 1)
    yield ev.HandNoted(2, ["soy", "?", "wax"])
    yield ev.HandShown(0, ["blue", "chili"])


def digital_game_with(option: str, value: Any) -> list[ev.Event]:
    return simulate(
        "rio-grande", 2 if option.startswith("duel") else 3, seed=2, options={option: value}
    )


def stored_events(facts: list[ev.Event]) -> list[Any]:
    """The facts as a game's stored events, made directly (not applied: the few facts made up
    above belong to no game), a new game at each GameStarted."""
    events: list[Any] = []
    game_id, version = uuid4(), 0
    for fact in facts:
        stored = STORED_TYPES[type(fact)]
        extra: dict[str, Any] = {}
        if isinstance(fact, ev.GameStarted):
            game_id, version = uuid4(), 0
            extra["originator_topic"] = get_topic(Game)
        version += 1
        events.append(
            stored(
                originator_id=game_id,
                originator_version=version,
                timestamp=datetime.now(UTC),
                **extra,
                **fact.payload(),
            )
        )
    return events


@pytest.fixture(scope="module")
def every_event() -> list[Any]:
    facts = list(every_kind_of_fact())
    assert {type(fact) for fact in facts} == set(ev.EVENT_TYPES.values())
    return stored_events(facts)


@pytest.fixture(scope="module", params=["plain", "compressed"])
def mappers(request: pytest.FixtureRequest) -> tuple[CompactMapper, Mapper[UUID]]:
    """The compact mapper and the library's own, as the store configures them (with the
    library's compressor, or without)."""
    app = Bohnanza.from_url("memory://")
    compressor = ZlibCompressor() if request.param == "compressed" else None
    compact = CompactMapper(transcoder=app.mapper.transcoder, compressor=compressor)
    return compact, Mapper[UUID](transcoder=app.mapper.transcoder, compressor=compressor)


def test_every_fact_has_a_code_of_its_own() -> None:
    assert set(CODES) == set(ev.EVENT_TYPES.values())
    assert len(set(CODES.values())) == len(CODES)
    assert all(len(code) == 2 and code.isupper() for code in CODES.values())


def test_every_kind_of_event_decodes_from_its_compact_row_as_from_the_librarys_json(
    every_event: list[Any], mappers: tuple[CompactMapper, Mapper[UUID]]
) -> None:
    compact, library = mappers
    for event in every_event:
        row, json_row = compact.to_stored_event(event), library.to_stored_event(event)

        assert row.topic == code_of(event.fact_type)
        decoded = compact.to_domain_event(row)
        assert type(decoded) is type(event)
        assert vars(decoded) == vars(library.to_domain_event(json_row)) == vars(event)
        assert compact.to_fact(row) == (event.timestamp, event.fact())


def test_the_compact_rows_of_a_game_take_under_a_quarter_of_the_librarys(
    every_event: list[Any],
) -> None:
    transcoder = Bohnanza.from_url("memory://").mapper.transcoder
    compact, library = CompactMapper(transcoder=transcoder), Mapper[UUID](transcoder=transcoder)
    rows = sum(len(compact.to_stored_event(e).state) for e in every_event)
    json_rows = sum(len(library.to_stored_event(e).state) for e in every_event)

    assert rows * 4 < json_rows


def test_a_row_stored_by_the_librarys_mapper_is_still_read(every_event: list[Any]) -> None:
    app = Bohnanza.from_url("memory://")
    library = Mapper[UUID](transcoder=app.mapper.transcoder)
    for event in every_event[:50]:
        json_row = library.to_stored_event(event)

        assert json_row.topic == STORED_TYPES[event.fact_type].TOPIC
        assert vars(app.mapper.to_domain_event(json_row)) == vars(event)
        assert app.recorded_fact(json_row) == (event.timestamp, event.fact())  # type: ignore[arg-type]


def test_an_int_too_large_for_a_compact_row_is_stored_the_librarys_way() -> None:
    app = Bohnanza.from_url("memory://")
    started = digital_game("rio-grande", 3, 1)[0]
    assert isinstance(started, ev.GameStarted)
    game = Game.start(ev.GameStarted(**{**started.payload(), "seed": 2**70}))
    (event,) = game.collect_events()

    row = app.mapper.to_stored_event(event)

    assert row.topic == "bohnanza:GameStarted"
    assert vars(app.mapper.to_domain_event(row)) == vars(event)


@pytest.mark.parametrize(
    ("state", "error"),
    [
        (b"\xc1 not msgpack", "Failed to deserialise state of stored event"),
        (b"\xc4\x03abc", "is not an array"),  # bytes, which index as a list of ints would
    ],
)
@pytest.mark.parametrize("read", ["to_domain_event", "to_fact"])
def test_a_corrupt_compact_row_is_a_deserialisation_error(
    state: bytes, error: str, read: str
) -> None:
    app = Bohnanza.from_url("memory://")
    row = StoredEvent(UUID(int=9), 2, "TD", state)

    with pytest.raises(ValueError, match=error):
        getattr(app.mapper, read)(row)


# --- a store written before the compact rows ---------------------------------------------------


@pytest.fixture
def old_store(tmp_path: Path) -> Iterator[tuple[str, dict[str, Any]]]:
    """A copy of the store written on 4 Dec 2026 before compact rows, and what that version
    said of its games (tests/data/README.md)."""
    path = tmp_path / "old.sqlite3"
    with gzip.open(OLD_STORE) as packed, path.open("wb") as unpacked:
        shutil.copyfileobj(packed, unpacked)
    with gzip.open(OLD_SAYINGS) as said:
        yield f"sqlite:///{path}", json.load(said)


def as_json(value: Any) -> Any:
    return json.loads(json.dumps(value, sort_keys=True, default=str))


def test_a_store_written_before_compact_rows_reads_its_games_as_that_version_did(
    old_store: tuple[str, dict[str, Any]],
) -> None:
    url, said = old_store
    with Bohnanza.from_url(url) as app:
        for name, game_id in said["ids"].items():
            rows = app.recorder.select_events(UUID(game_id), limit=3)
            assert all(row.topic.startswith("bohnanza:") for row in rows)

            assert app.state(UUID(game_id)).to_dict() == said["states"][name]
            assert as_json(export_game(app, UUID(game_id))) == said["records"][name]


def test_a_game_stored_before_compact_rows_plays_on_in_compact_rows_and_reads_whole(
    old_store: tuple[str, dict[str, Any]],
) -> None:
    url, said = old_store
    game_id = UUID(said["ids"]["running"])
    with Bohnanza.from_url(url) as app:
        before = app.game(game_id).version
        bots = Table([BOTS["random"]() for _ in range(4)], random.Random(7))

        final = play_stored(app, game_id, bots)

        topics = [row.topic for row in app.recorder.select_events(game_id)]
        assert all(topic.startswith("bohnanza:") for topic in topics[:before])
        assert all(topic in CODES.values() for topic in topics[before:])
        assert final.is_over
        assert app.refold(game_id) == final


def test_the_read_models_of_a_store_written_before_compact_rows_rebuild_from_both_kinds_of_row(
    old_store: tuple[str, dict[str, Any]],
) -> None:
    url, said = old_store
    with Bohnanza.from_url(url) as app, Projector.for_url(app, url) as projector:
        running = UUID(said["ids"]["running"])
        app.execute(
            running,
            Table([BOTS["random"]() for _ in range(4)], random.Random(3)).next_command(
                app.state(running)
            ),
        )

        rebuilt = projector.rebuild()

        assert rebuilt.position == app.position()
        for game_id in said["ids"].values():
            stream = app.facts(UUID(game_id))
            assert game_insights(projector.engine, UUID(game_id), AUDITOR_VIEWER) == insights(
                stream, AUDITOR_VIEWER
            )
