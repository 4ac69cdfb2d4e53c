"""Tiled GEMM C = A @ B, scheduled as the usual kernel of each tensor-core generation.

- mma.sync (A100): one CTA per C tile, 8 warps in a 2 x 4 grid, a `stages`-deep cp.async ring in smem; each k-step
  waits for its stage, starts the copy `stages - 1` steps ahead and issues the MMAs, whose warp tiles come from smem
  by ldmatrix beside them (`Mma.operand_smem_bytes`, as in v2's schedule): CUTLASS's multistage mainloop loads the
  next k-group's fragments into a second register buffer while the current one's MMAs run. The same warps load and
  compute. (Until the sixty-fifth session the ldmatrix was an op before the MMAs, so the two never overlapped: the
  A100's 8192^3 GEMM came out at 66% of peak, where cuBLAS and CUTLASS reach 95%; `archs/a100.yaml`.)
- wgmma (Hopper): persistent CTAs, 1 producer warpgroup issuing TMA loads into a `stages`-deep ring with full/empty
  barriers, 2 consumer warpgroups each computing half of the rows with wgmma reading A and B from smem. CTAs pair
  up in clusters of `cluster` along M that share each B tile: each fetches 1/cluster of it from L2 and multicasts
  it to the others (TMA multicast), so L2 serves B once per cluster.
- tcgen05 (Blackwell): persistent CTAs, 1 TMA warp, 1 MMA warp issuing tcgen05 MMAs into a double-buffered TMEM
  accumulator, 1 epilogue warpgroup draining TMEM to HBM while the next tile's MMAs run.

HBM/L2 traffic per C tile: A (block_m x K) and B (K x block_n) in `block_k` slices (B divided among the CTAs of a
cluster), C written once. Tiles are launched with the M index of a cluster's CTAs varying fastest, then row-major
over (m, n), so that a wave of CTAs shares A rows and B columns in L2.
Ignored: the rasterization swizzle of CUTLASS; the smem write bytes of multicast slices count once, at the CTA
that fetched them.
"""

from __future__ import annotations

from collections.abc import Hashable, Sequence
from typing import Any

from simgpu.arch import DTYPE_BYTES, Arch
from simgpu.errors import OptionError
from simgpu.kernel import BarrierSpec, CtaResources, Kernel, Role
from simgpu.ops import Advance, Arrive, Load, Mma, Op, Repeat, Smem, Store, Tmem, Wait
from simgpu.problem import GemmProblem

PROBLEM = "gemm"
OPTIONS: dict[str, Any] = {"block_m": None, "block_n": None, "block_k": None, "stages": None, "cluster": None}

# Defaults per instruction kind: (block_m, block_n, block_k, stages, cluster). CUTLASS's default bf16 tiles and
# cluster shapes of each generation (no clusters before Hopper).
_DEFAULTS = {
    "mma_sync": (128, 256, 32, 3, 1),
    "wgmma": (128, 256, 64, 4, 2),
    "tcgen05": (128, 256, 64, 4, 2),
}
MMA_SYNC_WARP_GRID = (2, 4)  # warps along M and N in the mma.sync kernel
MMA_SYNC_REGISTERS = 232  # per thread: a 64 x 64 fp32 warp tile is 128 accumulator registers per thread, plus operands
HOPPER_LAUNCH_REGISTERS = 168  # 384 threads x 168 <= 64K; setmaxnreg then moves registers to the consumers
BLACKWELL_REGISTERS = 128


