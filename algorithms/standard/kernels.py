"""Standard attention's kernels: separate kernels, with S and P (and dP, dS) materialized in HBM; the builders that
`algorithms.standard.schedule` launches for our CUDA kernels and `algorithms.standard.pytorch` for PyTorch's.

Forward, the three kernels of `cupy_kernels/standard/attention.cu`:
  std_qk       S = scale * Q K^T. One CTA per block_m x block_n tile of S (tiles ordered (batch, head, i, j), j
               fastest, as the kernel's grid); Q_i and K_j are copied to smem whole (d is the whole contraction,
               no k loop); the S tile is stored in the storage dtype.
  std_softmax  P = softmax(S) and LSE, one warp per row, `softmax_warps` rows per CTA at a time (see
               `rowwise_kernel`): a row is loaded whole (twice with `softmax_passes=2`, as the CUDA kernel does),
               its statistics and P computed on chip, its P row and LSE stored.
  std_pv       O = P V. One CTA per block_m rows of O; a k loop over block_n keys with a `stages`-deep cp.async
               ring of P and V tiles.
Backward, the five kernels the numerics count (`algorithms/standard/numerics.py`): dV = P^T dO, dP = dO V^T,
dS = P * (dP - rowsum(P * dP)) (elementwise, rows as in the softmax), dQ = scale * dS K, dK = scale * dS^T Q.
The GEMMs write S and dP as tiles named (tensor, (batch, head, i, j)), i the block_m query block and j the block_n
key block; the row-wise kernels write P and dS as row groups (tensor, (batch, head, g)). A kernel that reads with
the other grid names what it reads a `Piece` of what was written, so that bytes still in L2 when the next kernel
reads them hit.
Causal: nothing is skipped (as cuBLAS-based attention): the full S is computed, and the S = QK^T kernel's epilogue
masks it (a compare and a select per element, every tile, as our `std_qk` does: measured 10-21% slower causal on
the H200, the softmax and P V not slower, `validation/h200/kernels_h200.csv`).

Instruction: mma.sync m16n8k16 on every arch (Hopper and Blackwell take their legacy mma.sync path), as the CUDA
kernels we measure do. cuBLAS would use wgmma/tcgen05 on those chips; it matters little here because every GEMM of
standard attention moves an N x N matrix of 2-byte elements for 2 N^2 d FLOPs (at most ~d FLOP per HBM byte,
below the ridge point of A100 and H100), so HBM bounds them. At d = 128 on B200 the legacy rate may bind instead.

HBM bytes by the loop structure, per (batch, head) with L2 off: each N x N tensor is written once and read once by
each kernel that consumes it; an N x d operand is read once per CTA that needs it (Q and dO once per key block,
K and V once per query block in the tiled GEMMs), each output once. The numerics count ideal GEMM reuse (every
operand once per kernel); the difference is exactly those N x d re-reads, which L2 absorbs when it is on.
The CUDA softmax's second pass over a row hits while what enters L2 between the row's two reads fits (H200 with
ncu, 16k tokens x 32 heads: S read from HBM 1.05 times at N = 1k, 1.49 at 2k, twice from 3k; the model 1.00, 1.55,
2.00: `experiments.softmax_reuse`); ncu's L2 traffic says those re-reads are L2's, not L1's.
Ignored: the __syncthreads of the GEMMs (warps modelled in lockstep), register-dependency latency, the 16-byte row
padding of S and P in the CUDA kernels.
"""

from __future__ import annotations

from collections.abc import Callable, Hashable, Sequence
from dataclasses import dataclass
from itertools import product
from typing import Generic, TypeVar

from algorithms._schedule.copies import tile_copy
from algorithms._schedule.tiling import HEAD_AXES, MEMORY_AXES, ceil_div, rows_in_block
from simgpu.errors import ScheduleError
from simgpu.kernel import BarrierSpec, CtaResources, Kernel, Role, TileGrid
from simgpu.ops import HashedKeys, Load, Mma, Op, Piece, Repeat, Smem, Store, Vector, Wait
from simgpu.problem import LSE_BYTES, Problem
from simgpu.sm import WARP_LANES

