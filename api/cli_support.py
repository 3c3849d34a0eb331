"""What every `bohnanza` command shares: opening the store, finding a game, reading options."""

from __future__ import annotations

from collections.abc import Iterator
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


def find_game(app: Bohnanza, ref: str) -> UUID:
    """A game by full id or by a unique prefix of it."""
    try:
        return UUID(ref)
    except ValueError:
        pass
    matches = [summary.game_id for summary in app.games() if str(summary.game_id).startswith(ref)]
    if len(matches) == 1:
        return matches[0]
    if not matches:
        raise click.ClickException(f"no game with an id starting {ref!r}; see `bohnanza games`")
    raise click.ClickException(f"{len(matches)} games start with {ref!r}; give more of the id")


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
