"""`bohnanza note | notes | fork | forks | stats`: annotations, what-if forks and a game's numbers
from the command line.

The command line is the operator's: it writes notes as any seat, the host or a named guest (`--as`),
and reads notes as a chosen viewer.
"""

from __future__ import annotations

import json

import click

from domain.rules import events as ev
from projections.insights import game_insights
from projections.runner import Projector
from projections.views import AUDITOR_VIEWER, HOST_VIEWER, PUBLIC_VIEWER, Viewer
from replays import annotations, forks

from .cli_support import find_game, open_store, table


def _author(seats: list[str], who: str) -> annotations.Author:
    if who == "host":
        return annotations.Author("host", "host")
    if who in seats:
        return annotations.Author("seat", who, seats.index(who))
    if who.isdigit() and int(who) < len(seats):
        return annotations.Author("seat", seats[int(who)], int(who))
    return annotations.Author(annotations.GUEST, who)


def _viewer(seats: list[str], who: str) -> Viewer:
    named = {"public": PUBLIC_VIEWER, "host": HOST_VIEWER, "auditor": AUDITOR_VIEWER}
    if who in named:
        return named[who]
    author = _author(seats, who)
    if author.seat is None:
        raise click.BadParameter(f"{who!r} is no seat of this game", param_hint="--as")
    return Viewer.of_seat(author.seat)


@click.command()
@click.argument("game")
@click.option("--step", type=int, required=True, help="The step (1 = the start).")
@click.option("--text", required=True)
@click.option("--glyph", type=click.Choice(annotations.GLYPHS))
@click.option("--visibility", type=click.Choice(annotations.VISIBILITIES), default="public")
@click.option("--for-seat", type=int, help="The seat a visibility=seat note is for.")
@click.option(
    "--as", "who", default="host", show_default=True, help="A seat's name, host, or a guest's name."
)
@click.pass_context
def note(
    ctx: click.Context,
    game: str,
    step: int,
    text: str,
    glyph: str | None,
    visibility: str,
    for_seat: int | None,
    who: str,
) -> None:
    """Annotate a step of a game.

    A note is hidden from every reader who may not know its step's cards (another seat's draw,
    the deal), whatever its visibility; `note` warns when part of its audience cannot read it."""
    with open_store(ctx) as app:
        game_id = find_game(app, game)
        facts = app.corrected_facts(game_id)
        first = facts[0]
        assert isinstance(first, ev.GameStarted)
        added = annotations.add_note(
            app,
            game_id,
            facts,
            step=step,
            author=_author(first.seats, who),
            text=text,
            glyph=glyph,
            visibility=visibility,
            seat=for_seat,
        )
    click.echo(f"note {added.id} on step {added.step} by {added.author.name}")
    blind = [
        who
        for who, viewer in _audience(added, first.seats)
        if not annotations.may_see(added, viewer, facts[added.step - 1], first.mode)
    ]
    if blind:
        click.echo(
            f"Warning: step {added.step} holds cards that {_listed(blind)} may not know, so "
            f"{'they' if len(blind) > 1 else 'it'} cannot read this {added.visibility} note.",
            err=True,
        )


def _audience(note: annotations.Note, seats: list[str]) -> list[tuple[str, Viewer]]:
    """Who a note's visibility shows it to, by name (its author reads it anyway)."""
    each_seat = [(name, Viewer.of_seat(seat)) for seat, name in enumerate(seats)]
    everyone = {
        "public": [("the public", PUBLIC_VIEWER), *each_seat, ("the host", HOST_VIEWER)],
        "table": [*each_seat, ("the host", HOST_VIEWER)],
        "seat": [pair for pair in each_seat if pair[1].seat == note.seat],
    }.get(note.visibility, [])
    return [(who, viewer) for who, viewer in everyone if not note.author.is_viewer(viewer)]


def _listed(names: list[str]) -> str:
    return names[0] if len(names) == 1 else f"{', '.join(names[:-1])} and {names[-1]}"


@click.command()
@click.argument("game")
@click.option(
    "--as", "who", default="public", show_default=True, help="public, host, auditor or a seat."
)
@click.pass_context
def notes(ctx: click.Context, game: str, who: str) -> None:
    """The notes on a game that a viewer may read."""
    with open_store(ctx) as app:
        game_id = find_game(app, game)
        facts = app.corrected_facts(game_id)
        first = facts[0]
        assert isinstance(first, ev.GameStarted)
        shown = annotations.notes_for(app, game_id, facts, _viewer(first.seats, who))
    if not shown:
        click.echo("No notes.")
        return
    rows = [
        (
            str(item.step),
            item.glyph or "",
            item.author.name,
            item.visibility,
            item.text + (f" (edited {len(item.history)}×)" if item.history else ""),
        )
        for item in shown
    ]
    click.echo(table(("STEP", "GLYPH", "AUTHOR", "VISIBILITY", "NOTE"), rows))


