"""Side check of the tenth session: what two unit effects the H200 shows and the model leaves out would do to every
validated kernel, as what-ifs of the arch file (fast mode, the committed measurements: `kernels_h200.csv` for
standard, v1, v2 and `v3_kernels_h200.csv`; each kernel's `simgpu validate` options and clocks):
- fragment stores at the rate measured with every SM storing (`sm.fragment_store_cycles` 16 -> 33, the middle of
  `dq_atomics_h200.csv`'s 31-36 cycles per warp instruction), where the model charges one SM's rate alone;
- the HBM's latency under load (`hbm.latency_cycles` 690 -> 1140: +450, what `loaded_latency_h200.csv` measures
  from 30% busy on), charged on every access whatever the load;
- both. Not model changes: each bounds what the missing unit rule could move, per kernel and pass.
Run from the repository root: `python docs/results/checks_2026-12-02s.py > docs/results/checks_2026-12-02s.txt`."""

from __future__ import annotations

import statistics
from collections.abc import Mapping
from concurrent.futures import ProcessPoolExecutor
from functools import partial

from simgpu import simulate
from simgpu.validation import KERNEL_OPTIONS, Case, case_arch, read_cases

WHAT_IFS: dict[str, Mapping[str, object]] = {
    "as the arch file stands": {},
    "fragment stores at 33 cycles": {"sm.fragment_store_cycles": 33.0},
    "HBM latency +450": {"hbm.latency_cycles": 1140},
    "both": {"sm.fragment_store_cycles": 33.0, "hbm.latency_cycles": 1140},
}


def error(overrides: Mapping[str, object], case: Case) -> float:
    result = simulate(case_arch(case, overrides), case.algo, case.problem, case.options, mode="fast")
    return (result.time_s * 1e3 - case.measured_ms) / case.measured_ms


if __name__ == "__main__":
    assert KERNEL_OPTIONS["v1"] == {"variant": "algorithm1"}  # v1 is predicted as our kernel's loop
    cases = read_cases("validation/h200/kernels_h200.csv", "h200")
    cases += read_cases("validation/h200/v3_kernels_h200.csv", "h200", ["v3"])
    with ProcessPoolExecutor(2) as pool:
        for name, overrides in WHAT_IFS.items():
            errors = list(pool.map(partial(error, overrides), cases, chunksize=4))
            groups: dict[tuple[str, str], list[float]] = {}
            for case, e in zip(cases, errors, strict=True):
                groups.setdefault((case.algo, case.problem.pass_), []).append(e)
            print(name)
            for (algo, pass_), es in sorted(groups.items()):
                mape = 100 * statistics.mean(abs(e) for e in es)
                print(f"  {algo:8s} {pass_:4s} MAPE {mape:5.1f}%, mean {100 * statistics.mean(es):+5.1f}%")
