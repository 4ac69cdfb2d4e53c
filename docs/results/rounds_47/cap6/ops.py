"""The ops fast mode simulates (its representatives' engine runs, summed over the clocks it runs at) for every case of
simspeed's grid, with the cap on a representative's further rounds at 4 and at 6: what the cap costs, counted
rather than timed. `SIMGPU_NATIVE=0 python ops.py OUT.csv` (the cap is patched in the sources)."""

from __future__ import annotations

import csv
import sys

import simgpu.api as api
import simgpu.fast_costs as fast_costs
from benchmarks.simspeed import ALGOS, ARCHS, PASSES, SEQLENS, problem_for
from simgpu import native, simulate
from simgpu.errors import SimgpuError


def main(out: str) -> None:
    assert not native.compiled(), "run with SIMGPU_NATIVE=0: the cap is patched in the sources"
    counted: list[int] = []
    run_fast = api.run_fast

    def counting(*args: object, **kwargs: object) -> object:
        stats = run_fast(*args, **kwargs)  # type: ignore[arg-type]
        counted.append(stats.ops)
        return stats

    api.run_fast = counting  # type: ignore[assignment]
    rows: list[dict[str, object]] = []
    for arch in ARCHS:
        for algo in ALGOS:
            for pass_ in PASSES:
                for seqlen in SEQLENS:
                    row: dict[str, object] = {"arch": arch, "algo": algo, "pass": pass_, "seqlen": seqlen}
                    try:
                        for cap in (4, 6):
                            fast_costs.MAX_ROUNDS = cap
                            counted.clear()
                            simulate(arch, algo, problem_for(seqlen, pass_), mode="fast")
                            row[f"ops_{cap}"] = sum(counted)
                    except SimgpuError:
                        break  # the algorithm does not run on this arch
                    rows.append(row)
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
