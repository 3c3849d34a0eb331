"""`bohnanza reissue GAME`: new seat and host tokens for a stored game, in place of its old ones.

Tokens are shown once, when a game is created, and stored only as digests, so a lost token cannot
be shown again; the operator replaces it instead. Games stored by the command line (`play`,
`import`) have no tokens until they are issued here.
"""

from __future__ import annotations

import click

from domain.rules import events as ev
from projections.engine import projection_engine

from . import tables
from .cli_support import find_game, open_store, table
from .security import REMEMBERED_SECONDS, TokenStore


def _seat(text: str, names: tuple[str, ...]) -> int:
    """A seat named by its number (from 0) or its player's name (any case)."""
    word = text.strip()
    if word.isdigit() and int(word) < len(names):
        return int(word)
    for seat, name in enumerate(names):
        if name.casefold() == word.casefold():
            return seat
    seats = ", ".join(f"{seat} ({name})" for seat, name in enumerate(names))
    raise click.BadParameter(f"{text!r} is no seat of this game: {seats}", param_hint="--seat")


@click.command()
@click.argument("game")
@click.option(
    "--seat",
    "seats",
    multiple=True,
    metavar="SEAT",
    help="Only this seat's token (a number from 0 or the player's name; repeatable).",
)
@click.option("--host", is_flag=True, help="Only the host's token (with --seat: theirs too).")
@click.pass_context
def reissue(ctx: click.Context, game: str, seats: tuple[str, ...], host: bool) -> None:
    """New seat and host tokens for a stored game, replacing the old ones (GAME: id or a unique part of it).

    Without --seat or --host every seat's token and the host's are replaced; with them, only
    those named, and the others keep working. The old tokens stop working at once, and in a
    running server within 30 seconds. The new tokens are printed here once: like all tokens they
    are stored only as digests. A game stored by `bohnanza play` or `import` gets its first
    tokens this way. The auditor's token is a server setting, not a game's, and is not touched.
    """
    with open_store(ctx) as app:
        game_id = find_game(app, game)
        first = app.facts(game_id)[0]
    assert isinstance(first, ev.GameStarted)
    names = first.seats
    chosen = [_seat(text, names) for text in seats]
    everything = not chosen and not host
    engine = projection_engine(ctx.obj.database_url)
    try:
        tables.create_missing(engine)
        reissued = TokenStore(engine).reissue(
            game_id, range(len(names)) if everything else chosen, host=everything or host
        )
    finally:
        engine.dispose()
    click.echo(f"New tokens for game {game_id}; the ones they replace no longer work:")
    rows = [(str(seat), names[seat], token) for seat, token in reissued.seats.items()]
    if reissued.host is not None:
        rows.append(("host", "", reissued.host))
    click.echo(table(("SEAT", "PLAYER", "TOKEN"), rows, indent=2))
    click.echo(
        f"Send one as `Authorization: Bearer <token>`; a seat's live table is "
        f"/play/{game_id}#token=<token>. A running server may accept an old token for up to "
        f"{REMEMBERED_SECONDS:g} s more."
    )
