"""What each part of the FA2 forward loop adds to its time, in the model and on the H200: the same parts taken out.

`validation/probes/v2_ablate.py` timed our FA2 forward kernel (`cupy_kernels/v2/fwd.cu`) with parts of its key-tile
loop compiled out (FA2_ABLATE bits: 1 the cp.async of the next K/V tile, 2 the MUFU.EX2 of the exps, 4 O += P V,
8 S = Q K^T) at 2 CTAs per SM (its occupancy) and 1 (shared memory padded). Here the v2 schedule's forward kernel
is run in exact mode with the same ops taken out of its loop (1: the loop's K/V loads and the waits for them;
2: the exps' ex2 and its MUFU link in the chain; 4 and 8: the products), capped at the same CTAs per SM, and both
are compared as SM cycles per key tile per SM. Reading the differences between builds (what a part adds) against
the model's shows which part the model gets wrong. Shape as the probe: B=4, H=2048/d, N=4096, bf16, not causal.
The load skeleton alone (`validation/probes/cp_async_stream.py`: one wave of 132 x CTAs per SM, each streaming 64
K/V tiles of 32 KiB with cp.async, 32 CTAs per head) is replayed the same way (`v2_cp_async_stream.csv`).
`--quick`: B=1 (tail effects differ), masks 0 and 14, the stream at 2 CTAs per SM only.
"""

from __future__ import annotations

import csv
from collections.abc import Callable, Sequence
from concurrent.futures import ProcessPoolExecutor
from dataclasses import replace
from pathlib import Path

from algorithms.v2.schedule import config, forward_kernel
from experiments._common import compare_per_tile, parse_args, plot_ablation, print_row, save, write_csv
from simgpu.arch import load_arch
from simgpu.engine import Engine
from simgpu.kernel import BarrierSpec, CtaResources, Kernel, Role
from simgpu.ops import Load, Mma, Op, Repeat, Vector, Wait
from simgpu.problem import Problem

H200 = Path(__file__).resolve().parent.parent / "validation" / "h200"
MEASURED = H200 / "v2_ablate_h200.csv"
MEASURED_STREAM = H200 / "cp_async_stream_h200.csv"
LOADS, EXP, PV, S = 1, 2, 4, 8
BATCH, SEQLEN = 4, 4096
STREAM_TILES, STREAM_CTAS_PER_HEAD, STREAM_TILE_BYTES = 64, 32, 32768


def _ablate_step(step: Callable[[int], Sequence[Op]], mask: int) -> Callable[[int], Sequence[Op]]:
    def body(j: int) -> Sequence[Op]:
        out: list[Op] = []
        products = 0
        for op in step(j):
            if isinstance(op, Load) and mask & LOADS:
                continue
            if isinstance(op, Wait) and mask & LOADS and j > 0:
                continue  # the first tile's loads (the prologue's) are still waited for
            if isinstance(op, Mma):
                products += 1
                if (products == 1 and mask & S) or (products == 2 and mask & PV):
                    continue
            if isinstance(op, Vector) and op.ex2 and mask & EXP:
                chain = replace(op.chain, mufu=0) if op.chain is not None else None
                op = replace(op, ex2=0.0, chain=chain)
            out.append(op)
        return out

    return body


def ablated(kernel: Kernel, mask: int) -> Kernel:
    """`kernel` with the parts in `mask` taken out of its key-tile loop."""
    (role,) = kernel.roles

    def program(tile: object) -> Sequence[Op]:
        return [
            Repeat(op.count, _ablate_step(op.body, mask)) if isinstance(op, Repeat) else op
            for op in role.program(tile)  # type: ignore[arg-type]
        ]

    return replace(kernel, roles=(Role(role.name, role.warps, program),))


