"""Fast mode with `miss_runs.patch` applied (`simgpu.units.fluid_l2`: a tensor's misses given in runs of MISS_RUN
accesses rather than one by one, evenly spread) against exact mode, at four whole-H200 cases: v2's causal forward,
where fast mode's spread misses each wait out the loaded HBM latency (this session's lead), and two of v3's.
`SIMGPU_NATIVE=0 MISS_RUN=k python docs/results/shared_period_51/not_kept/miss_runs.py` (k = 1: as shipped)."""

from __future__ import annotations

import os

from simgpu import Problem, load_arch, simulate
from simgpu.validation import KERNEL_OPTIONS

OURS = {
    **KERNEL_OPTIONS["v3"], "block_m": 128, "block_n": 128, "stages": 2, "pingpong": False, "intra_wg_overlap": True,
}  # our kernel's, as `simgpu validate` runs it (`simgpu.validation.KERNEL_OPTIONS` and its tiles)  # fmt: skip
CASES = (
    ("v2", Problem(16, 16, 1024, 128, causal=True), {}),
    ("v2", Problem(16, 32, 1024, 64, causal=True), {}),
    ("v3", Problem(8, 33, 512, 64), OURS),
    ("v3", Problem(16, 16, 1024, 128, causal=True), {}),
)


def main() -> None:
    arch = load_arch("h200")
    for algo, problem, options in CASES:
        fast = simulate(arch, algo, problem, options)
        exact = simulate(arch, algo, problem, options, mode="exact")
        print(f"MISS_RUN={os.environ.get('MISS_RUN', '1')} {algo} {problem.batch} x {problem.heads} x"
              f" {problem.seqlen_q}, d = {problem.headdim}, causal {problem.causal}: fast / exact"
              f" {fast.cycles / exact.cycles:.4f}")  # fmt: skip


if __name__ == "__main__":
    main()
