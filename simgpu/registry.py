"""Algorithms by name. simgpu never imports `algorithms`: algorithm modules register under the entry-point group
`simgpu.algorithms` (see pyproject.toml), and any module can be given by dotted path as well.

An algorithm module provides `schedule(arch, problem, **options) -> sequence of Kernel`, `OPTIONS` (the option
names it accepts, mapped to their defaults) and `PROBLEM` ("attention" or "gemm"); an attention algorithm that
models varlen batches (`Problem.seqlens`) sets `VARLEN = True`.
"""

from __future__ import annotations

import functools
import importlib
from collections.abc import Mapping
from importlib.metadata import entry_points
from types import MappingProxyType, ModuleType

from simgpu.errors import UnknownAlgorithmError

ENTRY_POINT_GROUP = "simgpu.algorithms"


@functools.cache
def _registered() -> Mapping[str, str]:
    """Registered algorithm names -> module paths. Read once per process: scanning the installed distributions'
    metadata takes milliseconds, as long as a whole small fast-mode prediction (an algorithm registered by a
    distribution installed after the first look-up needs a new process)."""
    modules: dict[str, str] = {}
    for ep in entry_points(group=ENTRY_POINT_GROUP):
        modules.setdefault(ep.name, ep.value)  # the first registration of a name wins, as before
    return MappingProxyType(modules)


def algorithm_names() -> tuple[str, ...]:
    return tuple(sorted(_registered()))


def load_algorithm(name: str) -> ModuleType:
    registered = _registered().get(name)
    if registered is not None:
        module = importlib.import_module(registered)
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
