"""What-if: the HBM's mix law (reads at 0.9205 of the datasheet, a written byte 1.2157 read bytes' time; fitted in
the twenty-second session to `validation/h200/hbm_mix/`, `docs/results/hbm_mix_fit.txt`) against the one rate for
every stream that the arch files took before it: 0.885 of the datasheet (the H200's device-to-device copy through
CuPy/PyTorch, 4.249 TB/s, `h200_ceilings.json`), and 0.8177 (our SM-issued copies, `simgpu calibrate`; tried in the
twenty-first session and not kept: the validated series moved closer but standard attention's softmax kernel, within
2% at 0.885, came out about 8% slow, `docs/results/hbm_0818_not_kept_2026-12-03/`).

This prints the fast-mode MAPE and mean error of every validated kernel series with each (`simgpu.validation.
what_if_table`), then FA2's backward row kernels against PyTorch's (the probe of
`docs/results/torch_fa2_bwd_kernels_vs_model.py`) with each.
Run from the repository root: `python docs/results/hbm_rate_whatif.py > docs/results/hbm_rate_whatif.txt`.
"""

from __future__ import annotations

import statistics
import sys
from pathlib import Path

from simgpu import Problem, load_arch, simulate
from simgpu.validation import read_cases, what_if_table

sys.path.insert(0, str(Path(__file__).resolve().parent))
from torch_fa2_bwd_kernels_vs_model import PARTS, counted_clocks_hz, measured_kernels

SERIES = (
    ("validation/h200/kernels_h200.csv", ("standard", "v1")),
    ("validation/h200/validation_2026-12-03/kernels_h200.csv", ("v2",)),
    ("validation/h200/v3_kernels_h200.csv", ("v3",)),
)
# One rate for reads and writes alike, with the loaded latency's knee as it was filed then.
ONE_RATE = {"hbm.write_cost_ratio": 1.0, "hbm.loaded_latency.knee_utilization": 0.315}
WHAT_IFS = {
    "mix law, reads 0.9205, writes cost 1.2157 (as filed)": {},
    "one rate, 0.885 (before)": {**ONE_RATE, "hbm.achievable_fraction": 0.885},
    "one rate, 0.8177 (the twenty-first session's trial)": {**ONE_RATE, "hbm.achievable_fraction": 0.8177},
}


def row_kernels() -> None:
    clocks = counted_clocks_hz()
    print("FA2's backward row kernels against PyTorch's (36 shapes): model / measured - 1, min .. max (mean)")
    for name, overrides in WHAT_IFS.items():
        errors: dict[str, list[float]] = {"preprocess": [], "convert": []}
        for (headdim, seqlen, causal), measured in sorted(measured_kernels().items()):
            clock_hz = clocks[headdim, seqlen, causal]
            arch = load_arch("h200", {"clock_hz": clock_hz, "power": None, **overrides})
            problem = Problem(16384 // seqlen, 2048 // headdim, seqlen, headdim, causal=causal, pass_="bwd")
            cycles = simulate(arch, "v2", problem).kernel_cycles
            predicted = dict(zip(PARTS.values(), (c / clock_hz * 1e6 for c in cycles), strict=True))
            for part in errors:
                errors[part].append(predicted[part] / measured[part] - 1)
        cells = [f"{part} {min(e):+.1%} .. {max(e):+.1%} ({statistics.mean(e):+.1%})" for part, e in errors.items()]
        print(f"  {name}: {'; '.join(cells)}")


def main() -> None:
    for path, algos in SERIES:
        print(what_if_table(read_cases(path, "h200", algos), WHAT_IFS, workers=2))
    row_kernels()


if __name__ == "__main__":
    main()
