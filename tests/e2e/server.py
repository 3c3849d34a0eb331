"""A real gunicorn serving the app in its own process group: for the end-to-end tests and the
HTTP benchmark (bench/api.py)."""

from __future__ import annotations

import os
import signal
import socket
import subprocess
import sys
import time
from collections.abc import Iterator, Mapping
from contextlib import contextmanager
from pathlib import Path

import httpx

from api.worker import WORKER_CLASS

ROOT = Path(__file__).resolve().parents[2]
STARTUP_SECONDS = 30.0


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


APP = "api.app:create_app()"


@contextmanager
def gunicorn(
    database_url: str,
    *options: str,
    workers: int = 3,
    inline_projections: bool = True,
    app: str = APP,
    worker_class: str = WORKER_CLASS,
    log: Path | None = None,
    warm: bool = True,
    env: Mapping[str, str] | None = None,
    cpus: set[int] | None = None,
) -> Iterator[str]:
    """Run gunicorn serving `app` on a free loopback port until the block ends, with the
    service's own worker class unless told otherwise; yields its base URL once /api/health
    answers (`warm`) or as soon as it listens (every worker still cold).
    `options` go to gunicorn as they are (e.g. "--threads", "8"); `log` takes its output, the
    access log included; `env` adds to the environment the app sees; `cpus` (Linux) keeps the
    server and its workers on those CPUs.

    No --preload: each worker imports the app and builds its services after the fork."""
    port = free_port()
    environment = {
        **os.environ,
        "BOHNANZA_DATABASE_URL": database_url,
        "BOHNANZA_INLINE_PROJECTIONS": "true" if inline_projections else "false",
        **(env or {}),
    }
    output = open(log, "wb") if log else subprocess.DEVNULL  # noqa: SIM115 (closed below)
    access_log = ["--access-logfile", "-"] if log else []
    process = subprocess.Popen(
        [
            sys.executable,
            "-m",
            "gunicorn",
            "--workers",
            str(workers),
            "--worker-class",
            worker_class,
            *options,
            *access_log,
            "--bind",
            f"127.0.0.1:{port}",
            "--graceful-timeout",
            "5",
            "--no-control-socket",  # its default path is one per user: servers would share it
            app,
        ],
        cwd=ROOT,
        env=environment,
        stdout=output,
        stderr=subprocess.STDOUT,
        start_new_session=True,
        preexec_fn=None if cpus is None else lambda: os.sched_setaffinity(0, cpus),
    )
    base = f"http://127.0.0.1:{port}"
    try:
        _wait_until_listening(port, process)
        if warm:
            _wait_until_healthy(base, process)
        yield base
    finally:
        _stop(process)
        if log:
            output.close()


def _wait_until_listening(port: int, process: subprocess.Popen[bytes]) -> None:
    deadline = time.monotonic() + STARTUP_SECONDS
    while time.monotonic() < deadline:
        if process.poll() is not None:
            raise RuntimeError(f"gunicorn exited with status {process.returncode}")
        try:
            socket.create_connection(("127.0.0.1", port), timeout=1.0).close()
            return
        except OSError:
            time.sleep(0.05)
    raise RuntimeError(f"gunicorn did not listen on port {port} within {STARTUP_SECONDS}s")


def _wait_until_healthy(base: str, process: subprocess.Popen[bytes]) -> None:
    deadline = time.monotonic() + STARTUP_SECONDS
    while time.monotonic() < deadline:
        if process.poll() is not None:
            raise RuntimeError(f"gunicorn exited with status {process.returncode}")
        try:
            if httpx.get(f"{base}/api/health", timeout=2.0).status_code == 200:
                return
        except httpx.TransportError:
            pass
        time.sleep(0.1)
    raise RuntimeError(f"gunicorn did not answer /api/health within {STARTUP_SECONDS}s")


def _stop(process: subprocess.Popen[bytes]) -> None:
    """SIGTERM the gunicorn master's process group (it and its workers), SIGKILL if it lingers."""
    if process.poll() is not None:
        return
    os.killpg(process.pid, signal.SIGTERM)
    try:
        process.wait(timeout=10)
    except subprocess.TimeoutExpired:
        os.killpg(process.pid, signal.SIGKILL)
        process.wait(timeout=10)


BOHNANZA = Path(sys.executable).with_name("bohnanza")
READY = "API docs:"
"""The last line `serve` prints before gunicorn starts."""


@contextmanager
def serving(database_url: str, *options: str) -> Iterator[tuple[str, str]]:
    """`bohnanza serve` on a free port until the block ends (stopped with Ctrl-C's signal): its
    base URL once it answers, and what it printed before gunicorn's own log."""
    port = free_port()
    process = subprocess.Popen(
        [BOHNANZA, "serve", "--port", str(port), "--database-url", database_url, *options],
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
        env={**os.environ, "PYTHONUNBUFFERED": "1"},
        start_new_session=True,
    )
    assert process.stdout is not None
    try:
        printed = ""
        while READY not in printed:
            line = process.stdout.readline()
            assert line, f"serve stopped before serving:\n{printed}"
            printed += line
        base = f"http://127.0.0.1:{port}"
        deadline = time.monotonic() + STARTUP_SECONDS
        while True:
            try:
                httpx.get(f"{base}/api/health", timeout=5.0).raise_for_status()
                break
            except httpx.TransportError:
                assert time.monotonic() < deadline, f"serve did not answer:\n{printed}"
                time.sleep(0.1)
        yield base, printed
    finally:
        os.killpg(process.pid, signal.SIGINT)
        rest, _ = process.communicate(timeout=30)
    assert process.returncode == 0, rest
