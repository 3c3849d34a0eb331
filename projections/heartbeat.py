"""The projector's heartbeat: a file it touches after every look at the store, and the health check
that reads its age.

A projector has no port to ask, and a projector that runs but cannot work (its database gone, a
projection stuck failing) looks alive to its container. `bohnanza projections follow --heartbeat
FILE` touches FILE after every round that reached the database, caught up or not; a round that
could not does not. So the file's age is how long the projector has been unable to work, and

    python -m projections.heartbeat FILE --max-age 30

exits 0 while it is younger than 30 s and 1 otherwise (missing included), saying why. It imports
the standard library only, so a container's health check every few seconds costs milliseconds
(the `bohnanza` command would load the whole service each time).
"""

from __future__ import annotations

import argparse
import logging
import math
import stat
import sys
import time
from pathlib import Path

log = logging.getLogger(__name__)

MAX_AGE_SECONDS = 30.0
"""How old the heartbeat may be by default. A working projector touches it every poll (0.5 s)
and between the batches of a catch up; one that cannot reach the database spends about 22 s
on each failing round (the event store's library tries a call 10 times, waiting up to
`connect_timeout` each), so an outage shows within about 30 s, not a passing hiccup."""


class Heartbeat:
    """Touches its file: the projector reached the database just now.

    `beat` raises OSError when the file cannot be touched (the projector checks that once, at
    start); `beat_or_warn` logs it instead, once until it works again: the file going away
    while the projector runs makes its health check fail, which is the news, and must not stop
    the read models themselves."""

    def __init__(self, path: Path) -> None:
        self.path = path
        self._failing = False

    def beat(self) -> None:
        if self.path.exists() and not self.path.is_file():  # touch would change its time quietly
            raise OSError(f"{self.path} is not a regular file")
        self.path.touch()

    def beat_or_warn(self) -> None:
        try:
            self.beat()
        except OSError as error:
            if not self._failing:
                log.warning("projector: cannot touch the heartbeat file: %s", error)
            self._failing = True
        else:
            if self._failing:
                log.warning("projector: the heartbeat file is touched again")
            self._failing = False


def age(path: Path, now: float | None = None) -> float | None:
    """Seconds since the heartbeat file at `path` was last touched; None if there is none."""
    try:
        status = path.stat()
    except OSError:  # missing, or a path that cannot name a file (too long, a loop, …)
        return None
    if not stat.S_ISREG(status.st_mode):
        return None
    return (time.time() if now is None else now) - status.st_mtime


def check(path: Path, max_age: float) -> tuple[bool, str]:
    """Whether the projector behind the heartbeat at `path` is healthy, and why (one line)."""
    seconds = age(path)
    if seconds is None:
        return False, (
            f"no heartbeat file at {path}: the projector has not reached the database yet, or "
            "the path is wrong"
        )
    if seconds > max_age:
        return False, (
            f"the projector's last heartbeat is {seconds:.0f} s old (more than {max_age:g} s): "
            "it cannot reach the database, or it stopped"
        )
    return True, f"the projector reached the database {max(seconds, 0):.1f} s ago"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        prog="python -m projections.heartbeat",
        description="Exit 0 if the projector's heartbeat file is recent, 1 if not.",
    )
    parser.add_argument("file", help="the file given to `projections follow --heartbeat`")
    parser.add_argument(
        "--max-age",
        type=float,
        default=MAX_AGE_SECONDS,
        help=f"seconds the heartbeat may be old (default {MAX_AGE_SECONDS:g})",
    )
    args = parser.parse_args(argv)
    if not 0 < args.max_age < math.inf:
        parser.error("--max-age must be a positive number of seconds")
    if not args.file.strip():
        parser.error("name the heartbeat file")
    healthy, reason = check(Path(args.file), args.max_age)
    print(reason, file=sys.stdout if healthy else sys.stderr)
    return 0 if healthy else 1


if __name__ == "__main__":
    sys.exit(main())
