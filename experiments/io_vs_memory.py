"""FA1 Theorem 2: HBM accesses of FlashAttention-1's forward against the on-chip memory size M, on A100.

Theorem 2 (Dao et al. 2022): with SRAM of M elements, Algorithm 1 makes Theta(N^2 d^2 / M) HBM accesses, because
B_c = ceil(M / 4d) keys fit per block and every one of the T_c = N / B_c key blocks streams all of Q and O through
HBM again. Here M (bytes) is swept two ways at once: the arch's shared memory (`--set smem.capacity_bytes=M` and
`smem.per_cta_bytes=M`, values above the A100's 164 KiB are what-ifs) and v1's `sram_bytes` option, from which
`algorithms.v1.schedule.config` derives B_c = ceil(M / (4 d e)) (e = bytes per element) and B_r = min(B_c, d); the
arch's smem alone does not change v1's blocks. M starts at 64 KiB: below that, at d = 64, v1's CTA (Q_i, K_j, V_j
padded, plus the 16 KiB split-K reduction buffer) does not fit in M.

Each M is simulated with the L2 on (the prediction) and off (`l2.capacity_bytes=0`: the Algorithm 1 loop count),
next to two closed forms of the same loop (non-causal, o_tmp and lse in fp32 in HBM, no state read in the first key
block, as `algorithms/v1/schedule.py`):
the exact count at the integer T_c = ceil(N / B_c), and Theorem 2's curve, the same count with B_c = M / (4 d e)
taken as a real number, 4 e (e + 2f) N^2 d^2 / M + O(N d) per head. Standard attention (default A100, which it fits)
is a flat reference: its S and P in HBM do not depend on M. Problem: A100, d = 64, one wave of 108 heads at N = 1024
(`--quick`: 16 heads at N = 512, three values of M), forward, bf16. Writes `io_vs_memory.csv`, then the PNG.
"""

from __future__ import annotations

import csv
import math
from pathlib import Path

from algorithms.v1.schedule import ACC_BYTES, config
from experiments._common import parse_args, save
from simgpu import Problem, load_arch, simulate

ARCH = "a100"
A100_SMEM_KIB = 164
SRAM_KIB = (64, 80, 96, 112, 128, 160, 192, 224, 256)
QUICK_SRAM_KIB = (64, 128, 256)
LSE_BYTES = 4
EXACT = "exact"  # every CTA and loop iteration simulated; fast mode (issue 8) is not relied on here


def problem(quick: bool) -> Problem:
    return Problem(1, 16, 512, 64) if quick else Problem(1, 108, 1024, 64)


def algorithm1_bytes(p: Problem, key_blocks: float) -> float:
    """HBM bytes (read + write) of v1's forward, not causal, with `key_blocks` (T_c) key blocks.

    Reads: K, V once; per key block all of Q (e), and from the second key block on o_tmp and lse (fp32). Writes: per
    key block lse and O (fp32 o_tmp; the output dtype on the last one)."""
    n, d, e, f = p.seqlen_q, p.headdim, p.element_bytes, ACC_BYTES
    read = 2 * n * d * e + key_blocks * n * d * e + (key_blocks - 1) * n * (d * f + LSE_BYTES)
    write = (key_blocks - 1) * n * d * f + n * d * e + key_blocks * n * LSE_BYTES
    return p.batch * p.heads * (read + write)


def theorem2_bytes(p: Problem, sram_bytes: float) -> float:
    """Algorithm 1's count with T_c = N / B_c and B_c = M / (4 d e) as real numbers: Theta(N^2 d^2 / M)."""
    return algorithm1_bytes(p, p.seqlen_q * 4 * p.headdim * p.element_bytes / sram_bytes)


def run(quick: bool) -> list[dict[str, object]]:
    p = problem(quick)
    standard = {
        l2: simulate(load_arch(ARCH, {} if l2 else {"l2.capacity_bytes": 0}), "standard", p, mode=EXACT)
        for l2 in (True, False)
    }
    rows = []
    for kib in QUICK_SRAM_KIB if quick else SRAM_KIB:
        sram = kib * 1024
        smem = {"smem.capacity_bytes": sram, "smem.per_cta_bytes": sram}
        on = simulate(load_arch(ARCH, smem), "v1", p, {"sram_bytes": sram}, mode=EXACT)
        off = simulate(load_arch(ARCH, {**smem, "l2.capacity_bytes": 0}), "v1", p, {"sram_bytes": sram}, mode=EXACT)
        cfg = config(p, {"sram_bytes": sram})
        key_blocks = math.ceil(p.nk / cfg.block_n)
        rows.append(
            {
                "arch": ARCH,
                "batch": p.batch,
                "heads": p.heads,
                "seqlen": p.seqlen_q,
                "headdim": p.headdim,
                "sram_kib": kib,
                "block_m": cfg.block_m,
                "block_n": cfg.block_n,
                "key_blocks": key_blocks,
                "v1_hbm_bytes_l2_on": on.hbm_read_bytes + on.hbm_write_bytes,
                "v1_hbm_bytes_l2_off": off.hbm_read_bytes + off.hbm_write_bytes,
                "algorithm1_bytes": algorithm1_bytes(p, key_blocks),
                "theorem2_bytes": theorem2_bytes(p, sram),
                "standard_hbm_bytes_l2_on": standard[True].hbm_read_bytes + standard[True].hbm_write_bytes,
                "standard_hbm_bytes_l2_off": standard[False].hbm_read_bytes + standard[False].hbm_write_bytes,
                "v1_runtime_ms": on.time_s * 1e3,
                "v1_bottleneck": on.bottleneck,
            }
        )
    return rows


