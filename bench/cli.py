"""Command-line start-up: `bohnanza --help` beside `python -c pass`, measured in the same run.

    .venv/bin/python -m bench.cli [--repeats 15]

`bohnanza --help` imports only click and the command list (api/cli.py): each command's module,
with the engine, the store, Flask and gunicorn, is imported when that command runs. Target:
≤ 0.5 s. The ratio to a bare interpreter's start says how much of it is the command line's own.

The two are run alternately in the same loop, each as a new process; medians (the machines are
noisy).
"""

from __future__ import annotations

import argparse
import statistics
import subprocess
import sys
from pathlib import Path

from bench.support import timed

BOHNANZA = Path(sys.executable).with_name("bohnanza")
TARGET_SECONDS = 0.5


def _run(argv: list[str]) -> None:
    subprocess.run(argv, check=True, stdout=subprocess.DEVNULL)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeats", type=int, default=15)
    repeats = parser.parse_args().repeats
    help_times, bare_times = [], []
    for _ in range(repeats):
        help_times.append(timed(lambda: _run([str(BOHNANZA), "--help"])))
        bare_times.append(timed(lambda: _run([sys.executable, "-c", "pass"])))
    shown = statistics.median(help_times)
    bare = statistics.median(bare_times)
    verdict = "meets" if shown <= TARGET_SECONDS else "misses"
    print(
        f"bohnanza --help: {shown * 1000:.0f} ms; python -c pass: {bare * 1000:.0f} ms; "
        f"{shown / bare:.1f}x ({verdict} the target of {TARGET_SECONDS:g} s; medians of {repeats})"
    )


if __name__ == "__main__":
    main()
