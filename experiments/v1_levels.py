"""FlashAttention-1's predicted throughput on the A100, as a share of the 312 TFLOP/s peak (FA2: "25-40%").

Two sets of shapes, head dim 64, fp16, not causal, forward and forward+backward, exact mode:
- `fa2_sweep`: the FA2 paper's benchmark, where FA1's 25-40% was measured: 16k tokens (batch = 16384 / seqlen),
  hidden 2048 (32 heads), seqlen 512..4k. FA2 (July 2023) ran FA1's v1.0 release, whose forward splits each head's
  query steps over several CTAs to fill the waves (`algorithms.v1.schedule.release_splits`: 4, 5, 5, 5 here); its
  backward's sequence-parallel variant, which that release picks at 2k and 4k, is not modeled (one CTA per head).
- `fa1_readme`: a BERT-base-like shape (batch 8, 12 heads), seqlen 128..4k, as FA1-era benchmarks used; it is not
  taken from a published table. v1 runs as the May-2022 release launched it, one CTA per (batch, head): the 96 CTAs
  are less than one per SM of the A100's 108, so FA1's grid cannot fill the chip there.
Each row records the forward's `splits`, the prediction's bottleneck unit, the busy fractions of HBM, tensor cores
and smem, and the simulator's wall time. Writes `v1_levels.csv`, then `v1_levels.png` (% of peak against seqlen,
one line per set and pass, the 25-40% band shaded). `--quick`: two small shapes of each set at 1k tokens, forward
only (a smoke test).

Where the model stands (exact, `docs/results/v1_levels.csv`): on FA2's sweep 37-42% of peak forward and 27-39%
forward+backward, against FA1's published 25-40% (36-40% and 26-37% before the sixty-fifth session, whose A100 keeps
mma.sync's rate beside ldmatrix, from the published A100 GEMM; 40-44% forward before the forty-fourth session, which
took the step's integer and control instructions and the mask on every tile from the kernel's SASS; 43-48% before the
forty-first, whose measurement of the released kernel on an H100 moved the o_tmp wait to where its SASS has it;
44-57% and 30-43% before the A100 file took the H200's measured mma.sync contention in the twentieth session:
`archs/a100.yaml`). On the H100 the model is still 9-35% fast on that kernel (`validation/h200/fa1_release/README.md`:
at d = 64 13%, the smem instructions' width, barriers and the next Q's commit; at d = 128 31%, where the model is
HBM-bound and the chip latency-bound; its DRAM bytes are the model's within 1%).
"""

from __future__ import annotations

import csv
from pathlib import Path

from algorithms.v1.schedule import release_splits
from experiments._common import map_rows, parse_args, print_row, save
from simgpu import Problem, load_arch, simulate

ARCH = "a100"
HEADDIM = 64
TOKENS = 16384
QUICK_TOKENS = 1024
FA2_HEADS = 2048 // HEADDIM
FA1_BATCH, FA1_HEADS = 8, 12
PUBLISHED_BAND = (0.25, 0.40)  # FA2 §1: FA1 reaches 25-40% of the A100's peak


def shapes(quick: bool) -> list[tuple[str, Problem]]:
    fa2 = (256, 512) if quick else (512, 1024, 2048, 4096)
    fa1 = (128, 256) if quick else (128, 256, 512, 1024, 2048, 4096)
    passes = ("fwd",) if quick else ("fwd", "fwd_bwd")
    tokens, fa1_batch = (QUICK_TOKENS, 1) if quick else (TOKENS, FA1_BATCH)
    out = [("fa2_sweep", Problem(tokens // n, FA2_HEADS, n, HEADDIM, pass_=p)) for p in passes for n in fa2]
    out += [("fa1_readme", Problem(fa1_batch, FA1_HEADS, n, HEADDIM, pass_=p)) for p in passes for n in fa1]
    return out


def splits(name: str, problem: Problem) -> int:
    """The forward's CTAs per (batch, head): the v1.0 release's choice on FA2's sweep, one on the README set."""
    return release_splits(load_arch(ARCH), problem) if name == "fa2_sweep" else 1


def run(quick: bool, jobs: int = 1) -> list[dict[str, object]]:
    return map_rows(_row, shapes(quick), jobs)


def _row(shape: tuple[str, Problem]) -> dict[str, object]:
    name, problem = shape
    peak = load_arch(ARCH).peak_flops_per_s("fp16")
    n = splits(name, problem)
    result = simulate(ARCH, "v1", problem, {"splits": n}, mode="exact")
    return {
        "shapes": name,
        "arch": ARCH,
        "pass": problem.pass_,
        "batch": problem.batch,
        "heads": problem.heads,
        "seqlen": problem.seqlen_q,
        "headdim": problem.headdim,
        "splits": n,
        "tflops": result.tflops,
        "pct_peak": 100 * result.tflops * 1e12 / peak,
        "time_ms": result.time_s * 1e3,
        "hbm_gb": (result.hbm_read_bytes + result.hbm_write_bytes) / 1e9,
        "bottleneck": result.bottleneck,
        "hbm_busy": result.busy.get("hbm", 0.0),
        "tensor_busy": result.busy.get("tensor", 0.0),
        "smem_busy": result.busy.get("smem", 0.0),
        "sim_wall_s": result.sim_wall_s,
    }


def plot(csv_path: Path, png_path: Path) -> Path:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    with csv_path.open(encoding="utf-8") as handle:
        rows = list(csv.DictReader(handle))
    fig, ax = plt.subplots(figsize=(7, 4.5))
    ax.axhspan(
        100 * PUBLISHED_BAND[0], 100 * PUBLISHED_BAND[1], color="tab:green", alpha=0.15, label="FA2: FA1 at 25-40%"
    )
    for key in sorted({(r["shapes"], r["pass"]) for r in rows}):
        series = [r for r in rows if (r["shapes"], r["pass"]) == key]
        ax.plot([int(r["seqlen"]) for r in series], [float(r["pct_peak"]) for r in series], "o-", label=" ".join(key))
    ax.set_xscale("log", base=2)
    ax.set_xlabel("seqlen")
    ax.set_ylabel("% of the A100's 312 TFLOP/s")
    ax.set_ylim(0, 100)
    ax.set_title("v1 (FA1's released kernel) on A100, d=64, predicted")
    ax.legend(fontsize=8)
    fig.tight_layout()
    fig.savefig(png_path, dpi=120)
    plt.close(fig)
    return png_path


def main(argv: list[str] | None = None) -> None:
    args = parse_args(__doc__, "two small shapes per set, forward only", argv, jobs=True)
    rows = run(args.quick, args.jobs)
    for row in rows:
        print_row(row)
    save(rows, args.out, "v1_levels", plot)


if __name__ == "__main__":
    main()
