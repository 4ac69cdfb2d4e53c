"""FA4's forward on the B200 model at a long sequence: where the time goes, and how far the prediction moves with the
B200 parameters that no published figure pins down (FA4 reports up to 1613 TFLOP/s, 71% of peak).

Problem: bf16, d = 128, non-causal, 16 heads, seqlen 8k, batch 4 (FA4's 32k tokens per batch); exact mode.
Rows:
- model:       archs/b200.yaml as it is, with SM 0 traced: the share of the steady state (middle 60% of SM 0's
               tensor activity) in which the tensor cores work, and, per key block and Q tile, the cycles the softmax
               warpgroup spends in its ops and the cycles between two of its blocks;
- single-warp overlap: `sm.single_warp_serial_fraction` set to null, the model before this parameter was given to
               the B200: a role with one warp per scheduler (each softmax warpgroup) overlapping its pipes fully.
               archs/b200.yaml takes Hopper's measured 0.54 (the H200's softmax microbenchmark), unchanged: the
               difference between this row and `model` is what that unit rule costs the forward;
- sensitivity: one unpublished parameter changed at a time (each marked `[?]` in archs/b200.yaml): the async MMA
               round trip `latency.mma_async_cycles` (Hopper's 56) x2 and x4, the TMEM port
               `tmem.bandwidth_bytes_per_cycle` (512) /2 and /4, and the dependency latencies of the lane pipes and
               smem (`latency.*`, Hopper's) x2. These are what-ifs that say how sensitive the prediction is, not fits.
The clock is not varied: the prediction is compute-bound, so TFLOP/s scales with `clock_hz` (1850 MHz, the clock of
the 2.25 PFLOP/s spec) and a sustained clock f would give TFLOP/s x f / 1850 MHz; no B200 sustained clock is
published (archs/b200.yaml `power: null`). `--jobs N` runs the rows in N processes. Writes `fa4_forward_gap.csv`,
then `fa4_forward_gap.png`.
"""

from __future__ import annotations

import csv
from collections.abc import Mapping
from concurrent.futures import ProcessPoolExecutor
from pathlib import Path
from typing import Any

from algorithms.v4.schedule import SOFTMAX_CHUNKS
from experiments._common import parse_args, save
from simgpu import Problem, load_arch, simulate
from simgpu.trace import Span, Trace

PAPER_TFLOPS = 1613.0  # FA4: up to 1613 TFLOP/s bf16 forward on the B200 (71% of 2.25 PFLOP/s)
UNITS = ("tensor", "mufu", "fma", "alu", "issue", "smem", "tmem")
STEADY = (0.2, 0.8)  # the part of SM 0's tensor activity taken as the steady state
SOFTMAX_OPS_PER_BLOCK = 2 + 2 * SOFTMAX_CHUNKS  # S from TMEM, row max, then per chunk its exps and its P to TMEM
LATENCY_KEYS = ("fma_cycles", "alu_cycles", "mufu_cycles", "shuffle_cycles", "smem_cycles")
FULL_OVERLAP = "single warp overlaps fully"  # the row without the single-warp rule


def _format(value: object) -> str:
    return "null" if value is None else f"{value:g}"


def points(quick: bool) -> list[tuple[str, Mapping[str, Any]]]:
    base = load_arch("b200")
    assert base.latency is not None and base.tmem is not None  # b200.yaml has both sections
    mma, tmem = base.latency.mma_async_cycles, base.tmem.bandwidth_bytes_per_cycle
    out: list[tuple[str, Mapping[str, Any]]] = [("model", {}), (FULL_OVERLAP, {"sm.single_warp_serial_fraction": None})]
    if quick:
        return [*out, ("MMA round trip x2", {"latency.mma_async_cycles": 2 * mma})]
    lane_latencies = {f"latency.{key}": 2 * getattr(base.latency, key) for key in LATENCY_KEYS}
    return [
        *out,
        ("MMA round trip x2", {"latency.mma_async_cycles": 2 * mma}),
        ("MMA round trip x4", {"latency.mma_async_cycles": 4 * mma}),
        ("TMEM port /2", {"tmem.bandwidth_bytes_per_cycle": tmem / 2}),
        ("TMEM port /4", {"tmem.bandwidth_bytes_per_cycle": tmem / 4}),
        ("lane/smem latencies x2", lane_latencies),
    ]


