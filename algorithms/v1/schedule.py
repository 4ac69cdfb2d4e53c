"""FlashAttention-1 as its released kernel runs Algorithm 1 and 4 (Dao et al. 2022): one CTA per (batch, head),
K/V outer loop, Q inner loop, split-K warps.

Source of the structure: FA-repo `csrc/flash_attn/src/fmha_fprop_kernel_1xN.h` (`device_1xN_loop` calls
`device_1xN_<Is_first, Is_last>` once per key block; each call walks every 16-row query step), the launch files
`fmha_fwd_hdim{32,64,128}.cu` (`FMHA_kernel_traits<S, D, 16, 1, 4, 0x08u>`: S = 256 keys at d <= 64 when
seqlen_k > 128, else 128; 1 x 4 warps that split the keys; K and V kept in registers for the whole key block) and
`fmha_bwd_hdim*.cu` with `fmha_dgrad_kernel_1xN_loop.h` (`FMHA_kernel_traits<S, D, 16, 1, 8, 0x100u>` on sm80: the
same S, 8 warps splitting the keys, K and V in separate smem buffers). Grid (batch, heads).

Forward, per key block j: K_j, V_j copied to smem, then into each warp's registers (its key slice, once per key
block). Per 16-row query step i that sees j (causal: blocks wholly above the diagonal are skipped), the kernel
  reads Q_i (prefetched one step ahead), and from the second key block on O_i (the fp32 `o_tmp`) and lse_i (one
  fp32 per row: the running log-sum-exp is the only statistic in HBM; m and l are recovered from it on chip),
  S = Q_i K_j^T        mma.sync, Q fragments read from smem with ldmatrix, K from registers,
  softmax              per score: 1 FFMA (scale, subtract max), 1 MUFU.EX2, 1 FMNMX (max), 1 FADD (sum), half a
                       pack to 16 bits; a compare and a select per score on tiles crossing the diagonal or the
                       sequence end; each warp's partial row max is combined through smem before the exps,
  P~ V_j               mma.sync, P~ and V from registers,
  merge                the warps' partial P~ V_j (r x d fp32) and row sums combined through smem ((warps - 1)
                       FADD per element); per row 2 ex2, 1 lg2, 1 rcp, 4 FMA; per O element 1 FMUL + 1 FFMA
                       (1 FMUL on the first key block),
and writes lse_i and O_i (fp32 `o_tmp`, or the output dtype on the last key block the step sees).
There is no initialization pass and no epilogue: the first key block starts from nothing and the last one
writes the outputs.

Backward, per key block j: K_j, V_j to smem; dK_j, dV_j accumulate in registers. Per 16-row query step i that sees
j: Q_i, dO_i, lse_i, D_i are read (prefetched one step ahead); in the first key block O_i is read too and
D_i = rowsum(dO_i * O_i) is computed and written; S and P are recomputed; P and then dP are staged in smem for the
transposed products; dP = dO_i V_j^T, dS = P * (dP - D_i), dQ_i = dS K_j (split-K partials reduced through smem)
added to the fp32 `dq_tmp` read back from the second key block on and written back until the last key block, which
writes dQ_i in the output dtype; dV_j += P^T dO_i, dK_j += dS^T Q_i. dK_j, dV_j are written once per key block,
through smem.

Block sizes: the released kernel's by default (`algorithms.v1.numerics.kernel_tiles`: block_m = 16 query rows,
block_n = 256 or 128 keys); with the option `sram_bytes` (on-chip memory M) Algorithm 1's B_c = ceil(M / 4d),
B_r = min(B_c, d) (`algorithms.v1.numerics.block_sizes`); `block_m`, `block_n`, `warps` override them. The MMAs
run on whole instruction tiles: rows rounded up to 16, each warp's key slice to 16 keys. Bytes follow the real rows
and columns.
Ignored: dropout (the kernel regenerates its mask from the RNG, no HBM bytes), __syncthreads latency (no arch
parameter; the warps run in lockstep, so only the serialization shows), register pressure. Query rows that see no
key at all (causal with seqlen_k < seqlen_q; the released kernel is top-left aligned and never has them) get their
zero O, dQ and -inf lse written once, before the key loop.
"""

