"""FA4 what-ifs: where the bottleneck of the FlashAttention-4 schedule moves when the chip changes.

Studies (bf16, d = 128, non-causal forward unless said; one problem per study, B200 unless said):
- mufu:      MUFU ex2 16 -> 32 per clock per SM (B300), with all exps on MUFU and with FA4's 25% software share;
- emulation: software-exp share of each row 0, 10, 25, 50%;
- smem:      shared-memory bandwidth x1.5 (128 -> 192 B/clk/SM), forward, backward 1-CTA and backward 2-CTA (FA4's
             backward at d = 128 pairs CTAs: `two_cta`);
- tmem:      an H100 given B200's TMEM, TMA and tcgen05 (at H100's own tensor rate: 4096 FLOP/clk/SM, MUFU, smem);
- tau:       conditional-rescaling threshold 0, 2, 4, 8, 16 (the rescale share measured by the v4 numerics);
- excess:    d = 64, 96 and 128, all exps on MUFU and FA4's 25% software share: how far each tile's non-MMA work
             exceeds its MMA work (FA4: by 25-60% on typical tiles) and what the software share gains there. Its rows
             also record the per-tile accounting (`simulate(..., per_tile=True)`: one steady-state main-loop tile, a
             CTA's 256 query rows against 128 keys, taken from a first work item over `TILE_KEYS` keys) of the MUFU
             and of the issue slots as multiples of the tensor cores' cycles (`tile_mufu_over_mma`,
             `tile_issue_over_mma`; empty in the other studies).
Problem: 4 x 16 heads, seqlen 8k (FA4's 32k tokens); `--quick`: 1 x 16 heads, seqlen 2k. Fast mode (the default, within
1% of exact mode: `experiments.fast_vs_exact`), so the whole study runs in seconds. Every row records the predicted
TFLOP/s, the bottleneck unit (the busiest: highest busy share, `simgpu.result`) and the busy shares. Writes
`fa4_whatif.csv`, then `fa4_whatif.png` (one panel per study; each bar is labelled with the unit that bounds it, and
each panel's title lists them left to right).
"""

from __future__ import annotations

import csv
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from experiments._common import parse_args, save
from simgpu import Arch, Problem, load_arch, simulate

TMEM_ON_HOPPER: Mapping[str, Any] = {
    "tmem": {"lanes": 128, "columns": 512, "column_granule": 32, "bandwidth_bytes_per_cycle": 512.0},
    "features.tmem": True,
    "features.tcgen05": True,
    "tensor_core.instruction": "tcgen05",
    "tensor_core.instruction_m": 128,
    "tensor_core.instruction_n_max": 256,
}
UNITS = ("tensor", "mufu", "fma", "alu", "issue", "smem", "tmem", "dsmem")
HEADS = 16
# Keys of the per-tile runs, quick or not: their main loop must be long enough to fold (`simgpu.per_tile`), which
# quick mode's 2k keys are not for the 5-stage rings of d = 64 and 96.
TILE_KEYS = 8192


def _row(
    study: str,
    label: str,
    arch: Arch,
    problem: Problem,
    options: Mapping[str, Any],
    tile_problem: Problem | None = None,
) -> dict[str, object]:
    result = simulate(arch, "v4", problem, options)
    tile = simulate(arch, "v4", tile_problem, options, per_tile=True).unit_cycles if tile_problem else {}
    row: dict[str, object] = {
        "study": study,
        "point": label,
        "arch": arch.name,
        "pass": problem.pass_,
        "seqlen": problem.seqlen_q,
        "batch": problem.batch,
        "heads": problem.heads,
        "tflops": result.tflops,
        "bottleneck": result.bottleneck,
    }
    row.update({f"busy_{unit}": result.busy.get(unit, 0.0) for unit in UNITS})
    for unit in ("mufu", "issue"):
        row[f"tile_{unit}_over_mma"] = tile[unit] / tile["tensor"] if tile else ""
    return row


