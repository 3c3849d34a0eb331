"""Marks shared by the test modules."""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

import pytest


def slow_beyond(params: Iterable[Any], keep: int) -> list[Any]:
    """Parameter sets for a check repeated over many games: the first `keep` stay in the fast
    subset (`-m "not slow"`) as its sample, the rest are marked slow."""
    marked = []
    for index, param in enumerate(params):
        if not isinstance(param, type(pytest.param(None))):
            param = pytest.param(*param) if isinstance(param, tuple) else pytest.param(param)
        if index >= keep:
            param = pytest.param(*param.values, marks=[*param.marks, pytest.mark.slow], id=param.id)
        marked.append(param)
    return marked
