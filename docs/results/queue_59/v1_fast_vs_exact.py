"""v1's released forward (the release's splits) on FA2's sweep shapes, fast against exact mode, and the HBM's busy
share per 2,000-cycle window of the exact run at the A100's 8 x 32 x 2048, d = 64 (the largest departure):
`python docs/results/queue_59/v1_fast_vs_exact.py > docs/results/queue_59/v1_fast_vs_exact.txt` (about a minute)."""

from __future__ import annotations

from algorithms.v1.schedule import release_splits
from simgpu import Problem, Trace, load_arch, simulate
from simgpu.trace import busy_per_window

WINDOW_CYCLES = 2000


def main() -> None:
    for arch_name, seqlen in (("a100", 2048), ("a100", 512), ("a100", 1024), ("h100", 512)):
        arch = load_arch(arch_name)
        problem = Problem(16384 // seqlen, 32, seqlen, 64)
        options = {"splits": release_splits(arch, problem)}
        fast = simulate(arch, "v1", problem, options)
        trace = Trace(sms=(), max_spans=5_000_000) if (arch_name, seqlen) == ("a100", 2048) else None
        exact = simulate(arch, "v1", problem, options, mode="exact", trace=trace)
        print(
            f"{arch_name} N={seqlen} splits={options['splits']}: fast {fast.tflops:.1f} TFLOP/s, exact "
            f"{exact.tflops:.1f}, fast over exact cycles {fast.cycles / exact.cycles:.3f}; HBM busy fast "
            f"{fast.busy['hbm']:.3f}, exact {exact.busy['hbm']:.3f}; HBM reads fast {fast.hbm_read_bytes:.4g}, exact "
            f"{exact.hbm_read_bytes:.4g}"
        )
        if trace is not None:
            windows = busy_per_window(exact.spans, "unit hbm", WINDOW_CYCLES, exact.cycles)
            for start in (0, len(windows) // 4, len(windows) // 2, 3 * len(windows) // 4):
                row = " ".join(f"{share:.2f}" for share in windows[start : start + 40])
                print(f"  exact HBM busy per {WINDOW_CYCLES} cycles from {start * WINDOW_CYCLES}: {row}")


if __name__ == "__main__":
    main()
