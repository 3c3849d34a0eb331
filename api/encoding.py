"""The app's JSON answers, encoded by orjson: the same documents as Flask's encoder, in a fraction
of the time (a command's answer holds the caller's whole view, so this is on every hot path).

orjson refuses a few things the standard library accepts: a lone surrogate in a string (which a
client can send, and an answer may echo), an integer beyond 64 bits, a non-string key. Those
documents go through Flask's own encoder, as they always did, so nothing a client sends can turn
into a 500 here. Dates keep Flask's format (HTTP dates) by being handed to Flask's `default`.
"""

from __future__ import annotations

from typing import Any

import orjson
from flask.json.provider import DefaultJSONProvider
from flask.wrappers import Response

OPTIONS = orjson.OPT_PASSTHROUGH_DATETIME | orjson.OPT_PASSTHROUGH_DATACLASS
"""Dates and dataclasses go to Flask's `default`, as with the standard library."""


class OrjsonProvider(DefaultJSONProvider):
    """Flask's JSON provider with orjson encoding compact answers (the default outside debug)."""

    sort_keys = False
    """Keys in the order the code builds them (the documents read top-down)."""

    def dumps(self, obj: Any, **kwargs: Any) -> str:
        if kwargs:  # indentation or other options asked for: the standard library's encoder
            return super().dumps(obj, **kwargs)
        return self._encode(obj).decode()

    def response(self, *args: Any, **kwargs: Any) -> Response:
        body = self.encoded(self._prepare_response_obj(args, kwargs))
        return self._app.response_class(body, mimetype=self.mimetype)

    def encoded(self, obj: Any) -> bytes:
        """The body of `response(obj)`: compact JSON and a newline, as Flask's, or indented for
        people reading it in debug mode."""
        if (self.compact is None and self._app.debug) or self.compact is False:
            return f"{self.dumps(obj, indent=2)}\n".encode()
        return self._encode(obj) + b"\n"

    def _encode(self, obj: Any) -> bytes:
        try:
            return orjson.dumps(obj, default=self.default, option=OPTIONS)
        except orjson.JSONEncodeError:
            return super().dumps(obj, separators=(",", ":")).encode()
