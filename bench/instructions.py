"""A command request's own work in instructions, counted by callgrind: a figure without noise.

    .venv/bin/python -m bench.instructions [--games 1] [--minimal]

Timings of a command's own work (`bench.api`, issue 25's 0.2 ms) move by ±20% from run to run on
these shared machines, far more than most changes to the request's Python; the instructions the
CPU runs for the same requests hardly do (three runs of the same code: the own work within 0.3%,
the command itself within about 1%, its tokens and ids being new each run; whatever else the
machine is doing). So this counts them: a greedy-bot game's commands (as `bench.api`'s part
(c): their requests built beforehand, the app's WSGI function called with each in one process,
SQLite), after a first game that only warms up, run under `valgrind --tool=callgrind`; the
command's `Application.execute` inside each request is the baseline, and the rest of the request
is its own work (its body, token, the caller's view and events, their JSON), printed as a ratio
to the baseline. Compare two versions of the code side by side with it; the figure is not a
time: cache misses, which instructions do not show, make up much of a request's time here.

How the two are told apart: callgrind counts per C function, and Python code runs inside the
interpreter's own, so each part is run inside a C function nothing else on the request's path
calls (`itertools.dropwhile` for the requests, `itertools.takewhile` for each execute) and read
off as that function's inclusive count. Needs valgrind (every machine kind here has it); about
two minutes a game, most of it the interpreter starting under valgrind.
"""

from __future__ import annotations

import argparse
import itertools
import os
import re
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path
from typing import Any

from bench.api import MINIMAL, BotGame, app_with_floor, command_requests, wsgi_caller
from domain.application import Bohnanza

INSIDE = "BOHNANZA_BENCH_UNDER_CALLGRIND"
"""Set in the environment of the run under valgrind."""
REQUESTS, EXECUTE = "dropwhile_next", "takewhile_next"
"""The C functions the requests, and each command's execute inside them, are run in."""


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=1, help="games measured (after one warm-up)")
    parser.add_argument(
        "--minimal", action="store_true", help=f"send `Prefer: {MINIMAL}` (no view in the answer)"
    )
    args = parser.parse_args()
    if os.environ.get(INSIDE):
        _counted(args.games, MINIMAL if args.minimal else None)
    else:
        _report(args)


def _counted(games: int, prefer: str | None) -> None:
    """Under callgrind: the requests, inside the two C functions; prints how many."""
    with tempfile.TemporaryDirectory() as tmp:
        app = app_with_floor(
            {"DATABASE_URL": f"sqlite:///{tmp}/served.sqlite3", "INLINE_PROJECTIONS": False}
        )
        try:
            played = [BotGame.simulated(seed) for seed in range(1, games + 2)]
            answered: list[str] = []
            call = wsgi_caller(app, answered)
            for environ in _environs(app, played[0], prefer):  # warms the process up
                call(environ)
            measured = [environ for game in played[1:] for environ in _environs(app, game, prefer)]
            execute = Bohnanza.execute

            def counted_execute(self: Bohnanza, *args: Any, **kwargs: Any) -> Any:
                """The command run inside takewhile's C function: its predicate runs it once
                (and, returning None, ends the iteration)."""
                outcome = []
                list(
                    itertools.takewhile(
                        lambda _: outcome.append(execute(self, *args, **kwargs)), [0]
                    )
                )
                return outcome[0]

            Bohnanza.execute = counted_execute  # type: ignore[method-assign]
            answered.clear()
            # Every request inside dropwhile's C function: the predicate answers each, and is true.
            list(itertools.dropwhile(lambda environ: call(environ) is None, measured))
            Bohnanza.execute = execute  # type: ignore[method-assign]
            refused = [status for status in answered if not status.startswith("200")]
            if refused:
                raise RuntimeError(f"requests answered {refused[:3]}")
            print(f"requests {len(answered)}")
        finally:
            app.extensions["bohnanza"].close()


def _environs(app: Any, game: BotGame, prefer: str | None) -> list[dict[str, Any]]:
    return [request for _, request, _ in command_requests(app, game, prefer)]


def _report(args: argparse.Namespace) -> None:
    """Runs this module under callgrind and prints what it counted."""
    if shutil.which("valgrind") is None or shutil.which("callgrind_annotate") is None:
        sys.exit("bench.instructions needs valgrind (its callgrind tool and callgrind_annotate)")
    with tempfile.TemporaryDirectory() as tmp:
        out = Path(tmp, "callgrind.out")
        run = subprocess.run(
            [
                "valgrind",
                "--tool=callgrind",
                f"--callgrind-out-file={out}",
                sys.executable,
                "-m",
                "bench.instructions",
                *sys.argv[1:],
            ],
            env={**os.environ, INSIDE: "1", "PYTHONHASHSEED": "0"},
            capture_output=True,
            text=True,
        )
        if run.returncode != 0:
            sys.exit(f"the run under callgrind failed:\n{run.stdout}{run.stderr}")
        requests = int(re.search(r"^requests (\d+)$", run.stdout, re.MULTILINE).group(1))  # type: ignore[union-attr]
        annotated = subprocess.run(
            ["callgrind_annotate", "--inclusive=yes", str(out)],
            capture_output=True,
            text=True,
            check=True,
        ).stdout
    counts = {
        name: int(found.group(1).replace(",", ""))
        for name in (REQUESTS, EXECUTE)
        if (found := re.search(rf"^\s*([\d,]+) .*:{name} \[", annotated, re.MULTILINE))
    }
    if len(counts) < 2:
        sys.exit(f"callgrind named no {REQUESTS} or {EXECUTE}: does this Python have symbols?")
    execute = counts[EXECUTE] / requests
    own = (counts[REQUESTS] - counts[EXECUTE]) / requests
    answer = "without the view (`--minimal`)" if args.minimal else "with the caller's view"
    print(
        f"instructions per command request, {requests} requests of {args.games} greedy-bot"
        f" game(s), answers {answer} (callgrind; the same code counts the same to 0.3%, the baseline to ~1%):"
    )
    print(f"   Application.execute inside the request  {execute:12,.0f}   (baseline)")
    print(f"   the request's own work                  {own:12,.0f}   {own / execute:.2f} ×")


if __name__ == "__main__":
    main()