from __future__ import annotations

from collections.abc import Hashable, Sequence
from dataclasses import dataclass
from typing import Any, cast

from algorithms._schedule.memory import check_footprint
from algorithms._schedule.tiling import HEAD_AXES, ceil_div, key_blocks, round_up, rows_in_block
from algorithms.v1.numerics import tile_sizes
from simgpu.arch import Arch
from simgpu.errors import OptionError, ProblemError
from simgpu.kernel import BarrierSpec, CtaResources, Kernel, Role
from simgpu.ops import Chain, Load, Mma, Op, Repeat, Smem, Store, Vector, Wait
from simgpu.problem import Problem

PROBLEM = "attention"
OPTIONS: dict[str, Any] = {"block_m": None, "block_n": None, "warps": None, "sram_bytes": None}

FORWARD_WARPS = 4  # FMHA_kernel_traits<..., WARPS_M = 1, WARPS_N = 4, ...> in fmha_fwd_hdim*.cu
BACKWARD_WARPS = 8  # FMHA_kernel_traits<..., 1, 8, ...> in fmha_bwd_hdim*.cu
SMEM_PAD_ELEMENTS = 8  # 16 bytes added to every smem row against bank conflicts
REGISTERS_PER_THREAD = 255  # K and V slices live in registers: the kernel takes all a thread may have
ACC_BYTES = 4  # o_tmp, dq_tmp, lse, D and the split-K partials are fp32
Q_BUFFERS = 2  # Q_i (and dO_i) double-buffered in smem: the next step's tile is loaded during this one
MMA_ROWS = 16  # rows of one mma.sync m16 group; also the k of m16n8k16 for 16-bit inputs
QUAD = 4  # lanes that share one accumulator row of mma.sync
REDUCTION_ROWS = 16  # split-K partials are combined 16 rows at a time through one smem buffer (one kernel step)


@dataclass(frozen=True)
class Config:
    block_m: int
    block_n: int
    forward_warps: int
    backward_warps: int

    @property
    def rows_pad(self) -> int:
        """Query rows the MMAs run on."""
        return round_up(self.block_m, MMA_ROWS)

    def cols_pad(self, warps: int) -> int:
        """Keys the MMAs run on: each warp's slice rounded up to whole k16 steps."""
        return warps * round_up(ceil_div(self.block_n, warps), MMA_ROWS)


def config(problem: Problem, options: dict[str, Any]) -> Config:
    given = {name: options.get(name) for name in OPTIONS}
    for name, value in given.items():
        if value is not None and (isinstance(value, bool) or not isinstance(value, int) or value <= 0):
            raise OptionError(f"v1 option {name} must be a positive integer, got {value!r}")
    if problem.headdim % 16:
        raise ProblemError(f"v1: headdim must be a multiple of 16 for mma.sync, got {problem.headdim}")
    if problem.dtype not in ("bf16", "fp16"):
        raise ProblemError(f"v1: the kernel takes 16-bit inputs (bf16, fp16), got {problem.dtype}")
    block_m, block_n = tile_sizes(
        problem.headdim, problem.nk, problem.element_bytes, given["sram_bytes"], given["block_m"], given["block_n"]
    )
    warps = given["warps"]
    return Config(block_m, block_n, warps or FORWARD_WARPS, warps or BACKWARD_WARPS)


