"""The engine's time to run a kernel whole on its chip (`simgpu.fast_whole.run_whole`), against its unit ops and its
CTAs: what a whole run costs per op and per CTA (`python docs/results/session_67/whole_cost.py`)."""

from __future__ import annotations

import time

import numpy as np

from simgpu import Problem, load_arch
from simgpu.api import schedule
from simgpu.engine import DEFAULT_EVENT_BUDGET
from simgpu.fast_whole import run_whole, unit_ops

CASES = [
    ("h100", {"sms": 8}, "v3", Problem(2, 2, 1024, 64, causal=True), 0),
    ("h100", {"sms": 10}, "v2", Problem(2, 2, 1024, 64, causal=True), 0),
    ("h200", {}, "v2", Problem(1, 32, 1024, 64, causal=True), 0),
    ("h200", {}, "v3", Problem(1, 16, 1024, 128, pass_="bwd"), 0),
    ("h200", {}, "v3", Problem(1, 16, 1024, 128, pass_="bwd"), 2),
    ("h200", {}, "v3", Problem(16, 16, 1024, 128, pass_="bwd"), 2),
    ("h200", {}, "v2", Problem(16, 16, 1024, 128, pass_="bwd"), 2),
    ("h200", {}, "v2", Problem(4, 16, 1024, 128, pass_="bwd"), 0),
    ("h100", {"sms": 8}, "standard", Problem(1, 2, 1000, 64), 1),
]
rows = []
for arch_name, overrides, algo, problem, number in CASES:
    arch = load_arch(arch_name, overrides)
    kernel = schedule(arch, algo, problem, {})[number]
    ops = sum(sum(unit_ops(role.program(tile)) for role in kernel.roles) for tile in kernel.tiles)
    run_whole(arch, kernel, arch.clock_hz, DEFAULT_EVENT_BUDGET, None)
    times = []
    for _ in range(3):
        started = time.perf_counter()
        run_whole(arch, kernel, arch.clock_hz, DEFAULT_EVENT_BUDGET, None)
        times.append(time.perf_counter() - started)
    rows.append((ops, len(kernel.tiles), min(times)))
    print(
        f"{arch_name} {overrides} {algo} {problem.batch}x{problem.heads}x{problem.seqlen_q} {problem.pass_} "
        f"{kernel.name}: {ops:.0f} unit ops, {len(kernel.tiles)} CTAs, {min(times) * 1e3:.1f} ms"
    )
a = np.array([[ops, ctas] for ops, ctas, _ in rows])
t = np.array([s for *_, s in rows])
(per_op, per_cta), *_ = np.linalg.lstsq(a, t, rcond=None)
print(
    f"least squares: {per_op * 1e6:.2f} us per unit op, {per_cta * 1e6:.2f} us per CTA "
    f"(a CTA costs {per_cta / per_op:.1f} unit ops)"
)
