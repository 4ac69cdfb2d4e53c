"""Exact mode on the whole-chip cases that the fit variants' whole miss cycles moved most
(`full_chip.txt` beside it against `../ballast_2026-12-04/full_chip.txt`): standard attention on the A100 and the
H200 at N = 4096 (4 x 16 heads, d = 128), forward and backward: cycles and HBM read bytes, as `full_chip.py` prints.
Run from the repository root: `python docs/results/fit_miss_cycles_2026-12-04/full_chip_exact.py`."""

from __future__ import annotations

import simgpu
from simgpu import Problem, simulate

if __name__ == "__main__":
    print("#", simgpu.__file__)
    for arch in ("a100", "h200"):
        for pass_ in ("fwd", "bwd"):
            r = simulate(arch, "standard", Problem(4, 16, 4096, 128, pass_=pass_), mode="exact")
            print(arch, "standard", 4096, pass_, "exact", f"{r.cycles:.0f}", f"{r.hbm_read_bytes / 1e9:.4f}")
