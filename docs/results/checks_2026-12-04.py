"""Check of the twenty-fourth session: every validated kernel (fast mode, the committed measurements:
`kernels_h200.csv` for standard, v1, v2 and `v3_kernels_h200.csv`; each kernel's `simgpu validate` options and
clocks) with the L2's cost of stores that write parts of sectors (`l2.partial_sector_write_accesses: 2`, as the arch
file now stands) and without it (a store costs its bytes, as before).
Run from the repository root: `python docs/results/checks_2026-12-04.py > docs/results/checks_2026-12-04.txt`."""

from __future__ import annotations

from collections.abc import Mapping

from simgpu.validation import read_cases, what_if_table

WHAT_IFS: dict[str, Mapping[str, object]] = {
    "partial-sector writes at 2 sector accesses (as the arch file stands)": {},
    "stores cost their bytes (before)": {"l2.partial_sector_write_accesses": None},
}


if __name__ == "__main__":
    cases = read_cases("validation/h200/kernels_h200.csv", "h200")
    cases += read_cases("validation/h200/v3_kernels_h200.csv", "h200", ["v3"])
    print(what_if_table(cases, WHAT_IFS, workers=2))
