"""The two memory-bound kernels around a FlashAttention backward (FA2 and FA3 launch the same pair).

  preprocess  Delta = rowsum(dO * O) in fp32, and the fp32 dQ accumulator zeroed;
  convert     the fp32 dQ accumulator to the input dtype once every key block has added its part.
Both walk the query rows in the backward's Q blocks (`block_m` rows), so their Delta and dQ tiles carry the same L2
names as the main kernel's. The real launches use 4-row CTAs; one simulated CTA of 4 warps stands for the CTAs
covering `ELEMENTWISE_ROWS` rows (same bytes and lane ops; 16 such CTAs fit on an SM), so the event count follows
the data, not the tiny CTAs.
"""

from __future__ import annotations

from collections.abc import Callable, Hashable, Sequence
from functools import cache

from algorithms._schedule.tiling import HEAD_AXES, MEMORY_AXES, ceil_div, rows_in_block
from simgpu.kernel import CtaResources, Kernel, Role, TileGrid
from simgpu.ops import Load, Op, Store, Vector
from simgpu.problem import Problem

ACC_BYTES = 4  # fp32 dQ accumulator and Delta
ELEMENTWISE_ROWS = 128


def _row_kernel(
    name: str, problem: Problem, block_m: int, block_ops: Callable[[int, int, int, int], list[Op]]
) -> Kernel:
    per_tile = max(1, ELEMENTWISE_ROWS // block_m)
    n_q_blocks = ceil_div(problem.seqlen_q, block_m)
    # A tile's ops, built once: fast mode reads a tile's program three times (its fold, its memory accesses counted,
    # the L2 replay's fold), for thousands of tiles at long sequences.
    built: dict[Hashable, tuple[Op, ...]] = {}

    def program(tile: Hashable) -> Sequence[Op]:
        ops = built.get(tile)
        if ops is None:
            b, h, t = tile  # type: ignore[misc]
            blocks = range(t * per_tile, min(n_q_blocks, (t + 1) * per_tile))
            ops = built[tile] = tuple(
                [op for i in blocks for op in block_ops(b, h, i, rows_in_block(problem.seqlen_q, block_m, i))]
            )
        return ops

    return Kernel(
        name=name,
        tiles=TileGrid((problem.batch, problem.heads, ceil_div(n_q_blocks, per_tile))),
        head_axes=HEAD_AXES,
        memory_axes=MEMORY_AXES,
        alike_but_edges=True,  # tiles differ in their keys but the last one (fewer or shorter Q blocks)
        cta=CtaResources(128, 32, 0),
        roles=(Role("warps", 4, program),),
    )


def preprocess_kernel(name: str, problem: Problem, block_m: int) -> Kernel:
    d, eb = problem.headdim, problem.element_bytes
    # The work of a Q block of `rows` rows: the same op for every block of that size (at most two sizes).
    work = cache(lambda rows: Vector(fma=rows * d, alu=rows * d + 5 * rows))  # dot product; unpack; shuffles

    def ops(b: int, h: int, i: int, rows: int) -> list[Op]:
        key = (b, h, i)
        # The copies' fields given in order (engine; Store: not atomic, no wait, barrier nor release): built for
        # every Q block of every folded tile.
        return [
            Load("O", key, rows * d * eb, "ldg"),
            Load("dO", key, rows * d * eb, "ldg"),
            work(rows),
            Store("Delta", key, rows * ACC_BYTES),
            Store("dQacc", key, rows * d * ACC_BYTES),  # zero the accumulator
        ]

    return _row_kernel(name, problem, block_m, ops)


def convert_kernel(name: str, problem: Problem, block_m: int) -> Kernel:
    d, eb = problem.headdim, problem.element_bytes
    work = cache(lambda rows: Vector(alu=rows * d / 2))  # pack pairs of fp32 into 16-bit pairs (as above)

    def ops(b: int, h: int, i: int, rows: int) -> list[Op]:
        key = (b, h, i)
        return [Load("dQacc", key, rows * d * ACC_BYTES, "ldg"), work(rows), Store("dQ", key, rows * d * eb)]

    return _row_kernel(name, problem, block_m, ops)
