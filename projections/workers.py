"""A rebuild of several read models side by side: each projection after the first is rebuilt in a
worker process of its own while this process rebuilds the first.

A rebuild is Python work from end to end (decoding the store's rows, folding them into rows of
the read models), so in one process it uses one CPU however many the machine has, and the
interpreter lock leaves threads no better. Each projection's rebuild is independent of the
others': its own tables and its own tracking position, each batch's rows and position committed
in one transaction. So a worker does exactly what `Projector.rebuild(name)` does in this process
after the reset (which this process has done for all of them first), up to the same store
position, and the guarantees are the ones a single projection's rebuild has: a worker that dies
loses only its transaction under way, and a later catch up goes on from its last batch.

A worker is a new interpreter (`python -m projections.workers`), not a fork, which would copy
this process's connections to the databases, nor multiprocessing's spawn, which runs the calling
program's main module again in the worker. It opens the store from its URL with the service's
default projections, so a projector on a store given without a URL (in memory), or with
projections of its own, rebuilds in one process. It is told what to do on its standard input,
which then stays open: when this process ends, killed or not, the worker's input ends and so
does the worker (its transaction under way rolled back), so stopping a rebuild stops all of it.
It reports each committed batch, then what it read or why it failed, a JSON line each on its
standard output.

The first projection (the scoreboards, the larger) stays in this process, so the worker's start
(about half a second of imports) overlaps it; measured in docs/performance.md.
"""

from __future__ import annotations

import json
import logging
import os
import queue
import subprocess
import sys
import threading
import traceback
from collections.abc import Sequence
from pathlib import Path
from typing import IO, TYPE_CHECKING, Any

from .tracking import Projection

if TYPE_CHECKING:
    from .runner import Progress, Projector

log = logging.getLogger(__name__)

SOURCE_ROOT = str(Path(__file__).resolve().parents[1])
"""Where this code was imported from: a worker imports the same code."""


class WorkerFailed(RuntimeError):
    """A worker process did not finish its projection's rebuild (the projection stays where its
    last committed batch left it: a catch up, or another rebuild, goes on from there)."""


class _Worker:
    """One worker process, and the messages it has sent (read by a thread of this process)."""

    def __init__(self, database_url: str, name: str, target: int, batch_size: int) -> None:
        self.name = name
        python_path = os.pathsep.join(filter(None, (SOURCE_ROOT, os.environ.get("PYTHONPATH"))))
        self.process = subprocess.Popen(
            [sys.executable, "-m", "projections.workers"],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            env={**os.environ, "PYTHONPATH": python_path},
            text=True,
        )
        assert self.process.stdin is not None
        assert self.process.stdout is not None
        task = {
            "database_url": database_url,
            "name": name,
            "target": target,
            "batch_size": batch_size,
        }
        self.process.stdin.write(json.dumps(task) + "\n")
        self.process.stdin.flush()  # the URL goes here, not where `ps` shows it
        self.messages: queue.SimpleQueue[dict[str, Any] | None] = queue.SimpleQueue()
        self.read: int | None = None
        """The events the worker read, once it has finished."""
        threading.Thread(
            target=self._read, args=(self.process.stdout,), name=f"worker {name}", daemon=True
        ).start()

    def _read(self, output: IO[str]) -> None:
        try:
            for line in output:
                try:
                    message = json.loads(line)
                except ValueError:
                    message = None
                if not isinstance(message, dict):  # something in the worker wrote to its output
                    log.warning("worker %s wrote: %s", self.name, line.rstrip()[:300])
                    continue
                self.messages.put(message)
        finally:
            self.messages.put(None)  # the worker's output ended

    def take(self, progress: Progress | None, *, wait: bool) -> None:
        """Act on the worker's messages: its batches passed on to `progress`, its end noted in
        `read` (after which there is only the end of its output); those sent so far, or with
        `wait` all of them until it has finished. WorkerFailed if it failed or stopped."""
        while self.read is None:
            try:
                message = self.messages.get(block=wait)
            except queue.Empty:
                return
            if message is None:
                code = self.process.wait()
                raise WorkerFailed(
                    f"the worker process rebuilding {self.name} stopped before it finished "
                    f"(exit code {code}); the projection stays at its last committed batch"
                )
            if "failed" in message:
                raise WorkerFailed(
                    f"the worker process rebuilding {self.name} failed:\n{message['failed']}"
                )
            if "done" in message:
                self.read = int(message["done"])
            elif progress is not None:
                progress(int(message["moved"]))

    def stop(self) -> None:
        """End the worker (if it is still running) and wait for it."""
        assert self.process.stdin is not None
        self.process.stdin.close()  # its cue to end, if it has not already
        try:
            self.process.wait(timeout=5)
        except subprocess.TimeoutExpired:
            self.process.kill()
            self.process.wait()


def rebuild_apart(
    projector: Projector,
    projections: Sequence[Projection],
    target: int,
    batch_size: int,
    progress: Progress | None,
) -> dict[str, int]:
    """Bring `projections` (reset already) up to `target`: the first in this process, each other
    in a worker process; the events each read. Progress counts every process's batches."""
    assert projector.database_url is not None, "workers open the store from its URL"
    here, *elsewhere = projections
    workers: list[_Worker] = []

    def moved(positions: int) -> None:
        if progress is not None:
            progress(positions)
        for worker in workers:  # also when no one asks: a full pipe would block the worker
            worker.take(progress, wait=False)

    try:
        for projection in elsewhere:
            workers.append(_Worker(projector.database_url, projection.name, target, batch_size))
        read = projector.catch_up_to([here], target, batch_size, moved)
        for worker in workers:
            worker.take(progress, wait=True)
            assert worker.read is not None
            read[worker.name] = worker.read
        return read
    finally:
        for worker in workers:
            worker.stop()


def _work() -> None:
    """A worker process: the task on its first line of input (a projection reset by the
    parent, to bring up to a store position), done while the input stays open."""
    task = json.loads(sys.stdin.readline())
    threading.Thread(target=_end_when_the_input_ends, name="parent watch", daemon=True).start()
    from domain.application import Bohnanza  # here: only the worker needs them

    from .runner import Projector

    def report(message: dict[str, Any]) -> None:
        sys.stdout.write(json.dumps(message) + "\n")
        sys.stdout.flush()

    url, name = task["database_url"], task["name"]
    try:
        with (
            Bohnanza.from_url(url) as app,
            Projector.for_url(app, url, tables_ready=True) as projector,
        ):
            projection = projector.projections[name]
            read = projector.catch_up_to(
                [projection],
                task["target"],
                task["batch_size"],
                lambda moved: report({"moved": moved}),
            )
    except BaseException:
        report({"failed": traceback.format_exc(limit=8)})  # the parent raises it
        sys.exit(1)
    report({"done": read[name]})


def _end_when_the_input_ends() -> None:
    """End this worker as soon as its parent closes its input or ends."""
    sys.stdin.read()
    os._exit(1)


if __name__ == "__main__":
    _work()
