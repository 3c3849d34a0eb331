"""`bohnanza export | import | verify | audit`: portable records and rules disputes.

Register on the main group with `for command in COMMANDS: main.add_command(command)`.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any, NoReturn
from uuid import UUID

import click

from domain.application import Bohnanza
from domain.rules import events as ev
from domain.rules.errors import BohnanzaError
from domain.rules.rulesets import PRESETS, Ruleset
from projections.runner import Projector
from replays.games import (
    AlreadyImported,
    annotations_of,
    audit_stored_game,
    export_game,
    import_record,
)
from replays.record import (
    IllegalRecord,
    Record,
    date_problem,
    dumps,
    load_record,
    result_of,
    result_to_dict,
    standing_text,
)
from replays.verify import Report, verify

from .cli_support import find_game, open_store, parse_options


def _game(app: Bohnanza, ref: str) -> UUID:
    return find_game(app, ref)


def _read(source: str) -> Record:
    """A record from a file, or from standard input for "-"."""
    try:
        with click.open_file(source, encoding="utf-8") as file:
            text = file.read()
    except OSError as error:
        raise click.ClickException(f"cannot read {source}: {error.strerror}") from None
    try:
        return load_record(text)
    except BohnanzaError as error:
        raise click.ClickException(f"{source} is not a valid record: {error}") from None


def _echo_json(data: Any) -> None:
    click.echo(json.dumps(data, indent=2, ensure_ascii=False, default=str))


def _check_date(_ctx: click.Context, _param: click.Parameter, value: str | None) -> str | None:
    problem = date_problem(value)
    if problem is not None:
        raise click.BadParameter(problem)
    return value


@click.command("export")
@click.argument("game")
@click.option(
    "-o", "--output", type=click.Path(dir_okay=False, writable=True), help="File [default: stdout]."
)
@click.option(
    "--date",
    callback=_check_date,
    help="When it was played, e.g. 2026-11-29 [default: the imported record's, or when it "
    "was started].",
)
@click.option("--place", help="Where it was played [default: the imported record's].")
@click.option(
    "--tag", "tags", multiple=True, help="A free-form tag (repeatable) [default: the record's]."
)
@click.option(
    "--annotations/--no-annotations", default=True, show_default=True, help="Include every note."
)
@click.pass_context
def export_command(
    ctx: click.Context,
    game: str,
    output: str | None,
    date: str | None,
    place: str | None,
    tags: tuple[str, ...],
    annotations: bool,
) -> None:
    """Write a stored game as a portable bohnanza-record/1 JSON record (GAME: id or id prefix)."""
    with open_store(ctx) as app:
        game_id = _game(app, game)
        notes = annotations_of(app, game_id) if annotations else []
        document = export_game(
            app, game_id, annotations=notes, date=date, place=place, tags=tags or None
        )
    text = dumps(document)
    if output is None:
        click.echo(text, nl=False)
        return
    try:
        Path(output).write_text(text, encoding="utf-8")
    except OSError as error:
        raise click.FileError(output, error.strerror or str(error)) from None
    click.echo(f"Exported game {game_id} to {output} ({len(document['commands'])} commands)")


@click.command("import")
@click.argument("source", metavar="FILE")
@click.option("--json", "as_json", is_flag=True, help="Print the outcome as JSON.")
@click.pass_context
def import_command(ctx: click.Context, source: str, as_json: bool) -> None:
    """Re-decide every command of a record (FILE, or - for stdin) and store it as a new game.

    A record the rules refuse is not stored: the first illegal step is printed (exit status 1).
    """
    record = _read(source)
    with open_store(ctx) as app, Projector.for_url(app, ctx.obj.database_url) as projector:
        try:
            imported = import_record(app, record)
        except IllegalRecord as error:
            _refused(error, as_json)
        except AlreadyImported as error:
            raise click.ClickException(f"nothing was stored: {error}") from None
        projector.catch_up()
    outcome = imported.outcome
    last = outcome.facts[-1]
    result = result_of(last) if isinstance(last, ev.GameEnded) else None
    if as_json:
        _echo_json(
            {
                "game_id": str(outcome.game_id),
                "version": outcome.version,
                "events": len(outcome.facts),
                "result": None if result is None else result_to_dict(result),
                "annotations": len(record.annotations),
            }
        )
        return
    rules = record.ruleset
    click.echo(
        f"Imported as {outcome.game_id} ({outcome.version} events): {rules.preset}, "
        f"{rules.players} players, {record.mode}; {', '.join(record.seats)}"
    )
    click.echo(f"  {'in progress' if result is None else standing_text(result, record.seats)}")
    if record.annotations:
        click.echo(f"  {len(record.annotations)} annotations stored with it")


def _refused(error: IllegalRecord, as_json: bool) -> NoReturn:
    failure = error.failure
    if as_json:
        _echo_json({"imported": False, "first_illegal_step": failure.to_dict()})
    else:
        click.echo(
            f"Refused: the record is illegal at {failure.path} (command {failure.position + 1}, "
            f"after step {failure.after_step}); nothing was stored.",
            err=True,
        )
        click.echo(f"  command: {json.dumps(failure.command.to_dict())}", err=True)
        click.echo(f"  {failure.error}", err=True)
    raise SystemExit(1)


@click.command("verify")
@click.argument("target", metavar="GAME|FILE")
@click.option(
    "--ruleset",
    type=click.Choice(list(PRESETS)),
    help="Check under this preset, with the game's own options [default: the game's preset].",
)
@click.option(
    "--option",
    "options",
    multiple=True,
    metavar="NAME=VALUE",
    help="A ruleset option changed from the game's own; its other options stay (repeatable).",
)
@click.option("--json", "as_json", is_flag=True, help="Print the report as JSON.")
@click.pass_context
def verify_command(
    ctx: click.Context, target: str, ruleset: str | None, options: tuple[str, ...], as_json: bool
) -> None:
    """Re-decide a stored game or a record file under its own ruleset, or under another.

    GAME is an id or id prefix. `--ruleset` and `--option` ask what if the game had been played
    under another preset or with some options changed: the game's other options stay, and the
    report compares the result with the recorded one. Exit status 1 when illegal."""
    changed = parse_options(options)
    try:
        if target == "-" or Path(target).is_file():
            subject: Record | list[ev.Event] = _read(target)
        else:
            with open_store(ctx) as app:
                subject = app.facts(_game(app, target))
        what_if = ruleset is not None or bool(changed)
        report = verify(subject, ruleset, {**_own_options(subject), **changed} if what_if else None)
    except BohnanzaError as error:
        raise click.ClickException(str(error)) from None
    _print_report(report, as_json)
    if not report.legal:
        raise SystemExit(1)


def _own_options(subject: Record | list[ev.Event]) -> dict[str, Any]:
    """The options a record or a stored game was played with."""
    if isinstance(subject, Record):
        return dict(subject.ruleset.options)
    started = subject[0]
    assert isinstance(started, ev.GameStarted)
    return dict(Ruleset.from_dict(started.ruleset).options)


def _print_report(report: Report, as_json: bool) -> None:
    if as_json:
        _echo_json(report.to_dict())
    else:
        click.echo(report.text())


@click.command("audit")
@click.argument("game")
@click.option("--json", "as_json", is_flag=True, help="Print the problems as JSON.")
@click.pass_context
def audit_command(ctx: click.Context, game: str, as_json: bool) -> None:
    """Check a stored game's invariants and that re-deciding its commands gives its facts.

    The invariants: every card accounted for, hand order, scores = coins. Exit status 1 when a
    problem is found."""
    with open_store(ctx) as app:
        game_id = _game(app, game)
        problems = audit_stored_game(app, game_id)
        events = len(app.facts(game_id))
    if as_json:
        _echo_json(
            {
                "game_id": str(game_id),
                "events": events,
                "problems": [
                    {"position": p.position, "fact": p.fact, "message": p.message} for p in problems
                ],
            }
        )
    elif not problems:
        click.echo(
            f"Game {game_id}: no problems in {events} events — every card accounted for, hand "
            "order kept, scores equal coins, and re-deciding the commands gives the same facts."
        )
    else:
        click.echo(f"Game {game_id}: {len(problems)} problems in {events} events")
        for problem in problems:
            click.echo(f"  {problem}")
    if problems:
        raise SystemExit(1)


COMMANDS = (export_command, import_command, verify_command, audit_command)
"""The commands this module adds to `bohnanza`."""