def plot(csv_path: Path, png_path: Path) -> Path:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    import numpy as np
    from matplotlib.ticker import NullFormatter, ScalarFormatter

    with csv_path.open(encoding="utf-8") as handle:
        rows = list(csv.DictReader(handle))
    r0 = rows[0]
    p = Problem(int(r0["batch"]), int(r0["heads"]), int(r0["seqlen"]), int(r0["headdim"]))
    kib = [float(r["sram_kib"]) for r in rows]

    def mb(column: str) -> list[float]:
        return [float(r[column]) / 1e6 for r in rows]

    fig, ax = plt.subplots(figsize=(7.6, 5.2))
    ax.plot(kib, mb("standard_hbm_bytes_l2_off"), color="gray", ls="--", label="standard attention, L2 off")
    ax.plot(kib, mb("standard_hbm_bytes_l2_on"), color="gray", ls="-", label="standard attention, L2 on")
    ax.plot(kib, mb("v1_hbm_bytes_l2_off"), "s", color="tab:blue", ms=8, mfc="none", label="v1 simulated, L2 off")
    ax.plot(kib, mb("algorithm1_bytes"), "x", color="k", label="Algorithm 1 count, T_c = ceil(N / B_c)")
    ax.plot(kib, mb("v1_hbm_bytes_l2_on"), "o-", color="tab:orange", label="v1 simulated, L2 on (40 MB)")
    dense = np.geomspace(min(kib), max(kib), 100)
    ax.plot(
        dense,
        [theorem2_bytes(p, k * 1024) / 1e6 for k in dense],
        color="tab:blue",
        lw=1,
        label="Theorem 2: 4e(e+2f) N²d²/M + O(Nd), B_c = M/4d",
    )
    for r, x, y in zip(rows, kib, mb("v1_hbm_bytes_l2_off"), strict=True):
        label = f"B_c={r['block_n']}\nT_c={r['key_blocks']}"
        ax.annotate(label, (x, y), textcoords="offset points", xytext=(4, 4), fontsize=6.5)
    ax.axvline(A100_SMEM_KIB, color="k", lw=0.6, ls=":")
    ax.set_xscale("log", base=2)
    ax.set_yscale("log")
    for axis in (ax.xaxis, ax.yaxis):
        axis.set_major_formatter(ScalarFormatter())
        axis.set_minor_formatter(NullFormatter())
    ax.set_xticks(kib)
    low, high = ax.get_ylim()
    ax.text(A100_SMEM_KIB, low, " A100: 164 KiB\n (right: what-if)", va="bottom", fontsize=7)
    decades = range(int(np.floor(np.log10(low))), int(np.ceil(np.log10(high))) + 1)
    ax.set_yticks([t for e in decades for t in (10**e, 2 * 10**e, 3 * 10**e, 5 * 10**e) if low <= t <= high])
    ax.set_xlabel("on-chip memory M = smem per SM = v1 sram_bytes (KiB)")
    ax.set_ylabel("HBM read + write (MB)")
    ax.set_title(
        f"FA1 forward HBM accesses vs SRAM size (Theorem 2), A100, N={p.seqlen_q}, d={p.headdim}, "
        f"{p.heads} heads, batch {p.batch}",
        fontsize=9,
    )
    ax.grid(True, which="both", alpha=0.2)
    ax.legend(fontsize=7.5, loc="lower left")
    fig.tight_layout()
    fig.savefig(png_path, dpi=120)
    plt.close(fig)
    return png_path


def main(argv: list[str] | None = None) -> None:
    args = parse_args(__doc__, "16 heads, seqlen 512, M = 64, 128, 256 KiB", argv)
    rows = run(args.quick)
    for r in rows:
        print(
            f"M={r['sram_kib']:>3} KiB  B_r={r['block_m']:<3} B_c={r['block_n']:<4} T_c={r['key_blocks']:<2} "
            f"v1 L2 on {r['v1_hbm_bytes_l2_on'] / 1e6:8.1f} MB  L2 off {r['v1_hbm_bytes_l2_off'] / 1e6:8.1f} MB  "  # type: ignore[operator]
            f"Algorithm 1 {r['algorithm1_bytes'] / 1e6:8.1f} MB  Theorem 2 {r['theorem2_bytes'] / 1e6:8.1f} MB"  # type: ignore[operator]
        )
    save(rows, args.out, "io_vs_memory", plot)


if __name__ == "__main__":
    main()
