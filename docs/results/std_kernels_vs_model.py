"""Each of our standard-attention forward's three kernels, measured alone on the H200
(`validation/probes/std_kernels.py`, `validation/h200/std_kernels/`), against the model's cycles for that kernel
(`SimResult.kernel_cycles`, at the kernel's own counted clock: the GEMMs ran at ~1.8 GHz, the softmax at ~1.98).
Then the PV kernel alone in other launch configurations (`std_pv_variants_h200.csv`, against fast mode: exact mode
would simulate the QK^T and softmax kernels too) and the PV kernel with parts of its k loop taken out
(`std_pv_ablate_h200.csv`: measured cycles per k step of one SM, against the model's whole kernel per k step).
`python docs/results/std_kernels_vs_model.py [--fast] [-j N]` prints them; the .txt beside it is its output (exact
mode for the first table)."""

from __future__ import annotations

import argparse
import csv
import statistics
from collections import defaultdict
from concurrent.futures import ProcessPoolExecutor
from pathlib import Path

from simgpu import Problem, load_arch, simulate

RAW = Path("validation/h200/std_kernels")
MEASURED = RAW / "std_kernels_h200.csv"
KERNELS = ("qk", "softmax", "pv")
ABLATED = {
    0: "whole",
    1: "no loads",
    2: "no product",
    3: "neither",
    4: "no ldmatrix",
    8: "no mma.sync",  # ldmatrix results XORed into one word (adds ALU work)
    5: "mma.sync only",
    9: "ldmatrix only",  # likewise
}


def modelled(
    shape: tuple[int, int, int, int, bool], mode: str, tiles: tuple[int, int, int] = (128, 4, 2)
) -> list[float]:
    """The model's cycles per kernel (QK^T, softmax, PV) for (batch, heads, N, d, causal) with the GEMMs' `tiles`
    (block_n, warps, stages)."""
    batch, heads, n, d, causal = shape
    block_n, warps, stages = tiles
    options = {"softmax_passes": 2, "block_n": block_n, "warps": warps, "stages": stages}
    result = simulate(load_arch("h200"), "standard", Problem(batch, heads, n, d, causal=causal), mode=mode,
                      options=options)  # fmt: skip
    return list(result.kernel_cycles)


def pv_variants() -> None:
    print("\nPV alone in other launch configurations (fast mode), ms at the run's counted clock:")
    for row in csv.DictReader((RAW / "std_pv_variants_h200.csv").open(encoding="utf-8")):
        shape = (int(row["batch"]), int(row["heads"]), int(row["seqlen"]), int(row["headdim"]), False)
        tiles = (int(row["block_n"]), int(row["warps"]), int(row["stages"]))
        ms, mhz = float(row["ms"]), float(row["clock_mhz"])
        predicted_ms = modelled(shape, "fast", tiles)[2] / (mhz * 1e3)
        print(f"d={shape[3]:3d} N={shape[2]:5d} block_n={tiles[0]:3d} warps={tiles[1]} stages={tiles[2]}: "
              f"{ms:6.3f} / {predicted_ms:6.3f} ms ({predicted_ms / ms - 1:+6.1%})")  # fmt: skip


def pv_ablations() -> None:
    print("\nPV with parts of its k loop taken out: SM cycles per k step measured (model: whole kernel, fast)")
    rows = list(csv.DictReader((RAW / "std_pv_ablate_h200.csv").open(encoding="utf-8")))
    for row in rows:
        batch, heads, n, d = (int(row[k]) for k in ("batch", "heads", "seqlen", "headdim"))
        tiles = (int(row["block_n"]), int(row["warps"]), int(row["stages"]))
        # Every CTA runs N / block_n k steps: an SM's cycles per k step are its share of them (a throughput where
        # two CTAs share it, d = 64).
        steps_per_sm = batch * heads * (n // 128) * (n // tiles[0]) / 132
        cycles = float(row["ms"]) * float(row["clock_mhz"]) * 1e3 / steps_per_sm
        model = ""
        if row["ablate"] == "0":
            model = f"  model {modelled((batch, heads, n, d, False), 'fast', tiles)[2] / steps_per_sm:5.0f}"
        print(f"d={d:3d} N={n:5d} block_n={tiles[0]:3d} warps={tiles[1]} stages={tiles[2]} "
              f"{ABLATED[int(row['ablate'])]:13s}: {cycles:5.0f}{model}")  # fmt: skip


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--fast", action="store_true")
    parser.add_argument("-j", type=int, default=2)
    args = parser.parse_args()
    rows = list(csv.DictReader(MEASURED.open(encoding="utf-8")))
    measured: dict[tuple[int, int, int, int, bool], dict[str, tuple[float, float]]] = defaultdict(dict)
    for row in rows:
        shape = (int(row["batch"]), int(row["heads"]), int(row["seqlen"]), int(row["headdim"]), row["causal"] == "True")
        measured[shape][row["kernel"]] = (float(row["ms"]), float(row["clock_mhz"]))
    shapes = sorted(measured, key=lambda s: (s[3], s[2], s[4]))
    mode = "fast" if args.fast else "exact"
    with ProcessPoolExecutor(args.j) as pool:
        cycles = dict(zip(shapes, pool.map(modelled, shapes, [mode] * len(shapes)), strict=True))
    errors: dict[tuple[str, int], list[float]] = defaultdict(list)
    print(f"mode {mode}; error = predicted / measured - 1 at the kernel's counted clock")
    for shape in shapes:
        parts = []
        for kernel, kernel_cycles in zip(KERNELS, cycles[shape], strict=True):
            ms, mhz = measured[shape][kernel]
            predicted_ms = kernel_cycles / (mhz * 1e3)
            error = predicted_ms / ms - 1
            errors[kernel, shape[3]].append(error)
            parts.append(f"{kernel} {ms:7.3f} / {predicted_ms:7.3f} ms ({error:+6.1%}, {mhz:4.0f} MHz)")
        batch, heads, n, d, causal = shape
        print(f"d={d:3d} N={n:5d} B={batch:2d} H={heads} {'causal' if causal else '      '}  " + "; ".join(parts))
    for (kernel, d), values in sorted(errors.items()):
        mape = statistics.mean(abs(e) for e in values)
        print(f"{kernel:8s} d={d:3d}: MAPE {mape:5.1%}, mean {statistics.mean(values):+6.1%}")
    pv_variants()
    pv_ablations()


if __name__ == "__main__":
    main()
