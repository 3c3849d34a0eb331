"""Records and the store: export a stored game, import a record as a new game (on memory, a
SQLite file and PostgreSQL), verify and audit stored games; and the same through the command
line (`export`, `import`, `verify`, `audit`, on a local click group until `bohnanza` has them)."""

from __future__ import annotations

import json
import threading
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from uuid import UUID, uuid4

import click
import pytest
from click.testing import CliRunner
from eventsourcing.persistence import OperationalError

from api.cli import main as bohnanza
from api.cli_records import COMMANDS
from api.settings import Settings
from domain.application import SNAPSHOT_INTERVAL, Bohnanza, project_game
from domain.bots import simulate
from domain.rules import events as ev
from domain.rules.errors import Conflict
from domain.rules.evolve import fold
from replays.annotations import Author, add_note
from replays.games import (
    AlreadyImported,
    annotations_of,
    audit_stored_game,
    export_game,
    import_record,
    prepare_import,
    store_import,
    verify_game,
)
from replays.record import IllegalRecord, dumps, export_record
from tests.played import finish_stored

SEATS = ["Ana", "Ben", "Cleo", "Dan"]


def play(app: Bohnanza, preset: str = "amigo-1997", seed: int = 3) -> list[ev.Event]:
    """A complete bot game stored through the application; its facts."""
    started = app.start_game(SEATS, preset=preset, seed=seed)
    finish_stored(app, started.game_id, seed=seed)
    return app.facts(started.game_id)


def game_id_of(app: Bohnanza, facts: list[ev.Event]):
    (summary,) = [s for s in app.games() if app.facts(s.game_id) == facts]
    return summary.game_id


# --- the application ------------------------------------------------------------------------------


def test_an_imported_record_becomes_a_new_game_with_identical_events_and_scores(app):
    facts = play(app)
    original = game_id_of(app, facts)

    imported = import_record(app, export_game(app, original))

    assert imported.game_id != original
    assert app.facts(imported.game_id) == facts
    assert app.state(imported.game_id).result == app.state(original).result
    assert imported.outcome.version == len(facts)


def test_importing_the_same_record_again_is_refused_naming_the_game_it_became(app):
    document = export_record(simulate("rio-grande", 3, bot="random", seed=2))
    first = import_record(app, document)

    with pytest.raises(AlreadyImported) as refused:
        import_record(app, document)

    assert refused.value.game_id == first.game_id
    assert [game.game_id for game in app.games()] == [first.game_id]


def test_a_record_laid_out_otherwise_with_other_notes_is_the_same_game(app):
    document = export_record(simulate("rio-grande", 3, bot="random", seed=2))
    first = import_record(app, document)
    other = json.loads(json.dumps(document, indent=1, sort_keys=True))
    other["annotations"] = [
        {"step": 3, "author": "Kim", "text": "mine", "glyph": None, "visibility": "public"}
    ]

    with pytest.raises(AlreadyImported):
        import_record(app, other)

    assert [game.game_id for game in app.games()] == [first.game_id]


def test_a_record_that_stops_before_the_end_is_stored_as_a_new_game_each_time(app):
    """Its id and a refusal would otherwise tell whether guessed hidden cards are right."""
    running = simulate("rio-grande", 2, bot="random", seed=2)[:12]
    document = export_record(running)

    first = import_record(app, document)
    second = import_record(app, document)

    assert first.game_id != second.game_id
    assert app.facts(first.game_id) == app.facts(second.game_id) == running


def test_two_imports_of_one_record_at_once_store_it_once(app):
    document = export_record(simulate("rio-grande", 3, bot="greedy", seed=5))
    barrier = threading.Barrier(2, timeout=10)

    def attempt() -> UUID | AlreadyImported:
        prepared = prepare_import(document)
        barrier.wait()  # both have re-decided it; both store it now
        try:
            return store_import(app, prepared).game_id
        except AlreadyImported as refused:
            return refused

    with ThreadPoolExecutor(2) as pool:
        results = list(pool.map(lambda _: attempt(), range(2)))

    stored = [r for r in results if isinstance(r, UUID)]
    refused = [r for r in results if isinstance(r, AlreadyImported)]
    assert len(stored) == len(refused) == 1
    assert refused[0].game_id == stored[0]
    assert [game.game_id for game in app.games()] == stored


