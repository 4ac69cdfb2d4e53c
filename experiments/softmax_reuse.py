"""Where the second pass of standard attention's two-pass softmax stops hitting in L2: the H200 against the model.

`validation/probes/softmax_reuse.py` ran our CUDA softmax (`std_softmax`: one warp per row, 4 rows a CTA, each row
read once for its max and sum and once more to write P) with 16k tokens and 32 heads at N = 1k..8k, and read the
DRAM bytes with Nsight Compute: S's bytes over them are the passes that came from HBM (1 while the re-reads hit,
2 when none does). Here the standard schedule's softmax kernel (`softmax_passes=2`) runs alone on the H200 model
from a cold L2, in exact mode, and gives the same ratio and its time. The model's L2 is one LRU of the chip's 60 MiB:
a re-read hits while what entered L2 since the row's first read fits, which the HBM queue sets (the rows in flight,
132 SMs x 64 warps x 2N bytes, bound it). `--quick`: N = 1k and 4k, fast mode (whose replay walks the rows in flight
in step, with the stores of the CTAs that finish while a row waits between its two reads:
`docs/results/softmax_cliff_small_chip/silicon_fast.txt` has fast mode against the chip at every N).
"""

from __future__ import annotations

import csv
from concurrent.futures import ProcessPoolExecutor
from pathlib import Path

from experiments._common import parse_args, print_row, save
from simgpu.api import schedule
from simgpu.arch import load_arch
from simgpu.engine import DEFAULT_EVENT_BUDGET, Engine
from simgpu.fast import run_fast
from simgpu.problem import Problem

MEASURED = Path(__file__).resolve().parent.parent / "validation" / "h200" / "softmax_reuse_h200.csv"
QUICK_SEQLENS = (1024, 4096)
HEADDIM = 64  # the softmax does not see d; it sets only the problem's other kernels


def model_row(measured: dict[str, str], exact: bool) -> dict[str, object]:
    arch = load_arch("h200")
    problem = Problem(int(measured["batch"]), int(measured["heads"]), int(measured["seqlen"]), HEADDIM)
    kernel = schedule(arch, "standard", problem, {"softmax_passes": 2})[1]
    stats = Engine(arch).run([kernel]) if exact else run_fast(arch, [kernel], arch.clock_hz, DEFAULT_EVENT_BUDGET)
    s_bytes = float(measured["s_bytes"])
    return {
        "seqlen": problem.seqlen_q,
        "s_bytes": s_bytes,
        "measured_passes_from_hbm": float(measured["passes_from_dram"]),
        "model_passes_from_hbm": stats.hbm_read_bytes / s_bytes,
        "measured_ms": float(measured["median_ms"]),
        "model_ms": stats.cycles / arch.clock_hz * 1e3,
        "mode": "exact" if exact else "fast",
    }


def plot(csv_path: Path, png_path: Path) -> None:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    with csv_path.open(encoding="utf-8") as handle:
        rows = list(csv.DictReader(handle))
    n = [int(r["seqlen"]) for r in rows]
    fig, (passes, times) = plt.subplots(1, 2, figsize=(10, 4))
    passes.plot(n, [float(r["measured_passes_from_hbm"]) for r in rows], "o-", label="H200 (ncu DRAM bytes)")
    passes.plot(n, [float(r["model_passes_from_hbm"]) for r in rows], "s--", label="model")
    passes.set(xlabel="N (16k tokens, 32 heads)", ylabel="passes over S read from HBM", ylim=(0.8, 2.2))
    passes.legend()
    times.plot(n, [float(r["measured_ms"]) for r in rows], "o-", label="H200")
    times.plot(n, [float(r["model_ms"]) for r in rows], "s--", label="model")
    times.set(xlabel="N", ylabel="softmax kernel time (ms)")
    times.legend()
    fig.suptitle("Two-pass softmax: the second read of a row hits in L2 while what came in between fits")
    fig.tight_layout()
    fig.savefig(png_path, dpi=120)
    plt.close(fig)


def main(argv: list[str] | None = None) -> None:
    args = parse_args(__doc__, "N = 1k and 4k in fast mode", argv, jobs=True)
    with MEASURED.open(encoding="utf-8") as handle:
        measured = list(csv.DictReader(handle))
    if args.quick:
        measured = [m for m in measured if int(m["seqlen"]) in QUICK_SEQLENS]
    with ProcessPoolExecutor(max_workers=args.jobs) as pool:
        rows = list(pool.map(model_row, measured, [not args.quick] * len(measured)))
    for row in rows:
        print_row(row)
    save(rows, args.out, "softmax_reuse", plot)


if __name__ == "__main__":
    main()
