"""A cheaper `__init__` for frozen slotted dataclasses run as Python (the ops): each field stored through its slot.

A frozen dataclass's generated `__init__` stores every field with `object.__setattr__` (its own `__setattr__`
refuses assignments), which looks the attribute up on the type and builds a bound wrapper per field. Fast mode's
folds build ops by the thousand per prediction (each folded, widened or outlined tile builds its loop bodies anew:
4.3 million over `benchmarks.fast_ab`'s 118 `simspeed` cases, `benchmarks.fast_probes ops`), and a `Load` took
about 1.5 times as long to build that way (`benchmarks.fast_probes init`; both in
`docs/results/speed11_probes.txt`). The instances are the same: same fields, same values, still frozen (assignment
still raises). Not handled (refused): fields with a default factory.

The ops are compiled with mypyc (`simgpu.native`), and compiled, each class's own `__init__` (declared with
`init=False`) stores its fields natively, faster still; as Python, those stores would raise on the frozen instance.
So a class whose `__init__` is compiled is left as it is, and one whose own `__init__` is Python gets the
slot-storing one in its place, after a check that both take the same parameters with the same defaults.
"""

from __future__ import annotations

import inspect
from dataclasses import MISSING, fields
from types import FunctionType
from typing import Any, TypeVar

_T = TypeVar("_T")


def slot_init(cls: type[_T]) -> type[_T]:
    """Give `cls`, a frozen dataclass with `slots=True`, an `__init__` of the same signature that stores each field
    through its slot descriptor's `__set__`, then calls `__post_init__` where the class has one (as the dataclass's
    does). Fields left out of `__init__` with a default get it, as there. A compiled `__init__` is kept."""
    if not isinstance(cls.__dict__.get("__init__"), FunctionType):
        return cls
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
    if not cls.__dataclass_params__.init:  # type: ignore[attr-defined]
        _check_same_parameters(cls, init)
    init.__qualname__ = f"{cls.__qualname__}.__init__"
    cls.__init__ = init  # type: ignore[method-assign]
    return cls


def _check_same_parameters(cls: type, init: FunctionType) -> None:
    """Refuse to replace the class's own `__init__` by one that takes other parameters or defaults: the compiled
    class runs its own, so the two must build the same instances from the same calls."""
    own = [(p.name, p.default) for p in inspect.signature(cls.__dict__["__init__"]).parameters.values()]
    made = [(p.name, p.default) for p in inspect.signature(init).parameters.values()]
    if own != made:
        raise TypeError(f"{cls.__name__}.__init__ takes {own[1:]}, its fields {made[1:]}")
