"""A fast `replace` for the frozen, slotted dataclasses of the game state.

`evolve` copies a state with one or two fields changed for every event it applies, and
`dataclasses.replace` (which goes through `__init__` and `object.__setattr__` per field) was two
thirds of the fold's time. The generated method below writes the slots directly: about 3× faster,
same result. Like `dataclasses` itself, it builds the function source once per class.
"""

from __future__ import annotations

import dataclasses
from typing import Any, TypeVar

T = TypeVar("T")

_UNSET = object()


def replaceable(cls: type[T]) -> type[T]:
    """Class decorator: add `obj.replace(**changes)`, a copy of `obj` with some fields changed."""
    names = [field.name for field in dataclasses.fields(cls)]  # type: ignore[arg-type]
    namespace: dict[str, Any] = {"new": object.__new__, "cls": cls, "UNSET": _UNSET}
    lines = ["def replace(self, **changes):", "    get = changes.get", "    copy = new(cls)"]
    for name in names:
        namespace[f"set_{name}"] = cls.__dict__[name].__set__
        lines.append(f"    value = get({name!r}, UNSET)")
        lines.append(f"    set_{name}(copy, self.{name} if value is UNSET else value)")
    lines.append("    return copy")
    exec("\n".join(lines), namespace)  # source built from field names only
    replace = namespace["replace"]
    replace.__doc__ = f"A copy of this {cls.__name__} with the given fields changed."
    replace.__qualname__ = f"{cls.__qualname__}.replace"
    cls.replace = replace  # type: ignore[attr-defined]
    return cls