def test_an_illegal_record_is_refused_and_nothing_is_stored(app):
    document = export_record(simulate("amigo", 4, bot="greedy", seed=1))
    document["commands"].insert(5, {"type": "buy-field", "seat": 0})

    with pytest.raises(IllegalRecord) as refused:
        import_record(app, document)

    assert refused.value.failure.position == 5
    assert refused.value.failure.section == "9.4"
    assert app.games() == []


def test_a_long_imported_game_is_snapshotted_and_reads_back_the_same(app):
    facts = simulate("rio-grande", 5, bot="greedy", seed=6)

    imported = import_record(app, export_record(facts))

    snapshots = [s.originator_version for s in app.snapshots.get(imported.game_id)]
    assert snapshots == [len(facts) - len(facts) % SNAPSHOT_INTERVAL]
    assert app.state(imported.game_id) == fold(facts) == app.refold(imported.game_id)


def test_a_recorded_game_s_snapshot_is_the_game_at_its_version_as_the_store_tells_it(app):
    facts = simulate("rio-grande", 5, bot="greedy", seed=6)

    recorded = app.record_game(facts)

    (snapshot,) = app.snapshots.get(recorded.game_id)
    version = snapshot.originator_version
    restored = snapshot.mutate(None)
    stored = app.repository.get(recorded.game_id, version=version, projector_func=project_game)
    assert (restored.version, restored.state) == (version, fold(facts[:version]))
    assert (restored.created_on, restored.modified_on) == (stored.created_on, stored.modified_on)
    assert app.state(recorded.game_id) == fold(facts)


def test_a_failed_snapshot_leaves_the_recorded_game_standing(app, monkeypatch, caplog):
    def broken(snapshots: object) -> None:
        raise OperationalError("the snapshot store is down")

    monkeypatch.setattr(app.snapshots, "put", broken)
    facts = simulate("rio-grande", 5, bot="greedy", seed=6)

    recorded = app.record_game(facts)

    assert app.facts(recorded.game_id) == facts
    assert f"snapshot of game {recorded.game_id} at version {SNAPSHOT_INTERVAL}" in caplog.text


def test_recording_a_game_under_an_id_that_is_taken_is_a_conflict(app):
    facts = simulate("rio-grande", 3, bot="random", seed=2)
    game_id = uuid4()
    app.record_game(facts, game_id=game_id)

    with pytest.raises(Conflict, match="is stored already"):
        app.record_game(facts, game_id=game_id)

    assert app.facts(game_id) == facts


def test_an_export_is_dated_by_when_the_game_started(app):
    facts = play(app)
    game_id = game_id_of(app, facts)

    document = export_game(app, game_id, place="Club", tags=["league"])

    started = app.recorded_facts(game_id)[0].recorded_at
    assert document["header"]["date"] == started.isoformat()
    assert (document["header"]["place"], document["header"]["tags"]) == ("Club", ["league"])


def test_an_imported_record_exports_again_with_its_own_date_place_and_tags(app):
    facts = play(app)
    document = export_game(
        app, game_id_of(app, facts), date="2025-06-01", place="Club", tags=["league", "final"]
    )
    imported = import_record(app, document)

    again = export_game(app, imported.game_id)

    assert again["header"] == document["header"]


def test_an_export_of_an_imported_record_may_give_another_place_and_tags(app):
    facts = play(app)
    document = export_game(app, game_id_of(app, facts), place="Club", tags=["league"])
    imported = import_record(app, document)

    again = export_game(app, imported.game_id, place="Home", tags=["friendly"])

    assert (again["header"]["place"], again["header"]["tags"]) == ("Home", ["friendly"])
    assert again["header"]["date"] == document["header"]["date"]


