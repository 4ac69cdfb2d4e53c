"""A cheaper `__init__` for frozen slotted dataclasses (the ops): each field stored through its slot's descriptor.

A frozen dataclass's generated `__init__` stores every field with `object.__setattr__` (its own `__setattr__`
refuses assignments), which looks the attribute up on the type and builds a bound wrapper per field. Fast mode's
folds build ops by the thousand per prediction (each folded, widened or outlined tile builds its loop bodies anew:
4.3 million over `benchmarks.fast_ab`'s 118 `simspeed` cases, `benchmarks.fast_probes ops`), and a `Load` took
about 1.5 times as long to build that way (`benchmarks.fast_probes init`; both in
`docs/results/speed11_probes.txt`). The instances are the same: same fields, same values, still frozen (assignment
still raises). Not handled (refused): fields with a default factory.
"""

from __future__ import annotations

from dataclasses import MISSING, fields
from typing import Any, TypeVar

_T = TypeVar("_T")


def slot_init(cls: type[_T]) -> type[_T]:
    """Give `cls`, a frozen dataclass with `slots=True`, an `__init__` of the same signature that stores each field
    through its slot descriptor's `__set__`, then calls `__post_init__` where the class has one (as the dataclass's
    does). Fields left out of `__init__` with a default get it, as there."""
    names: dict[str, Any] = {}
    params = []
    body = []
    for number, each in enumerate(fields(cls)):  # type: ignore[arg-type]
        if each.default_factory is not MISSING:
            raise TypeError(f"{cls.__name__}.{each.name}: slot_init takes no default factory")
        names[f"_set{number}"] = getattr(cls, each.name).__set__
        if each.default is not MISSING:
            names[f"_default{number}"] = each.default
        if each.init:
            params.append(each.name if each.default is MISSING else f"{each.name}=_default{number}")
            body.append(f"    _set{number}(self, {each.name})")
        elif each.default is not MISSING:
            body.append(f"    _set{number}(self, _default{number})")
    if hasattr(cls, "__post_init__"):
        body.append("    self.__post_init__()")
    source = f"def __init__(self, {', '.join(params)}):\n" + "\n".join(body or ["    pass"]) + "\n"
    exec(source, names)  # as `dataclasses` builds its own methods: the field names are the parameters
    init = names["__init__"]
    init.__qualname__ = f"{cls.__qualname__}.__init__"
    cls.__init__ = init  # type: ignore[method-assign]
    return cls
