"""The service's blueprints: flask-smorest's, with request bodies read so that nothing a client
sends can end as a 500."""

from __future__ import annotations

import typing

import flask
import flask_smorest
from webargs.flaskparser import FlaskParser, abort


class BodyParser(FlaskParser):
    """webargs' Flask parser, except that a JSON body nested deeper than the standard library's
    decoder can follow (about a thousand levels, well within the size limit) is refused like any
    other unreadable body (400), instead of failing with a RecursionError (500)."""

    def _raw_load_json(self, req: flask.Request) -> typing.Any:
        try:
            return super()._raw_load_json(req)
        except RecursionError:
            abort(400, messages={"json": ["Invalid JSON body: nested too deeply to read."]})


class Blueprint(flask_smorest.Blueprint):
    """flask-smorest's Blueprint, its arguments read by `BodyParser`."""

    ARGUMENTS_PARSER = BodyParser()
