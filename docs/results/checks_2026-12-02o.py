"""Side check of the tenth session: the v3 validation (`validation/h200/v3_kernels_h200.csv`, 96 configurations)
predicted in fast mode, as the arch file stands and with `tensor_core.issue_queue_instructions` (0 in
archs/h100.yaml) set to 1, 3 and 7: how far the wgmma issue hold alone moves the error. Fast mode agrees with the
exact validation within 0.1 point of MAPE here (12.6% against 12.7%). Prints MAPE and the mean signed error per
head dimension and (ping-pong, overlap) variant: P/p ping-pong on/off, O/o overlap on/off.
Run from the repository root: `python docs/results/checks_2026-12-02o.py > docs/results/checks_2026-12-02o.txt`."""

from __future__ import annotations

import statistics
from collections.abc import Mapping
from concurrent.futures import ProcessPoolExecutor
from functools import partial

from simgpu import simulate
from simgpu.validation import Case, case_arch, read_cases

VARIANTS = ({}, *({"tensor_core.issue_queue_instructions": q} for q in (1, 3, 7)))


def error(overrides: Mapping[str, object], case: Case) -> float:
    predicted_ms = simulate(case_arch(case, overrides), case.algo, case.problem, case.options, mode="fast").time_s * 1e3
    return (predicted_ms - case.measured_ms) / case.measured_ms


def report(cases: list[Case], errors: list[float]) -> None:
    print(f"  MAPE {100 * statistics.mean(abs(e) for e in errors):.1f}% over {len(errors)}")
    for d in (64, 128):
        mine = [(c, e) for c, e in zip(cases, errors, strict=True) if c.problem.headdim == d]
        parts = []
        for pp in (False, True):
            for ov in (False, True):
                es = [e for c, e in mine if c.options["pingpong"] is pp and c.options["intra_wg_overlap"] is ov]
                parts.append(f"{'P' if pp else 'p'}{'O' if ov else 'o'} {100 * statistics.mean(es):+.1f}%")
        print(f"  d={d}: MAPE {100 * statistics.mean(abs(e) for _, e in mine):.1f}%, " + ", ".join(parts))


if __name__ == "__main__":
    cases = read_cases("validation/h200/v3_kernels_h200.csv", "h200", ["v3"])
    with ProcessPoolExecutor(2) as pool:
        for overrides in VARIANTS:
            print(overrides or "the arch file as it stands")
            report(cases, list(pool.map(partial(error, overrides), cases)))
