"""What each part of our FA3 forward kernel adds to its time, in the model and on the H200: the same parts taken out.

`validation/probes/v3_ablate.py` timed our FA3 forward kernel (`cupy_kernels/v3/fwd.cu`) with parts compiled out
(FA3_ABLATE bits: 1 the K/V copies after the first two tiles, 2 the MUFU.EX2 of the exps, 4 O += P V, 8 S = Q K^T,
16 the O and LSE stores, 32 the row-max pass, 64 the rescale of O) in each (pingpong, intra_wg_overlap) variant.
Here the v3 schedule's forward kernel, in the validation's configuration (128 x 128 tiles, 2 stages, one CTA per
tile, stores from registers), runs in exact mode with the same ops taken out:
  1   the producer's K and V loads after the first `stages` tiles become arrivals on their full barriers;
  2   the exps' ex2 and its MUFU link in the chain;
  4   the P V product (an arrival where the schedule waits on it), and the packing of P to bf16 (the exps' ALU
      work): without P V, ptxas drops the packing too (the ablated SASS has no F2FP of P);
  8   the S product (an arrival where the schedule waits on it);
  16  the stores of O and LSE;
  32  the row-max pass (the kernel keeps one FMNMX per row: not charged);
  64  the rescale of O (its own op with the overlap; without it, the exps' share of FMA work).
Both sides are SM cycles per key tile per SM (kernel time x clock x SMs / key tiles), at the clock the probe counted
beside each build. Reading the differences between builds (what a part adds) against the model's shows which part
the model gets wrong. Shape as the probe: B=4, H=2048/d, N=4096, bf16, not causal.
`--quick`: B=1, N=1024, masks 0 and 12 of the variant with both switches on.
"""

from __future__ import annotations

import csv
import functools
from collections.abc import Callable, Hashable, Mapping, Sequence
from concurrent.futures import ProcessPoolExecutor
from dataclasses import replace
from pathlib import Path

from algorithms._schedule.softmax import o_rescale, online_softmax
from algorithms.v3.schedule import config, forward_kernel
from experiments._common import compare_per_tile, parse_args, plot_ablation, save
from simgpu.arch import load_arch
from simgpu.engine import Engine
from simgpu.kernel import Kernel, Role
from simgpu.ops import Arrive, Load, Mma, Op, Repeat, Store, Vector
from simgpu.problem import Problem

MEASURED = Path(__file__).resolve().parent.parent / "validation" / "h200" / "v3_ablate_h200.csv"
LOADS, EXP, PV, S, STORES, MAX, RESCALE = 1, 2, 4, 8, 16, 32, 64
ROWS = 64  # a consumer warpgroup's query rows
BATCH, SEQLEN = 4, 4096
KERNEL_OPTIONS = {"block_m": 128, "block_n": 128, "stages": 2, "persistent": False, "epilogue": "registers"}


@functools.cache
def _row_max_pass(headdim: int) -> frozenset[Vector]:
    """The row-max pass's ops (the thread's FMNMX, the quad's reduction), masked or not: what the MAX bit compiles
    out of the kernel."""
    block_n = KERNEL_OPTIONS["block_n"]
    assert isinstance(block_n, int)
    return frozenset(op for masked in (False, True) for op in online_softmax(ROWS, block_n, headdim, masked=masked)[:2])


def _ablate_op(op: Op, mask: int, stages: int, headdim: int, parts: int = 1) -> Op | None:
    """`op` with the parts in `mask` taken out: None drops it. `parts`: the ops the exp pass is cut into."""
    if isinstance(op, Repeat):
        return Repeat(op.count, _ablate_body(op.body, mask, stages, headdim, parts))
    if isinstance(op, Vector) and mask & MAX and op in _row_max_pass(headdim):
        return None
    if isinstance(op, Vector) and mask & RESCALE:
        if op == o_rescale(ROWS, headdim):
            return None
        if op.ex2 > ROWS and op.fma > 2 * op.ex2:  # a part of the exps with the rescale folded in (FA3's order
            # without overlap; the epilogue's op has one ex2 per row)
            op = replace(op, fma=op.fma - ROWS * headdim / parts)
    if isinstance(op, Load) and mask & LOADS and op.tensor in ("K", "V") and op.tile[-1] >= stages:  # type: ignore[index]
        return Arrive(op.arrive) if op.arrive is not None else None
    if isinstance(op, Mma) and mask & (PV if op.a == "reg" else S):
        return Arrive(op.arrive) if op.arrive is not None else None
    if isinstance(op, Vector) and op.ex2:
        if mask & EXP:
            chain = replace(op.chain, mufu=0) if op.chain is not None else None
            op = replace(op, ex2=0.0, chain=chain)
        if mask & PV:
            op = replace(op, alu=0.0)
    if isinstance(op, Store) and mask & STORES:
        return None
    return op


