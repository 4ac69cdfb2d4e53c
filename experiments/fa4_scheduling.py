"""FA4 scheduling on a B200: what LPT order gains in the causal forward, and what the deterministic backward costs.

Studies (bf16, d = 128, 16 heads, 16k tokens per batch: batch = 16384 / seqlen; exact mode, every CTA simulated):
- lpt:           causal forward with FA4's L2-sectioned tile order, items longest first (`lpt`, the default) or in
                 index order (shortest first);
- deterministic: backward, causal and not, seqlen 1k to 16k: non-deterministic (FA4's plain tile order),
                 deterministic (FA4's sectioned order, shortest first when causal, dQ adds ordered by semaphores,
                 each chunk's add completed before its buffer is reused), and the deterministic
                 kernels with the semaphore waits switched off (`Engine(semaphore_waits=False)`: same order, same
                 ops, nobody waits), which separates the cost of waiting from that of the order;
- l2_latency:    the non-causal backward at the longest seqlen, non-deterministic and deterministic, with the L2 round
                 trip (`l2.hit_latency_cycles`, assumed) 4x longer: how much the ratio depends on it.
Every row records the predicted TFLOP/s. Writes `fa4_scheduling.csv`, then `fa4_scheduling.png` (LPT gain and the
deterministic / non-deterministic ratio per sequence length). `--jobs N` runs the predictions in N processes.
"""

from __future__ import annotations

import csv
from collections.abc import Mapping
from concurrent.futures import ProcessPoolExecutor
from pathlib import Path
from typing import Any

from experiments._common import parse_args, save
from simgpu import Problem, load_arch
from simgpu.api import schedule
from simgpu.engine import Engine

TOKENS = 16384
HEADS = 16
VARIANTS: dict[str, tuple[Mapping[str, Any], bool]] = {  # backward: options, whether semaphores wait
    "non-deterministic": ({}, True),
    "deterministic": ({"deterministic": True}, True),
    "deterministic, no waits": ({"deterministic": True}, False),
}


# The L2 round trip behind every semaphore poll and every dQ add's completion is assumed, not published
# (archs/b200.yaml): the `l2_latency` study repeats one backward with it 4x longer.
L2_LATENCY_FACTOR = 4

# One prediction: (study, problem, variant, options, whether semaphores wait, arch overrides).
Case = tuple[str, Problem, str, Mapping[str, Any], bool, Mapping[str, Any]]


def _row(case: Case) -> dict[str, object]:
    study, problem, variant, options, waits, overrides = case
    arch = load_arch("b200", dict(overrides))
    kernels = schedule(arch, "v4", problem, options)
    cycles = Engine(arch, semaphore_waits=waits).run(kernels).cycles
    return {
        "study": study,
        "pass": problem.pass_,
        "causal": problem.causal,
        "seqlen": problem.seqlen_q,
        "batch": problem.batch,
        "heads": problem.heads,
        "variant": variant,
        "tflops": round(problem.flops / (cycles / arch.clock_hz) / 1e12, 1),
    }