def footprint_bytes(problem: Problem) -> dict[str, int]:
    """Buffers live in HBM: the inputs and outputs plus the fp32 o_tmp and lse (and dq_tmp, D): O(N d), never
    O(N^2)."""
    q, kv = problem.tensor_bytes(problem.seqlen_q), problem.tensor_bytes(problem.nk)
    acc = q * ACC_BYTES // problem.element_bytes
    buffers = {"Q": q, "K": kv, "V": kv, "O": q, "LSE": problem.lse_bytes, "O_acc": acc}
    if problem.pass_ == "fwd":
        return buffers
    rows = problem.batch * problem.heads * problem.seqlen_q * ACC_BYTES
    return buffers | {"dO": q, "Delta": rows, "dQ_acc": acc, "dQ": q, "dK": kv, "dV": kv}


def schedule(arch: Arch, problem: Problem, **options: Any) -> tuple[Kernel, ...]:
    cfg = config(problem, options)
    check_footprint(arch, "v1", footprint_bytes(problem))
    forward, backward = (forward_kernel(problem, cfg),), (backward_kernel(problem, cfg),)
    return {"fwd": forward, "bwd": backward, "fwd_bwd": forward + backward}[problem.pass_]


@dataclass(frozen=True)
class _Step:
    """One inner step: query block i against key block j."""

    i: int
    rows: int
    masked: bool
    last: bool  # j is the last key block query block i sees


def _inner_steps(p: Problem, cfg: Config, j: int) -> list[_Step]:
    """The query blocks that see key block j, in order (causal: the blocks below the diagonal)."""
    steps = []
    for i in range(ceil_div(p.seqlen_q, cfg.block_m)):
        rows = rows_in_block(p.seqlen_q, cfg.block_m, i)
        keys = key_blocks(p, i * cfg.block_m, rows, cfg.block_n)
        if j < keys.visited:
            steps.append(_Step(i, rows, masked=j >= keys.unmasked, last=j == keys.visited - 1))
    return steps


def _unseen_blocks(p: Problem, cfg: Config) -> list[int]:
    """Query blocks that see no key at all (causal with seqlen_k < seqlen_q): their outputs are written once, as
    zeros (and lse = -inf), before the key loop."""
    n_q = ceil_div(p.seqlen_q, cfg.block_m)
    return [
        i
        for i in range(n_q)
        if key_blocks(p, i * cfg.block_m, rows_in_block(p.seqlen_q, cfg.block_m, i), cfg.block_n).visited == 0
    ]


def _tiles(p: Problem) -> tuple[tuple[int, int], ...]:
    return tuple((b, h) for b in range(p.batch) for h in range(p.heads))


