"""Fast-mode MAPE of v1, v2 and v3 against the committed H200 measurements, by algorithm, pass and head dimension
(each kernel's `simgpu validate` options and clock): the harness behind `softmax_quad_split_candidate.txt`, run with
and without the candidate patch (in the model since the twelfth session). Run from the repository root:
`python docs/results/softmax_quad_split_candidate_mape.py`."""

from __future__ import annotations

import statistics
from concurrent.futures import ProcessPoolExecutor

from simgpu.validation import fast_error, read_cases

if __name__ == "__main__":
    cases = [c for c in read_cases("validation/h200/kernels_h200.csv", "h200") if c.algo in ("v1", "v2")]
    cases += read_cases("validation/h200/v3_kernels_h200.csv", "h200", ["v3"])
    with ProcessPoolExecutor(2) as pool:
        errors = list(pool.map(fast_error, cases, chunksize=4))
    groups: dict[tuple[str, str, int], list[float]] = {}
    for case, e in zip(cases, errors, strict=True):
        groups.setdefault((case.algo, case.problem.pass_, case.problem.headdim), []).append(e)
    for key, es in sorted(groups.items()):
        print(key, f"MAPE {100 * statistics.mean(map(abs, es)):.1f}% mean {100 * statistics.mean(es):+.1f}%")