def cases(quick: bool) -> list[Case]:
    tokens, heads = (1024, 4) if quick else (TOKENS, HEADS)
    seqlens = (256, 512) if quick else (1024, 2048, 4096, 8192, 16384)
    out: list[Case] = []
    for n in seqlens if quick else seqlens[:-1]:  # the causal forward up to 8k, as in the earlier runs
        problem = Problem(tokens // n, heads, n, 128, causal=True)
        for lpt in (True, False):
            out.append(("lpt", problem, "lpt" if lpt else "index order", {"lpt": lpt}, True, {}))
    for n in seqlens:
        for causal in (False, True):
            problem = Problem(tokens // n, heads, n, 128, causal=causal, pass_="bwd")
            for variant, (options, waits) in VARIANTS.items():
                out.append(("deterministic", problem, variant, options, waits, {}))
    slow_l2 = {"l2.hit_latency_cycles": L2_LATENCY_FACTOR * load_arch("b200").l2.hit_latency_cycles}
    problem = Problem(tokens // seqlens[-1], heads, seqlens[-1], 128, pass_="bwd")
    for variant in ("non-deterministic", "deterministic"):
        options, waits = VARIANTS[variant]
        out.append(("l2_latency", problem, f"{variant}, L2 latency x{L2_LATENCY_FACTOR}", options, waits, slow_l2))
    return out


def run(quick: bool, jobs: int = 1) -> list[dict[str, object]]:
    todo = cases(quick)
    if jobs <= 1:
        return [_row(case) for case in todo]
    with ProcessPoolExecutor(max_workers=jobs) as pool:
        # Largest problems first, so that the longest predictions do not start last; rows keep their order.
        order = sorted(range(len(todo)), key=lambda i: todo[i][1].flops, reverse=True)
        futures = {i: pool.submit(_row, todo[i]) for i in order}
        return [futures[i].result() for i in range(len(todo))]


def plot(csv_path: Path, png_path: Path) -> Path:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    with csv_path.open(encoding="utf-8") as handle:
        rows = list(csv.DictReader(handle))
    value = {(r["study"], r["causal"], int(r["seqlen"]), r["variant"]): float(r["tflops"]) for r in rows}
    fig, (left, right) = plt.subplots(1, 2, figsize=(11, 4.4))
    lpt = sorted({n for study, _, n, _ in value if study == "lpt"})
    gains = [100 * (value["lpt", "True", n, "lpt"] / value["lpt", "True", n, "index order"] - 1) for n in lpt]
    bars = left.bar([str(n) for n in lpt], gains, color="tab:blue")
    for bar, n in zip(bars, lpt, strict=True):
        label = f"{value['lpt', 'True', n, 'lpt']:.0f} vs\n{value['lpt', 'True', n, 'index order']:.0f}"
        left.text(bar.get_x() + bar.get_width() / 2, bar.get_height(), label, ha="center", va="bottom", fontsize=8)
    left.set_ylim(min(0.0, *gains) * 1.3, max(0.0, *gains) * 1.3)
    left.set_xlabel("seqlen")
    left.set_ylabel("LPT gain (%)")
    left.set_title("causal forward: LPT over index order\n(bar labels: TFLOP/s with / without)", fontsize=9)
    seqlens = sorted({n for study, _, n, _ in value if study == "deterministic"})
    for causal, marker in (("False", "o"), ("True", "s")):
        name = "causal" if causal == "True" else "non-causal"
        base = [value["deterministic", causal, n, "non-deterministic"] for n in seqlens]
        for variant, style in (("deterministic", "-"), ("deterministic, no waits", ":")):
            ratio = [value["deterministic", causal, n, variant] / b for n, b in zip(seqlens, base, strict=True)]
            right.plot(seqlens, ratio, style, marker=marker, label=f"{name}, {variant}")
    slow = {(n, variant.split(",")[0]): v for (study, _, n, variant), v in value.items() if study == "l2_latency"}
    for n in sorted({n for n, _ in slow}):
        ratio_slow = slow[n, "deterministic"] / slow[n, "non-deterministic"]
        right.plot([n], [ratio_slow], "*", ms=10, color="tab:red", label=f"non-causal, L2 latency x{L2_LATENCY_FACTOR}")
    right.axhline(0.75, color="grey", lw=0.8, ls="--", label="FA4 paper: up to 0.75")
    right.set_xscale("log", base=2)
    right.set_xticks(seqlens, [str(n) for n in seqlens])
    right.set_xlabel("seqlen")
    right.set_ylabel("TFLOP/s relative to non-deterministic")
    right.set_title("backward: deterministic / non-deterministic", fontsize=9)
    right.legend(fontsize=7)
    r0 = rows[0]
    fig.suptitle(f"FA4 (v4) on B200, bf16 d=128, {r0['heads']} heads, {int(r0['batch']) * int(r0['seqlen'])} tokens")
    fig.tight_layout()
    fig.savefig(png_path, dpi=120)
    plt.close(fig)
    return png_path


def main(argv: list[str] | None = None) -> None:
    args = parse_args(__doc__, "1k tokens, 4 heads, seqlen 256 and 512", argv, jobs=True)
    rows = run(args.quick, args.jobs)
    for row in rows:
        causal = "causal" if row["causal"] else "non-causal"
        print(f"{row['study']:13} {row['pass']:4} {causal:10} {row['seqlen']:>6} {row['variant']:24}", end="")
        print(f" {row['tflops']:7.0f} TFLOP/s")
    save(rows, args.out, "fa4_scheduling", plot)


if __name__ == "__main__":
    main()