def forward_kernel(p: Problem, cfg: Config) -> Kernel:
    d, eb, w = p.headdim, p.element_bytes, cfg.forward_warps
    rp, kp = cfg.rows_pad, cfg.cols_pad(w)
    n_k = ceil_div(p.nk, cfg.block_n)
    steps = [_inner_steps(p, cfg, j) for j in range(n_k)]
    qk_frag = w * rp * d * eb  # ldmatrix: every warp reads all of Q_i; K and V come from registers
    unseen = _unseen_blocks(p, cfg)

    def program(tile: Hashable) -> Sequence[Op]:
        b, h = cast(tuple[int, int], tile)

        def outer(j: int) -> Sequence[Op]:
            cols = rows_in_block(p.nk, cfg.block_n, j)
            inner = steps[j]
            first = j == 0  # every query block that sees any key sees key block 0

            def step(k: int) -> Sequence[Op]:
                s = inner[k]
                r, key = s.rows, (b, h, s.i)
                scores = r * cols
                # Two passes, as the kernel's reduce_max then scale_apply_exp / reduce_sum. Row max, per score: FMNMX
                # (+ compare and select on masked tiles); per row and warp quad shuffles (8). Exps, per score: FFMA
                # scale-subtract, MUFU.EX2, FADD row sum, half an F2FP; per row the warps' partial maxes combined
                # (w - 1 FMNMX after an smem round trip). Chains (per warp, `simgpu.ops.Chain`): a row's scores of
                # the warp's key slice sit in a quad of lanes, `per_thread` per lane.
                per_thread = cols / w / QUAD
                mask = 2 * scores if s.masked else 0
                row_max = Vector(
                    alu=scores + 8 * w * r + mask,
                    chain=Chain(alu=per_thread / 2 + 2 + (2 if s.masked else 0), shuffle=2),
                )
                exps = Vector(
                    fma=2 * scores,
                    alu=0.5 * scores + (w - 1) * r,
                    ex2=scores,
                    chain=Chain(smem=2, alu=w - 1, fma=3 + per_thread, mufu=1),
                )
                ops: list[Op] = [
                    Wait("q"),
                    Mma(rp, kp, d, p.dtype, "reg", "reg", instruction="mma_sync", operand_smem_bytes=qk_frag),
                ]
                if not first:  # HBM: o_tmp_i (r x d fp32) and lse_i (r fp32), loaded while the softmax runs
                    ops += [
                        Load("O_acc", key, r * d * ACC_BYTES, engine="ldg", arrive="state"),
                        Load("LSE", key, r * ACC_BYTES, engine="ldg", arrive="state"),
                    ]
                if k + 1 < len(inner):  # HBM: the next step's Q (r x d), prefetched
                    nxt = inner[k + 1]
                    ops.append(Load("Q", (b, h, nxt.i), nxt.rows * d * eb, engine="cp_async", arrive="q"))
                # Partial P~ V_j and row sums of every warp through smem, each warp reading its share of all.
                partials = w * r * (d + 1) * ACC_BYTES
                ops += [
                    row_max,
                    Smem(read_bytes=w * w * r * ACC_BYTES, write_bytes=w * r * ACC_BYTES),  # partial row maxes
                    exps,
                    Mma(rp, d, kp, p.dtype, "reg", "reg", instruction="mma_sync"),
                    Smem(read_bytes=partials, write_bytes=partials),
                ]
                if not first:
                    ops.append(Wait("state"))
                # Split-K adds; per row 2 ex2 + lg2 + rcp, 4 FMA; per O element FMUL (+ FFMA with an old O). Chain:
                # the partials' smem round trip, w - 1 adds, the rescale factor's ex2, the reciprocal, the scaling.
                per_element = 1 if first else 2
                ops += [
                    Vector(
                        fma=(w - 1) * r * d + 4 * r + per_element * r * d,
                        alu=r,
                        ex2=4 * r,
                        chain=Chain(smem=2, fma=w - 1 + 2, mufu=2),
                    ),
                    Store("LSE", key, r * ACC_BYTES),  # HBM: lse_i, every step
                    # HBM: O_i in the output dtype on its last key block, else the fp32 o_tmp_i
                    Store("O", key, r * d * eb) if s.last else Store("O_acc", key, r * d * ACC_BYTES),
                ]
                return ops

            head: list[Op] = [
                # HBM: K_j and V_j (cols x d each), once per key block, then into each warp's registers
                Load("K", (b, h, j), cols * d * eb, engine="cp_async", arrive="kv"),
                Load("V", (b, h, j), cols * d * eb, engine="cp_async", arrive="kv"),
                Wait("kv"),
                Smem(read_bytes=2 * kp * d * eb),
            ]
            if inner:  # HBM: the first step's Q
                head.append(Load("Q", (b, h, inner[0].i), inner[0].rows * d * eb, engine="cp_async", arrive="q"))
            return (*head, Repeat(len(inner), step))

        def empty(k: int) -> Sequence[Op]:
            i = unseen[k]
            rows = rows_in_block(p.seqlen_q, cfg.block_m, i)
            # HBM: O_i = 0 (output dtype) and lse_i = -inf for rows that see no key
            return (Store("O", (b, h, i), rows * d * eb), Store("LSE", (b, h, i), rows * ACC_BYTES))

        return (Repeat(len(unseen), empty), Repeat(n_k, outer)) if unseen else (Repeat(n_k, outer),)

    # Q double-buffered, K and V sharing one buffer (flag 0x08: K is moved to registers before V lands), the
    # split-K partials of P~ V_j and the row statistics.
    smem = Q_BUFFERS * cfg.block_m * (d + SMEM_PAD_ELEMENTS) * eb + cfg.block_n * (d + SMEM_PAD_ELEMENTS) * eb
    smem += w * min(rp, REDUCTION_ROWS) * (d + 2) * ACC_BYTES
    return Kernel(
        name="v1_fwd",
        tiles=_tiles(p),
        head_axes=HEAD_AXES,
        cta=CtaResources(w * 32, REGISTERS_PER_THREAD, smem),
        roles=(Role("warps", w, program),),
        barriers=(BarrierSpec("kv", arrivals=2), BarrierSpec("q"), BarrierSpec("state", arrivals=2)),
    )