def _ablate_body(
    body: Callable[[int], Sequence[Op]], mask: int, stages: int, headdim: int, parts: int
) -> Callable[[int], Sequence[Op]]:
    def ablated_body(j: int) -> Sequence[Op]:
        return [out for op in body(j) if (out := _ablate_op(op, mask, stages, headdim, parts)) is not None]

    return ablated_body


def ablated(kernel: Kernel, mask: int, stages: int, headdim: int, parts: int) -> Kernel:
    """`kernel` with the parts in `mask` taken out of every role's program (setups stay); its exp passes are cut into
    `parts` ops."""

    def role(r: Role) -> Role:
        def program(tile: Hashable) -> Sequence[Op]:
            return [out for op in r.program(tile) if (out := _ablate_op(op, mask, stages, headdim, parts)) is not None]

        return Role(r.name, r.warps, program, r.setup)

    return replace(kernel, roles=tuple(role(r) for r in kernel.roles))


def model_row(
    headdim: int, pingpong: bool, overlap: bool, mask: int, clock_mhz: float, batch: int, seqlen: int
) -> dict[str, object]:
    arch = load_arch("h200").with_overrides({"clock_hz": clock_mhz * 1e6, "power": None})
    problem = Problem(batch, 2048 // headdim, seqlen, headdim, causal=False, dtype="bf16", pass_="fwd")
    options = {**KERNEL_OPTIONS, "pingpong": pingpong, "intra_wg_overlap": overlap}
    cfg = config(problem, options)
    kernel = ablated(forward_kernel(arch, problem, cfg), mask, cfg.stages, headdim, cfg.exp_pass_parts)
    stats = Engine(arch).run([kernel])
    key_tiles = len(kernel.tiles) * (seqlen // cfg.block_n)
    cycles = stats.cycles - arch.kernel_launch_s * arch.clock_hz
    return {"headdim": headdim, "pingpong": pingpong, "intra_wg_overlap": overlap, "ablate": mask,
            "model_cycles_per_tile_per_sm": cycles * arch.sms / key_tiles}  # fmt: skip


def measured() -> dict[tuple[int, bool, bool, int], tuple[float, float]]:
    """(headdim, pingpong, overlap, mask) -> (cycles per key tile per SM, clock MHz)."""
    with MEASURED.open() as handle:
        return {
            (int(r["headdim"]), r["pingpong"] == "True", r["intra_wg_overlap"] == "True", int(r["ablate"])): (
                float(r["cycles_per_tile_per_sm"]),
                float(r["clock_mhz"]),
            )
            for r in csv.DictReader(handle)
        }


def rows(quick: bool, jobs: int) -> list[dict[str, object]]:
    table = measured()
    keys = sorted(table) if not quick else [k for k in sorted(table) if k[1] and k[2] and k[3] in (0, 12)]
    batch, seqlen = (1, 1024) if quick else (BATCH, SEQLEN)
    args = [(*key, table[key][1], batch, seqlen) for key in keys]
    with ProcessPoolExecutor(max_workers=jobs) as pool:
        results = list(pool.map(model_row, *zip(*args, strict=True)))
    return compare_per_tile(keys, results, {key: value[0] for key, value in table.items()})


def _variant(pingpong: str, overlap: str) -> Callable[[Mapping[str, str]], bool]:
    return lambda r: r["pingpong"] == pingpong and r["intra_wg_overlap"] == overlap


def plot(csv_path: Path, png_path: Path) -> None:
    markers = {("True", "True"): "o", ("True", "False"): "s", ("False", "True"): "^", ("False", "False"): "v"}
    series = [(f"pingpong {pp}, overlap {ov}", marker, _variant(pp, ov)) for (pp, ov), marker in markers.items()]
    plot_ablation(csv_path, png_path, series, "FA3_ABLATE", 4000)


def main(argv: list[str] | None = None) -> list[dict[str, object]]:
    args = parse_args(__doc__, "B=1, N=1024, masks 0 and 12 of the variant with both switches on", argv, jobs=True)
    table = rows(args.quick, args.jobs)
    save(table, args.out, "v3_ablation", plot)
    return table


if __name__ == "__main__":
    main()
