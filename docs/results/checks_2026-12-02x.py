"""Side check of the twelfth session: why the fast-vs-exact grid's H100 v2 causal forward on 8 SMs (shape 0) leaves
1% once the row-max pass is two ops (`algorithms._schedule.softmax`). Fast mode runs this kernel whole
(`simgpu.fast_whole`) with the L2 replay's misses spread evenly over a tensor's loads; exact mode misses on first
touch. Run as in the grid, then with the L2 hit latency set to the HBM latency (480 cycles: which CTA misses no
longer moves its phase), then without the HBM's loaded latency.
Run from the repository root: `python docs/results/checks_2026-12-02x.py > docs/results/checks_2026-12-02x.txt`."""

from __future__ import annotations

from experiments.fast_vs_exact import SHAPES, compare_on
from simgpu import Problem

overrides, shape = SHAPES[0]
problem = Problem(shape["batch"], shape["heads"], shape["seqlen_q"], shape["headdim"], causal=True, pass_="fwd")
for label, extra in (
    ("as in the grid", {}),
    ("L2 hit latency = HBM latency", {"l2.hit_latency_cycles": 480}),
    ("no loaded latency", {"hbm.loaded_latency": None}),
):
    row = compare_on("h100", {**overrides, **extra}, "v2", problem)
    print(f"{label:30}: exact {row['cycles_exact']:9.0f}, fast {row['cycles_fast']:9.0f}, "
          f"fast / exact {row['fast_over_exact']:.4f}")  # fmt: skip
