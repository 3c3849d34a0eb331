"""The contributor's tools: workers only where they pay, the test databases' names, the hooks."""

from __future__ import annotations

import os
from pathlib import Path
from types import SimpleNamespace

import pytest
import yaml

from tests.conftest import (
    DATABASE_PREFIX_VARIABLE,
    WHOLLY_SLOW,
    FilesInOrder,
    database_prefix,
    pytest_collection_modifyitems,
    pytest_xdist_auto_num_workers,
)

ROOT = Path(__file__).resolve().parents[1]


def _config(*args: str, markexpr: str = "") -> SimpleNamespace:
    """What the workers hook reads of a run: its arguments, where it was started, its `-m`."""
    return SimpleNamespace(
        args=list(args),
        invocation_params=SimpleNamespace(dir=ROOT),
        option=SimpleNamespace(markexpr=markexpr),
    )


@pytest.mark.parametrize(
    "args",
    [
        ["tests/unit/test_values.py"],
        ["tests/unit/test_values.py::test_replace_changes_only_the_named_fields"],
        ["tests/unit/test_values.py::x", "tests/unit/test_values.py::y"],
    ],
    ids=["a file", "a test in it", "two tests in it"],
)
def test_a_run_of_one_test_file_starts_no_workers(args, monkeypatch):
    monkeypatch.delenv("PYTEST_XDIST_AUTO_NUM_WORKERS", raising=False)

    assert pytest_xdist_auto_num_workers(_config(*args)) == 0


@pytest.mark.parametrize(
    "args",
    [["tests"], ["tests/unit"], ["tests/unit/test_values.py", "tests/unit/test_duel.py"]],
    ids=["the suite", "a folder", "two files"],
)
def test_a_run_of_a_folder_or_several_files_takes_one_worker_more_than_the_cpus(args, monkeypatch):
    monkeypatch.delenv("PYTEST_XDIST_AUTO_NUM_WORKERS", raising=False)

    assert pytest_xdist_auto_num_workers(_config(*args)) == len(os.sched_getaffinity(0)) + 1


def test_the_fast_subset_leaves_the_workers_to_xdist(monkeypatch):
    monkeypatch.delenv("PYTEST_XDIST_AUTO_NUM_WORKERS", raising=False)

    assert pytest_xdist_auto_num_workers(_config("tests", markexpr="not slow")) is None


def test_the_browser_files_run_first_as_one_unit_then_the_longest_files():
    items = [
        SimpleNamespace(nodeid=nodeid, get_closest_marker=lambda name: None)
        for nodeid in (
            "tests/unit/test_values.py::test_a",
            "tests/unit/test_bot_games.py::test_b",
            "tests/browser/test_replay.py::test_c",
            "tests/integration/test_projections.py::test_d",
            "tests/browser/test_index.py::test_e",
        )
    ]
    pytest_collection_modifyitems(items)  # type: ignore[arg-type]
    scheduler = FilesInOrder.__new__(FilesInOrder)

    assert [item.nodeid.split("::")[1] for item in items] == [
        "test_c",
        "test_e",
        "test_d",
        "test_b",
        "test_a",
    ]
    assert [scheduler._split_scope(item.nodeid) for item in items] == [
        "tests/browser/",
        "tests/browser/",
        "tests/integration/test_projections.py",
        "tests/unit/test_bot_games.py",
        "tests/unit/test_values.py",
    ]


def test_a_chosen_number_of_workers_holds_for_one_file_too(monkeypatch):
    monkeypatch.setenv("PYTEST_XDIST_AUTO_NUM_WORKERS", "2")

    assert pytest_xdist_auto_num_workers(_config("tests/unit/test_values.py")) is None


def test_the_test_databases_are_named_bohnanza_test_by_default():
    assert database_prefix({}) == "bohnanza_test_"


def test_the_test_databases_prefix_comes_from_the_environment():
    assert database_prefix({DATABASE_PREFIX_VARIABLE: "ci_job_42_"}) == "ci_job_42_"


def test_a_prefix_that_leaves_no_room_for_the_random_suffix_is_refused():
    with pytest.raises(pytest.UsageError, match="at most 51"):
        database_prefix({DATABASE_PREFIX_VARIABLE: "é" * 26})  # 52 bytes


@pytest.mark.postgres
def test_the_session_s_database_carries_the_prefix(postgres_database):
    name = postgres_database.url.rsplit("/", 1)[1]

    assert name.startswith(database_prefix(os.environ))
    assert len(name.encode()) <= 63


def _hooks() -> dict[str, dict]:
    config = yaml.safe_load((ROOT / ".pre-commit-config.yaml").read_text())
    return {
        hook["id"]: {**hook, "repo": repo["repo"]}
        for repo in config["repos"]
        for hook in repo["hooks"]
    }


def test_the_commit_hooks_run_the_ci_linters_and_type_checker():
    assert set(_hooks()) == {"ruff-check", "ruff-format", "mypy"}


def test_the_commit_hooks_use_the_venv_s_pinned_tools_and_need_no_network():
    for hook in _hooks().values():
        assert hook["repo"] == "local"
        assert hook["language"] == "system"
        assert hook["entry"].startswith(".venv/bin/")


def test_ci_runs_the_type_checker_as_the_commit_hook_does():
    ci = (ROOT / ".ci" / "run").read_text()

    assert _hooks()["mypy"]["entry"] in ci.splitlines()


@pytest.mark.postgres
def test_a_postgresql_test_is_in_the_slow_set_so_the_fast_subset_needs_no_server(request):
    assert request.node.get_closest_marker("slow") is not None


@pytest.mark.parametrize(
    ("source", "wholly_slow"),
    [
        ("pytestmark = pytest.mark.slow  # real servers\n", True),
        ("pytestmark = [pytest.mark.browser, pytest.mark.slow]\n", True),
        ("pytestmark = pytest.mark.browser\n", False),
        ("@pytest.mark.slow\ndef test_one():\n", False),
        ("pytestmark = pytest.mark.slower\n", False),
    ],
)
def test_a_module_the_fast_subset_need_not_import_is_told_by_its_pytestmark(source, wholly_slow):
    assert bool(WHOLLY_SLOW.search(f"import pytest\n\n{source}")) is wholly_slow
