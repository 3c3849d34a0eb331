"""What every `bohnanza` command shares: opening the store, finding a game, reading options,
printing tables."""

from __future__ import annotations

from collections.abc import Iterable, Iterator, Sequence
from contextlib import contextmanager
from typing import Any
from uuid import UUID

import click

from domain.application import Bohnanza
from domain.rules.errors import BohnanzaError, InvalidRuleset
from domain.rules.rulesets import OPTIONS

from .settings import Settings


@contextmanager
def open_store(ctx: click.Context) -> Iterator[Bohnanza]:
    """The application on the configured store; the service's errors become CLI errors."""
    settings: Settings = ctx.obj
    try:
        app = Bohnanza.from_url(settings.database_url)
    except BohnanzaError as error:
        raise click.ClickException(str(error)) from None
    try:
        yield app
    except BohnanzaError as error:
        raise click.ClickException(str(error)) from None
    finally:
        app.close()


AMBIGUOUS_LISTED = 10
"""How many of the games an ambiguous part of an id matches are listed."""


def find_game(app: Bohnanza, ref: str) -> UUID:
    """A game by full id, or by a part of it that no other game's id holds (its last characters,
    say: ids begin with the time their game was made, so games made close together share their
    first ones); a part several games share is refused with a list of them."""
    try:
        return UUID(ref)
    except ValueError:
        pass
    part = ref.lower()
    matches = [summary for summary in app.games() if part in str(summary.game_id)]
    if len(matches) == 1:
        return matches[0].game_id
    if not matches:
        raise click.ClickException(f"no game's id holds {ref!r}; see `bohnanza games`")
    rows = [
        (str(game.game_id), f"{game.started_at:%Y-%m-%d %H:%M}", game.preset, ", ".join(game.seats))
        for game in matches[:AMBIGUOUS_LISTED]
    ]
    more = len(matches) - len(rows)
    listing = table(("GAME", "STARTED", "PRESET", "SEATS"), rows, indent=2)
    raise click.ClickException(
        f"{len(matches)} games' ids hold {ref!r}; give more of the id:\n{listing}"
        + (f"\n  … and {more} more (see `bohnanza games`)" if more else "")
    )


def table(headers: Sequence[str], rows: Iterable[Sequence[str]], *, indent: int = 0) -> str:
    """Rows under a header line, each column as wide as its widest cell (the last one ragged)."""
    lines = [list(headers), *(list(row) for row in rows)]
    widths = [max(len(line[column]) for line in lines) for column in range(len(headers))]
    return "\n".join(
        " " * indent
        + "  ".join(cell.ljust(width) for cell, width in zip(line, widths, strict=True)).rstrip()
        for line in lines
    )


def parse_options(pairs: tuple[str, ...]) -> dict[str, Any]:
    """`--option NAME=VALUE` pairs as a ruleset options mapping, each value read from its text
    (`Option.from_text`: true, 3, amigo, seat-distance,shared or JSON)."""
    options: dict[str, Any] = {}
    for pair in pairs:
        name, sep, text = pair.partition("=")
        if not sep:
            raise click.BadParameter(f"{pair!r} is not NAME=VALUE", param_hint="--option")
        name = name.strip().replace("-", "_")
        option = OPTIONS.get(name)
        if option is None:
            raise click.BadParameter(
                f"unknown option {name!r}; valid options: {', '.join(OPTIONS)}",
                param_hint="--option",
            )
        try:
            options[name] = option.from_text(text)
        except InvalidRuleset as error:
            raise click.BadParameter(str(error), param_hint="--option") from None
    return options
