"""`bohnanza serve`: the web service on this machine (SQLite by default), with a demo to look at."""

from __future__ import annotations

import dataclasses
import errno
import random
import socket
from typing import Any
from uuid import UUID

import click
from flask import Flask
from gunicorn.app.base import BaseApplication

from domain.bots import BOTS, Table, play_stored

from .app import create_app
from .settings import Settings
from .worker import WORKER_CLASS

DEMO_SEATS = ["Ana", "Ben", "Cleo", "Dan"]


def create_demo(app: Flask) -> dict[str, Any]:
    """On an empty store: one finished bot game to replay and one new game to play, shuffled at
    random like any game created without a seed (its deck must not be known from this code)."""
    services = app.extensions["bohnanza"].get()
    client = app.test_client()
    finished = client.post("/api/games", json={"seats": DEMO_SEATS, "seed": 2026}).get_json()
    table = Table([BOTS["greedy"]() for _ in DEMO_SEATS], random.Random(2026))
    play_stored(services.app, UUID(finished["game_id"]), table)
    services.catch_up()
    created = client.post("/api/games", json={"seats": DEMO_SEATS[:3]}).get_json()
    return {"finished": finished, "new": created}


def check_address(host: str, port: int) -> None:
    """ClickException unless a server could listen on host:port now: a port in use (or one this
    user may not take, or a host that is not this machine's) stops `serve` before it opens the
    store or creates the demo games. The probe binds as gunicorn does (SO_REUSEADDR) and lets go
    at once; gunicorn binds again moments later."""
    try:
        family, kind, proto, _, address = socket.getaddrinfo(host, port, type=socket.SOCK_STREAM)[0]
        with socket.socket(family, kind, proto) as probe:
            probe.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
            probe.bind(address)
    except OSError as error:
        hint = " (a server running there? --port chooses another)"
        raise click.ClickException(
            f"cannot serve on {host}:{port}: {error.strerror or error}"
            f"{hint if error.errno == errno.EADDRINUSE else ''}; nothing was created"
        ) from None


@click.command()
@click.option("--host", default="127.0.0.1", show_default=True)
@click.option("--port", default=8000, show_default=True, type=int)
@click.option("--threads", default=8, show_default=True, type=int, help="Request threads.")
@click.option("--no-demo", is_flag=True, help="Do not create the demo games on an empty store.")
@click.option(
    "--database-url",
    help="The store, as `bohnanza --database-url` takes it [default: $BOHNANZA_DATABASE_URL, "
    "or a SQLite file in $BOHNANZA_DATA_DIR].",
)
@click.pass_context
def serve(
    ctx: click.Context, host: str, port: int, threads: int, no_demo: bool, database_url: str | None
) -> None:
    """Run the API and web pages on this machine (production: gunicorn, see docs/reference/operations.md)."""
    settings: Settings = ctx.obj
    if database_url:
        settings = dataclasses.replace(settings, database_url=database_url)
    check_address(host, port)
    app = create_app({"DATABASE_URL": settings.database_url})
    base = f"http://{host}:{port}"
    services = app.extensions["bohnanza"].get()
    click.echo(f"Store: {settings.database_url}")
    stored = services.app.position()  # the store's last position: an index, not a scan
    if not stored and not no_demo:
        demo = create_demo(app)
        new = demo["new"]
        click.echo("Created two demo games on this empty store:")
        finished = demo["finished"]
        replay = f"{base}/games/{finished['game_id']}/replay"
        click.echo(f"  a finished 4-player game: {base}/api/games/{finished['game_id']}")
        click.echo(f"    replay it:              {replay}")
        click.echo("    or as a seat saw it (the token stays in the link's #fragment):")
        for seat in finished["seats"]:
            click.echo(
                f"      {seat['name']:<5} {replay}?perspective=seat-{seat['seat']}#token={seat['token']}"
            )
        click.echo(f"  a new 3-player game:      {base}/api/games/{new['game_id']}")
        for seat in new["seats"]:
            click.echo(f"    {seat['name']:<5} token {seat['token']}")
        click.echo(f"    host  token {new['host_token']}")
        click.echo("    each seat's live table (the token stays in the link's #fragment):")
        for seat in new["seats"]:
            click.echo(
                f"      {seat['name']:<5} {base}/play/{new['game_id']}#token={seat['token']}"
            )
        click.echo(
            f"  e.g. curl -H 'Authorization: Bearer {new['seats'][0]['token']}' "
            f"{base}/api/games/{new['game_id']}/view"
        )
    else:
        click.echo(f"The store is not empty: its last event is at position {stored:,}.")
    click.echo(f"Games: {base}/   Record a tabletop game: {base}/record")
    click.echo(f"API docs: {base}/docs   OpenAPI: {base}/openapi.json   (Ctrl-C stops)")
    # The worker gunicorn forks builds its own services (connections, threads) on first use.
    app.extensions["bohnanza"].close()
    # A stop (Ctrl-C, or SIGTERM) waits at most 5 s for the worker to finish what it is doing
    # before it is killed: gunicorn's default, 30 s, once held a Ctrl-C in CI that long with no
    # request in flight (the cause is not known; it did not happen again in about 30 tries).
    options = {"bind": f"{host}:{port}", "workers": 1, "threads": threads, "graceful_timeout": 5}
    # No control socket: gunicorn's default path is one per user, which a second server (another
    # `serve`, a gunicorn of another project) would take over.
    _Server(app, {**options, "worker_class": WORKER_CLASS, "control_socket_disable": True}).run()


class _Server(BaseApplication):
    """gunicorn serving this one app object: one process (the SQLite default), many threads."""

    def __init__(self, app: Flask, options: dict[str, Any]) -> None:
        self.application = app
        self.options = options
        super().__init__()

    def load_config(self) -> None:
        for key, value in self.options.items():
            self.cfg.set(key, value)

    def load(self) -> Flask:
        return self.application
