"""Fast copies of the frozen, slotted dataclasses of the game state.

`evolve` builds a new `GameState` for every fact it applies. Going through `__init__` (which sets
each field with `object.__setattr__`) or `dataclasses.replace` was most of the fold's time, so the
two methods below write the slots directly: `replace(**changes)` for a copy with some fields changed,
and `build(*values)` for a new instance from all fields in order. Like `dataclasses` itself, they
are generated once per class from the field names.
"""

from __future__ import annotations

import dataclasses
from typing import Any, TypeVar

T = TypeVar("T")

_UNSET = object()


def replaceable(cls: type[T]) -> type[T]:
    """Class decorator: add `obj.replace(**changes)` and `cls.build(*values)`."""
    names = [field.name for field in dataclasses.fields(cls)]  # type: ignore[arg-type]
    namespace: dict[str, Any] = {"new": object.__new__, "cls": cls, "UNSET": _UNSET}
    for name in names:
        namespace[f"set_{name}"] = cls.__dict__[name].__set__
    replace = [
        "def replace(self, **changes):",
        "    get = changes.get",
        "    copy = new(cls)",
        *(
            f"    value = get({name!r}, UNSET)\n"
            f"    set_{name}(copy, self.{name} if value is UNSET else value)"
            for name in names
        ),
        "    return copy",
    ]
    build = [
        f"def build({', '.join(names)}):",
        "    made = new(cls)",
        *(f"    set_{name}(made, {name})" for name in names),
        "    return made",
    ]
    exec("\n".join(replace) + "\n" + "\n".join(build), namespace)  # source from field names only
    namespace["replace"].__doc__ = f"A copy of this {cls.__name__} with the given fields changed."
    namespace["build"].__doc__ = f"A new {cls.__name__} from all its fields, in order."
    cls.replace = namespace["replace"]  # type: ignore[attr-defined]
    cls.build = staticmethod(namespace["build"])  # type: ignore[attr-defined]
    return cls
