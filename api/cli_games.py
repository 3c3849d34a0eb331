"""`bohnanza play | games | show | rulesets`: bot games, the stored games, the rulesets."""

from __future__ import annotations

import json
import random

import click

from domain.bots import BOTS, NAMES, Table
from domain.rules import events as ev
from domain.rules.errors import BohnanzaError, NotFound
from domain.rules.evolve import fold
from domain.rules.notation import describe, draw_table
from domain.rules.rulesets import DEFAULT_PRESET, OPTIONS, PRESETS, resolve_ruleset
from projections.queries import games as read_games
from projections.queries import leaderboard as read_leaderboard
from projections.runner import Projector

from .cli_support import find_game, open_store, parse_options, table


@click.command()
@click.option("--players", required=True, help="Seat names in clockwise order, e.g. Ana,Ben,Cleo")
@click.option(
    "--ruleset", default=DEFAULT_PRESET, show_default=True, type=click.Choice(list(PRESETS))
)
@click.option("--option", "options", multiple=True, metavar="NAME=VALUE", help="Ruleset option.")
@click.option("--seed", type=int, help="Seed for the shuffles and the bots [default: random].")
@click.option(
    "--bots",
    default="greedy",
    show_default=True,
    help="greedy or random, or one per seat: greedy,random,greedy",
)
@click.option("--start-seat", default=0, show_default=True, help="Seat that plays first (0-based).")
@click.option("--show-hidden/--public", default=False, help="Print drawn cards and hands.")
@click.option("--quiet", is_flag=True, help="Print only the game id and the result.")
@click.pass_context
def play(
    ctx: click.Context,
    players: str,
    ruleset: str,
    options: tuple[str, ...],
    seed: int | None,
    bots: str,
    start_seat: int,
    show_hidden: bool,
    quiet: bool,
) -> None:
    """Play a complete game between bots, store it and print what happened."""
    names = [name.strip() for name in players.split(",")]
    if "" in names:
        raise click.BadParameter(
            f"{players!r} has an empty name (seat {names.index('')}); name every seat, "
            "e.g. Ana,Ben,Cleo",
            param_hint="--players",
        )
    if len(names) == 1 and names[0].isdecimal():  # `--players 3`: a count, where names go
        raise click.BadParameter(
            f"takes the seats' names, not how many: e.g. --players "
            f"{','.join(NAMES[: max(2, min(int(names[0]), len(NAMES)))])}",
            param_hint="--players",
        )
    kinds = [kind.strip() for kind in bots.split(",")]
    if len(kinds) == 1:
        kinds *= len(names)
    unknown = [kind for kind in kinds if kind not in BOTS]
    if unknown or len(kinds) != len(names):
        raise click.BadParameter(
            f"give one bot kind ({', '.join(BOTS)}) or one per seat", param_hint="--bots"
        )
    seed = random.randrange(2**31) if seed is None else seed
    with open_store(ctx) as app, Projector.for_url(app, ctx.obj.database_url) as projector:
        try:
            outcome = app.start_game(
                names,
                preset=ruleset,
                options=parse_options(options),
                start_seat=start_seat,
                seed=seed,
            )
        except BohnanzaError as error:
            raise click.ClickException(str(error)) from None
        projector.catch_up()
        state = fold(outcome.facts)
        click.echo(f"Game {outcome.game_id} — {ruleset}, {len(names)} players, seed {seed}")
        if not quiet:
            for fact in outcome.facts:
                click.echo(f"  {describe(fact, names, show_hidden=show_hidden)}")
        table = Table([BOTS[kind]() for kind in kinds], random.Random(seed))
        turn = 0
        while not state.is_over:
            if not quiet and state.turn != turn:
                turn = state.turn
                click.echo(f"— Turn {turn}: {state.name(state.active)} —")
            outcome = app.execute(outcome.game_id, table.next_command(state))
            state = fold(outcome.facts, state)
            if not quiet:
                for fact in outcome.facts:
                    click.echo(f"  {describe(fact, names, show_hidden=show_hidden)}")
        projector.catch_up()  # once, after the last command: no one reads them mid-game
        final = outcome.facts[-1]
        assert isinstance(final, ev.GameEnded)
        if quiet:
            click.echo(describe(final, names))
        click.echo(f"Stored as {outcome.game_id} ({outcome.version} events)")


@click.command()
@click.pass_context
def games(ctx: click.Context) -> None:
    """List stored games, oldest first, with their results.

    Copies and what-if forks are marked, as neither counts in the leaderboard (the read models
    are caught up first, to tell them)."""
    with open_store(ctx) as app, Projector.for_url(app, ctx.obj.database_url) as projector:
        summaries = app.games()
        projector.catch_up()
        records = {record.game_id: record for record in read_games(projector.engine)}
    if not summaries:
        click.echo("No games stored yet. Try: bohnanza play --players Ana,Ben,Cleo")
        return
    rows = []
    for summary in summaries:
        if summary.ended and summary.scores is not None and summary.winners is not None:
            winners = " and ".join(summary.seats[seat] for seat in summary.winners)
            status = f"ended, {winners} won ({'-'.join(map(str, summary.scores))})"
        else:
            status = "in progress"
        record = records.get(summary.game_id)
        if record is not None and record.duplicate_of is not None:
            status += f"; a copy of {record.duplicate_of}"
        elif record is not None and record.sandbox:
            status += "; a what-if fork"
        started = f"{summary.started_at:%Y-%m-%d %H:%M}"
        seats = ", ".join(summary.seats)
        rows.append((str(summary.game_id), started, summary.preset, summary.mode, seats, status))
    click.echo(table(("GAME", "STARTED (UTC)", "PRESET", "MODE", "SEATS", "STATUS"), rows))


