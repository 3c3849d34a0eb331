"""The service's app, made to die once at a chosen point of a command, as a server can: for the
end-to-end crash tests (test_crash.py).

A command sent with an `Idempotency-Key` starting `crash-after-storing` kills its worker process
right after its events are stored, before it is answered; one starting `crash-before-storing`
kills it just before its events would be stored. Each key does so once (a marker file in
`$BOHNANZA_TEST_CRASH_DIR`), so its retries run normally in the worker gunicorn starts instead.
"""

from __future__ import annotations

import hashlib
import os
from pathlib import Path
from typing import Any
from uuid import UUID

from flask import Flask

from api.app import create_app
from api.services import Services

AFTER_STORING = "crash-after-storing"
BEFORE_STORING = "crash-before-storing"


def app() -> Flask:
    web = create_app()
    markers = Path(os.environ["BOHNANZA_TEST_CRASH_DIR"])

    def first_time(key: str) -> bool:
        try:
            (markers / hashlib.sha256(key.encode()).hexdigest()).touch(exist_ok=False)
        except FileExistsError:
            return False
        return True

    def arm(services: Services) -> None:
        execute = services.app.execute

        def execute_or_die(game_id: UUID, command: Any, **options: Any) -> Any:
            key = options.get("request_key") or ""
            if key.startswith(BEFORE_STORING) and first_time(key):
                os._exit(1)
            outcome = execute(game_id, command, **options)
            if key.startswith(AFTER_STORING) and first_time(key):
                os._exit(1)
            return outcome

        services.app.execute = execute_or_die  # type: ignore[method-assign]

    @web.before_request
    def armed() -> None:
        services = web.extensions["bohnanza"].get()
        if not getattr(services, "armed", False):
            services.armed = True  # type: ignore[attr-defined]
            arm(services)

    return web
