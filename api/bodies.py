"""Request bodies as gunicorn reads them (`wsgi.input`): what the service asks of its readers
beyond reading. Nothing here assumes gunicorn: under another server (Werkzeug's, in the browser
tests) a body has no such reader and these do nothing."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from gunicorn.http.body import ChunkedReader, LengthReader
from werkzeug.exceptions import RequestEntityTooLarge


def body_left_unread(body: Any) -> bool:
    """Whether part of the request body gunicorn's `body` (wsgi.input) reads is still on the
    connection: bytes of a Content-Length not read yet, or a chunked body not read to its end."""
    reader = getattr(body, "reader", None)
    if isinstance(reader, LengthReader):
        return reader.length > 0
    if isinstance(reader, ChunkedReader):
        return reader.parser is not None
    return False


def bound_chunks(body: Any, limit: int) -> None:
    """Refuse a chunked body (413) as soon as its chunk-size lines announce `limit` bytes or
    more in all, before the bytes they announce arrive: a client announcing a chunk of 16 MB
    and sending a few bytes had held its request until the read timeout (a 408 after 15 s).
    The body is read as before otherwise; gunicorn's own checks of each line still apply."""
    reader = getattr(body, "reader", None)
    if not isinstance(reader, ChunkedReader):
        return
    parse: Callable[..., tuple[int, bytes | None]] = reader.parse_chunk_size
    announced = 0

    def parse_chunk_size(unreader: Any, data: bytes | None = None) -> tuple[int, bytes | None]:
        nonlocal announced
        size, rest = parse(unreader, data)
        announced += size
        if announced >= limit:
            raise RequestEntityTooLarge()
        return size, rest

    reader.parse_chunk_size = parse_chunk_size  # the reader's generator looks it up per chunk
