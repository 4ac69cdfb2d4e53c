"""The L2 model's dirty-capacity rule over ordered dictionaries, as `simgpu.units.l2.L2` kept it before its linked
lines: the reference that the L2 model's lines (`test_l2_lines.py`) and the replay's inlined rule
(`simgpu.replay._dirtied`, `test_replay_speed.py`) are held to."""

from __future__ import annotations

from collections import OrderedDict
from collections.abc import Hashable
from typing import TypeVar

_K = TypeVar("_K", bound=Hashable)


def dirtied(
    key: _K, lines: OrderedDict[_K, float], dirty: OrderedDict[_K, None], dirty_bytes: float, capacity: float
) -> tuple[float, list[float]]:
    """Mark resident `key` dirty (not dirty before; its bytes are `lines[key]`), then take the tiles dirtied longest
    ago off `dirty`, which stay resident, while the dirty bytes exceed `capacity`: the dirty bytes left and the bytes
    of each tile to write back, oldest first."""
    dirty[key] = None
    dirty_bytes += lines[key]
    cleaned: list[float] = []
    while dirty_bytes > capacity:
        old_bytes = lines[dirty.popitem(last=False)[0]]
        dirty_bytes -= old_bytes
        cleaned.append(old_bytes)
    return dirty_bytes, cleaned
