"""A WSGI app for the worker's end-to-end tests: answers each request with its own path, after
sleeping `?sleep=SECONDS` if asked; it reads the request body first unless asked `?unread`."""

from __future__ import annotations

import time
from collections.abc import Callable, Iterable
from typing import Any
from urllib.parse import parse_qs


def app(environ: dict[str, Any], start_response: Callable[..., Any]) -> Iterable[bytes]:
    query = parse_qs(environ.get("QUERY_STRING", ""), keep_blank_values=True)
    if "unread" not in query:
        environ["wsgi.input"].read()
    time.sleep(float(query.get("sleep", ["0"])[0]))
    body = environ["PATH_INFO"].encode()
    start_response("200 OK", [("Content-Type", "text/plain"), ("Content-Length", str(len(body)))])
    return [body]