SMEM_PAD_ELEMENTS = 8  # 16 bytes added to every smem row against bank conflicts (as in the CUDA kernels)
GEMM_REGISTERS = 255  # __launch_bounds__(WARPS * 32) lets ptxas use up to 255; no ptxas report recorded
ROWWISE_REGISTERS = 32  # ptxas -v of std_softmax<4, bf16> (sm_90a): the row streams through, 8 elements a lane
STORAGE_BYTES = 2  # S, P, dP, dS, O and the gradients are stored in 16 bits (bf16/fp16)
MMA_ROWS = 16  # rows of one mma.sync m16 group
# Written by the GEMMs (N x N in block_m x block_n tiles; dQ and dK unscaled, PyTorch's, in blocks of rows): a row-wise
# kernel reads a row group of them as a `Piece`.
GEMM_OUTPUTS = frozenset({"S", "dP", "dPd", "dQs", "dKs"})


@dataclass(frozen=True)
class Config:
    block_m: int
    block_n: int
    warps: int
    stages: int
    softmax_passes: int
    softmax_warps: int  # warps (one a row) of a CTA of the row-wise kernels
    framework: str  # whose kernels: "cuda" (ours, `cupy_kernels/standard`) or "pytorch" (`algorithms.standard.pytorch`)
    dropout: float  # attention dropout probability (PyTorch's kernels only)


@dataclass(frozen=True)
class Operand:
    """An N x cols tensor that a row-wise kernel reads or writes, a row group at a time: its name, bytes per element
    (PyTorch's dropout keeps a 1-byte mask), and whether one copy serves every head (PyTorch's causal mask,
    broadcast over batch and heads)."""

    tensor: str
    element_bytes: int = STORAGE_BYTES
    shared: bool = False


def c_staging(cfg: Config, nbytes: int) -> tuple[Op, ...]:
    """What a GEMM does with its output tile before it stores it: our kernels store straight from the accumulator
    fragments (nothing); cuBLAS, which PyTorch's GEMMs run, stages it through shared memory (stmatrix) first."""
    return (Smem(write_bytes=nbytes, read_bytes=nbytes),) if cfg.framework == "pytorch" else ()


def c_lane_bytes(cfg: Config) -> int:
    """`Store.fragment_lane_bytes` of a GEMM's output store. Our kernels store in 4-byte stores from the accumulator
    fragments (8 rows of 16 bytes a warp instruction: parts of sectors). cuBLAS stores whole lines from shared memory
    (TMA stores on the H200: validation/h200/torch_gemm_sass/); modelled as 16-byte stores from the threads (0: the
    copy engine's granularity; a TMA store's single issue aside)."""
    return 0 if cfg.framework == "pytorch" else 4


def c_store(cfg: Config, out: str, key: Hashable, nbytes: int) -> tuple[Op, ...]:
    """A GEMM's output tile: its staging (`c_staging`) and its store (`c_lane_bytes`)."""
    return (*c_staging(cfg, nbytes), Store(out, key, nbytes, engine="ldg", fragment_lane_bytes=c_lane_bytes(cfg)))


_T = TypeVar("_T")


def edge_table(rows_of: Sequence[int], cols_of: Sequence[int], make: Callable[[int, int], _T]) -> list[list[_T]]:
    """`make(rows, cols)` of every tile of a grid whose query block i has `rows_of[i]` rows and key block j
    `cols_of[j]` columns, indexed [i][j]: made once per size (at most four: interior, short in the last query block,
    in the last key block, in both), and the rows of one height share one list, so that a tile finds what its size
    shares with others by two list indexings (standard attention's 16,384 score tiles of a head at 16k tokens)."""
    made = {(rows, cols): make(rows, cols) for rows in set(rows_of) for cols in set(cols_of)}
    lines = {rows: [made[rows, cols] for cols in cols_of] for rows in set(rows_of)}
    return [lines[rows] for rows in rows_of]


class PerHead(Generic[_T]):
    """What a kernel builds once per head (batch, head), when a tile of that head first asks: the copies of an
    operand's blocks, one op for every tile that reads a block, found by list indexing rather than by hashing a key
    per tile (a head's 16,384 score tiles at 16k tokens ask)."""

    __slots__ = ("_heads", "_make")

    def __init__(self, p: Problem, make: Callable[[int, int], _T]) -> None:
        self._heads: list[list[_T | None]] = [[None] * p.heads for _ in range(p.batch)]
        self._make = make

    def of(self, bi: int, hi: int) -> _T:
        """What the kernel built for head (bi, hi); built now where no tile of the head asked before."""
        made = self._heads[bi][hi]
        if made is None:
            made = self._heads[bi][hi] = self._make(bi, hi)
        return made


