"""Side check of the twentieth session: the forward kernels we validate, in fast mode, as the tree stands, with
mma.sync beside the MUFU, FMA and ALU pipes at full rate (`contention.mma_sync.*` lane rates 1.0), and with the
copies' writes off the smem port (`smem.cp_async_write_port_fraction` 0).

Per head dimension, MAPE and mean signed error of: our FA2 kernel's forward (`validation/h200/kernels_h200.csv`),
PyTorch's FA2 forward (`validation/h200/torch_fa2_h200.csv`, FA2's own K/V buffers, `kv_layout=split`, at each run's
counted clock), and our FA3 kernel (`validation/h200/v3_kernels_h200.csv`, all 96). Run from the repository root:
`python docs/results/forward_whatif.py`; `docs/results/forward_whatif.txt` holds it on the tree of the commit that
added it, `forward_whatif_pv_interleave.txt` with `pv_interleave_pack_not_kept.patch` applied (`git apply`, then
`python build_native.py`)."""

from __future__ import annotations

import csv
import statistics
from concurrent.futures import ProcessPoolExecutor
from functools import partial

from simgpu.problem import Problem
from simgpu.validation import Case, fast_error, read_cases

LANES_OFF = {
    f"contention.mma_sync.{side}": 1.0
    for pipe in ("mufu", "fma", "alu")
    for side in (f"{pipe}_rate_while_tensor_busy", f"tensor_rate_while_{pipe}_busy")
}


def cases() -> tuple[list[Case], list[str]]:
    ours = [c for c in read_cases("validation/h200/kernels_h200.csv", "h200", ["v2"]) if c.problem.pass_ == "fwd"]
    found, tags = list(ours), ["ours v2"] * len(ours)
    with open("validation/h200/torch_fa2_h200.csv", newline="", encoding="utf-8") as handle:
        for row in csv.DictReader(handle):
            if row["pass"] != "fwd":
                continue
            problem = Problem(int(row["batch"]), int(row["heads"]), int(row["seqlen"]), int(row["headdim"]),
                              causal=row["causal"] == "True")  # fmt: skip
            clock_mhz, measured_ms = float(row["sm_clock_mhz_counted"]), float(row["median_ms"])
            found.append(Case("h200", "v2", problem, {"kv_layout": "split"}, clock_mhz, measured_ms, True))
            tags.append("torch FA2")
    v3 = read_cases("validation/h200/v3_kernels_h200.csv", "h200", ["v3"])
    return found + v3, tags + ["ours v3"] * len(v3)


def main() -> None:
    found, tags = cases()
    what_ifs = (
        ("as filed", {}),
        ("mma.sync lane rates 1.0", LANES_OFF),
        ("cp.async writes off the smem port", {"smem.cp_async_write_port_fraction": 0.0}),
    )
    for name, overrides in what_ifs:
        with ProcessPoolExecutor(2) as pool:
            errors = list(pool.map(partial(fast_error, overrides=overrides), found, chunksize=4))
        groups: dict[tuple[str, int], list[float]] = {}
        for case, tag, error in zip(found, tags, errors, strict=True):
            groups.setdefault((tag, case.problem.headdim), []).append(error)
        print(name)
        for (tag, headdim), values in sorted(groups.items()):
            mape = statistics.fmean(abs(v) for v in values)
            print(f"  {tag:9s} d={headdim:3d}: MAPE {100 * mape:5.1f}%, mean {100 * statistics.fmean(values):+6.1f}%"
                  f" over {len(values)}")  # fmt: skip


if __name__ == "__main__":
    main()