@click.command()
@click.option("--ruleset", type=click.Choice(sorted(PRESETS)), help="Only games of this preset.")
@click.option("--players", type=click.IntRange(2, 7), help="Only games of this many players.")
@click.option("--name", "name_prefix", help="Only players whose names start with this.")
@click.option(
    "--limit", type=click.IntRange(min=1), default=50, show_default=True, help="The best N."
)
@click.pass_context
def leaderboard(
    ctx: click.Context,
    ruleset: str | None,
    players: int | None,
    name_prefix: str | None,
    limit: int,
) -> None:
    """Players over ended games: wins, scores, harvests, trading (the read models caught up).

    Each game played once counts (no what-if forks, no copies); most wins first. Coins per
    harvest, the share of the offers made to a player that it accepted, and the donations it
    gave and got are over the same games."""
    with open_store(ctx) as app, Projector.for_url(app, ctx.obj.database_url) as projector:
        projector.catch_up()
        standings = read_leaderboard(
            projector.engine,
            preset=ruleset,
            players=players,
            name_prefix=name_prefix,
            limit=limit,
        )
    if not standings:
        click.echo("No ended games yet.")
        return

    def share(value: float | None, digits: int = 2) -> str:
        return "–" if value is None else f"{value:.{digits}f}"

    rows = [
        (
            standing.name,
            str(standing.games),
            str(standing.wins),
            share(standing.win_rate),
            share(standing.average_score, 1),
            str(standing.best_score),
            share(standing.coins_per_harvest),
            share(standing.acceptance_rate),
            f"{standing.donations}/{standing.donations_received}",
        )
        for standing in standings
    ]
    headers = (
        "PLAYER",
        "GAMES",
        "WINS",
        "WIN RATE",
        "AVG SCORE",
        "BEST",
        "COINS/HARVEST",
        "ACCEPTS",
        "GIFTS OUT/IN",
    )
    click.echo(table(headers, rows))


@click.command()
@click.argument("game")
@click.option("--show-hidden/--public", default=True, help="Include hands and drawn cards.")
@click.pass_context
def show(ctx: click.Context, game: str, show_hidden: bool) -> None:
    """Print a game's table and its event log in readable form (GAME: id or a unique part of it)."""
    with open_store(ctx) as app:
        game_id = find_game(app, game)
        try:
            recorded = app.recorded_facts(game_id)
        except NotFound as error:
            raise click.ClickException(str(error)) from None
    first = recorded[0].fact
    assert isinstance(first, ev.GameStarted)
    names = first.seats
    state = fold([r.fact for r in recorded])  # a correction carries its table: as corrected
    click.echo(f"Game {game_id}")
    click.echo(draw_table(state))
    click.echo("")
    for r in recorded:
        line = describe(r.fact, names, show_hidden=show_hidden)
        click.echo(f"{r.version:>5}  {r.recorded_at:%H:%M:%S}  {line}")


@click.command()
def rulesets() -> None:
    """Describe every preset and option (generated from the data the engine uses)."""
    for preset in PRESETS.values():
        counts = preset.player_counts
        click.echo(f"{preset.id}  ({counts[0]}–{counts[-1]} players; {preset.source})")
        click.echo(f"    {preset.description}")
        for players in counts:
            rules = resolve_ruleset(preset.id, players)
            third = (
                f"third field {rules.third_field_cost} coins → {rules.third_field_coins_to}"
                if rules.third_field
                else "no third field for sale"
            )
            click.echo(
                f"    {players}p: {rules.deck_size} cards ({len(rules.beans)} types), deal "
                f"{'/'.join(map(str, rules.deal))}, {rules.fields_at_start} fields, {third}, "
                f"reveal {rules.reveal}, draw {rules.draw}, ends on exhaustion "
                f"{rules.end_on_exhaustion}, tie-break {' > '.join(rules.tie_break)}"
            )
    click.echo("")
    click.echo("Options (--option NAME=VALUE; defaults come from the preset):")
    for option in OPTIONS.values():
        choices = " | ".join(
            json.dumps(choice) if not isinstance(choice, str) else choice
            for choice in option.choices
        )
        duel = " (bean duel only)" if option.duel_only else ""
        listing = " (a list, in order)" if option.is_list else ""
        click.echo(f"  {option.name}{duel}  RULES §{option.section}")
        click.echo(f"      {option.description}")
        click.echo(f"      values{listing}: {choices}")


COMMANDS = (play, games, show, rulesets)
"""The commands this module adds to `bohnanza`."""
