"""Browser tests: the web pages in headless Chromium, driven by Playwright.

The browser is Debian's headless shell, `/usr/bin/chromium-headless-shell` (its package
`chromium-headless-shell`, installed by .ci/run; Playwright downloads nothing): the same Chromium
without the full browser's window machinery, which is what Playwright itself runs for headless
pages. Where only Debian's full `chromium` is installed, the tests run it headless instead, at
about four times the CPU a page (docs/performance.md, "The test suite's browser").

The app is `create_app` served by a werkzeug server thread on a free loopback port, on a SQLite
store seeded with one complete 4-player bot game created through the API (so its seat tokens
exist). Locally a missing browser skips these tests; with `CI=true` it fails them.
Screenshots of each page are saved to test-artifacts/screenshots/ (ignored by git).

The accessibility checks run axe-core from the npm registry, installed beside the project by
`npm install` (package.json pins it; .ci/run installs it): nothing is fetched while the tests run.
"""

from __future__ import annotations

import os
import random
import threading
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any
from uuid import UUID

import pytest
from flask import Flask
from flask.testing import FlaskClient
from werkzeug.serving import make_server

from api.app import create_app
from domain.application import Bohnanza
from domain.bots import BOTS, Table, play_stored

ROOT = Path(__file__).resolve().parents[2]
SCREENSHOTS = ROOT / "test-artifacts" / "screenshots"
CHROMIUMS = (Path("/usr/bin/chromium-headless-shell"), Path("/usr/bin/chromium"))
"""The browsers the tests can drive, the one they prefer first."""
CHROMIUM_ARGS = [
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-dev-shm-usage",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--no-first-run",
    # Nothing but the app's own server resolves: a page that asks for anything outside the app
    # (a CDN, a font) is caught by `Pages` from its requests, and the request goes nowhere.
    "--host-resolver-rules=MAP * ~NOTFOUND, EXCLUDE 127.0.0.1",
]
AXE = ROOT / "node_modules" / "axe-core" / "axe.min.js"
DESKTOP = {"width": 1366, "height": 850}
PHONE = {"width": 390, "height": 844}
TIMEOUT_MS = 10_000
FINISHED_SEATS = ["Ana", "Ben", "Cleo", "Dan"]
FINISHED_SEED = 2026


def unavailable(reason: str) -> None:
    """Skip locally; fail under CI, where the browser must be there."""
    if os.environ.get("CI", "").lower() == "true":
        pytest.fail(reason, pytrace=False)
    pytest.skip(reason)


@dataclass(frozen=True)
class Game:
    """A game created through the API: its id and tokens."""

    id: str
    seat_tokens: list[str]
    host_token: str

    def seat(self, seat: int) -> dict[str, str]:
        return {"Authorization": f"Bearer {self.seat_tokens[seat]}"}


def create_game(client: FlaskClient, **body: Any) -> Game:
    """A new game through the API (three seats, digital, seed 7 unless told: Ana starts, with a
    Chili in front)."""
    request = {"seats": ["Ana", "Ben", "Cleo"], "seed": 7, **body}
    if request.get("mode") == "tabletop":
        request.pop("seed")
    response = client.post("/api/games", json=request)
    assert response.status_code == 201, response.get_json()
    document = response.get_json()
    return Game(
        document["game_id"], [seat["token"] for seat in document["seats"]], document["host_token"]
    )


@dataclass(frozen=True)
class Site:
    """The running app: its base URL, an in-process client and the finished game."""

    base: str
    app: Flask
    finished: Game

    @property
    def client(self) -> FlaskClient:
        return self.app.test_client()

    def new_game(self, **body: Any) -> Game:
        return create_game(self.client, **body)

    @property
    def store(self) -> Bohnanza:
        """The app's own application (its event store), as the server uses it."""
        return self.app.extensions["bohnanza"].get().app

    def play_to_its_end(self, game_id: UUID, seed: int, seats: int = 3) -> None:
        """Play a stored game (a new game, a fork) to its end between greedy bots."""
        bots = Table([BOTS["greedy"]() for _ in range(seats)], random.Random(seed))
        assert play_stored(self.store, game_id, bots)

    def ended_game(self, seed: int) -> UUID:
        """A new 3-player game, played to its end between bots."""
        game_id = UUID(self.new_game().id)
        self.play_to_its_end(game_id, seed)
        return game_id

    def get(self, path: str, **kwargs: Any) -> Any:
        response = self.client.get(path, **kwargs)
        assert response.status_code == 200, response.get_json()
        return response.get_json()


