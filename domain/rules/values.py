"""Fast copies of the frozen, slotted dataclasses of the game state.

`evolve` builds a new `GameState` for every fact it applies, and replays step through thousands of
them. A frozen dataclass can only be built through `object.__setattr__` per field (its own
`__setattr__` refuses), which made construction most of the cost of a step. The two methods added
here build instances of an unfrozen twin class with the very same slots, by plain assignment, and
then give them the frozen class: `type(obj)` is the frozen class, equality, hashing, `repr` and
the refusal to be modified are the dataclass's own. (CPython lets `__class__` change between two
classes with identical slot layouts; `tests/unit/test_values.py` pins that this keeps working.)

- `cls.build(*values)`: a new instance from every field, in declaration order;
- `obj.replace(**changes)`: a copy with some fields changed.
"""

from __future__ import annotations

import dataclasses
from typing import Any, TypeVar

T = TypeVar("T")

_UNSET = object()


def written_out(name: str, lines: list[str], namespace: dict[str, Any], doc: str | None) -> Any:
    """The function `name` that `lines` define, with `namespace` as its globals and `doc` as its
    docstring: code written out at import from a class's field names and types only (never from
    data), where a loop over the fields on every call cost too much."""
    exec("\n".join(lines), namespace)
    function = namespace[name]
    function.__doc__ = doc
    return function


def replaceable(cls: type[T]) -> type[T]:
    """Class decorator for a frozen slotted dataclass: add `build` and `replace`."""
    names = [field.name for field in dataclasses.fields(cls)]  # type: ignore[arg-type]
    twin = type(f"_Unfrozen{cls.__name__}", (), {"__slots__": cls.__slots__})  # type: ignore[attr-defined]
    namespace: dict[str, Any] = {
        "new": object.__new__,
        "Twin": twin,
        "Frozen": cls,
        "UNSET": _UNSET,
    }
    build = [
        f"def build({', '.join(names)}):",
        "    made = new(Twin)",
        *(f"    made.{name} = {name}" for name in names),
        "    made.__class__ = Frozen",
        "    return made",
    ]
    replace = [
        "def replace(self, **changes):",
        "    get = changes.get",
        "    made = new(Twin)",
        *(
            f"    value = get({name!r}, UNSET)\n"
            f"    made.{name} = self.{name} if value is UNSET else value"
            for name in names
        ),
        "    made.__class__ = Frozen",
        "    return made",
    ]
    exec("\n".join(build) + "\n" + "\n".join(replace), namespace)  # source from field names only
    namespace["build"].__doc__ = f"A new {cls.__name__} from all its fields, in order."
    namespace["replace"].__doc__ = f"A copy of this {cls.__name__} with the given fields changed."
    cls.build = staticmethod(namespace["build"])  # type: ignore[attr-defined]
    cls.replace = namespace["replace"]  # type: ignore[attr-defined]
    return cls
