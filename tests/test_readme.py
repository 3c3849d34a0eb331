"""The README's two commands are the ones CI and users run."""

from __future__ import annotations

import re
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def readme_commands() -> list[str]:
    blocks = re.findall(r"```sh\n(.*?)\n```", (ROOT / "README.md").read_text(), re.S)
    return blocks[:2]


def test_the_readme_starts_with_a_run_command_and_a_test_command():
    run, test = readme_commands()

    assert "pip install" in run
    assert "bohnanza" in run
    assert "pip install" in test
    assert "pytest" in test


def test_ci_runs_the_readme_test_command_verbatim():
    _, test = readme_commands()

    assert test in (ROOT / ".ci" / "run").read_text()