def model_row(headdim: int, mask: int, ctas_per_sm: int, batch: int) -> dict[str, object]:
    arch = load_arch("h200")
    problem = Problem(batch, 2048 // headdim, SEQLEN, headdim, causal=False, dtype="bf16", pass_="fwd")
    cfg = config(problem, {"kv_layout": "ring"})  # our CUDA kernel's K/V ring, which the probe times
    kernel = ablated(forward_kernel(problem, cfg), mask)
    stats = Engine(arch, max_ctas_per_sm=ctas_per_sm).run([kernel])
    key_tiles = len(kernel.tiles) * (SEQLEN // cfg.block_n)
    cycles = stats.cycles - arch.kernel_launch_s * arch.clock_hz
    return {"headdim": headdim, "ablate": mask, "ctas_per_sm": ctas_per_sm,
            "model_cycles_per_tile_per_sm": cycles * arch.sms / key_tiles}  # fmt: skip


def stream_kernel(ctas_per_sm: int, stages: int, source: str, sms: int) -> Kernel:
    """The cp_async_stream probe: per tile, wait for it, then cp.async K and V of the tile `stages` - 1 ahead."""
    grid = sms * ctas_per_sm
    heads = max(1, grid // STREAM_CTAS_PER_HEAD) if source == "l2" else grid
    half = STREAM_TILE_BYTES // 2

    def program(cta: object) -> Sequence[Op]:
        head = int(cta) % heads  # type: ignore[call-overload]

        def loads(j: int) -> tuple[Load, Load]:
            slot = ("kv", j % stages)
            return (Load("K", (head, j), half, engine="cp_async", arrive=slot),
                    Load("V", (head, j), half, engine="cp_async", arrive=slot))  # fmt: skip

        def step(j: int) -> Sequence[Op]:
            ahead = j + stages - 1
            return (Wait(("kv", j % stages)), *(loads(ahead) if ahead < STREAM_TILES else ()))

        return (*(op for j in range(stages - 1) for op in loads(j)), Repeat(STREAM_TILES, step))

    smem = {1: 120 * 1024, 2: 100 * 1024, 3: 74 * 1024}[ctas_per_sm]
    return Kernel(
        name="cp_async_stream",
        tiles=tuple(range(grid)),
        cta=CtaResources(128, 40, smem),
        roles=(Role("warps", 4, program),),
        barriers=(BarrierSpec("kv", arrivals=2, slots=stages),),
    )


def stream_row(ctas_per_sm: int, stages: int, source: str) -> dict[str, object]:
    arch = load_arch("h200")
    stats = Engine(arch).run([stream_kernel(ctas_per_sm, stages, source, arch.sms)])
    cycles = stats.cycles - arch.kernel_launch_s * arch.clock_hz
    return {"stages": stages, "ctas_per_sm": ctas_per_sm, "source": source,
            "model_cycles_per_tile_per_sm": cycles / (STREAM_TILES * ctas_per_sm)}  # fmt: skip


def stream_rows(quick: bool, jobs: int) -> list[dict[str, object]]:
    with MEASURED_STREAM.open() as handle:
        measured_rows = [r for r in csv.DictReader(handle) if int(r["headdim"]) == 64]  # d = 128 streams the same
    keys = [(int(r["ctas_per_sm"]), int(r["stages"]), r["source"]) for r in measured_rows]
    if quick:
        keys = [k for k in keys if k[0] == 2]
    with ProcessPoolExecutor(max_workers=jobs) as pool:
        results = list(pool.map(stream_row, *zip(*keys, strict=True)))
    table = {(int(r["ctas_per_sm"]), int(r["stages"]), r["source"]): float(r["cycles_per_tile_per_sm"])
             for r in measured_rows}  # fmt: skip
    for key, row in zip(keys, results, strict=True):
        row["measured_cycles_per_tile_per_sm"] = table[key]
        row["rel_error"] = float(row["model_cycles_per_tile_per_sm"]) / table[key] - 1  # type: ignore[arg-type]
        print_row(row)
    return results


def measured() -> dict[tuple[int, int, int], float]:
    with MEASURED.open() as handle:
        return {
            (int(r["headdim"]), int(r["ablate"]), int(r["ctas_per_sm"])): float(r["cycles_per_tile_per_sm"])
            for r in csv.DictReader(handle)
        }


def rows(quick: bool, jobs: int) -> list[dict[str, object]]:
    table = measured()
    keys = sorted(table) if not quick else [k for k in sorted(table) if k[1] in (0, 14)]
    batch = 1 if quick else BATCH
    with ProcessPoolExecutor(max_workers=jobs) as pool:
        results = list(pool.map(model_row, *zip(*keys, strict=True), [batch] * len(keys)))
    return compare_per_tile(keys, results, table)


def plot(csv_path: Path, png_path: Path) -> None:
    series = [(f"{ctas} CTA/SM", marker, lambda r, ctas=ctas: int(r["ctas_per_sm"]) == ctas)
              for ctas, marker in ((2, "o"), (1, "s"))]  # fmt: skip
    plot_ablation(csv_path, png_path, series, "FA2_ABLATE", 4500)


def main(argv: list[str] | None = None) -> list[dict[str, object]]:
    args = parse_args(__doc__, "B=1, masks 0 and 14 only, the stream at 2 CTAs per SM", argv, jobs=True)
    write_csv(args.out / "v2_cp_async_stream.csv", stream_rows(args.quick, args.jobs))
    table = rows(args.quick, args.jobs)
    save(table, args.out, "v2_ablation", plot)
    return table


if __name__ == "__main__":
    main()
