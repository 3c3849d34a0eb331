"""The `bohnanza` command line: play bot games, list and show stored games, describe rulesets,
serve, replay, records and disputes, notes and forks, read models, tokens.

Each command lives in an `api/cli_*.py` module that is imported only when that command runs (or
its own help is asked for): the modules bring in the engine, the store, Flask and gunicorn, which
take seconds to import, and `bohnanza --help` needs none of them. The list below gives each
command's one-line help for `bohnanza --help`; a test checks it against the command's own.
"""

from __future__ import annotations

import importlib
from typing import NamedTuple

import click


class Entry(NamedTuple):
    """Where a command is defined, and its one-line help."""

    module: str
    name: str
    short_help: str
    """The first sentence of the command's help."""


COMMANDS = {
    "play": Entry(
        "api.cli_games",
        "play",
        "Play a complete game between bots, store it and print what happened.",
    ),
    "games": Entry(
        "api.cli_games",
        "games",
        "List stored games, oldest first, with their results.",
    ),
    "leaderboard": Entry(
        "api.cli_games",
        "leaderboard",
        "Players over ended games: wins, scores, harvests, trading (the read models caught up).",
    ),
    "show": Entry(
        "api.cli_games",
        "show",
        "Print a game's table and its event log in readable form (GAME: id or a unique part of it).",
    ),
    "rulesets": Entry(
        "api.cli_games",
        "rulesets",
        "Describe every preset and option (generated from the data the engine uses).",
    ),
    "serve": Entry(
        "api.cli_serve",
        "serve",
        "Run the API and web pages on this machine (production: gunicorn, see docs/reference/operations.md).",
    ),
    "replay": Entry(
        "api.cli_replay",
        "replay",
        "Step through a stored game as one viewer saw it (GAME: id or a unique part of it).",
    ),
    "export": Entry(
        "api.cli_records",
        "export_command",
        "Write a stored game as a portable JSON record, bohnanza-record/1 or /2 (GAME: id or a unique part of it).",
    ),
    "plays": Entry(
        "api.cli_records",
        "plays_command",
        "Finished games as plays for BG Stats or BoardGameGeek (GAME: id or a unique part of it; none: all).",
    ),
    "import": Entry(
        "api.cli_records",
        "import_command",
        "Re-decide every command of a record (FILE, or - for stdin) and store it as a new game.",
    ),
    "verify": Entry(
        "api.cli_records",
        "verify_command",
        "Re-decide a stored game or a record file under its own ruleset, or under another.",
    ),
    "audit": Entry(
        "api.cli_records",
        "audit_command",
        "Check a stored game's invariants and that re-deciding its commands gives its facts.",
    ),
    "note": Entry(
        "api.cli_analysis",
        "note",
        "Annotate a step of a game.",
    ),
    "notes": Entry(
        "api.cli_analysis",
        "notes",
        "The notes on a game that a viewer may read.",
    ),
    "fork": Entry(
        "api.cli_analysis",
        "fork",
        "Start a what-if sandbox (a tabletop game) from a step of a game.",
    ),
    "forks": Entry(
        "api.cli_analysis",
        "list_forks",
        "A game's parent and forks; for a fork, its outcome beside its parent's.",
    ),
    "stats": Entry(
        "api.cli_analysis",
        "stats",
        "A game's numbers per seat, as a viewer may read them (GAME: id or a unique part of it).",
    ),
    "projections": Entry(
        "api.cli_projections",
        "projections",
        "Read models: keep them current, rebuild them, or show how far they are.",
    ),
    "reissue": Entry(
        "api.cli_tokens",
        "reissue",
        "New seat and host tokens for a stored game, replacing the old ones (GAME: id or a unique part of it).",
    ),
}
"""Every command: where it is defined, and the first sentence of its help (`bohnanza --help`
shows as much of it as fits, as click does)."""


class LazyGroup(click.Group):
    """A group whose commands are imported when used, listed from `COMMANDS` without importing."""

    def list_commands(self, ctx: click.Context) -> list[str]:
        return sorted(COMMANDS)

    def get_command(self, ctx: click.Context, cmd_name: str) -> click.Command | None:
        entry = COMMANDS.get(cmd_name)
        if entry is None:
            return None
        command = getattr(importlib.import_module(entry.module), entry.name)
        assert isinstance(command, click.Command)
        return command

    def format_commands(self, ctx: click.Context, formatter: click.HelpFormatter) -> None:
        """The commands and their one-line help, from `COMMANDS` alone."""
        width = formatter.width - 6 - max(len(name) for name in COMMANDS)
        rows = [
            (name, click.Command(name, help=COMMANDS[name].short_help).get_short_help_str(width))
            for name in self.list_commands(ctx)
        ]
        with formatter.section("Commands"):
            formatter.write_dl(rows)


@click.group(cls=LazyGroup)
@click.option(
    "--database-url",
    envvar="BOHNANZA_DATABASE_URL",
    help="sqlite:///file, postgresql://user@host/db or memory:// "
    "[default: a SQLite file in $BOHNANZA_DATA_DIR]",
)
@click.pass_context
def main(ctx: click.Context, database_url: str | None) -> None:
    """Record, play and replay games of Bohnanza."""
    import dataclasses

    from .settings import Settings

    try:
        settings = Settings.from_env()
    except ValueError as error:  # a setting that cannot be used: its name and why, no traceback
        raise click.ClickException(str(error)) from None
    if database_url:
        settings = dataclasses.replace(settings, database_url=database_url)
    ctx.obj = settings


if __name__ == "__main__":
    main()