def run(quick: bool) -> list[dict[str, object]]:
    batch, seqlen = (1, 2048) if quick else (4, 8192)
    fwd = Problem(batch, HEADS, seqlen, 128)
    bwd = Problem(batch, HEADS, seqlen, 128, pass_="bwd")
    b200 = load_arch("b200")
    b300_mufu = load_arch("b200", {"mufu.ex2_per_cycle": 32.0})
    wide_smem = load_arch("b200", {"smem.bandwidth_bytes_per_cycle": 192.0})
    h100 = load_arch("h100")
    # tcgen05 accumulates in TMEM, so a register-file contention model of Hopper's wgmma (if the arch has one) no
    # longer applies to the what-if chip.
    no_contention = {"contention": None} if getattr(h100, "contention", None) is not None else {}
    h100_tmem = h100.with_overrides({**TMEM_ON_HOPPER, **no_contention})
    rows = []
    for arch, name in ((b200, "16/clk"), (b300_mufu, "32/clk")):
        for fraction in (0.0, 0.25):
            label = f"MUFU {name}, {fraction:.0%} sw exp"
            rows.append(_row("mufu", label, arch, fwd, {"exp_emulation_fraction": fraction}))
    for fraction in (0.0, 0.1, 0.25, 0.5):
        rows.append(_row("emulation", f"{fraction:.0%} sw exp", b200, fwd, {"exp_emulation_fraction": fraction}))
    for arch, name in ((b200, "128 B/clk"), (wide_smem, "192 B/clk")):
        rows.append(_row("smem", f"fwd, smem {name}", arch, fwd, {}))
        rows.append(_row("smem", f"bwd 1-CTA, smem {name}", arch, bwd, {}))
        rows.append(_row("smem", f"bwd 2-CTA, smem {name}", arch, bwd, {"two_cta": True}))
    rows.append(_row("tmem", "B200", b200, fwd, {}))
    rows.append(_row("tmem", "H100 + TMEM/tcgen05", h100_tmem, fwd, {}))
    for tau in (0.0, 2.0, 4.0, 8.0, 16.0):
        rows.append(_row("tau", f"tau={tau:g}", b200, fwd, {"rescale_threshold": tau}))
    for d in (64, 96, 128):
        for fraction in (0.0, 0.25):
            problem, tile_problem = Problem(batch, HEADS, seqlen, d), Problem(1, 1, TILE_KEYS, d)
            label = f"d={d}, {fraction:.0%} sw exp"
            rows.append(_row("excess", label, b200, problem, {"exp_emulation_fraction": fraction}, tile_problem))
    return rows


def plot(csv_path: Path, png_path: Path) -> Path:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    with csv_path.open(encoding="utf-8") as handle:
        rows = list(csv.DictReader(handle))
    studies = list(dict.fromkeys(r["study"] for r in rows))
    bars = [sum(r["study"] == study for r in rows) for study in studies]
    fig, axes = plt.subplots(1, len(studies), figsize=(1.1 * sum(bars) + 2, 5.0), gridspec_kw={"width_ratios": bars})
    for ax, study in zip(axes, studies, strict=True):
        mine = [r for r in rows if r["study"] == study]
        values = [float(r["tflops"]) for r in mine]
        bars = ax.bar(range(len(mine)), values, color="tab:blue")
        for bar, r in zip(bars, mine, strict=True):
            ax.text(bar.get_x() + bar.get_width() / 2, bar.get_height(), r["bottleneck"], ha="center", va="bottom")
        ax.set_xticks(range(len(mine)), [r["point"] for r in mine], rotation=35, ha="right", fontsize=8)
        ax.set_ylabel("TFLOP/s")
        bounds = " / ".join(r["bottleneck"] for r in mine)
        ax.set_title(f"{study}: bound by (left to right)\n{bounds}", fontsize=9)
    r0 = rows[0]
    fig.suptitle(
        f"FA4 what-ifs, bf16 d=128, {r0['batch']} x {r0['heads']} heads, seqlen {r0['seqlen']} "
        "(label on bar: the unit that bounds it, the busiest)"
    )
    fig.tight_layout()
    fig.savefig(png_path, dpi=120)
    plt.close(fig)
    return png_path


def main(argv: list[str] | None = None) -> None:
    args = parse_args(__doc__, "1 x 16 heads, seqlen 2048", argv)
    rows = run(args.quick)
    for row in rows:
        print(f"{row['study']:9} {row['point']:28} {row['tflops']:7.0f} TFLOP/s  bound by {row['bottleneck']}")
    save(rows, args.out, "fa4_whatif", plot)


if __name__ == "__main__":
    main()
