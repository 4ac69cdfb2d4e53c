"""Side check of the tenth session: the bottleneck unit the model reports for our FA2 forward at Nsight Compute's
shape (`validation/h200/fa2_ncu_d{64,128}.csv`: B = 4, H = 2048 / d, N = 4096, bf16, not causal; the kernel's tiles;
H200 at the 1.8 GHz ncu saw), with every unit's busy share, beside the measured pipes' shares in that README table.
Run from the repository root: `python docs/results/checks_2026-12-02t.py > docs/results/checks_2026-12-02t.txt`."""

from __future__ import annotations

from simgpu import Problem, simulate
from simgpu.arch import load_arch

TILES = {
    64: {"block_m": 128, "block_n": 128, "warps": 4, "stages": 2},
    128: {"block_m": 128, "block_n": 64, "warps": 4, "stages": 2},
}

arch = load_arch("h200").with_overrides({"clock_hz": 1.8e9, "power": None})
for d, options in TILES.items():
    result = simulate(arch, "v2", Problem(4, 2048 // d, 4096, d, dtype="bf16"), options, mode="fast")
    busy = ", ".join(f"{unit} {share:.3f}" for unit, share in sorted(result.busy.items(), key=lambda kv: -kv[1]))
    print(f"d={d}: bottleneck {result.bottleneck}; busy {busy}")
