"""v3 against v2 on the H200 arch, shape by shape (issue 6: "v3 on the H200 arch predicts measurably better than v2
on the same arch, and the bottleneck unit reported for each changes as expected").

For the 24 forward shapes our v2 and v3 kernels were both measured at (validation/h200/kernels_h200.csv,
v3_kernels_h200.csv; v3 in FA3's configuration, ping-pong and intra-warpgroup overlap on), each is predicted as
`simgpu validate` predicts it (its measured clock, its kernel's options; fast mode) and the lines give the measured
and predicted TFLOP/s of both, the v3 / v2 ratios, each prediction's bottleneck and the busy fractions of the tensor
cores and the lane pipes (FMA, ALU, MUFU) and issue slots. A sum of tensor + lane-pipe busy over 1 shows the units
working at once; v2's mma.sync holds its warps, so its softmax and MMAs take turns.

`python docs/results/v3_over_v2_h200_37/compare.py > docs/results/v3_over_v2_h200_37/compare.txt`
"""

from __future__ import annotations

import statistics

from simgpu import simulate
from simgpu.validation import Case, case_arch, read_cases

UNITS = ("tensor", "fma", "alu", "mufu", "issue")


def _key(case: Case) -> tuple[int, int, int, int, bool]:
    p = case.problem
    return (p.batch, p.heads, p.seqlen_q, p.headdim, p.causal)


def main() -> None:
    v2_cases = read_cases("validation/h200/kernels_h200.csv", "h200", ["v2"])
    v2 = {_key(c): c for c in v2_cases if c.problem.pass_ == "fwd"}
    v3 = {
        _key(c): c
        for c in read_cases("validation/h200/v3_kernels_h200.csv", "h200", ["v3"])
        if c.options.get("pingpong") and c.options.get("intra_wg_overlap")
    }
    print("shape (batch heads seqlen d causal) | TFLOP/s measured v2 v3 ratio | predicted v2 v3 ratio | "
          "bottleneck v2 v3 | busy " + "/".join(UNITS) + " v2 ; v3")  # fmt: skip
    ratios_measured, ratios_predicted = [], []
    for key in sorted(set(v2) & set(v3)):
        row = []
        for case in (v2[key], v3[key]):
            result = simulate(case_arch(case), case.algo, case.problem, case.options, mode="fast")
            measured = case.problem.flops / (case.measured_ms * 1e-3) / 1e12
            row.append((measured, result.tflops, result.bottleneck, [result.busy.get(u, 0.0) for u in UNITS]))
        (m2, p2, b2, busy2), (m3, p3, b3, busy3) = row
        ratios_measured.append(m3 / m2)
        ratios_predicted.append(p3 / p2)
        print(
            f"{key!s:34} | {m2:6.1f} {m3:6.1f} {m3 / m2:5.2f}x | {p2:6.1f} {p3:6.1f} {p3 / p2:5.2f}x | {b2:6} {b3:6} | "
            + " ".join(f"{b:.2f}" for b in busy2)
            + " ; "
            + " ".join(f"{b:.2f}" for b in busy3)
        )
    print(
        f"v3 / v2 over {len(ratios_measured)} shapes: measured median {statistics.median(ratios_measured):.2f}x "
        f"({min(ratios_measured):.2f}-{max(ratios_measured):.2f}), predicted median "
        f"{statistics.median(ratios_predicted):.2f}x ({min(ratios_predicted):.2f}-{max(ratios_predicted):.2f})"
    )


if __name__ == "__main__":
    main()
