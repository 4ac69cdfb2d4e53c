"""Result of one simulation: cycles, time, FLOPs, bytes per memory level and direction, unit busy fractions, the
bottleneck unit, and optionally the trace spans. Frozen; `to_dict` gives the stable `--json` keys.

Busy fraction of a unit = its busy cycles / (instances x run cycles): for a per-SM unit, the average over SMs.
The bottleneck is the unit with the highest busy fraction. `unit_cycles`: each unit's busy cycles per instance over
the run; of a per-tile run (`simgpu.per_tile`), over one main-loop tile, and `work_item_unit_cycles` over the whole
first work item that the run's other figures describe.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from types import MappingProxyType
from typing import Any

from simgpu.engine import RunStats
from simgpu.trace import Span, write_chrome_trace

# Every byte count of a Result, per memory level and direction.
BYTE_FIELDS: tuple[str, ...] = (
    "hbm_read_bytes",
    "hbm_write_bytes",
    "l2_read_bytes",
    "l2_write_bytes",
    "smem_read_bytes",
    "smem_write_bytes",
    "tmem_read_bytes",
    "tmem_write_bytes",
)

JSON_KEYS: tuple[str, ...] = (
    "arch",
    "algo",
    "problem",
    "mode",
    "cycles",
    "time_s",
    "flops",
    "tflops",
    *BYTE_FIELDS[:6],  # all but TMEM's
    "busy",
    "bottleneck",
    "sim_wall_s",
)


@dataclass(frozen=True)
class Result:
    arch: str
    algo: str
    problem: Mapping[str, object]
    options: Mapping[str, object]
    mode: str
    clock_hz: float
    cycles: float
    time_s: float
    flops: float
    hbm_read_bytes: float
    hbm_write_bytes: float
    l2_read_bytes: float
    l2_write_bytes: float
    smem_read_bytes: float
    smem_write_bytes: float
    tmem_read_bytes: float
    tmem_write_bytes: float
    busy: Mapping[str, float]
    unit_cycles: Mapping[str, float]
    bottleneck: str
    kernel_cycles: tuple[float, ...]
    ctas_per_sm: tuple[int, ...]
    sim_wall_s: float
    spans: tuple[Span, ...] = field(default=(), repr=False)
    work_item_unit_cycles: Mapping[str, float] | None = None  # per-tile runs only (`simgpu.per_tile`)

    @property
    def tflops(self) -> float:
        return self.flops / self.time_s / 1e12 if self.time_s > 0 else 0.0

    @property
    def hbm_bytes(self) -> float:
        return self.hbm_read_bytes + self.hbm_write_bytes

    def to_dict(self, per_tile: bool = False) -> dict[str, Any]:
        data: dict[str, Any] = {
            "arch": self.arch,
            "algo": self.algo,
            "problem": dict(self.problem),
            "options": dict(self.options),
            "mode": self.mode,
            "clock_hz": self.clock_hz,
            "cycles": self.cycles,
            "time_s": self.time_s,
            "flops": self.flops,
            "tflops": self.tflops,
            "hbm_read_bytes": self.hbm_read_bytes,
            "hbm_write_bytes": self.hbm_write_bytes,
            "l2_read_bytes": self.l2_read_bytes,
            "l2_write_bytes": self.l2_write_bytes,
            "smem_read_bytes": self.smem_read_bytes,
            "smem_write_bytes": self.smem_write_bytes,
            "tmem_read_bytes": self.tmem_read_bytes,
            "tmem_write_bytes": self.tmem_write_bytes,
            "busy": dict(self.busy),
            "bottleneck": self.bottleneck,
            "kernel_cycles": list(self.kernel_cycles),
            "ctas_per_sm": list(self.ctas_per_sm),
            "sim_wall_s": self.sim_wall_s,
        }
        if per_tile:
            data["unit_cycles"] = dict(self.unit_cycles)
            if self.work_item_unit_cycles is not None:  # a whole run has no first work item apart
                data["work_item_unit_cycles"] = dict(self.work_item_unit_cycles)
        return data

    def write_trace(self, path: str | Path) -> None:
        write_chrome_trace(path, self.spans, self.clock_hz)


def make_result(
    stats: RunStats,
    *,
    arch: str,
    algo: str,
    problem: Mapping[str, object],
    options: Mapping[str, object],
    mode: str,
    clock_hz: float,
    flops: float,
    sim_wall_s: float,
    spans: tuple[Span, ...] = (),
    main_loop_unit_cycles: Mapping[str, float] | None = None,
) -> Result:
    """The Result of a run's `stats`. `main_loop_unit_cycles`: a per-tile run's one main-loop tile
    (`simgpu.per_tile`), reported as `unit_cycles`, with the run's own as `work_item_unit_cycles`."""
    cycles = stats.cycles
    busy = {
        name: (totals.busy_cycles / (totals.instances * cycles) if cycles > 0 else 0.0)
        for name, totals in stats.units.items()
    }
    unit_cycles = unit_busy_cycles(stats)
    bottleneck = max(sorted(busy), key=lambda name: busy[name])
    return Result(
        arch=arch,
        algo=algo,
        problem=MappingProxyType(dict(problem)),
        options=MappingProxyType(dict(options)),
        mode=mode,
        clock_hz=clock_hz,
        cycles=cycles,
        time_s=cycles / clock_hz,
        flops=flops,
        hbm_read_bytes=stats.hbm_read_bytes,
        hbm_write_bytes=stats.hbm_write_bytes,
        l2_read_bytes=stats.l2_read_bytes,
        l2_write_bytes=stats.l2_write_bytes,
        smem_read_bytes=stats.smem_read_bytes,
        smem_write_bytes=stats.smem_write_bytes,
        tmem_read_bytes=stats.tmem_read_bytes,
        tmem_write_bytes=stats.tmem_write_bytes,
        busy=MappingProxyType(busy),
        unit_cycles=MappingProxyType(unit_cycles if main_loop_unit_cycles is None else dict(main_loop_unit_cycles)),
        bottleneck=bottleneck,
        kernel_cycles=stats.kernel_cycles,
        ctas_per_sm=stats.ctas_per_sm,
        sim_wall_s=sim_wall_s,
        spans=spans,
        work_item_unit_cycles=None if main_loop_unit_cycles is None else MappingProxyType(unit_cycles),
    )


def unit_busy_cycles(stats: RunStats) -> dict[str, float]:
    """Each unit's busy cycles per instance over the run (for a per-SM unit, the average over SMs)."""
    return {name: totals.busy_cycles / totals.instances for name, totals in stats.units.items()}
