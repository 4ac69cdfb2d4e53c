"""Fast against exact mode for standard attention on the H200 (d = 64, 32 heads, 16k tokens, two softmax passes as
our kernel) at N = 1024, 2048 and 4096: each kernel's cycles and the run's HBM bytes. At N = 2048 the softmax's second
pass over S partly misses L2 in exact mode (as on the chip: 1.49 passes of S from DRAM, `validation/h200/
softmax_reuse_h200.csv`). Fast mode's L2 replay, which walks a wave's CTAs in step, hit it all until the twenty-sixth
session (HBM reads 4.50 GB, the softmax 2136k cycles); it now walks a wave's stores after the next wave's first reads
(`simgpu.replay._wave_parts`) and misses most of it.
`python docs/results/softmax_2048_fast_vs_exact.py` prints it; the .txt beside it is its output."""

from __future__ import annotations

from simgpu import Problem, load_arch, simulate


def main() -> None:
    arch = load_arch("h200")
    for n in (1024, 2048, 4096):
        problem = Problem(16384 // n, 32, n, 64)
        s_bytes = problem.batch * problem.heads * n * n * 2
        for mode in ("fast", "exact"):
            result = simulate(arch, "standard", problem, mode=mode, options={"softmax_passes": 2})
            cycles = ", ".join(f"{c / 1e3:.0f}k" for c in result.kernel_cycles)
            print(f"N={n:5d} {mode:5s}: kernels (QK^T, softmax, PV) {cycles} cycles; HBM read "
                  f"{result.hbm_read_bytes / 1e9:.2f} GB, written {result.hbm_write_bytes / 1e9:.2f} GB "
                  f"(S is {s_bytes / 1e9:.2f} GB)")  # fmt: skip


if __name__ == "__main__":
    main()