@click.command()
@click.argument("game")
@click.option(
    "--step",
    type=int,
    required=True,
    help="Continue from this step (or the last whole command before it).",
)
@click.pass_context
def fork(ctx: click.Context, game: str, step: int) -> None:
    """Start a what-if sandbox (a tabletop game) from a step of a game."""
    with open_store(ctx) as app:
        parent = find_game(app, game)
        made = forks.create_fork(app, parent, step)
    click.echo(f"fork {made.game_id} continues game {parent} from step {made.step}")


@click.command(name="forks")
@click.argument("game")
@click.pass_context
def list_forks(ctx: click.Context, game: str) -> None:
    """A game's parent and forks; for a fork, its outcome beside its parent's."""
    with open_store(ctx) as app:
        game_id = find_game(app, game)
        parent = forks.parent_of(app, game_id)
        children = forks.forks_of(app, game_id)
        comparison = forks.compare(app, game_id) if parent else None
    if parent:
        click.echo(f"forked from {parent['game_id']} at step {parent['step']}")
        assert comparison is not None
        for side in ("fork", "parent"):
            outcome = comparison[side]
            click.echo(
                f"  {side:<6} {outcome['status']:<11} scores {outcome['scores']} winners {outcome['winners']}"
            )
        same = comparison["same_outcome"]
        click.echo(
            "  no outcome yet: a game is still being played"
            if same is None
            else ("  same outcome" if same else "  a different outcome")
        )
    for child in children:
        click.echo(f"fork {child['game_id']} from step {child['step']}")
    if not parent and not children:
        click.echo("No forks.")


COMMANDS = (note, notes, fork, list_forks)


@click.command()
@click.argument("game")
@click.option(
    "--as", "who", default="public", show_default=True, help="public, host, auditor or a seat."
)
@click.option("--json", "as_json", is_flag=True, help="The numbers as JSON.")
@click.pass_context
def stats(ctx: click.Context, game: str, who: str, as_json: bool) -> None:
    """A game's numbers per seat, as a viewer may read them (GAME: id or a unique part of it).

    Offers made, received, accepted, declined and withdrawn; trades and donations; cards given
    and got; harvests, coins per harvest and harvests past their beanometer tier; cards
    discarded unplanted; the turn a third field was bought; who traded with whom; the turns the
    lead changed. While a game with secret coin counts runs, another seat's coins and the lead
    are not told. Read from the insights read model (caught up first), as the API reads it."""
    with open_store(ctx) as app, Projector.for_url(app, ctx.obj.database_url) as projector:
        game_id = find_game(app, game)
        first = app.facts_between(game_id, 0, 1)[0]  # its start: the seats
        assert isinstance(first, ev.GameStarted)
        viewer = _viewer(first.seats, who)
        projector.catch_up()
        found = game_insights(projector.engine, game_id, viewer)
    assert found is not None, "caught up: the read model holds every stored game"
    if as_json:
        click.echo(json.dumps(found.to_dict(), indent=2))
        return
    names = [seat.name for seat in found.seats]

    def coins(value: int | None) -> str:
        return "?" if value is None else str(value)

    rows = [
        (
            seat.name,
            f"{seat.offers_made}/{seat.offers_accepted}/{seat.withdrawn}",
            f"{seat.offers_received}/{seat.accepted}/{seat.declined}",
            str(seat.trades),
            f"{seat.donations_given}/{seat.donations_received}",
            str(sum(seat.cards_given.values())),
            str(sum(seat.cards_got.values())),
            str(seat.harvests),
            coins(seat.coins_earned),
            str(len(seat.wasted_harvests)),
            "" if seat.third_field_turn is None else str(seat.third_field_turn),
        )
        for seat in found.seats
    ]
    click.echo(
        table(
            (
                "SEAT",
                "OFFERED/TAKEN/WITHDRAWN",
                "ASKED/ACCEPTED/DECLINED",
                "TRADES",
                "GIFTS OUT/IN",
                "GAVE",
                "GOT",
                "HARVESTS",
                "COINS",
                "PAST TIER",
                "3RD FIELD",
            ),
            rows,
        )
    )
    click.echo("")
    matrix = [
        (name, *(str(count) for count in row))
        for name, row in zip(names, found.traded_with, strict=True)
    ]
    click.echo(table(("TRADED WITH", *names), matrix))
    if found.lead_changes is not None:
        changes = [
            f"{'end' if change['turn'] < 0 else 'turn ' + str(change['turn'])}: "
            f"{', '.join(names[seat] for seat in change['leaders']) or 'nobody'}"
            for change in found.lead_changes
        ]
        click.echo("\nThe lead: " + ("; ".join(changes) if changes else "nobody has scored"))
