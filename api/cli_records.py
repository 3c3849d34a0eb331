"""`bohnanza export | import | verify | audit`: portable records and rules disputes.

`bohnanza` (api/cli.py) imports this module when one of them runs.
"""

from __future__ import annotations

import json
import sys
from contextlib import ExitStack
from pathlib import Path
from typing import Any, NoReturn
from uuid import UUID

import click

from domain.application import Bohnanza, Outcome
from domain.rules import events as ev
from domain.rules.errors import BohnanzaError
from domain.rules.rulesets import PRESETS
from projections.runner import Projector
from replays.exports import NotAPlay, Play, bgg, bgstats
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
from replays.verify import Report, what_if

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
    """Write a stored game as a portable JSON record, bohnanza-record/1 or /2 (GAME: id or a unique part of it)."""
    with open_store(ctx) as app:
        game_id = _game(app, game)
        notes = annotations_of(app, game_id) if annotations else []
        document = export_game(
            app, game_id, annotations=notes, date=date, place=place, tags=tags or None
        )
    done = f"Exported game {game_id} to {output} ({len(document['commands'])} commands)"
    _write(dumps(document), output, done)


def _write(text: str, output: str | None, done: str) -> None:
    """`text` to standard output, or to the file `output` and then `done` said."""
    if output is None:
        click.echo(text, nl=False)
        return
    try:
        Path(output).write_text(text, encoding="utf-8")
    except OSError as error:
        raise click.FileError(output, error.strerror or str(error)) from None
    click.echo(done)


@click.command("plays")
@click.argument("games", metavar="[GAME]...", nargs=-1)
@click.option(
    "--format",
    "kind",
    type=click.Choice(["bgstats", "bgg"]),
    default="bgstats",
    show_default=True,
    help="bgstats: a BG Stats import file (JSON); bgg: BoardGameGeek's play log (XML API2).",
)
@click.option("-o", "--output", type=click.Path(dir_okay=False), help="Write to this file.")
@click.pass_context
def plays_command(
    ctx: click.Context, games: tuple[str, ...], kind: str, output: str | None
) -> None:
    """Finished games as plays for BG Stats or BoardGameGeek (GAME: id or a unique part of it; none: all).

    Each play holds its date (when the game started, UTC), its length, the players in turn
    order with their scores, the winners and the start player, and a comment naming the
    edition and the game. Running games and what-if forks are no plays: named, they are
    refused; unnamed, they are left out."""
    with open_store(ctx) as app:
        if games:
            ids = [_game(app, ref) for ref in games]
        else:
            ids = [game.game_id for game in app.games() if game.ended]
        found: list[Play] = []
        for game_id in ids:
            try:
                found.append(
                    Play.stored(game_id, app.recorded_facts(game_id), app.corrected_facts(game_id))
                )
            except NotAPlay as error:
                if games:  # asked for by name: say why it is no play
                    raise click.ClickException(str(error)) from None
    text = json.dumps(bgstats(found), indent=2) + "\n" if kind == "bgstats" else bgg(found) + "\n"
    _write(text, output, f"Wrote {len(found)} play{'s' if len(found) != 1 else ''} to {output}")


@click.command("import")
@click.argument("sources", metavar="FILE...", nargs=-1, required=True)
@click.option("--json", "as_json", is_flag=True, help="Print the outcome as JSON.")
@click.pass_context
def import_command(ctx: click.Context, sources: tuple[str, ...], as_json: bool) -> None:
    """Re-decide every command of a record (FILE, or - for stdin) and store it as a new game.

    A record the rules refuse is not stored: the first illegal step is printed (exit status 1).
    Several files are imported one after another under a progress bar, each on its own: one
    that is refused leaves the others stored, and the exit status is 1 if any was refused.
    """
    if len(sources) > 1:
        _import_many(ctx, sources, as_json)
        return
    source = sources[0]
    record = _read(source)
    with open_store(ctx) as app, Projector.for_url(app, ctx.obj.database_url) as projector:
        try:
            imported = import_record(app, record)
        except IllegalRecord as error:
            _refused(error, as_json)
        except AlreadyImported as error:
            raise click.ClickException(f"nothing was stored: {error}") from None
        projector.catch_up()
    if as_json:
        _echo_json(_imported(record, imported.outcome))
        return
    outcome = imported.outcome
    rules = record.ruleset
    click.echo(
        f"Imported as {outcome.game_id} ({outcome.version} events): {rules.preset}, "
        f"{rules.players} players, {record.mode}; {', '.join(record.seats)}"
    )
    click.echo(f"  {_standing(record, outcome)}")
    if record.annotations:
        click.echo(f"  {len(record.annotations)} annotations stored with it")


