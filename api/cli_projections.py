"""`bohnanza projections …`: follow the store, rebuild the read models, show how far they are."""

from __future__ import annotations

import signal
import threading
from collections.abc import Callable, Iterator
from contextlib import ExitStack, contextmanager
from pathlib import Path
from types import FrameType
from typing import Any, TypeVar

import click

from domain.storage import first_line
from projections.heartbeat import Heartbeat
from projections.runner import BATCH_SIZE, REBUILD_BATCH_SIZE, Projector

from .cli_support import open_store, table
from .errors import UNAVAILABLE
from .settings import Settings

RETRY_SECONDS = 2.0
"""How often a projector that cannot reach the database at start tries again."""


@contextmanager
def _projector(ctx: click.Context) -> Iterator[Projector]:
    settings: Settings = ctx.obj
    with open_store(ctx) as app, Projector.for_url(app, settings.database_url) as projector:
        yield projector


@click.group()
def projections() -> None:
    """Read models: keep them current, rebuild them, or show how far they are.

    `status` names each projection; `rebuild NAME` rebuilds one of them."""


def _file_named(_ctx: click.Context, _param: click.Parameter, value: str | None) -> Path | None:
    """The heartbeat's path; an empty one would name the current directory."""
    if value is not None and not value.strip():
        raise click.BadParameter("name a file", param_hint="--heartbeat")
    return None if value is None else Path(value)


F = TypeVar("F", bound=Callable[..., Any])


def _batch_size(default: int) -> Callable[[F], F]:
    """The `--batch-size` option, with a command's default."""
    return click.option(
        "--batch-size",
        default=default,
        show_default=True,
        type=click.IntRange(min=1),
        help="Store positions read and applied per transaction.",
    )


@projections.command()
@click.option(
    "--poll-interval",
    default=0.5,
    show_default=True,
    type=click.FloatRange(min=0.01),
    help="Seconds between looks at the store when nothing is new.",
)
@_batch_size(BATCH_SIZE)
@click.option(
    "--heartbeat",
    type=click.Path(dir_okay=False, writable=True),
    callback=_file_named,
    help="A file to touch after every look at the store that reached the database; "
    "`python -m projections.heartbeat FILE` is the health check that reads it.",
)
@click.pass_context
def follow(
    ctx: click.Context, poll_interval: float, batch_size: int, heartbeat: Path | None
) -> None:
    """Keep the read models current until stopped (Ctrl-C or SIGTERM): the projector process."""
    stop = threading.Event()

    def _stop(_signal: int, _frame: FrameType | None) -> None:
        stop.set()

    signal.signal(signal.SIGTERM, _stop)
    signal.signal(signal.SIGINT, _stop)
    with ExitStack() as stack:
        projector = _opened_when_reachable(ctx, stop, stack)
        if projector is None:
            return
        beat = None if heartbeat is None else _first_beat(Heartbeat(heartbeat))
        click.echo(f"Following the store from position {_lowest(projector)}; Ctrl-C stops.")
        if not projector.follow(poll_interval, stop, batch_size, reached=beat):
            click.echo("Stopped while the database was unavailable.")  # nothing is lost
            return
        try:
            click.echo(f"Stopped at position {_lowest(projector)}.")
        except UNAVAILABLE as error:
            click.echo(f"Stopped; the database became unavailable ({first_line(error)}).")


def _first_beat(heartbeat: Heartbeat) -> Callable[[], None]:
    """The heartbeat's `beat_or_warn`, once it has beaten (the database was just reached): a
    file that cannot be written at start stops the projector at once, not its health check
    later; one that goes away later is logged, and the read models go on."""
    try:
        heartbeat.beat()
    except OSError as error:
        raise click.ClickException(f"cannot write the heartbeat file: {error}") from None
    return heartbeat.beat_or_warn


def _opened_when_reachable(
    ctx: click.Context, stop: threading.Event, stack: ExitStack
) -> Projector | None:
    """The projector, once the database can be reached: started beside a database that is not
    up yet, it tries every `RETRY_SECONDS` until it is (as it rides out an outage once
    running), rather than exiting. None if stopped first."""
    waiting = False
    while not stop.is_set():
        try:
            return stack.enter_context(_projector(ctx))
        except UNAVAILABLE as error:
            if not waiting:
                click.echo(
                    f"projector: the database is unavailable ({first_line(error)}); trying "
                    f"again every {RETRY_SECONDS:g} s",
                    err=True,
                )
                waiting = True
            stop.wait(RETRY_SECONDS)
    return None


@projections.command()
@click.argument("name", required=False)
@_batch_size(REBUILD_BATCH_SIZE)
@click.option(
    "--one-process",
    is_flag=True,
    help="Rebuild every read model in this process (by default each after the first gets a "
    "worker process of its own when the machine has more than one CPU).",
)
@click.pass_context
def rebuild(ctx: click.Context, name: str | None, batch_size: int, one_process: bool) -> None:
    """Drop the read models (or only projection NAME, as `status` names it) and rebuild them
    from every stored event."""
    with _projector(ctx) as projector:
        if name is not None and name not in projector.projections:
            raise click.BadParameter(
                f"no projection {name!r}; projections: {', '.join(projector.projections)}",
                param_hint="NAME",
            )
        names = [name] if name else list(projector.projections)
        end = projector.app.position()
        with click.progressbar(
            length=end * len(names), label=f"Rebuilding {', '.join(names)}"
        ) as bar:  # counts store positions: the events' numbers, which may have gaps
            rebuilt = projector.rebuild(
                name, batch_size, progress=bar.update, apart=False if one_process else None
            )
        read = " and ".join(f"{each} from {count} events" for each, count in rebuilt.events.items())
        click.echo(f"Rebuilt {read}, the store up to position {rebuilt.position}.")


@projections.command()
@click.pass_context
def status(ctx: click.Context) -> None:
    """Each projection's position beside the end of the event store."""
    with _projector(ctx) as projector:
        rows = [
            (
                line.name,
                str(line.position),
                str(line.store_position),
                "up to date" if not line.behind else f"{line.behind} events behind",
            )
            for line in projector.status()
        ]
    click.echo(table(("PROJECTION", "POSITION", "STORE", "STATE"), rows))


def _lowest(projector: Projector) -> int:
    return min(line.position for line in projector.status())
