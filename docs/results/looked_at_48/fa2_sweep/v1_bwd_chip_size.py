"""v1's backward on the H100 file at N = 512, d = 128 (FA2's shape) on chips cut to 1-132 SMs, four heads an SM
(16 heads, batch to match; one CTA a head, one CTA an SM): exact mode's cycles per CTA slot, fast over exact, and
exact mode's HBM busy share. `python docs/results/looked_at_48/fa2_sweep/v1_bwd_chip_size.py > ...chip_size.txt`."""

from __future__ import annotations

from simgpu import Problem, load_arch, simulate

for sms in (1, 4, 16, 66, 132):
    arch = load_arch("h100", {"sms": sms})
    problem = Problem(max(1, sms // 4), 16, 512, 128, pass_="bwd") if sms >= 4 else Problem(1, 4, 512, 128, pass_="bwd")
    exact = simulate(arch, "v1", problem, mode="exact")
    fast = simulate(arch, "v1", problem)
    ctas = problem.batch * problem.heads
    print(
        f"{sms} SMs, {ctas} heads: exact {exact.cycles * sms / ctas:.0f} cycles per head and SM, fast over exact"
        f" {fast.cycles / exact.cycles:.4f}, HBM busy {exact.busy.get('hbm', 0.0):.2f}"
    )