@pytest.fixture(scope="session")
def site(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Site]:
    """The app on a free port, its store holding one complete 4-player game between bots."""
    store = tmp_path_factory.mktemp("browser") / "bohnanza.sqlite3"
    app = create_app({"DATABASE_URL": f"sqlite:///{store}", "TESTING": True})
    server = make_server("127.0.0.1", 0, app, threaded=True)
    thread = threading.Thread(target=server.serve_forever, name="web pages", daemon=True)
    thread.start()
    try:
        finished = create_game(app.test_client(), seats=FINISHED_SEATS, seed=FINISHED_SEED)
        site = Site(f"http://127.0.0.1:{server.server_port}", app, finished)
        site.play_to_its_end(UUID(finished.id), FINISHED_SEED, len(FINISHED_SEATS))
        app.extensions["bohnanza"].get().catch_up()
        yield site
    finally:
        server.shutdown()
        thread.join(timeout=5)
        app.extensions["bohnanza"].close()


@pytest.fixture(scope="session")
def browser() -> Iterator[Any]:
    """Headless Chromium from the system packages (CHROMIUMS: the first installed)."""
    chromium_path = next((path for path in CHROMIUMS if path.exists()), None)
    if chromium_path is None:
        unavailable(f"{CHROMIUMS[0]} is missing: apt-get install chromium-headless-shell")
    try:
        from playwright.sync_api import sync_playwright
    except ImportError:
        unavailable("the playwright package is missing: pip install -e '.[dev]'")
    with sync_playwright() as playwright:
        chromium = playwright.chromium.launch(
            executable_path=str(chromium_path), args=CHROMIUM_ARGS
        )
        yield chromium
        chromium.close()


READY = "main[data-ready=true]"
"""What a page of the app shows once its script has loaded what it needs."""


class Pages:
    """Opens pages in fresh browser contexts (each its own storage), and checks when the test
    ends that no page asked for anything outside the app, none threw an error and none missed
    a file it loads (an API answer may be an error: the pages show those)."""

    def __init__(self, browser: Any, site: Site) -> None:
        self.browser = browser
        self.site = site
        self.contexts: list[Any] = []
        self.foreign: list[str] = []
        self.errors: list[str] = []
        self.requests: list[str] = []
        self.missing: list[str] = []

    def open(self, path: str, *, viewport: dict[str, int] = DESKTOP, ready: str = READY) -> Any:
        """A new page at `path`, once it shows `ready` (by default: its script says it is)."""
        context = self.browser.new_context(viewport=viewport, accept_downloads=True)
        self.contexts.append(context)
        page = context.new_page()
        page.set_default_timeout(TIMEOUT_MS)
        page.on("pageerror", lambda error: self.errors.append(str(error)))
        page.on("console", self._note_missing_file)
        page.on("request", self._note_request)
        self.goto(page, path, ready=ready)
        return page

    def goto(self, page: Any, path: str, *, ready: str = READY) -> None:
        page.goto(self.site.base + path)
        page.wait_for_selector(ready)

    def _note_request(self, request: Any) -> None:
        """Every request, noted as it is made (a listener, not a route: intercepting each request
        would hold it until the test's thread answers). One outside the app is a failure."""
        self.requests.append(request.url)
        if not request.url.startswith((self.site.base + "/", "data:", "blob:")):
            self.foreign.append(request.url)

    def _note_missing_file(self, message: Any) -> None:
        url = message.location.get("url", "")
        loading = message.type == "error" and message.text.startswith("Failed to load resource")
        if loading and not url.startswith(self.site.base + "/api/"):
            self.missing.append(f"{url}: {message.text}")

    def close(self) -> None:
        for context in self.contexts:
            context.close()


@pytest.fixture
def pages(browser: Any, site: Site) -> Iterator[Pages]:
    opened = Pages(browser, site)
    yield opened
    opened.close()
    assert not opened.foreign, f"a page asked for something outside the app: {opened.foreign}"
    assert not opened.errors, f"a page's script failed: {opened.errors}"
    assert not opened.missing, f"a page missed a file: {opened.missing}"


SERIOUS = ("serious", "critical")


def axe_violations(page: Any, *, exclude: list[str] | None = None) -> list[str]:
    """The serious and critical violations axe-core finds on the page as it is now (outside the
    parts `exclude` names by CSS selector), one line each: rule, impact, where."""
    if not AXE.exists():
        unavailable(f"{AXE} is missing: run `npm install` in the project")
    if not page.evaluate("typeof window.axe === 'object'"):
        page.evaluate(AXE.read_text())
    context = {"exclude": [[selector] for selector in exclude or []]}
    results = page.evaluate(
        "context => axe.run(context.exclude.length ? context : document, "
        "{resultTypes: ['violations']})",
        context,
    )
    return [
        f"{violation['id']} ({violation['impact']}): {node['target']} — {violation['help']}"
        for violation in results["violations"]
        if violation["impact"] in SERIOUS
        for node in violation["nodes"]
    ]


def screenshot(page: Any, name: str, *, full_page: bool = True) -> Path:
    """Save the page (all of it, or what the viewport shows) as
    test-artifacts/screenshots/<name>.png."""
    SCREENSHOTS.mkdir(parents=True, exist_ok=True)
    path = SCREENSHOTS / f"{name}.png"
    page.screenshot(path=str(path), full_page=full_page)
    return path