def test_a_game_s_notes_are_exported_as_annotations(app):
    facts = play(app)
    game_id = game_id_of(app, facts)
    add_note(app, game_id, facts, step=12, author=Author("host", "Hal"), text="Risky!", glyph="!?")

    document = export_game(app, game_id, annotations=annotations_of(app, game_id))

    (annotation,) = document["annotations"]
    assert annotation["step"] == 12
    assert annotation["author"] == {"role": "host", "name": "Hal", "seat": None}
    assert (annotation["text"], annotation["glyph"]) == ("Risky!", "!?")
    assert import_record(app, document).record.annotations == (annotation,)


def test_a_stored_game_is_verified_and_audited(app):
    facts = play(app)
    game_id = game_id_of(app, facts)

    assert verify_game(app, game_id).same_outcome
    assert verify_game(app, game_id, "amigo").failure.section == "9.4"
    assert audit_stored_game(app, game_id) == []


# --- the command line -----------------------------------------------------------------------------


@pytest.fixture
def store(tmp_path: Path) -> str:
    return f"sqlite:///{tmp_path / 'records.sqlite3'}"


@pytest.fixture
def run(store, tmp_path):
    @click.group()
    @click.pass_context
    def cli(ctx: click.Context) -> None:
        ctx.obj = Settings(database_url=store, data_dir=tmp_path)

    for command in COMMANDS:
        cli.add_command(command)
    runner = CliRunner()

    def invoke(*args: str, stdin: str | None = None):
        return runner.invoke(cli, list(args), input=stdin, catch_exceptions=False)

    return invoke


@pytest.fixture
def stored(store) -> str:
    """The id of a complete amigo-1997 game stored in the CLI's store."""
    with Bohnanza.from_url(store) as app:
        return str(game_id_of(app, play(app)))


def test_the_cli_exports_a_game_to_a_file_and_imports_it_as_a_new_game(run, stored, tmp_path):
    path = tmp_path / "game.json"

    exported = run("export", stored[-8:], "-o", str(path), "--place", "Club", "--tag", "final")
    imported = run("import", str(path))

    assert exported.exit_code == 0
    assert f"Exported game {stored} to {path}" in exported.output
    assert json.loads(path.read_text())["header"]["tags"] == ["final"]
    assert imported.exit_code == 0
    assert imported.output.startswith("Imported as ")
    assert "amigo-1997, 4 players, digital; Ana, Ben, Cleo, Dan" in imported.output
    assert stored not in imported.output


def test_the_cli_exports_to_standard_output_and_imports_from_standard_input(run, stored, store):
    exported = run("export", stored)

    imported = run("import", "-", "--json", stdin=exported.output)

    assert json.loads(exported.output)["format"] == "bohnanza-record/1"
    outcome = json.loads(imported.output)
    assert outcome["game_id"] != stored
    with Bohnanza.from_url(store) as app:
        assert app.facts(UUID(outcome["game_id"])) == app.facts(UUID(stored))


def test_the_cli_refuses_an_illegal_record_naming_its_first_illegal_step(run, tmp_path):
    document = export_record(simulate("rio-grande", 4, bot="greedy", seed=1))
    document["commands"].insert(3, {"type": "end-trading", "seat": 2})
    path = tmp_path / "broken.json"
    path.write_text(dumps(document))

    result = run("import", str(path))

    assert result.exit_code == 1
    assert "Refused: the record is illegal at $.commands[3]" in result.output
    assert "nothing was stored" in result.output


def test_the_cli_refuses_a_record_imported_before_naming_its_game(run, tmp_path):
    path = tmp_path / "game.json"
    path.write_text(dumps(export_record(simulate("rio-grande", 3, bot="greedy", seed=1))))
    first = run("import", str(path), "--json")

    again = run("import", str(path))

    game_id = json.loads(first.output)["game_id"]
    assert again.exit_code == 1
    assert f"nothing was stored: this record is stored already, as game {game_id}" in again.output