def _steady(spans: list[Span]) -> tuple[float, float]:
    tensor = [s for s in spans if s.track == "unit tensor"]
    first, last = min(s.start_cycles for s in tensor), max(s.end_cycles for s in tensor)
    return first + STEADY[0] * (last - first), first + STEADY[1] * (last - first)


def _busy(spans: list[Span], window: tuple[float, float]) -> float:
    a, b = window
    return sum(max(0.0, min(s.end_cycles, b) - max(s.start_cycles, a)) for s in spans)


def _row(point: tuple[str, Mapping[str, Any]], quick: bool) -> dict[str, object]:
    label, overrides = point
    arch = load_arch("b200", dict(overrides))
    problem = Problem(1, 4, 2048, 128) if quick else Problem(4, 16, 8192, 128)
    trace = Trace(sms=(0,)) if label == "model" else None
    result = simulate(arch, "v4", problem, {}, mode="exact", trace=trace)
    row: dict[str, object] = {
        "point": label,
        "overrides": " ".join(f"{k}={_format(v)}" for k, v in overrides.items()),
        "seqlen": problem.seqlen_q,
        "batch": problem.batch,
        "heads": problem.heads,
        "tflops": result.tflops,
        "bottleneck": result.bottleneck,
    }
    row.update({f"busy_{unit}": result.busy.get(unit, 0.0) for unit in UNITS})
    row.update({"steady_tensor_share": "", "softmax_ops_cycles_per_block": "", "softmax_period_cycles": ""})
    if trace is not None:
        spans = [s for s in result.spans if s.process == "SM 0"]
        window = _steady(spans)
        softmax = [s for s in spans if s.track.endswith("softmax0") and window[0] <= s.start_cycles < window[1]]
        blocks = len(softmax) / SOFTMAX_OPS_PER_BLOCK
        row["steady_tensor_share"] = _busy([s for s in spans if s.track == "unit tensor"], window) / (
            window[1] - window[0]
        )
        row["softmax_ops_cycles_per_block"] = sum(s.end_cycles - s.start_cycles for s in softmax) / blocks
        row["softmax_period_cycles"] = (window[1] - window[0]) / blocks
    return row


def run(quick: bool, jobs: int = 1) -> list[dict[str, object]]:
    todo = points(quick)
    if jobs <= 1:
        return [_row(point, quick) for point in todo]
    with ProcessPoolExecutor(max_workers=jobs) as pool:
        return list(pool.map(_row, todo, [quick] * len(todo)))


def plot(csv_path: Path, png_path: Path) -> Path:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    with csv_path.open(encoding="utf-8") as handle:
        rows = list(csv.DictReader(handle))
    fig, ax = plt.subplots(figsize=(9, 4.6))
    values = [float(r["tflops"]) for r in rows]
    bars = ax.bar(range(len(rows)), values, color="tab:blue")
    for bar, r in zip(bars, rows, strict=True):
        ax.text(bar.get_x() + bar.get_width() / 2, bar.get_height(), r["bottleneck"], ha="center", va="bottom")
    ax.axhline(PAPER_TFLOPS, color="grey", ls="--", lw=0.8, label=f"FA4 paper: up to {PAPER_TFLOPS:.0f}")
    ax.set_xticks(range(len(rows)), [r["point"] for r in rows], rotation=25, ha="right", fontsize=8)
    ax.set_ylabel("TFLOP/s")
    ax.legend(fontsize=8)
    r0 = rows[0]
    bounds = " / ".join(r["bottleneck"] for r in rows)
    ax.set_title(
        f"FA4 forward on B200, bf16 d=128, {r0['batch']}x{r0['heads']} heads, seqlen {r0['seqlen']}: "
        f"the model, its single-warp rule off,\nand unpublished parameters changed; bound by (left to right): {bounds}",
        fontsize=9,
    )
    fig.tight_layout()
    fig.savefig(png_path, dpi=120)
    plt.close(fig)
    return png_path


def main(argv: list[str] | None = None) -> None:
    args = parse_args(__doc__, "1 x 4 heads, seqlen 2048, two points", argv, jobs=True)
    rows = run(args.quick, args.jobs)
    for row in rows:
        print(f"{row['point']:24} {float(str(row['tflops'])):7.0f} TFLOP/s  bound by {row['bottleneck']}")
    save(rows, args.out, "fa4_forward_gap", plot)


if __name__ == "__main__":
    main()
