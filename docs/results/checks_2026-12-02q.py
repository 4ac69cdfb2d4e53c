"""Side check of the tenth session: the v1 forward's 24 validation configurations predicted (fast mode: exact mode's
event budget stops the longest) against our FA1-order kernel before and after its fix: the kernel used to load each
thread's old O values one at a time between its stores (ptxas kept every load behind the previous store, which may
alias: 16-32 HBM round trips per step); it now loads them all first (`cupy_kernels/v1/fwd.cu`). Measurements:
`validation/h200/v1_fix_2026-12-02/kernels_h200_v1_before.csv` (the v1 rows the repository had) and
`validation/h200/kernels_h200.csv` (the v1 rows of `v1_fix_2026-12-02/kernels_h200_full_run.csv`). The model runs
the v1 schedule in both its variants with the kernel's tiles: `release` (FA1's released kernel, the default: split-K
warps meeting in smem, the next Q loaded a step ahead, only lse in HBM) and `algorithm1` (our kernel's loop, which
`simgpu validate` uses: split-Q warps, Q loaded and waited for every step, l and m in HBM beside O). Prints per
configuration the measured times and the two predictions, then MAPE and mean signed error per variant, kernel build
and head dimension.
Run from the repository root: `python docs/results/checks_2026-12-02q.py > docs/results/checks_2026-12-02q.txt`."""

from __future__ import annotations

import statistics

from simgpu import simulate
from simgpu.validation import Case, case_arch, read_cases

BEFORE = "validation/h200/v1_fix_2026-12-02/kernels_h200_v1_before.csv"
AFTER = "validation/h200/kernels_h200.csv"


def predicted_ms(case: Case, variant: str) -> float:
    options = {**case.options, "variant": variant}
    return simulate(case_arch(case), case.algo, case.problem, options, mode="fast").time_s * 1e3


before = {(c.problem.headdim, c.problem.seqlen_q, c.problem.causal): c.measured_ms for c in read_cases(BEFORE, "h200")}
errors: dict[tuple[str, str, int], list[float]] = {}
print("d, N, causal: measured before / after the fix; model release / algorithm1 (ms)")
for case in read_cases(AFTER, "h200", ["v1"]):
    p = case.problem
    old, new = before[(p.headdim, p.seqlen_q, p.causal)], case.measured_ms
    models = {variant: predicted_ms(case, variant) for variant in ("release", "algorithm1")}
    for variant, model in models.items():
        errors.setdefault((variant, "before", p.headdim), []).append(model / old - 1)
        errors.setdefault((variant, "after", p.headdim), []).append(model / new - 1)
    print(f"{p.headdim} {p.seqlen_q:5d} {p.causal!s:5}: {old:9.3f} / {new:8.3f}; "
          f"{models['release']:8.3f} / {models['algorithm1']:8.3f}")  # fmt: skip
for (variant, when, d), es in sorted(errors.items()):
    mape = 100 * statistics.mean(abs(e) for e in es)
    print(f"{variant}, kernel {when} the fix, d={d}: MAPE {mape:.1f}%, mean {100 * statistics.mean(es):+.1f}%, "
          f"from {100 * min(es):+.0f}% to {100 * max(es):+.0f}%")  # fmt: skip
