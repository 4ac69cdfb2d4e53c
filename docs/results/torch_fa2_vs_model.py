"""PyTorch's FlashAttention-2 (its flash backend, a production kernel) on the H200 against the v2 schedule, fast mode
on the H200 file at each run's SM clock as counted on the SM (the power model off: the clock is known, as `simgpu
validate` does): the forward with both K/V layouts (`kv_layout`: "ring", our CUDA kernel's and the default; "split",
FA2's one K and one V buffer), the backward with both main kernels (`bwd_layout`: "fa2", FA2's own and the default;
"ring", our CUDA kernel's). Measured by `validation/probes/torch_fa2.py`
(`validation/h200/torch_fa2_h200.csv`, `torch_fa2_bwd_h200.csv`). Errors are predicted time over measured, minus 1.
Run: `python docs/results/torch_fa2_vs_model.py`; with `--chip h100`, the H100's run on the H100 file
(`validation/h200/production_on_h100/`, forty-fifth session), output `torch_fa2_vs_model_h100.txt`."""

from __future__ import annotations

import argparse
import csv
import statistics
from collections import defaultdict
from pathlib import Path

from simgpu import Problem, load_arch, simulate

MEASURED = {"h200": Path("validation/h200"), "h100": Path("validation/h200/production_on_h100")}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--chip", choices=sorted(MEASURED), default="h200")
    chip = parser.parse_args().chip
    errors: dict[tuple[str, str, int], list[float]] = defaultdict(list)
    for name in (f"torch_fa2_{chip}.csv", f"torch_fa2_bwd_{chip}.csv"):
        for row in csv.DictReader((MEASURED[chip] / name).open()):
            pass_, headdim, causal = row["pass"], int(row["headdim"]), row["causal"] == "True"
            problem = Problem(int(row["batch"]), int(row["heads"]), int(row["seqlen"]), headdim, causal=causal,
                              pass_=pass_)  # fmt: skip
            arch = load_arch(chip, {"clock_hz": float(row["sm_clock_mhz_counted"]) * 1e6, "power": None})
            measured_ms = float(row["median_ms"])
            option, layouts = ("kv_layout", ("ring", "split")) if pass_ == "fwd" else ("bwd_layout", ("fa2", "ring"))
            cells = []
            for layout in layouts:
                predicted_ms = simulate(arch, "v2", problem, {option: layout}).time_s * 1e3
                error = predicted_ms / measured_ms - 1
                errors[pass_, layout, headdim].append(error)
                cells.append(f"{layout} {error:+.3f}")
            clock = float(row["sm_clock_mhz_counted"])
            print(f"{pass_} d={headdim} causal={causal!s:5} N={row['seqlen']:>5}: measured {measured_ms:.3f} ms "
                  f"({float(row['tflops']):.0f} TFLOP/s at {clock:.0f} MHz); " + ", ".join(cells))  # fmt: skip
    print("## MAPE (mean error) per pass, layout, head dimension over 12 runs each")
    for (pass_, layout, headdim), values in sorted(errors.items()):
        mape = statistics.fmean(abs(v) for v in values)
        print(f"{pass_} {layout:5} d={headdim}: MAPE {100 * mape:.1f}% (mean {100 * statistics.fmean(values):+.1f}%)")


if __name__ == "__main__":
    main()