def _ceil_div(a: int, b: int) -> int:
    return -(-a // b)


def _config(arch: Arch, options: dict[str, Any]) -> tuple[int, int, int, int, int]:
    default = _DEFAULTS[arch.tensor_core.instruction]
    names = ("block_m", "block_n", "block_k", "stages", "cluster")
    values = tuple(
        options.get(name) if options.get(name) is not None else d for name, d in zip(names, default, strict=True)
    )
    for name, value in zip(names, values, strict=True):
        if isinstance(value, bool) or not isinstance(value, int) or value <= 0:
            raise OptionError(f"gemm option {name} must be a positive integer, got {value!r}")
    if values[4] > 1 and not arch.features.clusters:
        raise OptionError(f"gemm: cluster={values[4]} needs thread-block clusters, which {arch.name} lacks")
    return values  # type: ignore[return-value]


def schedule(arch: Arch, problem: GemmProblem, **options: Any) -> tuple[Kernel, ...]:
    block_m, block_n, block_k, stages, cluster = _config(arch, options)
    instruction = arch.tensor_core.instruction
    builder = {"mma_sync": _mma_sync_kernel, "wgmma": _wgmma_kernel, "tcgen05": _tcgen05_kernel}[instruction]
    return (builder(arch, problem, block_m, block_n, block_k, stages, cluster),)


def _tiles(problem: GemmProblem, block_m: int, block_n: int, cluster: int) -> tuple[Hashable, ...]:
    """C tiles in launch order: the `cluster` M tiles sharing a B tile are adjacent."""
    m_tiles, n_tiles = _ceil_div(problem.m, block_m), _ceil_div(problem.n, block_n)
    return tuple(
        (mc * cluster + c, ni)
        for mc in range(_ceil_div(m_tiles, cluster))
        for ni in range(n_tiles)
        for c in range(cluster)
        if mc * cluster + c < m_tiles
    )


def _stage_loads(
    problem: GemmProblem, tile: Any, kt: int, bm: int, bn: int, bk: int, engine: str, arrive: Any, cluster: int = 1
) -> tuple[Load, Load]:
    """The A slice and this CTA's share of the B slice of k-step `kt` for C tile `tile`, arriving on `arrive`.

    The last cluster along M may be partial (M tiles not a multiple of `cluster`): its CTAs split B among
    themselves only."""
    mi, ni = tile
    eb = DTYPE_BYTES[problem.dtype]
    first = mi - mi % cluster
    members = min(cluster, _ceil_div(problem.m, bm) - first)  # CTAs of this cluster that exist
    share = mi - first  # which part of the multicast B tile this CTA fetches
    return (
        Load("A", (mi, kt), bm * bk * eb, engine=engine, arrive=arrive),  # type: ignore[arg-type]
        Load("B", (ni, kt, share, members), bn * bk * eb / members, engine=engine, arrive=arrive),  # type: ignore[arg-type]
    )


def _mma_sync_kernel(arch: Arch, p: GemmProblem, bm: int, bn: int, bk: int, stages: int, cluster: int) -> Kernel:
    eb = DTYPE_BYTES[p.dtype]
    n_k = _ceil_div(p.k, bk)
    warps_m, warps_n = MMA_SYNC_WARP_GRID
    warps = warps_m * warps_n
    # ldmatrix traffic per k-step: every warp reads its (bm/warps_m) rows of A and (bn/warps_n) columns of B.
    operand_bytes = warps * (bm // warps_m + bn // warps_n) * bk * eb

    def program(tile: Hashable) -> Sequence[Op]:
        prologue = [
            op
            for kt in range(min(stages - 1, n_k))
            for op in _stage_loads(p, tile, kt, bm, bn, bk, "cp_async", ("full", kt % stages))
        ]

        def step(kt: int) -> Sequence[Op]:
            ahead = kt + stages - 1
            refill = _stage_loads(p, tile, ahead, bm, bn, bk, "cp_async", ("full", ahead % stages))
            return (
                Wait(("full", kt % stages)),
                *(refill if ahead < n_k else ()),
                Mma(bm, bn, bk, p.dtype, a="reg", b="reg", acc="reg", operand_smem_bytes=operand_bytes),
            )

        return (*prologue, Repeat(n_k, step), Store("C", tile, bm * bn * eb, wait=True))

    return Kernel(
        name="gemm_mma_sync",
        tiles=_tiles(p, bm, bn, cluster),
        cta=CtaResources(warps * 32, MMA_SYNC_REGISTERS, stages * (bm + bn) * bk * eb),
        roles=(Role("mainloop", warps, program),),
        barriers=(BarrierSpec("full", arrivals=2, slots=stages),),
    )


def _producer(p: GemmProblem, n_k: int, bm: int, bn: int, bk: int, warps: int, cluster: int) -> Role:
    """The TMA role shared by the Hopper and Blackwell kernels: fill the ring, one stage per k-step."""

    def program(tile: Hashable) -> Sequence[Op]:
        def step(kt: int) -> Sequence[Op]:
            return (
                Wait("empty"),
                *_stage_loads(p, tile, kt, bm, bn, bk, "tma", "full", cluster),
                Advance(("empty", "full")),
            )

        return (Repeat(n_k, step),)

    return Role("producer", warps, program)


def _ring(stages: int, consumers: int) -> tuple[BarrierSpec, BarrierSpec]:
    return (
        BarrierSpec("full", arrivals=2, slots=stages),
        BarrierSpec("empty", arrivals=consumers, initial_phases=1, slots=stages),
    )


def _wgmma_kernel(arch: Arch, p: GemmProblem, bm: int, bn: int, bk: int, stages: int, cluster: int) -> Kernel:
    eb = DTYPE_BYTES[p.dtype]
    n_k = _ceil_div(p.k, bk)
    consumers = 2
    rows = bm // consumers

    def step(kt: int) -> Sequence[Op]:
        return (
            Wait("full"),
            Mma(rows, bn, bk, p.dtype, a="smem", b="smem", acc="reg"),
            Arrive("empty"),
            Advance(("full", "empty")),
        )

    def consumer(half: int) -> Role:
        def program(tile: Hashable) -> Sequence[Op]:
            # Epilogue: registers -> smem -> TMA store of this warpgroup's rows of C.
            c_bytes = rows * bn * eb
            return (
                Repeat(n_k, step),
                Smem(write_bytes=c_bytes),
                Store("C", (tile, half), c_bytes, engine="tma"),
            )

        return Role(f"consumer{half}", 4, program)

    # The producer is a whole warpgroup (one thread issues the copies; setmaxnreg gives its registers away).
    roles = (_producer(p, n_k, bm, bn, bk, warps=4, cluster=cluster), *(consumer(c) for c in range(consumers)))
    return Kernel(
        name="gemm_wgmma",
        tiles=_tiles(p, bm, bn, cluster),
        cta=CtaResources(32 * 4 * (1 + consumers), HOPPER_LAUNCH_REGISTERS, stages * (bm + bn) * bk * eb),
        roles=roles,
        barriers=_ring(stages, consumers),
        persistent=True,
    )


def _tcgen05_kernel(arch: Arch, p: GemmProblem, bm: int, bn: int, bk: int, stages: int, cluster: int) -> Kernel:
    eb = DTYPE_BYTES[p.dtype]
    n_k = _ceil_div(p.k, bk)
    accumulators = 2  # double-buffered in TMEM so the epilogue of one tile overlaps the MMAs of the next
    acc_columns = bn  # a 128 x N fp32 accumulator takes N columns of the 128 lanes

    def mma(tile: Hashable) -> Sequence[Op]:
        def step(kt: int) -> Sequence[Op]:
            last = kt == n_k - 1
            return (
                Wait("full"),
                # tcgen05.commit arrives on the stage's empty barrier when the MMA has read it; the last one is
                # waited for so that the accumulator can be handed to the epilogue.
                Mma(bm, bn, bk, p.dtype, a="smem", b="smem", acc="tmem", arrive=None if last else "empty"),
                *((Arrive("empty"),) if last else ()),
                Advance(("full", "empty")),
            )

        return (Wait("acc_empty"), Repeat(n_k, step), Arrive("acc_full"), Advance(("acc_empty", "acc_full")))

    def epilogue(tile: Hashable) -> Sequence[Op]:
        c_bytes = bm * bn * eb
        return (
            Wait("acc_full"),
            Tmem(read_bytes=bm * bn * 4),
            Arrive("acc_empty"),
            Advance(("acc_full", "acc_empty")),
            Smem(write_bytes=c_bytes),
            Store("C", tile, c_bytes, engine="tma"),
        )

    return Kernel(
        name="gemm_tcgen05",
        tiles=_tiles(p, bm, bn, cluster),
        cta=CtaResources(32 * 6, BLACKWELL_REGISTERS, stages * (bm + bn) * bk * eb, accumulators * acc_columns),
        roles=(
            _producer(p, n_k, bm, bn, bk, warps=1, cluster=cluster),
            Role("mma", 1, mma),
            Role("epilogue", 4, epilogue),
        ),
        barriers=(
            *_ring(stages, 1),
            BarrierSpec("acc_full", arrivals=1, slots=accumulators),
            BarrierSpec("acc_empty", arrivals=1, initial_phases=1, slots=accumulators),
        ),
        persistent=True,
    )