def _imported(record: Record, outcome: Outcome) -> dict[str, Any]:
    """An import's outcome as JSON."""
    last = outcome.facts[-1]
    result = result_of(last) if isinstance(last, ev.GameEnded) else None
    return {
        "game_id": str(outcome.game_id),
        "version": outcome.version,
        "events": len(outcome.facts),
        "result": None if result is None else result_to_dict(result),
        "annotations": len(record.annotations),
    }


def _standing(record: Record, outcome: Outcome) -> str:
    last = outcome.facts[-1]
    return (
        standing_text(result_of(last), record.seats)
        if isinstance(last, ev.GameEnded)
        else ("in progress")
    )


def _import_many(ctx: click.Context, sources: tuple[str, ...], as_json: bool) -> None:
    """Import each file on its own; the read models catch up once, after the last."""
    done: list[dict[str, Any]] = []
    lines: list[str] = []
    with open_store(ctx) as app, Projector.for_url(app, ctx.obj.database_url) as projector:
        with click.progressbar(sources, label="Importing records", file=sys.stderr) as bar:
            for source in bar:
                try:
                    record = _read(source)
                    outcome = import_record(app, record).outcome
                except (click.ClickException, IllegalRecord, AlreadyImported) as error:
                    reason = _refusal(error)
                    done.append({"file": source, "imported": False, "reason": reason})
                    lines.append(f"{source}: refused, nothing was stored: {reason}")
                    continue
                done.append({"file": source, "imported": True, **_imported(record, outcome)})
                lines.append(
                    f"{source}: imported as {outcome.game_id} ({outcome.version} events): "
                    f"{_standing(record, outcome)}"
                )
        projector.catch_up()
    stored = sum(1 for item in done if item["imported"])
    if as_json:
        _echo_json(done)
    else:
        for line in lines:
            click.echo(line)
        click.echo(f"Imported {stored} of {len(sources)} records.")
    if stored < len(sources):
        raise SystemExit(1)


def _refusal(error: Exception) -> str:
    """Why a record of several was not stored, in one line."""
    if isinstance(error, IllegalRecord):
        failure = error.failure
        return (
            f"illegal at {failure.path} (command {failure.position + 1}, after step "
            f"{failure.after_step}): {failure.error}"
        )
    if isinstance(error, click.ClickException):
        return error.format_message()
    return str(error)


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
@click.argument("targets", metavar="GAME|FILE...", nargs=-1, required=True)
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
    ctx: click.Context,
    targets: tuple[str, ...],
    ruleset: str | None,
    options: tuple[str, ...],
    as_json: bool,
) -> None:
    """Re-decide a stored game or a record file under its own ruleset, or under another.

    GAME is an id or a unique part of it. `--ruleset` and `--option` ask what if the game had been played
    under another preset or with some options changed: the game's other options stay, and the
    report compares the result with the recorded one. Several games or files are verified one
    after another under a progress bar, each report headed by its game or file. Exit status 1
    when one is illegal."""
    changed = parse_options(options)
    with ExitStack() as stack:
        store: list[Bohnanza] = []

        def report_on(target: str) -> Report:
            if target == "-" or Path(target).is_file():
                subject: Record | list[ev.Event] = _read(target)
            else:
                if not store:
                    store.append(stack.enter_context(open_store(ctx)))
                subject = store[0].facts(_game(store[0], target))
            try:
                return what_if(subject, ruleset, changed)
            except BohnanzaError as error:
                named = f"{target}: " if len(targets) > 1 else ""
                raise click.ClickException(f"{named}{error}") from None

        if len(targets) == 1:
            reports = [report_on(targets[0])]
        else:
            with click.progressbar(targets, label="Verifying", file=sys.stderr) as bar:
                reports = [report_on(target) for target in bar]
    if len(targets) == 1:
        _print_report(reports[0], as_json)
    elif as_json:
        _echo_json([{"target": t, **r.to_dict()} for t, r in zip(targets, reports, strict=True)])
    else:
        click.echo("\n\n".join(f"{t}:\n{r.text()}" for t, r in zip(targets, reports, strict=True)))
    if not all(report.legal for report in reports):
        raise SystemExit(1)


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
