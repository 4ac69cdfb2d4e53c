"""Algorithms by name. simgpu never imports `algorithms`: algorithm modules register under the entry-point group
`simgpu.algorithms` (see pyproject.toml), and any module can be given by dotted path as well.

An algorithm module provides `schedule(arch, problem, **options) -> sequence of Kernel`, `OPTIONS` (the option
names it accepts, mapped to their defaults) and `PROBLEM` ("attention" or "gemm").
"""

from __future__ import annotations

import importlib
from importlib.metadata import entry_points
from types import ModuleType

from simgpu.errors import UnknownAlgorithmError

ENTRY_POINT_GROUP = "simgpu.algorithms"


def algorithm_names() -> tuple[str, ...]:
    return tuple(sorted(ep.name for ep in entry_points(group=ENTRY_POINT_GROUP)))


def load_algorithm(name: str) -> ModuleType:
    for ep in entry_points(group=ENTRY_POINT_GROUP):
        if ep.name == name:
            module = importlib.import_module(ep.value)
            break
    else:
        if "." not in name:
            known = ", ".join(algorithm_names()) or "none registered"
            raise UnknownAlgorithmError(f"unknown algorithm {name!r} (known: {known})")
        try:
            module = importlib.import_module(name)
        except ImportError as err:
            raise UnknownAlgorithmError(f"cannot import algorithm module {name!r}: {err}") from None
    for attribute in ("schedule", "OPTIONS", "PROBLEM"):
        if not hasattr(module, attribute):
            raise UnknownAlgorithmError(f"algorithm {name!r} ({module.__name__}) has no {attribute}")
    return module
