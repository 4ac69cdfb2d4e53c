"""Side check of the seventh session: fast-mode validation MAPE of v2 and standard attention with and without
`latency.wait_cycles` (exact mode of standard attention at N = 16k takes many minutes per configuration here).
Run from the repository root: `python docs/results/checks_2026-12-02b.py > docs/results/checks_2026-12-02b.txt`."""

from __future__ import annotations

from simgpu.api import simulate
from simgpu.arch import load_arch
from simgpu.validation import read_cases

MEASURED = "validation/h200/kernels_h200.csv"

for algo in ("v2", "standard"):
    for wait_cycles in ("as in the arch", None):
        errors: dict[tuple[int, str], list[float]] = {}
        for case in read_cases(MEASURED, "h200", [algo]):
            base = load_arch("h200")
            overrides: dict[str, object] = {"clock_hz": case.clock_mhz * 1e6}
            if case.clock_is_effective or (
                base.power is not None and base.power.tensor_saturated_clock_hz > case.clock_mhz * 1e6
            ):
                overrides["power"] = None
            if wait_cycles is None:
                overrides["latency.wait_cycles"] = None
            result = simulate(base.with_overrides(overrides), algo, case.problem, case.options, mode="fast")
            errors.setdefault((case.problem.headdim, case.problem.pass_), []).append(
                result.time_s * 1e3 / case.measured_ms - 1
            )
        every = [abs(e) for group in errors.values() for e in group]
        print(
            f"{algo} wait_cycles={wait_cycles}: MAPE {100 * sum(every) / len(every):.1f}% over {len(every)}",
            {
                f"d{d} {p}": f"{100 * sum(abs(e) for e in g) / len(g):.1f}% (mean {100 * sum(g) / len(g):+.1f}%)"
                for (d, p), g in sorted(errors.items())
            },
        )
