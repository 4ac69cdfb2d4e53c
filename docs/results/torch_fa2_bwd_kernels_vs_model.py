"""PyTorch's FlashAttention-2 backward kernel by kernel on the H200 against the v2 schedule's three backward kernels,
fast mode, both main kernels (`bwd_layout`: "fa2", FA2's own and the default; "ring", our CUDA kernel's).

`validation/probes/torch_fa2_bwd_kernels.py` profiled one `out.backward(grad)` per shape (FA2's sweep, causal and
not):
PyTorch runs two strided copies (about 95 us each: the (batch, heads, seqlen, d) tensors into FA2's (batch, seqlen,
heads, d) layout), then FA2's three kernels: Delta = rowsum(dO O) with the dQ accumulator zeroed, the main kernel, the
dQ conversion (`validation/h200/torch_fa2_bwd_kernels_h200.csv`). The copies are PyTorch's, not FA2's: the model
has none, and the event-timed backward of `torch_fa2_bwd_h200.csv` includes them. Each prediction runs at the SM
clock counted during that shape's event-timed runs (the profiled run's own was not counted), power model off.
Run: `python docs/results/torch_fa2_bwd_kernels_vs_model.py`.
"""

from __future__ import annotations

import csv
import statistics
from collections import defaultdict
from pathlib import Path

from simgpu import Problem, load_arch, simulate

MEASURED = Path("validation/h200")
PARTS = {"dot_do_o": "preprocess", "dq_dk_dv": "main", "convert_dq": "convert"}
LAYOUTS = ("fa2", "ring")


def measured_kernels() -> dict[tuple[int, int, bool], dict[str, float]]:
    """Per (headdim, seqlen, causal): FA2's three kernels' median durations in microseconds."""
    kernels: dict[tuple[int, int, bool], dict[str, float]] = defaultdict(dict)
    with (MEASURED / "torch_fa2_bwd_kernels_h200.csv").open(newline="") as handle:
        for row in csv.DictReader(handle):
            part = next((name for key, name in PARTS.items() if key in row["kernel"]), None)
            if part is not None:
                shape = (int(row["headdim"]), int(row["seqlen"]), row["causal"] == "True")
                kernels[shape][part] = float(row["median_us"])
    return kernels


def counted_clocks_hz() -> dict[tuple[int, int, bool], float]:
    with (MEASURED / "torch_fa2_bwd_h200.csv").open(newline="") as handle:
        rows = list(csv.DictReader(handle))
    return {
        (int(row["headdim"]), int(row["seqlen"]), row["causal"] == "True"): float(row["sm_clock_mhz_counted"]) * 1e6
        for row in rows
    }


def main() -> None:
    clocks = counted_clocks_hz()
    errors: dict[tuple[str, str, bool, int], list[float]] = defaultdict(list)
    for (headdim, seqlen, causal), measured in sorted(measured_kernels().items()):
        clock_hz = clocks[headdim, seqlen, causal]
        arch = load_arch("h200", {"clock_hz": clock_hz, "power": None})
        problem = Problem(16384 // seqlen, 2048 // headdim, seqlen, headdim, causal=causal, pass_="bwd")
        cells = [f"measured {' / '.join(f'{measured[p]:.0f}' for p in PARTS.values())} us"]
        for layout in LAYOUTS:
            cycles = simulate(arch, "v2", problem, {"bwd_layout": layout}).kernel_cycles
            predicted = dict(zip(PARTS.values(), (c / clock_hz * 1e6 for c in cycles), strict=True))
            main_error = predicted["main"] / measured["main"] - 1
            all_error = sum(predicted.values()) / sum(measured.values()) - 1
            errors[layout, "main", causal, headdim].append(main_error)
            errors[layout, "all three", causal, headdim].append(all_error)
            cells.append(
                f"{layout} {' / '.join(f'{predicted[p]:.0f}' for p in PARTS.values())} us "
                f"(main {main_error:+.3f}, all {all_error:+.3f})"
            )
        print(f"d={headdim:3} N={seqlen:5} causal={causal!s:5} at {clock_hz / 1e6:.0f} MHz: " + "; ".join(cells))
    print("## MAPE (mean error) per layout, kernels, causal and head dimension over 6 sequence lengths")
    for (layout, kernels, causal, headdim), values in sorted(errors.items()):
        mape, mean = statistics.fmean(abs(v) for v in values), statistics.fmean(values)
        label = f"{layout:4} {kernels:9} causal={causal!s:5} d={headdim:3}"
        print(f"{label}: MAPE {100 * mape:.1f}% (mean {100 * mean:+.1f}%)")
    for layout in LAYOUTS:
        mains = [v for key, values in errors.items() if key[:2] == (layout, "main") for v in values]
        print(f"{layout} main kernel over all {len(mains)}: MAPE {100 * statistics.fmean(abs(v) for v in mains):.1f}%")


if __name__ == "__main__":
    main()
