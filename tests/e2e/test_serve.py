"""`bohnanza serve`, the README's main command, run as a user runs it: on an empty store it
creates the demo games, prints where they are with their tokens, and serves the API and pages
until Ctrl-C."""

from __future__ import annotations

import re
import socket
import subprocess
from pathlib import Path

import httpx
import pytest

from .server import BOHNANZA, serving

pytestmark = pytest.mark.slow  # real servers


def test_serve_on_an_empty_store_creates_the_demo_games_and_serves_them(tmp_path: Path) -> None:
    with serving(f"sqlite:///{tmp_path / 'store.sqlite3'}") as (base, printed):
        finished = re.search(r"/games/([0-9a-f-]{36})/replay", printed)
        new = re.search(r"a new 3-player game: +\S+/api/games/([0-9a-f-]{36})", printed)
        token = re.search(r"Ana +token (\S+)", printed)
        assert finished, printed
        assert new, printed
        assert token, printed
        pages = {path: httpx.get(f"{base}{path}").status_code for path in ("/", "/docs", "/record")}
        replay_page = httpx.get(f"{base}/games/{finished.group(1)}/replay")
        summary = httpx.get(f"{base}/api/games/{finished.group(1)}").json()
        view = httpx.get(
            f"{base}/api/games/{new.group(1)}/view",
            headers={"Authorization": f"Bearer {token.group(1)}"},
        )
        listed = httpx.get(f"{base}/api/games").json()

    assert "Created two demo games" in printed
    assert pages == {"/": 200, "/docs": 200, "/record": 200}
    assert replay_page.status_code == 200
    assert summary["status"] == "ended"
    assert view.status_code == 200
    assert view.json()["viewer"] == {"kind": "seat", "seat": 0}
    assert len(listed["games"]) == 2


def test_serve_on_a_store_with_games_creates_no_more(tmp_path: Path) -> None:
    store = f"sqlite:///{tmp_path / 'store.sqlite3'}"
    with serving(store):
        pass

    with serving(store) as (base, printed):
        listed = httpx.get(f"{base}/api/games").json()

    assert "Created" not in printed
    assert re.search(r"its last event is at position [\d,]+\.", printed)
    assert len(listed["games"]) == 2


def test_serve_on_a_busy_port_stops_before_creating_anything(tmp_path: Path) -> None:
    store = tmp_path / "store.sqlite3"
    with socket.socket() as busy:
        busy.bind(("127.0.0.1", 0))
        busy.listen()
        port = busy.getsockname()[1]
        done = subprocess.run(
            [BOHNANZA, "serve", "--port", str(port), "--database-url", f"sqlite:///{store}"],
            capture_output=True,
            text=True,
            timeout=60,
        )

    assert done.returncode == 1
    assert done.stderr == (
        f"Error: cannot serve on 127.0.0.1:{port}: Address already in use (a server running "
        "there? --port chooses another); nothing was created\n"
    )
    assert "demo" not in done.stdout
    assert not store.exists()
