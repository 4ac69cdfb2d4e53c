"""The kernels the replay now walks in the re-reading order (`simgpu.replay._wave_parts`) on whole chips: v1 (its
tiles load O, l and m again each step) at the benchmark's shapes (16k tokens, 16 heads, d = 128, N = 1k-128k) and
standard attention with the two-pass softmax (`softmax_passes=2`) at N = 1k-8k, fast mode: cycles and HBM bytes per
case, from the checkout on the path (`full_chip_reread_at_08bb2f4.txt`: run with PYTHONPATH at a worktree of the
session's start; `full_chip_reread.txt`: after). `--exact`: standard attention's forward (default options) on the A100
at 16k tokens in exact mode, per kernel cycles and HBM bytes (`a100_16k_exact.txt`), against which a variant that
charged the earlier wave's write-backs to the stores alone put P V 25% over.
Run from the repository root: `python docs/results/softmax_cliff_small_chip/full_chip_reread.py [--exact]`."""

from __future__ import annotations

import sys

import simgpu
from simgpu import Problem, simulate

if __name__ == "__main__":
    print("#", simgpu.__file__)
    if "--exact" in sys.argv:
        exact = simulate("a100", "standard", Problem(1, 16, 16384, 128), mode="exact")
        cycles = " ".join(f"{c:.0f}" for c in exact.kernel_cycles)
        print(f"a100 standard 16384 fwd exact: kernels (QK^T, softmax, PV) {cycles} cycles; HBM read "
              f"{exact.hbm_read_bytes / 1e9:.4f} GB, written {exact.hbm_write_bytes / 1e9:.4f} GB")  # fmt: skip
        sys.exit()
    for arch in ("a100", "h100", "h200", "b200"):
        for n in (1024, 4096, 16384, 131072):
            for pass_ in ("fwd", "bwd"):
                r = simulate(arch, "v1", Problem(max(1, 16384 // n), 16, n, 128, pass_=pass_))
                print(arch, "v1", n, pass_, f"{r.cycles:.0f}", f"{r.hbm_read_bytes / 1e9:.4f}",
                      f"{r.hbm_write_bytes / 1e9:.4f}")  # fmt: skip
        for n in (1024, 2048, 4096, 8192):
            r = simulate(arch, "standard", Problem(max(1, 16384 // n), 16, n, 128), options={"softmax_passes": 2})
            print(arch, "standard-2-pass", n, "fwd", f"{r.cycles:.0f}", f"{r.hbm_read_bytes / 1e9:.4f}",
                  f"{r.hbm_write_bytes / 1e9:.4f}")  # fmt: skip
