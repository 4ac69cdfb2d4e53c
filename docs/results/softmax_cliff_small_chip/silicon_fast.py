"""Fast mode's two-pass softmax (standard attention's, `softmax_passes=2`, alone from a cold L2, as the probes ran
it) on the whole H200 against the chip: passes of S read from HBM and the kernel's time, for every row of
`validation/h200/softmax_reuse_h200.csv` (16 CTAs per SM, N = 1k-8k) and of
`validation/h200/softmax_occupancy/softmax_occupancy_h200.csv` (unused shared memory limiting the CTAs to 16, 8 or 4
per SM), and the mean and largest error in passes (and in time, over the 16-CTA rows of the first file). From the
checkout on the path (`silicon_fast_at_08bb2f4.txt`: run with PYTHONPATH at a worktree of the session's start;
`silicon_fast.txt`: after).
Run from the repository root: `python docs/results/softmax_cliff_small_chip/silicon_fast.py`."""

from __future__ import annotations

import csv
from dataclasses import replace
from pathlib import Path

import simgpu
from simgpu import Problem, load_arch
from simgpu.api import schedule
from simgpu.engine import DEFAULT_EVENT_BUDGET
from simgpu.fast import run_fast

H200 = Path("validation/h200")
PROBES = (("16", H200 / "softmax_reuse_h200.csv"), (None, H200 / "softmax_occupancy" / "softmax_occupancy_h200.csv"))


def fast_softmax(batch: int, heads: int, n: int, pad_bytes: int) -> tuple[float, float]:
    """Fast mode's passes of S from HBM and milliseconds for the softmax given `pad_bytes` more shared memory."""
    arch = load_arch("h200")
    kernel = schedule(arch, "standard", Problem(batch, heads, n, 64), {"softmax_passes": 2})[1]
    kernel = replace(kernel, cta=replace(kernel.cta, smem_bytes=kernel.cta.smem_bytes + pad_bytes))
    stats = run_fast(arch, [kernel], arch.clock_hz, DEFAULT_EVENT_BUDGET)
    return stats.hbm_read_bytes / (batch * heads * n * n * 2), stats.cycles / arch.clock_hz * 1e3


if __name__ == "__main__":
    print("#", simgpu.__file__)
    errors = []
    time_errors = []  # the 16-CTA rows of `softmax_reuse_h200.csv`: relative error of the kernel's time
    for ctas, path in PROBES:
        with path.open(encoding="utf-8") as handle:
            for row in csv.DictReader(handle):
                passes, ms = fast_softmax(int(row["batch"]), int(row["heads"]), int(row["seqlen"]),
                                          int(row.get("pad_bytes", 0)))  # fmt: skip
                measured = float(row["passes_from_dram"])
                errors.append(abs(passes - measured))
                if ctas:
                    time_errors.append(abs(ms / float(row["median_ms"]) - 1))
                print(f"{path.stem} {ctas or row['ctas_per_sm']} CTAs per SM, N={row['seqlen']}: passes measured "
                      f"{measured:.2f}, fast {passes:.2f}; ms measured {float(row['median_ms']):.3f}, "
                      f"fast {ms:.3f}")  # fmt: skip
    print(f"{len(errors)} rows: passes off by {sum(errors) / len(errors):.3f} on average, {max(errors):.2f} at most")
    print(f"{len(time_errors)} rows of 16 CTAs per SM: time off by {100 * sum(time_errors) / len(time_errors):.1f}% on "
          f"average, {100 * max(time_errors):.1f}% at most")  # fmt: skip
