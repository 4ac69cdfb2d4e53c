"""An algorithm package's NumPy numerics, loaded on first use.

Simulating an algorithm loads its package for the schedule; the numerics import `ml_dtypes` (a C extension that
registers its NumPy types and loops: about 0.9 s, most of a CLI prediction's start-up). Each package's `forward`
and `backward` therefore come from its `numerics` module when first asked for (a module `__getattr__`, PEP 562).
"""

from __future__ import annotations

import importlib
from collections.abc import Callable

NUMERICS = ("forward", "backward")


def numerics_attributes(package: str) -> Callable[[str], object]:
    """The module `__getattr__` of `package`: `forward` and `backward` from `package.numerics`."""

    def __getattr__(name: str) -> object:
        if name in NUMERICS:
            return getattr(importlib.import_module(f"{package}.numerics"), name)
        raise AttributeError(f"module {package!r} has no attribute {name!r}")

    return __getattr__
