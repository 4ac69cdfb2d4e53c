"""FA4's backward with one CTA per key block or a 2-CTA pair (`two_cta`) on the B200 model: what the pair gains, which
unit bounds each point, and how much the unpublished SM-to-SM network figures matter.

FA4 uses its 2-CTA backward at d = 128 (§3.2): the pair's MMAs are 256 rows tall (one thread of the leader CTA issues
them for both), each CTA holds half of the query-side operand, sends half of its dS to its peer over DSMEM and adds
half of dQ. The forward has no 2-CTA variant here: FA4's forward gets its 256 rows from two Q tiles per CTA (§3.1).

Studies (bf16, d = 128, 16 heads, 16k tokens per batch: batch = 16384 / seqlen; fast mode):
- pair:  backward, causal and not, seqlen 1k to 16k, 1-CTA and 2-CTA;
- dsmem: the non-causal 2-CTA backward at 8k with the SM-to-SM network (`dsmem:` in archs/b200.yaml, both values
         `[?]`) free (no latency, 100x the link), without its latency only (the dS copy's and the trip of the
         peer's arrivals to the pair's leader), its latency x4, its link /2, and the H200's measured network
         (archs/h100.yaml: an arrival at the peer 486 cycles one way, bulk copies 21.3 B/clk; the latency alone, then
         both): what the DSMEM model costs, and what the pair would gain on a network like Hopper's.
Every row records the predicted TFLOP/s, the bottleneck unit (the busiest: highest busy share) and the busy shares.
Writes `fa4_two_cta.csv`, then `fa4_two_cta.png` (each bar labelled with the unit that bounds it; each panel's title
lists them). `--quick`: 1k tokens, seqlen 512 and 1024, and the dsmem study at 1024.
"""

from __future__ import annotations

import csv
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from experiments._common import parse_args, save
from simgpu import Problem, load_arch, simulate

TOKENS = 16384
HEADS = 16
UNITS = ("tensor", "mufu", "fma", "alu", "issue", "smem", "tmem", "dsmem", "l2", "hbm")
VARIANTS: dict[str, Mapping[str, Any]] = {"1-CTA": {}, "2-CTA": {"two_cta": True}}


def _dsmem_points() -> list[tuple[str, Mapping[str, Any]]]:
    spec, hopper = load_arch("b200").dsmem, load_arch("h200").dsmem
    assert spec is not None and hopper is not None  # both files have the section
    latency, link = spec.latency_cycles, spec.bandwidth_bytes_per_cycle
    return [
        ("model", {}),
        ("DSMEM free", {"dsmem.latency_cycles": 0.0, "dsmem.bandwidth_bytes_per_cycle": 100 * link}),
        ("latency 0, link kept", {"dsmem.latency_cycles": 0.0}),
        ("latency x4", {"dsmem.latency_cycles": 4 * latency}),
        ("link /2", {"dsmem.bandwidth_bytes_per_cycle": link / 2}),
        ("H200's arrival latency", {"dsmem.latency_cycles": hopper.latency_cycles}),
        ("H200's network", {"dsmem.latency_cycles": hopper.latency_cycles,
                            "dsmem.bandwidth_bytes_per_cycle": hopper.bandwidth_bytes_per_cycle}),
    ]  # fmt: skip


def _row(
    study: str, variant: str, problem: Problem, options: Mapping[str, Any], overrides: Mapping[str, Any]
) -> dict[str, object]:
    arch = load_arch("b200", dict(overrides))
    result = simulate(arch, "v4", problem, options)
    row: dict[str, object] = {
        "study": study,
        "variant": variant,
        "pass": problem.pass_,
        "causal": problem.causal,
        "seqlen": problem.seqlen_q,
        "batch": problem.batch,
        "heads": problem.heads,
        "two_cta": bool(options.get("two_cta", False)),
        "overrides": " ".join(f"{k}={v:g}" for k, v in overrides.items()),
        "tflops": round(result.tflops, 1),
        "bottleneck": result.bottleneck,
    }
    row.update({f"busy_{unit}": round(result.busy.get(unit, 0.0), 4) for unit in UNITS})
    return row


