"""HBM footprint of a schedule: the buffers it keeps live at its peak, checked against the arch's HBM capacity.

Counts only the arrays the schedule itself names (inputs, outputs, intermediates in HBM). Ignored: the framework's
allocator rounding and caching, workspace of libraries, and everything else resident on the GPU (weights,
activations of other layers), so the real out-of-memory point comes at or before the one reported here.
"""

from __future__ import annotations

from collections.abc import Mapping

from simgpu.arch import Arch
from simgpu.errors import OutOfMemoryError

GB = 1e9


def check_footprint(arch: Arch, algo: str, buffers: Mapping[str, int]) -> int:
    """Total bytes of `buffers` (name -> bytes live at the peak); OutOfMemoryError when HBM cannot hold them."""
    total = sum(buffers.values())
    if total > arch.hbm.capacity_bytes:
        largest = max(buffers, key=lambda name: buffers[name])
        raise OutOfMemoryError(
            f"{algo}: out of memory on {arch.name}: needs {total / GB:.1f} GB of HBM at its peak "
            f"(largest buffer {largest}: {buffers[largest] / GB:.1f} GB), "
            f"capacity {arch.hbm.capacity_bytes / GB:.1f} GB"
        )
    return total
