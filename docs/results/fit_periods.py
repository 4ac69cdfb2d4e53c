"""How many fold periods a fit variant of fast mode's class costs keeps more (`simgpu.fast_costs.FIT_PERIODS`): the
fast-vs-exact grid (`experiments.fast_vs_exact`, 88 cases) with 1, 2 and 3 periods, exact mode run once per case.
Per setting: cases outside 1% in cycles, the mean and largest error, whether every byte count equals exact mode's,
and fast mode's summed wall time. Run from the sources (the constant is patched): `SIMGPU_NATIVE=0 python
docs/results/fit_periods.py` (writes `docs/results/fit_periods.txt`)."""

from __future__ import annotations

import statistics
import time
from pathlib import Path
from unittest import mock

import simgpu.fast_costs
from experiments.fast_vs_exact import GRID, SHAPES
from simgpu import Problem, load_arch, simulate
from simgpu.result import BYTE_FIELDS

SETTINGS = (1, 2, 3)


def main() -> None:
    lines = []
    cases = []
    for arch_name, algo, pass_, causal, shape in GRID:
        overrides, sizes = SHAPES[shape]
        arch = load_arch(arch_name, overrides)
        problem = Problem(**sizes, causal=causal, pass_=pass_)  # type: ignore[arg-type]
        cases.append((f"{arch_name} {algo} {pass_} causal={causal} shape {shape}", arch, algo, problem))
    exact = {label: simulate(arch, algo, problem, mode="exact") for label, arch, algo, problem in cases}
    for periods in SETTINGS:
        errors, outside, equal, wall = [], [], True, 0.0
        with mock.patch.object(simgpu.fast_costs, "FIT_PERIODS", periods):
            for label, arch, algo, problem in cases:
                started = time.perf_counter()
                fast = simulate(arch, algo, problem)
                wall += time.perf_counter() - started
                error = fast.cycles / exact[label].cycles - 1
                errors.append(abs(error))
                if abs(error) > 0.01:
                    outside.append(f"{label} {100 * error:+.2f}%")
                equal &= all(abs(getattr(fast, n) - getattr(exact[label], n)) < 0.5 for n in BYTE_FIELDS)
        lines.append(
            f"FIT_PERIODS={periods}: {len(cases) - len(outside)}/{len(cases)} within 1%, mean error "
            f"{100 * statistics.fmean(errors):.3f}%, largest {100 * max(errors):.2f}%, bytes equal: {equal}, "
            f"fast mode {wall:.2f} s in all; outside 1%: {'; '.join(outside) or 'none'}"
        )
        print(lines[-1], flush=True)
    Path("docs/results/fit_periods.txt").write_text("\n".join(lines) + "\n", encoding="utf-8")


if __name__ == "__main__":
    main()
