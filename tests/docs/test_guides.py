"""The docs cannot drift from the code: every `sh` block of the guides (docs/guides/*.md) and of
the README's tour runs here, in order, as one shell script per document, against a real
`bohnanza serve` (the README's against one with its demo games), and must succeed. A block
fenced as `text` or `console` shows output or a sketch and is not run.

A guide's commands find what they need through the API (ids, tokens), as a reader does; they
name the server as `$BASE` (http://127.0.0.1:8000 unless set) and the store as the server's
`BOHNANZA_DATABASE_URL` (the command line's tools open it themselves)."""

from __future__ import annotations

import os
import re
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.e2e.server import serving

pytestmark = pytest.mark.slow  # real servers, whole guides

ROOT = Path(__file__).resolve().parents[2]
GUIDES = sorted((ROOT / "docs" / "guides").glob("*.md"))
BLOCK = re.compile(r"^```(\w*)\n(.*?)^```", re.S | re.M)
RUN = "sh"


def blocks(document: Path) -> list[str]:
    """The document's shell blocks, in order."""
    return [body for kind, body in BLOCK.findall(document.read_text()) if kind == RUN]


def tour(document: Path) -> list[str]:
    """The README's blocks after its two commands (those install and run; CI runs the second)."""
    return blocks(document)[2:]


def run_script(script: list[str], base: str, database_url: str, cwd: Path) -> None:
    """The blocks as one bash script (stopping at the first failure), with the venv's commands
    on the PATH; fails the test with what the script printed."""
    venv = Path(sys.executable).parent
    env = {
        **os.environ,
        "BASE": base,
        "BOHNANZA_DATABASE_URL": database_url,
        "PATH": f"{venv}{os.pathsep}{os.environ.get('PATH', '')}",
    }
    body = "set -euo pipefail\n" + "\n".join(script)
    done = subprocess.run(
        ["bash", "-c", body], cwd=cwd, env=env, capture_output=True, text=True, timeout=300
    )
    assert done.returncode == 0, (
        f"exit {done.returncode}\n{done.stdout[-4000:]}\n{done.stderr[-4000:]}"
    )


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[str, str]]:
    store = f"sqlite:///{tmp_path_factory.mktemp('guides') / 'store.sqlite3'}"
    with serving(store, "--no-demo") as (base, _):
        yield base, store


def test_there_are_guides_and_each_has_commands() -> None:
    assert {guide.stem for guide in GUIDES} >= {
        "playing-over-the-api",
        "recording-a-table",
        "replaying-and-annotating",
        "settling-a-dispute",
    }
    for guide in GUIDES:
        assert blocks(guide), guide.name


@pytest.mark.parametrize("guide", GUIDES, ids=[guide.stem for guide in GUIDES])
def test_every_command_of_a_guide_runs(
    server: tuple[str, str], guide: Path, tmp_path: Path
) -> None:
    base, store = server

    run_script(blocks(guide), base, store, tmp_path)


def test_every_command_of_the_readme_s_tour_runs(tmp_path: Path) -> None:
    store = f"sqlite:///{tmp_path / 'demo.sqlite3'}"
    with serving(store) as (base, _):
        run_script(tour(ROOT / "README.md"), base, store, tmp_path)