def run(quick: bool) -> list[dict[str, object]]:
    tokens = 1024 if quick else TOKENS
    seqlens = (512, 1024) if quick else (1024, 2048, 4096, 8192, 16384)
    rows = []
    for causal in (False, True):
        for n in seqlens:
            problem = Problem(tokens // n, HEADS, n, 128, causal=causal, pass_="bwd")
            for variant, options in VARIANTS.items():
                rows.append(_row("pair", variant, problem, options, {}))
    n = seqlens[-1] if quick else 8192
    problem = Problem(tokens // n, HEADS, n, 128, pass_="bwd")
    for label, overrides in _dsmem_points():
        rows.append(_row("dsmem", label, problem, VARIANTS["2-CTA"], overrides))
    return rows


def plot(csv_path: Path, png_path: Path) -> Path:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    with csv_path.open(encoding="utf-8") as handle:
        rows = list(csv.DictReader(handle))
    fig, axes = plt.subplots(1, 3, figsize=(17, 5.2), gridspec_kw={"width_ratios": [5, 5, 4]})
    width = 0.4
    for ax, causal in zip(axes[:2], ("False", "True"), strict=True):
        mine = [r for r in rows if r["study"] == "pair" and r["causal"] == causal]
        seqlens = sorted({int(r["seqlen"]) for r in mine})
        bounds = []
        for k, (variant, color) in enumerate((("1-CTA", "tab:blue"), ("2-CTA", "tab:orange"))):
            by_n = {int(r["seqlen"]): r for r in mine if r["variant"] == variant}
            xs = [i + (k - 0.5) * width for i in range(len(seqlens))]
            values = [float(by_n[n]["tflops"]) for n in seqlens]
            ax.bar(xs, values, width, color=color, label=variant)
            for x, n, value in zip(xs, seqlens, values, strict=True):
                ax.text(x, value, by_n[n]["bottleneck"], ha="center", va="bottom", fontsize=7, rotation=90)
            bounds.append(f"{variant}: " + " / ".join(by_n[n]["bottleneck"] for n in seqlens))
        ax.set_xticks(range(len(seqlens)), [str(n) for n in seqlens])
        ax.set_xlabel("seqlen")
        ax.set_ylabel("TFLOP/s")
        ax.set_ylim(0, 1.25 * max(float(r["tflops"]) for r in mine))
        ax.legend(fontsize=8, loc="lower right")
        name = "causal" if causal == "True" else "non-causal"
        ax.set_title(f"{name} backward, bound by (by seqlen)\n" + "\n".join(bounds), fontsize=8)
    ax = axes[2]
    mine = [r for r in rows if r["study"] == "dsmem"]
    values = [float(r["tflops"]) for r in mine]
    bars = ax.bar(range(len(mine)), values, color="tab:orange")
    for bar, r in zip(bars, mine, strict=True):
        ax.text(bar.get_x() + bar.get_width() / 2, bar.get_height(), r["bottleneck"], ha="center", va="bottom")
    ax.set_xticks(range(len(mine)), [r["variant"] for r in mine], rotation=30, ha="right", fontsize=8)
    ax.set_ylabel("TFLOP/s")
    ax.set_ylim(0, 1.15 * max(values))
    labels = " / ".join(r["bottleneck"] for r in mine)
    title = f"2-CTA, non-causal, seqlen {mine[0]['seqlen']}: the DSMEM model\nbound by (left to right): {labels}"
    ax.set_title(title, fontsize=8)
    r0 = rows[0]
    tokens = int(r0["batch"]) * int(r0["seqlen"])
    fig.suptitle(
        f"FA4 backward on B200, 1-CTA vs 2-CTA, bf16 d=128, {r0['heads']} heads, {tokens} tokens "
        "(label on bar: the unit that bounds it, the busiest)",
        fontsize=10,
    )
    fig.tight_layout()
    fig.savefig(png_path, dpi=120)
    plt.close(fig)
    return png_path


def main(argv: list[str] | None = None) -> None:
    args = parse_args(__doc__, "1k tokens, seqlen 512 and 1024", argv)
    rows = run(args.quick)
    for row in rows:
        causal = "causal" if row["causal"] else "non-causal"
        print(f"{row['study']:6} {causal:10} {row['seqlen']:>6} {row['variant']:20}", end="")
        print(f" {row['tflops']:7.0f} TFLOP/s", end="")
        print(f"  bound by {row['bottleneck']}")
    save(rows, args.out, "fa4_two_cta", plot)


if __name__ == "__main__":
    main()