def test_the_cli_refuses_a_malformed_record_naming_the_json_path(run, tmp_path):
    path = tmp_path / "bad.json"
    path.write_text(json.dumps({"format": "bohnanza-record/1", "header": {}, "commands": []}))

    result = run("import", str(path))

    assert result.exit_code == 1
    assert f"{path} is not a valid record: $.header: 'ruleset' is a required property" in (
        result.output
    )


def test_the_cli_imports_several_records_each_on_its_own_and_says_which_were_refused(run, tmp_path):
    paths = [tmp_path / f"game{seed}.json" for seed in (1, 2)]
    for seed, path in enumerate(paths, 1):
        path.write_text(dumps(export_record(simulate("rio-grande", 3, bot="greedy", seed=seed))))
    broken = tmp_path / "broken.json"
    document = export_record(simulate("rio-grande", 4, bot="greedy", seed=1))
    document["commands"].insert(3, {"type": "end-trading", "seat": 2})
    broken.write_text(dumps(document))

    result = run("import", str(paths[0]), str(broken), str(paths[1]))

    assert result.exit_code == 1
    lines = result.output.splitlines()
    assert lines[0] == "Importing records"  # the progress bar, drawn only on a terminal
    assert lines[1].startswith(f"{paths[0]}: imported as ")
    assert lines[2].startswith(f"{broken}: refused, nothing was stored: illegal at $.commands[3]")
    assert lines[3].startswith(f"{paths[1]}: imported as ")
    assert lines[4] == "Imported 2 of 3 records."


def test_the_cli_verifies_several_games_with_one_report_each(run, stored, tmp_path):
    path = tmp_path / "game.json"
    run("export", stored, "-o", str(path))

    result = run("verify", stored[-8:], str(path), "--json")

    reports = json.loads(result.output.split("\n", 1)[1])
    assert result.exit_code == 0
    assert [report["target"] for report in reports] == [stored[-8:], str(path)]
    assert [report["verdict"] for report in reports] == ["legal", "legal"]


def test_the_cli_verifies_a_record_file_under_another_ruleset(run, stored, tmp_path):
    path = tmp_path / "game.json"
    run("export", stored, "-o", str(path))

    result = run("verify", str(path), "--ruleset", "amigo")

    assert result.exit_code == 1
    assert result.output.startswith("Illegal under amigo (4 players), re-decided in tabletop form.")
    assert "RULES §9.4 (third bean field: not for sale)" in result.output
    assert "The table before it:" in result.output


def test_the_cli_verifies_a_stored_game_with_options_as_json(run, stored):
    result = run("verify", stored[-8:], "--option", "tie_break=seat-distance", "--json")

    report = json.loads(result.output)
    assert result.exit_code == 0
    assert report["verdict"] == "legal"
    assert report["ruleset"]["options"] == {"tie_break": ["seat-distance"]}
    assert report["result"]["decided_by"] in (None, "seat-distance")


def test_the_cli_audits_a_stored_game(run, stored):
    result = run("audit", stored[-8:])

    assert result.exit_code == 0
    assert "no problems in" in result.output


def test_the_cli_names_an_unknown_game(run):
    result = run("audit", "ffffffff")

    assert result.exit_code == 1
    assert "no game's id holds 'ffffffff'" in result.output


def test_the_records_commands_are_on_the_bohnanza_command_line():
    names = {command.name for command in COMMANDS}
    context = click.Context(bohnanza)

    assert names == {"export", "import", "verify", "audit"}
    for command in COMMANDS:
        assert bohnanza.get_command(context, command.name) is command


def test_the_cli_refuses_an_export_date_that_is_not_iso_8601(run, stored):
    result = run("export", stored, "--date", "last Friday")

    assert result.exit_code == 2
    assert "'last Friday' is not an ISO 8601 date such as 2026-11-29" in result.output
