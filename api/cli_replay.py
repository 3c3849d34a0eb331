"""`bohnanza replay GAME`: step through a stored game as one viewer saw it.

The game's facts are read from the store once; every step after that is folded in memory
(`replays.steps.Replay`).
"""

from __future__ import annotations

import sys

import click

from domain.rules.errors import BohnanzaError
from projections.views import AUDITOR, HOST, PUBLIC, Viewer
from replays.steps import Replay
from replays.text import change_line, draw_view, step_heading, viewer_text

from .cli_support import find_game, open_store

PROMPT = (
    "[Enter] next · b back · N step N · t N turn N · n KIND next KIND · p KIND previous · q quit"
)


def parse_viewer(text: str, names: tuple[str, ...]) -> Viewer:
    """A viewer from `--as`: public, host, auditor, a seat number (from 0) or a seat's name."""
    word = text.strip()
    if word.lower() in (PUBLIC, HOST, AUDITOR):
        return Viewer(word.lower())
    if word.isdigit() and int(word) < len(names):
        return Viewer.of_seat(int(word))
    for seat, name in enumerate(names):
        if name.lower() == word.lower():
            return Viewer.of_seat(seat)
    seats = ", ".join(f"{seat} ({name})" for seat, name in enumerate(names))
    raise click.BadParameter(
        f"{text!r} is not public, host, auditor or a seat of this game: {seats}",
        param_hint="--as",
    )


def _step_text(replay: Replay, position: int, viewer: Viewer, *, table: bool) -> str:
    changed = replay.changes(position, viewer)
    lines = [step_heading(changed.step, len(replay), replay.names), f"  {changed.summary}"]
    if position > 1:
        lines += [f"    {change_line(change)}" for change in changed.changes]
    if table:
        lines += ["", draw_view(replay.view_at(position, viewer), viewer)]
    return "\n".join(lines)


def _list_steps(replay: Replay, turn: int | None) -> None:
    if turn is not None:
        replay.turn_start(turn)  # NotFound for a turn the record does not have
    for step in replay.steps():
        if turn is None or step.turn == turn:
            click.echo(f"{step.position:>5}  {step.phase:<13} {step.summary}")


def _print_through(replay: Replay, viewer: Viewer) -> None:
    """Every step with what changed; the table after the deal, at each turn's end and at the end."""
    for step in replay.steps():
        table = step.kind in ("CardsDealt", "TurnEnded") or step.position == len(replay)
        click.echo(_step_text(replay, step.position, viewer, table=table))
        click.echo("")


def _page(replay: Replay, viewer: Viewer, start: int) -> None:
    """One step at a time, waiting for Enter; other keys jump (see PROMPT)."""
    position, last = start, len(replay)
    while True:
        click.echo(_step_text(replay, position, viewer, table=True))
        while True:
            try:
                answer = click.prompt(PROMPT, default="", show_default=False).strip()
            except click.Abort:
                return
            target, error = _target(replay, position, answer)
            if error:
                click.echo(error)
                continue
            if target is None:
                return
            break
        position = target
        click.echo("")
        if position > last:
            click.echo("End of the record.")
            return


def _target(replay: Replay, position: int, answer: str) -> tuple[int | None, str | None]:
    """Where an answer at the prompt goes: (position or None to stop, error)."""
    word, _, rest = answer.partition(" ")
    rest = rest.strip()
    try:
        if not answer:
            return position + 1, None
        if answer == "q":
            return None, None
        if answer == "b":
            return max(1, position - 1), None
        if answer.isdigit():
            return replay.step(int(answer)).position, None
        if word == "t" and rest.isdigit():
            return replay.turn_start(int(rest)), None
        if word in ("n", "p") and rest:
            found = (
                replay.next_of(rest, position)
                if word == "n"
                else replay.previous_of(rest, position)
            )
            where = "after" if word == "n" else "before"
            if found is None:
                return None, f"no {rest} {where} step {position}"
            return found, None
    except BohnanzaError as error:
        return None, str(error)
    return None, f"{answer!r}? {PROMPT}"


@click.command()
@click.argument("game")
@click.option(
    "--as",
    "as_viewer",
    default=PUBLIC,
    show_default=True,
    metavar="SEAT|public|host|auditor",
    help="Whose view: a seat (number from 0, or name), the public, the host, or an auditor "
    "(every hand and the draw pile; only once the game is over).",
)
@click.option("--step", type=click.IntRange(min=1), help="Print this step (1 = the start).")
@click.option("--turn", type=click.IntRange(min=0), help="Print the first step of this turn.")
@click.option("--list", "list_steps", is_flag=True, help="List the steps (of --turn only).")
@click.option(
    "--page/--no-page",
    default=None,
    help="Wait for Enter between steps [default: when the output is a terminal].",
)
@click.pass_context
def replay(
    ctx: click.Context,
    game: str,
    as_viewer: str,
    step: int | None,
    turn: int | None,
    list_steps: bool,
    page: bool | None,
) -> None:
    """Step through a stored game as one viewer saw it (GAME: id or a unique part of it).

    Prints the list of steps, one step (what happened, what changed, the table as the viewer saw
    it), or every step: one at a time on a terminal, otherwise all of them with the table after
    the deal, at the end of each turn and at the end.
    """
    if step is not None and (turn is not None or list_steps):
        raise click.UsageError("give --step alone, or --turn and/or --list")
    with open_store(ctx) as app:
        game_id = find_game(app, game)
        try:
            facts = app.corrected_facts(game_id)
        except BohnanzaError as error:
            raise click.ClickException(str(error)) from None
    record = Replay(facts)
    viewer = parse_viewer(as_viewer, record.names)
    try:
        record.check_viewer(viewer)
        if list_steps:
            _list_steps(record, turn)
            return
        click.echo(f"Game {game_id} — seen by {viewer_text(viewer, record.names)}")
        if step is not None or turn is not None:
            position = step if step is not None else record.turn_start(turn or 0)
            click.echo(_step_text(record, record.step(position).position, viewer, table=True))
            return
        if page if page is not None else sys.stdout.isatty():
            _page(record, viewer, 1)
        else:
            _print_through(record, viewer)
    except BohnanzaError as error:
        raise click.ClickException(str(error)) from None