def nt_gemm_kernel(
    name: str, p: Problem, cfg: Config, a: str, b: str, out: str, scaled: bool, masked: bool = False
) -> Kernel:
    """out[i, j] = A_i B_j^T over the head dimension (S = Q K^T, dP = dO V^T): one CTA per block_m x block_n tile;
    `masked`: the epilogue applies the causal mask (S of a causal problem)."""
    d, eb = p.headdim, p.element_bytes
    r, c = cfg.block_m, cfg.block_n
    # ldmatrix per tile: each warp reads its r / warps rows of A_i and all c rows of B_j.
    operand_bytes = r * d * eb + cfg.warps * c * d * eb
    wait = Wait("ab")
    mma = Mma(r, c, d, p.dtype, a="reg", b="reg", instruction="mma_sync", operand_smem_bytes=operand_bytes)
    n_i, n_j = ceil_div(p.seqlen_q, r), ceil_div(p.nk, c)
    rows_of = [rows_in_block(p.seqlen_q, r, i) for i in range(n_i)]
    cols_of = [rows_in_block(p.nk, c, j) for j in range(n_j)]

    def size(rows: int, cols: int) -> tuple[tuple[Op, ...], int]:
        """The ops of a rows x cols tile from its wait to its output's staging, and its output's bytes. Epilogue per
        element: FMUL by the softmax scale (S only), half an F2FP (two elements per pack), and for causal S the mask
        (compare the column with the row, select -inf)."""
        nbytes = rows * cols * STORAGE_BYTES
        epilogue = Vector(
            fma=rows * cols if scaled else 0.0, alu=0.5 * rows * cols + (2 * rows * cols if masked else 0)
        )
        return (wait, mma, epilogue, *c_staging(cfg, nbytes)), nbytes

    # What a tile's size decides, made once per size (interior, or short in the last query or key block) and shared
    # by the tiles of that size: long sequences build a program for each of thousands of tiles (`edge_table`).
    sizes = edge_table(rows_of, cols_of, size)
    lane_bytes = c_lane_bytes(cfg)

    def head_copies(bi: int, hi: int) -> tuple[list[Load], list[Load]]:
        """The copies of a head's A_i and B_j: one op each for the n_j tiles of a row and the n_i of a column."""
        return (
            [tile_copy(a, (bi, hi, i), rows * d * eb, "ab") for i, rows in enumerate(rows_of)],
            [tile_copy(b, (bi, hi, j), cols * d * eb, "ab") for j, cols in enumerate(cols_of)],
        )

    copies = PerHead(p, head_copies)

    def program(tile: Hashable) -> Sequence[Op]:
        bi, hi, i, j = tile  # type: ignore[misc]
        a_copies, b_copies = copies.of(bi, hi)
        middle, nbytes = sizes[i][j]
        # HBM: A_i (rows x d) per key block, B_j (cols x d) per query block, the N x N tile once (`c_store`'s
        # store, its fields in order: the tile as its key, engine, not atomic, no wait, no barrier, no release).
        return (
            a_copies[i],
            b_copies[j],
            *middle,
            Store(out, tile, nbytes, "ldg", False, False, None, False, lane_bytes),
        )

    return Kernel(
        name=name,
        tiles=TileGrid((p.batch, p.heads, n_i, n_j)),
        head_axes=HEAD_AXES,
        memory_axes=MEMORY_AXES,
        # Tiles differ in their keys but in the last query or key block (a short one). A tile reads A_i and B_j once
        # each: the same key twice, and then on the diagonal only, where A is B.
        alike_but_edges=a != b,
        cta=CtaResources(cfg.warps * 32, GEMM_REGISTERS, (r + c) * (d + SMEM_PAD_ELEMENTS) * eb),
        roles=(Role("warps", cfg.warps, program),),
        barriers=(BarrierSpec("ab", arrivals=2),),
    )


