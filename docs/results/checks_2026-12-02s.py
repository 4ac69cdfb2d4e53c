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

from collections.abc import Mapping

from simgpu.validation import KERNEL_OPTIONS, read_cases, what_if_table

WHAT_IFS: dict[str, Mapping[str, object]] = {
    "as the arch file stands": {},
    "fragment stores at 33 cycles": {"sm.fragment_store_cycles": 33.0},
    "HBM latency +450": {"hbm.latency_cycles": 1140},
    "both": {"sm.fragment_store_cycles": 33.0, "hbm.latency_cycles": 1140},
}


if __name__ == "__main__":
    assert KERNEL_OPTIONS["v1"] == {"variant": "algorithm1"}  # v1 is predicted as our kernel's loop
    cases = read_cases("validation/h200/kernels_h200.csv", "h200")
    cases += read_cases("validation/h200/v3_kernels_h200.csv", "h200", ["v3"])
    print(what_if_table(cases, WHAT_IFS, workers=2))
