"""`bohnanza --help` lists every command without importing any of them, as click would list them."""

from __future__ import annotations

import importlib
import subprocess
import sys

import click
import pytest

from api.cli import COMMANDS, main

HEAVY = ("domain", "projections", "replays", "flask", "sqlalchemy", "eventsourcing", "gunicorn")


def _command(name: str) -> click.Command:
    entry = COMMANDS[name]
    return getattr(importlib.import_module(entry.module), entry.name)


@pytest.mark.parametrize("name", sorted(COMMANDS))
def test_each_command_s_listed_help_is_the_first_sentence_of_its_own(name):
    assert COMMANDS[name].short_help == _command(name).get_short_help_str(limit=10**6)


def test_the_listing_is_what_click_would_print_with_every_command_imported():
    eager = click.Group(
        name=main.name,
        params=main.params,
        help=main.help,
        commands={name: _command(name) for name in COMMANDS},
    )

    lazy_help = main.get_help(click.Context(main, info_name="bohnanza"))
    eager_help = eager.get_help(click.Context(eager, info_name="bohnanza"))

    assert lazy_help == eager_help


def test_help_imports_neither_the_engine_nor_the_store_nor_the_web_framework():
    script = (
        "import sys; from api.cli import main\n"
        "try:\n    main(['--help'])\nexcept SystemExit:\n    pass\n"
        f"print(sorted({{m.split('.')[0] for m in sys.modules}} & set({HEAVY!r})))"
    )
    done = subprocess.run(
        [sys.executable, "-c", script], capture_output=True, text=True, check=True
    )

    assert done.stdout.splitlines()[-1] == "[]"


def test_every_command_module_defines_the_command_it_is_listed_for():
    for name in COMMANDS:
        assert _command(name).name == name


def test_an_unknown_command_is_refused_by_name(run):
    result = run("plya")

    assert result.exit_code == 2
    assert "No such command 'plya'" in result.output


def test_the_projections_help_names_no_read_model_that_is_not_one():
    text = _command("projections").help or ""

    assert "games, scoreboards, leaderboard" not in text
    assert "`status` names each projection" in text
