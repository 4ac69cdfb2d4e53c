"""v1's forward on the A100 at FA2's sweep point N = 1k (16 x 32 heads, d = 64, the releases' 5 splits), exact mode,
as a share of the 312 TFLOP/s peak, with FA1's barriers charged 0, 14 (a `__syncthreads` its 4 warps reach together,
`validation/h200/cta_sync_on_h100/`) and 106 cycles (the prologue's, what d26f98a charged). Needs `barriers.patch`
applied (without it the schedule has no barriers and every row is the first). Run from the repository root:
`python docs/results/cta_sync_not_kept_52/a100_level.py` (output in `a100_level.txt`)."""

from __future__ import annotations

from simgpu import Problem, load_arch, simulate


def main() -> None:
    for cycles in (0, 14, 106):
        arch = load_arch("a100").with_overrides({"latency.cta_sync_cycles": cycles})
        result = simulate(arch, "v1", Problem(16, 32, 1024, 64), {"splits": 5}, mode="exact")
        print(f"cta_sync_cycles {cycles:3}: {result.tflops:.2f} TFLOP/s, {100 * result.tflops / 312:.2f}% of peak")


if __name__ == "__main__":
    main()
