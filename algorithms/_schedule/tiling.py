"""Tiling arithmetic of attention schedules: block counts, real rows of partial blocks, causal key ranges, and the
L2-sectioned tile order of FA3's and FA4's persistent schedulers.

Causal masking is aligned bottom-right (FA2 and later): query row i sees key j iff j <= i + (seqlen_k - seqlen_q).
Bytes follow real rows and columns of partial blocks; compute follows whole blocks (the MMA instructions run on
padded tiles).
"""

from __future__ import annotations

import bisect
from collections.abc import Callable, Hashable
from dataclasses import dataclass
from functools import cache
from typing import cast

from simgpu.problem import Problem

# Attention tiles are indexed (batch, head, ...): the kernels' `head_axes`; a varlen batch's (head, batch, ...).
HEAD_AXES = 2
VARLEN_HEAD_AXES = 1
# The entries that name the memory a tile shares with others, (batch, head) or (head, batch): `Kernel.memory_axes`.
MEMORY_AXES = 2


def ceil_div(a: int, b: int) -> int:
    return -(-a // b)


def rows_in_block(total: int, block: int, index: int) -> int:
    """Real rows of block `index` of `total` rows cut in blocks of `block`."""
    return min(block, total - index * block)


@dataclass(frozen=True)
class KeyRange:
    """Key blocks a query block visits: `visited` in all, of which the first `unmasked` need no mask."""

    visited: int
    unmasked: int


def key_blocks(problem: Problem, q_start: int, q_rows: int, block_n: int) -> KeyRange:
    """The key blocks that query rows [q_start, q_start + q_rows) must visit."""
    nk = problem.nk
    total = ceil_div(nk, block_n)
    if not problem.causal:
        return KeyRange(total, nk // block_n)
    offset = nk - problem.seqlen_q
    last_key = q_start + q_rows - 1 + offset  # the last key any row of the block sees
    visited = min(total, max(0, last_key // block_n + 1)) if last_key >= 0 else 0
    first_row_limit = q_start + offset  # keys <= this are seen by every row of the block
    unmasked = min(nk // block_n, max(0, (first_row_limit + 1) // block_n))
    return KeyRange(visited, min(unmasked, visited))


def first_query_block(problem: Problem, k_start: int, block_m: int) -> int:
    """The first query block that sees any key at or after `k_start` (earlier blocks are wholly masked)."""
    if not problem.causal:
        return 0
    offset = problem.nk - problem.seqlen_q
    n_blocks = ceil_div(problem.seqlen_q, block_m)

    def sees(i: int) -> bool:
        last_row = min(problem.seqlen_q, (i + 1) * block_m) - 1
        return last_row + offset >= k_start

    # A block's last row grows with its index: a binary search (schedules ask once per key block, and more).
    return bisect.bisect_left(range(n_blocks), True, key=sees)


def tile_needs_mask(problem: Problem, q_start: int, q_rows: int, k_start: int, k_cols: int) -> bool:
    """Whether some score of this tile is masked (diagonal crossing when causal)."""
    if not problem.causal:
        return False
    return q_start + (problem.nk - problem.seqlen_q) < k_start + k_cols - 1


def round_up(a: int, b: int) -> int:
    """`a` rounded up to a multiple of `b` (an MMA runs on whole instruction tiles)."""
    return ceil_div(a, b) * b


def sectioned_order(
    problem: Problem, head_bytes: int, section_bytes: int, blocks: int, reverse: bool
) -> list[tuple[int, int, int]]:
    """The L2-aware tile order of FA3's and FA4's tile schedulers (FA repo `tile_scheduler`): the (batch, head)
    pairs in sections of `swizzle` heads, the largest power of two whose `head_bytes` each fit `section_bytes` (the
    last section holds the rest); blocks outermost within a section, from the last one down when `reverse` (LPT:
    causal blocks with more keys first)."""
    swizzle = 1 << ((section_bytes // head_bytes).bit_length() - 1) if head_bytes <= section_bytes else 1
    pairs = [(b, h) for b in range(problem.batch) for h in range(problem.heads)]
    order = range(blocks - 1, -1, -1) if reverse else range(blocks)
    return [(*pair, j) for s in range(0, len(pairs), swizzle) for j in order for pair in pairs[s : s + swizzle]]


def sequence(problem: Problem, b: int) -> Problem:
    """Sequence `b` of a varlen batch as a problem of its own (one sequence, every head); `problem` itself when the
    batch is not varlen (every sequence alike)."""
    return problem if problem.seqlens is None else _one_sequence(problem, problem.seqlens[b])


@cache
def _one_sequence(problem: Problem, length: int) -> Problem:
    return Problem(1, problem.heads, length, problem.headdim, None, problem.causal, problem.dtype, problem.pass_)


def tile_axes(problem: Problem) -> int:
    """The kernels' `head_axes`. Tiles and memory keys of a varlen batch begin (head, batch): sequences differ in
    length, so only the head selects memory alone (`tile_key`)."""
    return HEAD_AXES if problem.seqlens is None else VARLEN_HEAD_AXES


def tile_key(problem: Problem, b: int, h: int, *rest: int) -> tuple[int, ...]:
    """A tile index or memory key of batch `b`, head `h`: (b, h, ...), or (h, b, ...) for a varlen batch."""
    return (b, h, *rest) if problem.seqlens is None else (h, b, *rest)


def split_tile(problem: Problem, tile: Hashable) -> tuple[int, int, int]:
    """(batch, head, last index) of a tile index (batch, head, index) made by `tile_key`."""
    first, second, index = cast(tuple[int, int, int], tile)
    return (first, second, index) if problem.seqlens is None else (second, first, index)


def sequence_order(
    problem: Problem,
    blocks: Callable[[Problem], int],
    head_bytes: Callable[[Problem], int] | None,
    section_bytes: int,
    reverse: bool,
) -> list[tuple[int, ...]]:
    """A kernel's tiles in launch order, indexed (batch, head, block) by `tile_key`: per sequence, `blocks(seq)`
    blocks per head, in the L2-sectioned order of `sectioned_order` (`head_bytes(seq)` per head, sections of
    `section_bytes`), or without sections (`head_bytes` None: block fastest, then head, then batch). A varlen batch
    runs its sequences in turn, each in the order its own length gives (FA-repo `SingleTileVarlenScheduler`:
    sections within a sequence)."""
    tiles: list[tuple[int, ...]] = []
    for b in range(problem.batch) if problem.seqlens is not None else (None,):
        seq = problem if b is None else sequence(problem, b)
        n = blocks(seq)
        if head_bytes is not None:
            order = sectioned_order(seq, head_bytes(seq), section_bytes, n, reverse=reverse)
        else:
            order = [(i, h, j) for i in range(seq.batch) for h in range(seq.heads) for j in range(n)]
        tiles += order if b is None else [tile_key(problem, b, h, j) for _, h, j in order]
    return tiles
