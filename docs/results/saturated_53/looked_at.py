"""Figures the fifty-third session's README quotes beside its grids, from the checkout on the path (run it at 6c1abbc
too for the before column):
- FA1's split forward on the A100 at 8 x 32 x 2048, d = 64: cycles and the HBM's busy fraction in both modes;
- the H100's 4096^3 GEMM in fast mode: a slot's first tile and a further tile, in cycles from the launch (the list
  schedule's input at the clock the run settles at; the launch gap added to the first);
- small GEMMs on an H100 cut to 16 SMs, its HBM and L2 cut alike (what-ifs): fast over exact mode.
`python docs/results/saturated_53/looked_at.py > docs/results/saturated_53/looked_at.txt`"""

from __future__ import annotations

from typing import Any

import simgpu.fast as fast
from simgpu import GemmProblem, Problem, load_arch, simulate
from simgpu.fast_schedule import shared_schedule

SMALL_SMS = 16
SMALL_SHAPES = ((1024, 1024, 4096), (1024, 2048, 2048), (2048, 2048, 1024))


def split_forward() -> None:
    results = {
        mode: simulate("a100", "v1", Problem(8, 32, 2048, 64), {"splits": 5}, mode=mode) for mode in ("fast", "exact")
    }
    for mode, result in results.items():
        print(f"A100 split forward, {mode}: {result.cycles:,.0f} cycles, HBM {result.busy['hbm']:.3f} busy")


def gemm_tiles() -> None:
    seen: list[Any] = []

    def kept(sms: int, slots: int, times: Any, tile_class: Any, sharers: int) -> float:
        seen.append(times.copy())
        return shared_schedule(sms, slots, times, tile_class, sharers)

    # `simgpu.fast` is not compiled: its name for the function can be replaced
    fast.__dict__["shared_schedule"] = kept
    result = simulate("h100", "gemm", GemmProblem(4096, 4096, 4096, "bf16"))
    fast.__dict__["shared_schedule"] = shared_schedule
    launch = load_arch("h100").kernel_launch_s * result.clock_hz
    first, further = float(seen[-1][0, 0, 0, 0]), float(seen[-1][0, 0, 0, 1])
    print(
        f"H100 GEMM 4096^3, fast mode at {result.clock_hz / 1e6:.0f} MHz: a slot's first tile ends at"
        f" {first + launch:,.0f} cycles, a further tile takes {further:,.0f}"
    )


def small_gemms() -> None:
    cut = SMALL_SMS / 132
    arch = load_arch(
        "h100",
        {"sms": SMALL_SMS, "l2.bandwidth_bytes_per_s": 7.761e12 * cut, "hbm.bandwidth_bytes_per_s": 3.35e12 * cut},
    )
    for shape in SMALL_SHAPES:
        problem = GemmProblem(*shape, "bf16")
        ratio = simulate(arch, "gemm", problem).cycles / simulate(arch, "gemm", problem, mode="exact").cycles
        print(f"H100 cut to {SMALL_SMS} SMs, GEMM {' x '.join(map(str, shape))}: fast over exact {ratio:.4f}")


if __name__ == "__main__":
    split_forward()
    gemm_tiles()
    small_gemms()