def backward_kernel(p: Problem, cfg: Config) -> Kernel:
    d, eb, w = p.headdim, p.element_bytes, cfg.backward_warps
    rp, kp = cfg.rows_pad, cfg.cols_pad(w)
    n_k = ceil_div(p.nk, cfg.block_n)
    steps = [_inner_steps(p, cfg, j) for j in range(n_k)]
    # ldmatrix per inner step (r = all query rows, c = the warps' key slices together):
    #   S = Q K^T and dP = dO V^T: every warp reads all of Q_i / dO_i and its slice of K_j / V_j (from smem),
    #   dV += P^T dO and dK += dS^T Q: P^T, dS^T (staged in smem, r x c) and all of dO_i / Q_i per warp,
    #   dQ += dS K: its slice of K_j.
    nt_frag = w * rp * d * eb + kp * d * eb
    tn_frag = rp * kp * eb + w * rp * d * eb
    dq_frag = kp * d * eb
    unseen = _unseen_blocks(p, cfg)

    def program(tile: Hashable) -> Sequence[Op]:
        b, h = cast(tuple[int, int], tile)

        def row_loads(j: int, s: _Step) -> list[Op]:
            """HBM: Q_i, dO_i (r x d), lse_i, D_i (r fp32), and O_i in the first key block, prefetched."""
            key, r = (b, h, s.i), s.rows
            ring = "q0" if j == 0 else "q"
            loads: list[Op] = [
                Load("Q", key, r * d * eb, engine="ldg", arrive=ring),
                Load("dO", key, r * d * eb, engine="ldg", arrive=ring),
                Load("LSE", key, r * ACC_BYTES, engine="ldg", arrive=ring),
                Load("Delta", key, r * ACC_BYTES, engine="ldg", arrive=ring),
            ]
            if j == 0:
                loads.append(Load("O", key, r * d * eb, engine="ldg", arrive=ring))
            return loads

        def outer(j: int) -> Sequence[Op]:
            cols = rows_in_block(p.nk, cfg.block_n, j)
            inner = steps[j]
            first = j == 0

            def step(k: int) -> Sequence[Op]:
                s = inner[k]
                r, key = s.rows, (b, h, s.i)
                scores = r * cols
                ops: list[Op] = [Wait("q0" if first else "q")]
                if first:  # D_i = rowsum(dO_i * O_i): FFMA and conversions per element; HBM: D_i written (fp32)
                    ops += [Vector(fma=r * d, alu=r * d), Store("Delta", key, r * ACC_BYTES)]
                else:  # HBM: dq_tmp_i (fp32) read back, needed after the five products
                    ops.append(Load("dQ_acc", key, r * d * ACC_BYTES, engine="ldg", arrive="dq"))
                if k + 1 < len(inner):
                    ops += row_loads(j, inner[k + 1])
                ops += [
                    Mma(rp, kp, d, p.dtype, "reg", "reg", instruction="mma_sync", operand_smem_bytes=nt_frag),
                    # P = exp(S * scale - lse) per score: FFMA, ex2, half an F2FP.
                    Vector(
                        fma=scores,
                        alu=0.5 * scores + (2 * scores if s.masked else 0),
                        ex2=scores,
                        chain=Chain(fma=1, mufu=1, alu=2 if s.masked else 0),
                    ),
                    Smem(write_bytes=scores * eb),  # P staged for the transposed product
                    Mma(rp, kp, d, p.dtype, "reg", "reg", instruction="mma_sync", operand_smem_bytes=nt_frag),
                    # dS = P * (dP - D): FADD, FMUL, half an F2FP per score.
                    Vector(fma=2 * scores, alu=0.5 * scores, chain=Chain(fma=2)),
                    Smem(write_bytes=scores * eb),  # dS staged for the transposed product
                    Mma(rp, d, kp, p.dtype, "reg", "reg", instruction="mma_sync", operand_smem_bytes=dq_frag),
                    # the warps' partial dQ_i (r x d fp32) through smem
                    Smem(read_bytes=w * r * d * ACC_BYTES, write_bytes=w * r * d * ACC_BYTES),
                    Mma(kp, d, rp, p.dtype, "reg", "reg", instruction="mma_sync", operand_smem_bytes=tn_frag),
                    Mma(kp, d, rp, p.dtype, "reg", "reg", instruction="mma_sync", operand_smem_bytes=tn_frag),
                ]
                if not first:
                    ops.append(Wait("dq"))
                # split-K adds, + dq_tmp, * scale on the last write: about one FFMA per element and partial; chain:
                # the partials' smem round trip, then the adds
                ops.append(Vector(fma=w * r * d, chain=Chain(smem=2, fma=w)))
                # HBM: dQ_i in the output dtype on its last key block, else dq_tmp_i (fp32)
                ops.append(Store("dQ", key, r * d * eb) if s.last else Store("dQ_acc", key, r * d * ACC_BYTES))
                return ops

            head: list[Op] = [
                # HBM: K_j and V_j (cols x d each), once per key block
                Load("K", (b, h, j), cols * d * eb, engine="ldg", arrive="kv"),
                Load("V", (b, h, j), cols * d * eb, engine="ldg", arrive="kv"),
            ]
            if inner:
                head += row_loads(j, inner[0])
            return (
                *head,
                Wait("kv"),
                Repeat(len(inner), step),
                # dK_j scaled (FMUL); dK_j, dV_j packed to 16 bits and written through smem
                Vector(fma=cols * d, alu=cols * d),
                Smem(read_bytes=2 * cols * d * eb, write_bytes=2 * cols * d * eb),
                # HBM: dK_j and dV_j in the output dtype, once per key block
                Store("dK", (b, h, j), cols * d * eb),
                Store("dV", (b, h, j), cols * d * eb),
            )

        def empty(k: int) -> Sequence[Op]:
            i = unseen[k]  # HBM: dQ_i = 0 (output dtype) for rows that see no key
            return (Store("dQ", (b, h, i), rows_in_block(p.seqlen_q, cfg.block_m, i) * d * eb),)

        return (Repeat(len(unseen), empty), Repeat(n_k, outer)) if unseen else (Repeat(n_k, outer),)

    # Q_i and dO_i double-buffered, K_j and V_j in separate buffers (flag 0x100), P and dP staged, the split-K
    # partials of dQ_i.
    smem = 2 * Q_BUFFERS * cfg.block_m * (d + SMEM_PAD_ELEMENTS) * eb
    smem += 2 * cfg.block_n * (d + SMEM_PAD_ELEMENTS) * eb
    smem += 2 * rp * (kp + SMEM_PAD_ELEMENTS) * eb
    smem += w * min(rp, REDUCTION_ROWS) * d * ACC_BYTES
    return Kernel(
        name="v1_bwd",
        tiles=_tiles(p),
        head_axes=HEAD_AXES,
        cta=CtaResources(w * 32, REGISTERS_PER_THREAD, smem),
        roles=(Role("warps", w, program),),
        barriers=(
            BarrierSpec("kv", arrivals=2),
            BarrierSpec("q0", arrivals=5),
            BarrierSpec("q", arrivals=4),
            BarrierSpec("dq"),
        ),
    )