def long_k_kernel(
    name: str, p: Problem, cfg: Config, square: str, operand: str, out: str, by_keys: bool, scaled: bool
) -> Kernel:
    """out = X @ operand with X an N x N tensor (O = P V, dQ = dS K), or X^T @ operand when `by_keys` (dV = P^T dO,
    dK = dS^T Q): one CTA per block of output rows, a k loop over the other sequence through a cp.async ring."""
    d, eb, stages = p.headdim, p.element_bytes, cfg.stages
    if by_keys:  # output rows are keys (block_n), the k loop runs over query blocks (block_m)
        rows_total, rows_block, k_total, k_block = p.nk, cfg.block_n, p.seqlen_q, cfg.block_m
    else:
        rows_total, rows_block, k_total, k_block = p.seqlen_q, cfg.block_m, p.nk, cfg.block_n
    n_k = ceil_div(k_total, k_block)
    # ldmatrix per k step: each warp reads its rows of the X tile and the whole operand chunk.
    operand_bytes = rows_block * k_block * STORAGE_BYTES + cfg.warps * k_block * d * eb
    # The ops that every step of every block shares, built once (the L2 replay builds some steps of each block of a
    # head, exact mode every step of every block).
    mma = Mma(
        rows_block, d, k_block, p.dtype, a="reg", b="reg", instruction="mma_sync", operand_smem_bytes=operand_bytes
    )
    slots = [("stage", slot) for slot in range(stages)]
    waits = tuple(Wait(slot) for slot in slots)
    steps_of = [rows_in_block(k_total, k_block, t) for t in range(n_k)]
    # Per head, the copies of the operand's k steps (built as the steps ask), alike in every block.
    operand_copies: PerHead[list[Load | None]] = PerHead(p, lambda bi, hi: [None] * n_k)
    groups = query_block_groups(p, cfg)

    def program(tile: Hashable) -> Sequence[Op]:
        bi, hi, i = tile  # type: ignore[misc]
        rows = rows_in_block(rows_total, rows_block, i)
        # Where the output rows are queries, every step's X tile is a piece of the same row groups.
        own: tuple[Hashable, ...] = () if by_keys else groups(bi, hi, i)
        copies = operand_copies.of(bi, hi)

        def loads(t: int) -> tuple[Load, Load]:
            slot = slots[t % stages]
            operand_copy = copies[t]
            if operand_copy is None:
                operand_copy = copies[t] = tile_copy(operand, (bi, hi, t), steps_of[t] * d * eb, slot)
            # The (query block, key block) tile of X, which a row-wise kernel wrote: a piece of its row groups.
            key = Piece((bi, hi, t, i), groups(bi, hi, t)) if by_keys else Piece((bi, hi, i, t), own)
            return (
                tile_copy(square, key, rows * steps_of[t] * STORAGE_BYTES, slot),  # HBM: X once
                operand_copy,  # HBM: per output block
            )

        def step(t: int) -> Sequence[Op]:
            ahead = t + stages - 1
            return (waits[t % stages], *loads(ahead), mma) if ahead < n_k else (waits[t % stages], mma)

        return (
            *(op for t in range(min(stages - 1, n_k)) for op in loads(t)),
            Repeat(n_k, step),
            # Epilogue per element: FMUL by the scale (dQ, dK), half an F2FP.
            Vector(fma=rows * d if scaled else 0.0, alu=0.5 * rows * d),
            # HBM: rows x d, once.
            *c_store(cfg, out, (bi, hi, i), rows * d * STORAGE_BYTES),
        )

    smem = stages * (
        rows_block * (k_block + SMEM_PAD_ELEMENTS) * STORAGE_BYTES + k_block * (d + SMEM_PAD_ELEMENTS) * eb
    )
    return Kernel(
        name=name,
        tiles=TileGrid((p.batch, p.heads, ceil_div(rows_total, rows_block))),
        head_axes=HEAD_AXES,
        memory_axes=MEMORY_AXES,
        alike_but_edges=True,  # blocks differ in their keys (each step's its own) but the last one (short)
        cta=CtaResources(cfg.warps * 32, GEMM_REGISTERS, smem),
        roles=(Role("warps", cfg.warps, program),),
        barriers=(BarrierSpec("stage", arrivals=2, slots=stages),),
    )


def softmax_ops(rows: int, cols: int) -> Vector:
    """Row softmax of a rows x cols block of S, the row on chip: max pass, exp-and-sum pass, normalize pass. A causal
    S comes masked (-inf) from its kernel's epilogue: the mask costs nothing here."""
    scores = rows * cols
    fma = 3 * scores  # FFMA scale-subtract of the max (log2 units), FADD row sum, FMUL by 1/sum
    alu = 2.5 * scores  # 16-bit -> fp32 conversion, FMNMX row max, half an F2FP pack of P
    # Per row: two 5-step butterfly reductions over the warp (SHFL + FMNMX, SHFL + FADD), LSE = max + lg2(sum).
    fma += 5 * rows + rows
    alu += 15 * rows
    return Vector(fma=fma, alu=alu, ex2=scores + 2 * rows)  # one ex2 per score; MUFU.RCP and MUFU.LG2 per row


