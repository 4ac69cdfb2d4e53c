"""Check of the twenty-fourth session's second change: every validated kernel (fast mode, the committed
measurements: `kernels_h200.csv` for standard, v1, v2 and `v3_kernels_h200.csv`; each kernel's `simgpu validate`
options and clocks) with the ALU pipe and the fragment store path taking turns (`sm.fragment_stores_exclude_alu`, as
the arch file now stands), without it, and without the L2's partial-sector cost too (the session's start).
Needs alu_store_turns.patch applied (on 6628fc4); run from the repository root:
`python docs/results/alu_store_turns_not_kept/checks_2026-12-04b.py`."""

from __future__ import annotations

from collections.abc import Mapping

from simgpu.validation import read_cases, what_if_table

WHAT_IFS: dict[str, Mapping[str, object]] = {
    "ALU and store path taking turns, partial-sector writes (as the arch file stands)": {},
    "side by side, partial-sector writes": {"sm.fragment_stores_exclude_alu": False},
    "side by side, stores cost their bytes (the session's start)": {
        "sm.fragment_stores_exclude_alu": False,
        "l2.partial_sector_write_accesses": None,
    },
}


if __name__ == "__main__":
    cases = read_cases("validation/h200/kernels_h200.csv", "h200")
    cases += read_cases("validation/h200/v3_kernels_h200.csv", "h200", ["v3"])
    print(what_if_table(cases, WHAT_IFS, workers=2))
