"""FA1's forward at B_c = 512 (FA1 Fig. 2 middle's last point: 64 x 16 heads, N = 1024, d = 64, B_r = 64) on the
A100, exact and fast mode, with the tensor cores beside ldmatrix at the H200's rate (0.651, the A100 file before the
sixty-fifth session) and at the full rate (after): which of the two moved exact mode's runtime.
`python docs/results/session_65/fa1_block512.py > docs/results/session_65/fa1_block512.txt`."""

from __future__ import annotations

from simgpu import Problem, load_arch, simulate

problem = Problem(64, 16, 1024, 64, pass_="fwd")
for rate in (0.651, 1.0):
    arch = load_arch("a100", {"contention.tensor_rate_while_smem_busy": rate})
    for mode in ("exact", "fast"):
        result = simulate(arch, "v1", problem, {"block_n": 512, "block_m": 64}, mode=mode)
        busy = ", ".join(f"{unit} {share:.3f}" for unit, share in result.busy.items() if share > 0.01)
        print(f"rate {rate}: {mode:5s} {result.time_s * 1e3:.3f} ms, bound by {result.bottleneck}; busy: {busy}")
