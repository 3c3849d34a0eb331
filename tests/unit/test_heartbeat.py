"""The projector's health check (projections/heartbeat.py): healthy while its heartbeat file is
recent, unhealthy when it is old or missing, with one line saying which."""

from __future__ import annotations

import os
import shutil
import time
from pathlib import Path

import pytest

from projections.heartbeat import Heartbeat, main


@pytest.fixture
def heartbeat(tmp_path: Path) -> Path:
    return tmp_path / "projector.heartbeat"


def test_a_recent_heartbeat_is_healthy(heartbeat: Path, capsys: pytest.CaptureFixture[str]) -> None:
    Heartbeat(heartbeat).beat()

    assert main([str(heartbeat), "--max-age", "30"]) == 0
    assert capsys.readouterr().out.startswith("the projector reached the database 0.")


def test_a_heartbeat_older_than_the_limit_is_unhealthy(
    heartbeat: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    Heartbeat(heartbeat).beat()
    long_ago = time.time() - 45
    os.utime(heartbeat, (long_ago, long_ago))

    assert main([str(heartbeat), "--max-age", "30"]) == 1
    assert capsys.readouterr().err == (
        "the projector's last heartbeat is 45 s old (more than 30 s): it cannot reach the "
        "database, or it stopped\n"
    )


def test_no_heartbeat_at_all_is_unhealthy(
    heartbeat: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main([str(heartbeat)]) == 1
    assert capsys.readouterr().err == (
        f"no heartbeat file at {heartbeat}: the projector has not reached the database yet, or "
        "the path is wrong\n"
    )


@pytest.mark.parametrize("where", ["a directory", "through a file", "a name too long"])
def test_a_path_that_names_no_file_is_unhealthy_in_one_line(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], where: str
) -> None:
    path = {
        "a directory": tmp_path,
        "through a file": tmp_path / "file" / "heartbeat",
        "a name too long": tmp_path / ("x" * 300),
    }[where]
    (tmp_path / "file").touch()

    assert main([str(path)]) == 1
    assert capsys.readouterr().err.startswith("no heartbeat file at ")


def test_each_beat_touches_the_file_again(heartbeat: Path) -> None:
    Heartbeat(heartbeat).beat()
    long_ago = time.time() - 45
    os.utime(heartbeat, (long_ago, long_ago))

    Heartbeat(heartbeat).beat()

    assert time.time() - heartbeat.stat().st_mtime < 5


@pytest.mark.parametrize("max_age", ["0", "-5", "nan", "inf", "1e309"])
def test_a_limit_that_is_no_positive_number_of_seconds_is_refused(
    heartbeat: Path, max_age: str
) -> None:
    with pytest.raises(SystemExit) as exit_:
        main([str(heartbeat), "--max-age", max_age])

    assert exit_.value.code == 2


def test_a_heartbeat_that_cannot_be_touched_any_more_is_logged_once_and_not_raised(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    directory = tmp_path / "gone"
    directory.mkdir()
    heartbeat = Heartbeat(directory / "projector.heartbeat")
    heartbeat.beat_or_warn()
    shutil.rmtree(directory)

    with caplog.at_level("WARNING", logger="projections.heartbeat"):
        heartbeat.beat_or_warn()
        heartbeat.beat_or_warn()
        directory.mkdir()
        heartbeat.beat_or_warn()

    assert [record.getMessage().split(":")[0] for record in caplog.records] == [
        "projector",
        "projector",
    ]
    assert "cannot touch the heartbeat file" in caplog.records[0].getMessage()
    assert caplog.records[1].getMessage() == "projector: the heartbeat file is touched again"
    assert (directory / "projector.heartbeat").exists()


@pytest.mark.parametrize("path", ["", " "])
def test_an_empty_path_is_refused(path: str) -> None:
    with pytest.raises(SystemExit) as exit_:
        main([path])

    assert exit_.value.code == 2


def test_a_heartbeat_path_that_became_a_directory_is_logged_not_touched(
    heartbeat: Path, caplog: pytest.LogCaptureFixture
) -> None:
    Heartbeat(heartbeat).beat()
    heartbeat.unlink()
    heartbeat.mkdir()

    with caplog.at_level("WARNING", logger="projections.heartbeat"):
        Heartbeat(heartbeat).beat_or_warn()

    assert caplog.records[0].getMessage() == (
        f"projector: cannot touch the heartbeat file: {heartbeat} is not a regular file"
    )


def test_a_heartbeat_that_is_no_regular_file_cannot_beat() -> None:
    with pytest.raises(OSError, match="/dev/null is not a regular file"):
        Heartbeat(Path("/dev/null")).beat()
