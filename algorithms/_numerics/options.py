"""Validation of the keyword options of `forward` / `backward`: a typo must raise, never be swallowed.

Each algorithm declares its options as a frozen dataclass whose fields are the accepted names and whose
`__post_init__` checks values; `parse_options` builds it from `**options` with a message naming the
algorithm.
"""

from __future__ import annotations

import dataclasses
from typing import Any, TypeVar

__all__ = ["parse_options", "require_positive_int"]

T = TypeVar("T")


def parse_options(algo: str, cls: type[T], options: dict[str, Any]) -> T:
    """Build `cls(**options)`, raising `TypeError` that lists the valid names when one is unknown."""
    valid = [f.name for f in dataclasses.fields(cls)]  # type: ignore[arg-type]
    unknown = sorted(set(options) - set(valid))
    if unknown:
        raise TypeError(f"{algo}: unknown option(s) {', '.join(unknown)}; valid options: {', '.join(valid)}")
    return cls(**options)


def require_positive_int(algo: str, name: str, value: object) -> None:
    """Raise `ValueError` unless `value` is None or a positive int (bools rejected)."""
    if value is None:
        return
    if isinstance(value, bool) or not isinstance(value, int) or value <= 0:
        raise ValueError(f"{algo}: option {name} must be a positive int, got {value!r}")
