"""The ops fast mode simulates (its representatives' engine runs, summed over the clocks it runs at) for every case of
simspeed's grid, with the cap on a representative's further rounds at 4 and at 6: what the cap costs, counted
rather than timed. `SIMGPU_NATIVE=0 python ops.py OUT.csv` (the cap is patched in the sources)."""

from __future__ import annotations

import csv
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # `counted`, beside this folder

from counted import counted_ops

import simgpu.fast_costs as fast_costs
from simgpu import native


def set_cap(cap: int) -> None:
    fast_costs.MAX_ROUNDS = cap


def main(out: str) -> None:
    assert not native.compiled(), "run with SIMGPU_NATIVE=0: the cap is patched in the sources"
    rows = counted_ops((4, 6), set_cap)
    with open(out, "w", newline="") as handle:
        writer = csv.DictWriter(handle, fieldnames=list(rows[0]))
        writer.writeheader()
        writer.writerows(rows)
    more = [row for row in rows if row["ops_6"] != row["ops_4"]]
    print(
        f"{len(more)} of {len(rows)} cases simulate more ops; in all {sum(r['ops_4'] for r in rows)} -> "
        f"{sum(r['ops_6'] for r in rows)}"
    )
    for row in sorted(more, key=lambda r: r["ops_6"] / r["ops_4"]):
        print(f"{row['arch']} {row['algo']} {row['pass']} {row['seqlen']}: {row['ops_4']} -> {row['ops_6']}")


if __name__ == "__main__":
    main(sys.argv[1])