def softmax_bwd_ops(rows: int, cols: int) -> Vector:
    """dS = P * (dP - rowsum(P * dP)) over a rows x cols block, the rows on chip."""
    scores = rows * cols
    fma = 3 * scores  # FFMA of the row dot product, FADD (dP - D), FMUL by P
    alu = 2.5 * scores  # two 16-bit -> fp32 conversions (P, dP), half an F2FP pack of dS
    return Vector(fma=fma + 5 * rows, alu=alu + 5 * rows)  # per row: butterfly sum (SHFL + FADD) x 5


# The wholes of a kernel's pieces built so far, by head and the range of blocks or row groups they cover: the pieces
# of one row block share one tuple (up to hundreds of keys), built once per kernel and hashed once (each piece hashes
# it when made), which the L2 replay also cuts once (`simgpu.replay.head_template` finds it by identity).
Wholes = dict[tuple[int, ...], HashedKeys]


def row_group_pieces(p: Problem, cfg: Config) -> Callable[[Hashable], Piece]:
    """The pieces of a kernel's row groups (tiles (batch, head, g) of `softmax_warps` query rows each) of an N x N
    tensor written as block_m x block_n tiles; the wholes of a row block built once (`Wholes`)."""
    w, block, rows, n_j = cfg.softmax_warps, cfg.block_m, p.seqlen_q, ceil_div(p.nk, cfg.block_n)
    wholes: Wholes = {}

    def piece(tile: Hashable) -> Piece:
        bi, hi, g = tile  # type: ignore[misc]
        first = g * w
        blocks = (bi, hi, first // block, (min(first + w, rows) - 1) // block + 1)
        tiles = wholes.get(blocks)
        if tiles is None:
            tiles = wholes[blocks] = HashedKeys(product((bi,), (hi,), range(blocks[2], blocks[3]), range(n_j)))
        return Piece(tile, tiles)

    return piece


def query_block_groups(p: Problem, cfg: Config) -> Callable[[int, int, int], HashedKeys]:
    """`groups(batch, head, i)`: the row groups (tiles (batch, head, g) of a row-wise kernel) that hold query block i
    of an N x N tensor, the wholes of the pieces that a GEMM reads of it in tiles (query block i, key block j); built
    once per block (`Wholes`)."""
    w, block, rows = cfg.softmax_warps, cfg.block_m, p.seqlen_q
    wholes: Wholes = {}

    def groups(bi: int, hi: int, i: int) -> HashedKeys:
        span = (bi, hi, i * block // w, (min((i + 1) * block, rows) - 1) // w + 1)
        tiles = wholes.get(span)
        if tiles is None:
            tiles = wholes[span] = HashedKeys(product((bi,), (hi,), range(span[2], span[3])))
        return tiles

    return groups


def block_piece(p: Problem, cfg: Config, head: tuple[int, int], g: int, by_keys: bool, group: int) -> Piece:
    """Row group `g` (`group` rows) of an N x d tensor that a GEMM wrote in blocks of rows (`long_k_kernel`: dQ in
    block_m query rows, dK with `by_keys` in block_n key rows)."""
    total, block = (p.nk, cfg.block_n) if by_keys else (p.seqlen_q, cfg.block_m)
    first, last = g * group, min((g + 1) * group, total) - 1
    return Piece((*head, g), tuple((*head, i) for i in range(first // block, last // block + 1)))


def rowwise_kernel(
    name: str,
    p: Problem,
    cfg: Config,
    reads: Sequence[Operand],
    outs: Sequence[Operand],
    ops: Callable[[int, int], Vector],
    passes: int = 1,
    lse: bool = False,
    cols: int | None = None,
    by_keys: bool = False,
    registers: int = ROWWISE_REGISTERS,
    lane_elements: int | None = None,
    group_rows: int | None = None,
) -> Kernel:
    """An elementwise kernel over the rows of N x `cols` tensors (N x N by default) as the CUDA softmax launches it:
    one warp per row, a CTA per `softmax_warps` rows (in order, so the rows in flight are a window that sweeps the
    tensor). The rows are loaded whole (`passes` times: the CUDA softmax reads a row once for the max and sum, once
    more to write P; the second read hits while what enters L2 in between fits), `ops` run on them, the rows (and
    LSE) are stored. Rows of a tensor a GEMM wrote are a `Piece` of its tiles (`GEMM_OUTPUTS`; with `cols` set, of
    its blocks of rows), so that they hit while those are in L2; a shared operand's rows are one per row group for
    every head. `by_keys`: the rows are the N_k keys (PyTorch's dK).
    `registers` per thread set the CTAs per SM. PyTorch's flat elementwise kernels stream their tensors in the same
    order (`algorithms.standard.pytorch`); for them `lane_elements` is the elements a thread loads before it waits
    (the CTA's loads then take one round trip per `lane_elements` a thread: `Load.rounds`; None: all in one), and,
    over N x `cols` tensors, `group_rows` the rows a CTA of `softmax_warps` warps takes (None: one a warp), so that it
    covers as many elements as a CTA of their grid."""
    w = cfg.softmax_warps
    if group_rows is not None and cols is None:
        raise ScheduleError(f"{name}: group_rows needs cols (the N x N tensors' row groups are one row a warp)")
    group = w if group_rows is None else group_rows
    total = p.nk if by_keys else p.seqlen_q
    ctas = ceil_div(total, group)
    width = p.nk if cols is None else cols
    wait = Wait("in")
    row_piece = row_group_pieces(p, cfg)

    def sized(rows: int) -> tuple[int, Vector, tuple[tuple[Operand, int], ...], tuple[tuple[str, int], ...]]:
        """What a row group's row count decides: its loads' rounds, its work, the bytes of each operand it reads
        and of each tensor it stores (each row once, and its LSE)."""
        rounds = 1 if lane_elements is None else ceil_div(rows * width, w * WARP_LANES * lane_elements)
        read_bytes = tuple((r, rows * width * r.element_bytes) for r in reads)
        stored = tuple((o.tensor, rows * width * o.element_bytes) for o in outs)
        return rounds, ops(rows, width), read_bytes, (*stored, *((("LSE", rows * LSE_BYTES),) if lse else ()))

    # Per row count (the last group may be short): made once, for thousands of CTAs.
    by_rows = {rows: sized(rows) for rows in {group, rows_in_block(total, group, ctas - 1)}}

    def key(operand: Operand, tile: Hashable, bi: int, hi: int, g: int) -> Hashable:
        """The memory key of `operand`'s rows in row group `g` of head (bi, hi): one for every head where it is
        shared, a piece of what a GEMM wrote, else the group's own."""
        if operand.shared:
            return (g,)
        if operand.tensor not in GEMM_OUTPUTS:
            return tile
        return row_piece(tile) if cols is None else block_piece(p, cfg, (bi, hi), g, by_keys, group)

    # Of the operands a GEMM wrote as N x N tiles, every one's rows in a row group are the same piece: made once per
    # row group, for all of them (softmax_bwd reads P and dP).
    pieces_shared = cols is None

    def program(tile: Hashable) -> Sequence[Op]:
        bi, hi, g = tile  # type: ignore[misc]
        rounds, work, read_bytes, stored = by_rows[min(group, total - g * group)]
        # HBM (L2 off): each input row read once per pass (16-byte ld.global into registers); the fields in order.
        built: list[Op] = []
        piece: Hashable = None
        for r, nbytes in read_bytes:
            if pieces_shared and not r.shared and r.tensor in GEMM_OUTPUTS:
                if piece is None:
                    piece = row_piece(tile)
                read = piece
            else:
                read = key(r, tile, bi, hi, g)
            built.append(Load(r.tensor, read, nbytes, "ldg", "in", None, 0.0, rounds))
        if built:
            built.append(wait)
        built *= passes
        built.append(work)
        for tensor, nbytes in stored:
            built.append(Store(tensor, tile, nbytes))
        return tuple(built)

    return Kernel(
        name=name,
        tiles=TileGrid((p.batch, p.heads, ctas)),
        head_axes=HEAD_AXES,
        memory_axes=MEMORY_AXES,
        alike_but_edges=True,  # row groups differ in their keys but the last one (short); every pass reads them again
        cta=CtaResources(w * 32, registers, 0),
        roles=(Role("warps", w, program),),
        barriers=(BarrierSpec("in", arrivals=len(reads)),) if reads else (),
    )
