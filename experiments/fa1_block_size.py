"""FA1 Fig. 2 (middle): FlashAttention-1 forward HBM accesses and runtime vs block size on A100.

Setup as the paper: seqlen 1024, head dim 64, 16 heads, batch 64, A100. `block_n` (B_c) = 64, 128, 256, 512 and
`block_m` (B_r) = min(B_c, d), lowered in steps of 16 where the CTA's shared memory would not fit (K_j and V_j share
one buffer, as in the released kernel, so B_r = 64 fits at every B_c here). HBM bytes are given with L2 on (the
prediction) and off (the loop structure's count; exact and linear in batch, so simulated at batch 1 and scaled by
64). Writes a CSV, then a PNG drawn from it.
"""

from __future__ import annotations

import csv
import functools
from pathlib import Path

from algorithms.v1.schedule import config, forward_kernel
from experiments._common import map_rows, parse_args, print_row, save
from simgpu import Problem, load_arch, simulate

BLOCKS = (64, 128, 256, 512)


def _block_m(arch_name: str, problem: Problem, block_n: int) -> int:
    """The largest B_r <= min(B_c, d), a multiple of 16, whose forward CTA fits the arch's shared memory."""
    arch = load_arch(arch_name)
    for block_m in range(min(block_n, problem.headdim) // 16 * 16, 0, -16):
        cfg = config(problem, {"block_m": block_m, "block_n": block_n})
        if forward_kernel(problem, cfg).cta.smem_bytes <= arch.smem.per_cta_bytes:
            return block_m
    raise ValueError(f"no block_m fits with block_n={block_n}")


def run(quick: bool, jobs: int = 1) -> list[dict[str, object]]:
    return map_rows(functools.partial(_row, quick), BLOCKS, jobs)


def _row(quick: bool, block_n: int) -> dict[str, object]:
    batch, heads, seqlen = (1, 4, 256) if quick else (64, 16, 1024)
    problem = Problem(batch, heads, seqlen, 64)
    one = Problem(1, heads, seqlen, 64)
    no_l2 = load_arch("a100", {"l2.capacity_bytes": 0})
    options = {"block_n": block_n, "block_m": _block_m("a100", problem, block_n)}
    result = simulate("a100", "v1", problem, options, mode="exact")
    uncached = simulate(no_l2, "v1", one, options, mode="exact")
    return {
        "arch": "a100",
        "batch": batch,
        "heads": heads,
        "seqlen": seqlen,
        "headdim": 64,
        "block_n": block_n,
        "block_m": options["block_m"],
        "hbm_gb": (result.hbm_read_bytes + result.hbm_write_bytes) / 1e9,
        "hbm_gb_l2_off": batch * (uncached.hbm_read_bytes + uncached.hbm_write_bytes) / 1e9,
        "runtime_ms": result.time_s * 1e3,
        "tflops": result.tflops,
        "bottleneck": result.bottleneck,
        "sim_wall_s": result.sim_wall_s,
    }


def plot(csv_path: Path, png_path: Path) -> Path:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    with csv_path.open(encoding="utf-8") as handle:
        rows = list(csv.DictReader(handle))
    blocks = [int(r["block_n"]) for r in rows]
    fig, (left, right) = plt.subplots(1, 2, figsize=(10, 4))
    left.plot(blocks, [float(r["hbm_gb"]) for r in rows], "o-", label="L2 on (prediction)")
    left.plot(blocks, [float(r["hbm_gb_l2_off"]) for r in rows], "s--", label="L2 off (loop count)")
    left.set_xscale("log", base=2)
    left.set_xlabel("block size B_c (keys)")
    left.set_ylabel("HBM accesses (GB)")
    left.set_title("HBM read + write")
    left.legend()
    right.plot(blocks, [float(r["runtime_ms"]) for r in rows], "o-", color="tab:red", label="simulated")
    right.set_xscale("log", base=2)
    right.set_xlabel("block size B_c (keys)")
    right.set_ylabel("runtime (ms)")
    right.set_title("forward runtime")
    right.legend()
    r0 = rows[0]
    fig.suptitle(
        f"FA1 forward vs block size, A100, N={r0['seqlen']}, d=64, {r0['heads']} heads, batch {r0['batch']} "
        "(cf. FA1 Fig. 2 middle)"
    )
    fig.tight_layout()
    fig.savefig(png_path, dpi=120)
    plt.close(fig)
    return png_path


def main(argv: list[str] | None = None) -> None:
    args = parse_args(__doc__, "batch 1, 4 heads, seqlen 256", argv, jobs=True)
    rows = run(args.quick, args.jobs)
    for row in rows:
        print_row(row)
    save(rows, args.out, "fa1_block_size", plot)


if __name__ == "__main__":
    main()
