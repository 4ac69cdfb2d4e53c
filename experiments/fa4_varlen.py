"""FA4 on a varlen batch (B200, causal forward, bf16, d = 128, 16 heads): what LPT order buys when the sequences
differ in length, and what it cannot fix.

FA4's varlen scheduler runs the sequences in turn, each in L2 sections of heads with its items (pairs of Q tiles)
longest first under `lpt`; it does not reorder the sequences. So the rows cross two orders of the same sequences:
- as given (a seeded draw of document lengths, log-uniform in 256..8192, to `TOKENS` tokens; then the longest
  sequence last, the order that leaves the chip a lone tail);
- the sequences sorted longest first (what a caller can do by permuting its batch),
with `lpt` on (FA4's default when causal) and off (index order, shortest first). A plain batch of the same number of
tokens at the mean length is the reference a padded batch would be compared with. Exact mode: every CTA simulated.
Writes `fa4_varlen.csv` (TFLOP/s, the bottleneck unit and its busy share per row) and `fa4_varlen.png`.
"""

from __future__ import annotations

import csv
from pathlib import Path

import numpy as np

from experiments._common import parse_args, print_row, save
from simgpu import Problem, load_arch, simulate
from simgpu.result import Result

TOKENS = 32768
HEADS = 16
LENGTHS_LOG2 = (8, 13)  # documents of 256 to 8192 tokens
SEED = 0


def draw(tokens: int, low_log2: int, high_log2: int) -> tuple[int, ...]:
    """Document lengths, log-uniform between 2^low and 2^high, until `tokens` tokens (the last one cut to fit)."""
    rng = np.random.default_rng(SEED)
    lengths: list[int] = []
    while sum(lengths) < tokens:
        length = round(2 ** rng.uniform(low_log2, high_log2))
        lengths.append(min(length, tokens - sum(lengths)))
    return tuple(lengths)


def mixes(quick: bool) -> dict[str, tuple[int, ...]]:
    tokens, (low, high) = (2048, (7, 10)) if quick else (TOKENS, LENGTHS_LOG2)
    drawn = draw(tokens, low, high)
    longest = max(drawn)
    last = tuple(sorted(drawn, key=lambda n: n == longest))  # the draw's order, the longest moved to the end
    return {"drawn": drawn, "longest last": last}


def run(quick: bool) -> list[dict[str, object]]:
    arch = load_arch("b200")
    heads = 4 if quick else HEADS
    rows: list[dict[str, object]] = []
    for mix, lengths in mixes(quick).items():
        for order, seqlens in (("as given", lengths), ("sorted longest first", tuple(sorted(lengths, reverse=True)))):
            for lpt in (True, False):
                problem = Problem.varlen(heads, seqlens, 128, causal=True)
                result = simulate(arch, "v4", problem, {"lpt": lpt}, mode="exact")
                rows.append(_row(mix, order, "lpt" if lpt else "index order", seqlens, result))
        mean = round(sum(lengths) / len(lengths))
        plain = Problem(len(lengths), heads, mean, 128, causal=True)
        result = simulate(arch, "v4", plain, mode="exact")
        rows.append(_row(mix, "plain batch at the mean length", "lpt", (mean,) * len(lengths), result))
    return rows


def _row(mix: str, order: str, variant: str, seqlens: tuple[int, ...], result: Result) -> dict[str, object]:
    bottleneck = result.bottleneck
    return {
        "mix": mix,
        "order": order,
        "variant": variant,
        "sequences": len(seqlens),
        "tokens": sum(seqlens),
        "longest": max(seqlens),
        "tflops": round(result.tflops, 1),
        "bottleneck": bottleneck,
        "bottleneck_busy": round(result.busy[bottleneck], 3),
        "seqlens": " ".join(map(str, seqlens)),
    }


def plot(csv_path: Path, png_path: Path) -> Path:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    with csv_path.open(encoding="utf-8") as handle:
        rows = list(csv.DictReader(handle))
    mixes_seen = list(dict.fromkeys(r["mix"] for r in rows))
    fig, axes = plt.subplots(1, len(mixes_seen), figsize=(5.5 * len(mixes_seen), 4.6), squeeze=False)
    for ax, mix in zip(axes[0], mixes_seen, strict=True):
        chosen = [r for r in rows if r["mix"] == mix]
        labels = [f"{r['order']}\n{r['variant']}" for r in chosen]
        values = [float(r["tflops"]) for r in chosen]
        bars = ax.bar(range(len(chosen)), values, color=["tab:blue", "tab:cyan", "tab:green", "tab:olive", "grey"])
        for bar, r in zip(bars, chosen, strict=True):
            text = f"{float(r['tflops']):.0f}\n{r['bottleneck']} {100 * float(r['bottleneck_busy']):.0f}%"
            ax.text(bar.get_x() + bar.get_width() / 2, bar.get_height(), text, ha="center", va="bottom", fontsize=7)
        ax.set_xticks(range(len(chosen)), labels, fontsize=7, rotation=20, ha="right")
        ax.set_ylim(0, max(values) * 1.2)
        ax.set_ylabel("TFLOP/s")
        first = chosen[0]
        bound = ", ".join(dict.fromkeys(r["bottleneck"] for r in chosen))
        ax.set_title(
            f"{mix}: {first['sequences']} sequences, {first['tokens']} tokens, longest {first['longest']}\n"
            f"bound by: {bound} (label: TFLOP/s, busiest unit)",
            fontsize=9,
        )
    fig.suptitle("FA4 (v4) causal forward of a varlen batch on B200, bf16 d=128 (exact mode)")
    fig.tight_layout()
    fig.savefig(png_path, dpi=120)
    plt.close(fig)
    return png_path


def main(argv: list[str] | None = None) -> None:
    args = parse_args(__doc__, "2k tokens of 128..1024-token documents, 4 heads", argv)
    rows = run(args.quick)
    for row in rows:
        print_row({k: v for k, v in row.items() if k != "seqlens"})
    save(rows, args.out, "fa4_varlen", plot)


if __name__ == "__main__":
    main()
