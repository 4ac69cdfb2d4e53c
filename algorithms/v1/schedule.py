"""FlashAttention-1 as Algorithm 1 and 4 of Dao et al. 2022 write it: one CTA per (batch, head), K/V outer loop.

Forward (Algorithm 1; the HBM traffic of `algorithms/v1/numerics.py`): the CTA first writes the working O (fp32),
l and m of every query block (line 2). For each key block j it copies K_j, V_j to smem (line 6), then for each
query block i that sees block j (causal: blocks wholly above the diagonal are skipped) it reads Q_i (to smem) and
O_i, l_i, m_i (to registers) (line 8), computes
  S = Q_i K_j^T        mma.sync; Q and K fragments read from smem with ldmatrix,
  m~, P~, l~           per score: 1 FFMA (scale, subtract max), 1 MUFU.EX2, 1 FMNMX (max), 1 FADD (sum), half a
                       pack to 16 bits; a compare and a select per score on tiles crossing the diagonal or the
                       sequence end,
  P~ V_j               mma.sync, P~ from registers, V fragments from smem,
  merge (lines 11-12)  per row: max, 2 ex2, 1 rcp and 4 FMA for l_new and the two coefficients; per O element: 1
                       FMUL + 1 FFMA,
and writes O_i (fp32; the output dtype on the block's last key block), l_i, m_i back (line 13). An epilogue per
query block reads l_i, m_i and writes the LSE the API returns.
Warps split K/V ("split-K", FA1's kernels): warp w owns keys [w c / warps, (w + 1) c / warps) of the tile and every
query row. Each warp's partial row max and sum, and its partial P~ V_j (r x d, fp32), are combined through smem:
every warp writes its partials, then reads back its share from all warps. That smem traffic (and the serialization
it puts between the PV product and the merge) is the cost FA2 removed by splitting Q instead.

Backward (Algorithm 4, the numerics' style "fa1"): the CTA zeroes the fp32 dQ accumulator; for each key block j it
loads K_j, V_j and keeps dK_j, dV_j on chip; for each query block i that sees j it reads Q_i, dO_i (to smem), O_i,
dQ_i (fp32), l_i, m_i (to registers), recomputes S and P, then dV_j += P^T dO_i, dP = dO_i V_j^T, D_i = rowsum(dO_i
* O_i), dS = P * (dP - D_i), dQ_i += scale dS K_j (the split-K partials of dQ_i are reduced through smem) and dK_j +=
scale dS^T Q_i; P and dS go through smem for the transposed products; dQ_i is written back in fp32. dK_j, dV_j are
written once per key block; a final pass converts dQ to the output dtype.

Block sizes from the on-chip memory M (`sram_bytes`, default as the numerics): B_c = ceil(M / 4d), B_r = min(B_c, d)
(`algorithms.v1.numerics.block_sizes`); `block_m`, `block_n` override them. The MMAs run on whole instruction tiles:
B_r rounded up to 16 rows, each warp's key slice to 16 keys. Bytes follow the real rows and columns.
Deviations of `cupy_kernels/v1/fwd.cu` not modelled: it splits Q across warps, skips the line-2 initialization and
the first read of O, l, m, and writes the LSE on the last key block instead of l and m.
Ignored: __syncthreads latency (no arch parameter; the warps are modelled in lockstep, so only the serialization
shows), register pressure and spills (the paper's B_r = 100 at d = 128 needs more accumulator registers than a
thread has), register-dependency latency.
"""

from __future__ import annotations

from collections.abc import Hashable, Sequence
from dataclasses import dataclass
from typing import Any

from algorithms._schedule.memory import check_footprint
from algorithms._schedule.tiling import HEAD_AXES, ceil_div, key_blocks, round_up, rows_in_block
from algorithms.v1.numerics import V1Options, block_sizes
from simgpu.arch import Arch
from simgpu.errors import OptionError, ProblemError
from simgpu.kernel import BarrierSpec, CtaResources, Kernel, Role
from simgpu.ops import Load, Mma, Op, Repeat, Smem, Store, Vector, Wait
from simgpu.problem import Problem

PROBLEM = "attention"
OPTIONS: dict[str, Any] = {"block_m": None, "block_n": None, "warps": None, "sram_bytes": None}

DEFAULT_WARPS = 4  # FA1's kernels: 4 warps splitting the keys (WARPS_N = 4)
SMEM_PAD_ELEMENTS = 8  # 16 bytes added to every smem row against bank conflicts (as in the CUDA kernel)
REGISTERS_PER_THREAD = 255  # __launch_bounds__(WARPS * 32, 1): one CTA per head, all the registers it wants
ACC_BYTES = 4  # working O, l, m, dQ and the split-K partials are fp32
LSE_BYTES = 4
MMA_ROWS = 16  # rows of one mma.sync m16 group; also the k of m16n8k16 for 16-bit inputs
REDUCTION_ROWS = 16  # the split-K partials are combined 16 rows at a time through one smem buffer


@dataclass(frozen=True)
class Config:
    block_m: int
    block_n: int
    warps: int
    sram_bytes: int

    @property
    def rows_pad(self) -> int:
        """Query rows the MMAs run on."""
        return round_up(self.block_m, MMA_ROWS)

    @property
    def cols_pad(self) -> int:
        """Keys the MMAs run on: each warp's slice rounded up to whole k16 steps."""
        return self.warps * round_up(ceil_div(self.block_n, self.warps), MMA_ROWS)


def config(problem: Problem, options: dict[str, Any]) -> Config:
    given = {name: options.get(name) for name in OPTIONS}
    for name, value in given.items():
        if value is not None and (isinstance(value, bool) or not isinstance(value, int) or value <= 0):
            raise OptionError(f"v1 option {name} must be a positive integer, got {value!r}")
    if problem.headdim % 16:
        raise ProblemError(f"v1: headdim must be a multiple of 16 for mma.sync, got {problem.headdim}")
    if problem.dtype not in ("bf16", "fp16"):
        raise ProblemError(f"v1: the kernel takes 16-bit inputs (bf16, fp16), got {problem.dtype}")
    sram = given["sram_bytes"] or V1Options.sram_bytes
    b_r, b_c = block_sizes(sram, problem.headdim, problem.element_bytes)
    return Config(given["block_m"] or b_r, given["block_n"] or b_c, given["warps"] or DEFAULT_WARPS, sram)


def footprint_bytes(problem: Problem) -> dict[str, int]:
    """Buffers live in HBM: the inputs and outputs plus the fp32 working O, l, m (and dQ): O(N d), never O(N^2)."""
    q, kv = problem.tensor_bytes(problem.seqlen_q), problem.tensor_bytes(problem.nk)
    acc = q * ACC_BYTES // problem.element_bytes
    rows = problem.batch * problem.heads * problem.seqlen_q * ACC_BYTES
    buffers = {"Q": q, "K": kv, "V": kv, "O": q, "LSE": problem.lse_bytes, "O_acc": acc, "l": rows, "m": rows}
    if problem.pass_ == "fwd":
        return buffers
    return buffers | {"dO": q, "dQ_acc": acc, "dQ": q, "dK": kv, "dV": kv}


def schedule(arch: Arch, problem: Problem, **options: Any) -> tuple[Kernel, ...]:
    cfg = config(problem, options)
    check_footprint(arch, "v1", footprint_bytes(problem))
    kernels = {"fwd": (forward_kernel(problem, cfg),), "bwd": (backward_kernel(problem, cfg),)}
    kernels["fwd_bwd"] = kernels["fwd"] + kernels["bwd"]
    return kernels[problem.pass_]


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


def _split_k_reduction(cfg: Config, rows: int, cols: int) -> tuple[Smem, Vector]:
    """Combining the warps' partial r x cols fp32 results: each warp writes its partial and reads its rows of every
    warp's; (warps - 1) FADD per element."""
    nbytes = cfg.warps * rows * cols * ACC_BYTES
    return Smem(read_bytes=nbytes, write_bytes=nbytes), Vector(fma=(cfg.warps - 1) * rows * cols)


def forward_kernel(p: Problem, cfg: Config) -> Kernel:
    d, eb = p.headdim, p.element_bytes
    rp, kp = cfg.rows_pad, cfg.cols_pad
    n_q, n_k = ceil_div(p.seqlen_q, cfg.block_m), ceil_div(p.nk, cfg.block_n)
    steps = [_inner_steps(p, cfg, j) for j in range(n_k)]
    # ldmatrix: every warp reads all of Q_i and its own slice of K_j (S), its own slice of V_j (PV).
    qk_frag = cfg.warps * rp * d * eb + kp * d * eb
    pv_frag = kp * d * eb

    def program(tile: Hashable) -> Sequence[Op]:
        b, h = tile  # type: ignore[misc]

        def init(i: int) -> Sequence[Op]:
            rows = rows_in_block(p.seqlen_q, cfg.block_m, i)
            return (  # line 2, HBM: (rows x d + 2 rows) fp32 written
                Store("O_acc", (b, h, i), rows * d * ACC_BYTES),
                Store("l", (b, h, i), rows * ACC_BYTES),
                Store("m", (b, h, i), rows * ACC_BYTES),
            )

        def outer(j: int) -> Sequence[Op]:
            cols = rows_in_block(p.nk, cfg.block_n, j)
            inner = steps[j]

            def step(k: int) -> Sequence[Op]:
                s = inner[k]
                r, key = s.rows, (b, h, s.i)
                scores = r * cols
                stats = 2 * cfg.warps * r * ACC_BYTES  # each warp's partial row max and row sum
                # Per score: FFMA scale-subtract, FADD row sum, FMNMX row max, half an F2FP, one ex2; masked
                # tiles add a compare and a select. Per row and warp: quad shuffles of max and sum (8); combining
                # the warps' partial max and sum (2 per row and other warp).
                alu = 1.5 * scores + 8 * cfg.warps * r + 2 * (cfg.warps - 1) * r
                softmax = Vector(fma=2 * scores, alu=alu + (2 * scores if s.masked else 0), ex2=scores)
                o_reduce, o_add = _split_k_reduction(cfg, r, d)
                o_out = (p.element_bytes if s.last else ACC_BYTES) * r * d
                return (
                    # line 8, HBM: Q_i (rows x d, input dtype), O_i (rows x d fp32), l_i, m_i (rows fp32 each)
                    Load("Q", key, r * d * eb, engine="cp_async", arrive="q"),
                    Load("O_acc", key, r * d * ACC_BYTES, engine="ldg", arrive="state"),
                    Load("l", key, r * ACC_BYTES, engine="ldg", arrive="state"),
                    Load("m", key, r * ACC_BYTES, engine="ldg", arrive="state"),
                    Wait("q"),
                    Mma(rp, kp, d, p.dtype, a="reg", b="reg", instruction="mma_sync", operand_smem_bytes=qk_frag),
                    softmax,
                    Smem(read_bytes=cfg.warps * stats, write_bytes=stats),  # every warp reads every warp's stats
                    Mma(rp, d, kp, p.dtype, a="reg", b="reg", instruction="mma_sync", operand_smem_bytes=pv_frag),
                    o_reduce,
                    o_add,
                    Wait("state"),
                    # lines 11-12: per row max, 2 ex2 + rcp, 4 FMA; per O element FMUL + FFMA.
                    Vector(fma=4 * r + 2 * r * d, alu=r, ex2=3 * r),
                    # line 13, HBM: O_i (fp32, or the output dtype on its last key block), l_i, m_i
                    Store("O" if s.last else "O_acc", key, o_out),
                    Store("l", key, r * ACC_BYTES),
                    Store("m", key, r * ACC_BYTES),
                )

            return (
                # line 6, HBM: K_j and V_j (cols x d each), once per key block
                Load("K", (b, h, j), cols * d * eb, engine="cp_async", arrive="kv"),
                Load("V", (b, h, j), cols * d * eb, engine="cp_async", arrive="kv"),
                Wait("kv"),
                Repeat(len(inner), step),
            )

        def lse(i: int) -> Sequence[Op]:
            rows = rows_in_block(p.seqlen_q, cfg.block_m, i)
            return (  # epilogue, HBM: l_i, m_i read (fp32), LSE_i written (fp32)
                Load("l", (b, h, i), rows * ACC_BYTES, engine="ldg", arrive="lm"),
                Load("m", (b, h, i), rows * ACC_BYTES, engine="ldg", arrive="lm"),
                Wait("lm"),
                Vector(fma=rows, ex2=rows),  # LSE = (m + lg2 l) ln 2: MUFU.LG2, FFMA
                Store("LSE", (b, h, i), rows * LSE_BYTES),
            )

        return (Repeat(n_q, init), Repeat(n_k, outer), Repeat(n_q, lse))

    smem = (cfg.block_m + 2 * cfg.block_n) * (d + SMEM_PAD_ELEMENTS) * eb
    smem += cfg.warps * REDUCTION_ROWS * d * ACC_BYTES
    return Kernel(
        name="v1_fwd",
        tiles=tuple((b, h) for b in range(p.batch) for h in range(p.heads)),
        head_axes=HEAD_AXES,
        cta=CtaResources(cfg.warps * 32, REGISTERS_PER_THREAD, smem),
        roles=(Role("warps", cfg.warps, program),),
        barriers=(
            BarrierSpec("kv", arrivals=2),
            BarrierSpec("q"),
            BarrierSpec("state", arrivals=3),
            BarrierSpec("lm", arrivals=2),
        ),
    )


def backward_kernel(p: Problem, cfg: Config) -> Kernel:
    d, eb = p.headdim, p.element_bytes
    rp, kp = cfg.rows_pad, cfg.cols_pad
    n_q, n_k = ceil_div(p.seqlen_q, cfg.block_m), ceil_div(p.nk, cfg.block_n)
    steps = [_inner_steps(p, cfg, j) for j in range(n_k)]
    # ldmatrix per inner step (r = all query rows, c = the warps' key slices together):
    #   S = Q K^T and dP = dO V^T: every warp reads all of Q_i / dO_i and its slice of K_j / V_j,
    #   dV += P^T dO and dK += dS^T Q: P^T, dS^T (staged in smem, r x c) and all of dO_i / Q_i per warp,
    #   dQ += dS K: its slice of K_j.
    nt_frag = cfg.warps * rp * d * eb + kp * d * eb
    tn_frag = rp * kp * eb + cfg.warps * rp * d * eb
    dq_frag = kp * d * eb

    def program(tile: Hashable) -> Sequence[Op]:
        b, h = tile  # type: ignore[misc]

        def init(i: int) -> Sequence[Op]:
            rows = rows_in_block(p.seqlen_q, cfg.block_m, i)
            return (Store("dQ_acc", (b, h, i), rows * d * ACC_BYTES),)  # HBM: dQ accumulator zeroed, fp32

        def outer(j: int) -> Sequence[Op]:
            cols = rows_in_block(p.nk, cfg.block_n, j)
            inner = steps[j]

            def step(k: int) -> Sequence[Op]:
                s = inner[k]
                r, key = s.rows, (b, h, s.i)
                scores = r * cols
                dq_reduce, dq_add = _split_k_reduction(cfg, r, d)
                return (
                    # HBM: Q_i, O_i, dO_i (rows x d, input dtype), dQ_i (fp32), l_i, m_i (fp32)
                    Load("Q", key, r * d * eb, engine="cp_async", arrive="q"),
                    Load("dO", key, r * d * eb, engine="cp_async", arrive="q"),
                    Load("O", key, r * d * eb, engine="ldg", arrive="state"),
                    Load("dQ_acc", key, r * d * ACC_BYTES, engine="ldg", arrive="state"),
                    Load("l", key, r * ACC_BYTES, engine="ldg", arrive="state"),
                    Load("m", key, r * ACC_BYTES, engine="ldg", arrive="state"),
                    Wait("q"),
                    Wait("state"),
                    Mma(rp, kp, d, p.dtype, a="reg", b="reg", instruction="mma_sync", operand_smem_bytes=nt_frag),
                    # P = exp(S - m) / l per score: FFMA, ex2, FMUL, half an F2FP; per row one rcp of l.
                    Vector(fma=2 * scores, alu=0.5 * scores + (2 * scores if s.masked else 0), ex2=scores + r),
                    Smem(write_bytes=scores * eb),  # P staged for the transposed product
                    Mma(kp, d, rp, p.dtype, a="reg", b="reg", instruction="mma_sync", operand_smem_bytes=tn_frag),
                    Mma(rp, kp, d, p.dtype, a="reg", b="reg", instruction="mma_sync", operand_smem_bytes=nt_frag),
                    # D_i = rowsum(dO_i * O_i): dO from smem, O converted; one FFMA and conversions per element;
                    # shared with every warp through smem.
                    Smem(read_bytes=r * d * eb + cfg.warps * r * ACC_BYTES, write_bytes=r * ACC_BYTES),
                    Vector(fma=r * d, alu=r * d),
                    # dS = P * (dP - D): FADD, FMUL, half an F2FP per score.
                    Vector(fma=2 * scores, alu=0.5 * scores),
                    Smem(write_bytes=scores * eb),  # dS staged for the transposed product
                    Mma(rp, d, kp, p.dtype, a="reg", b="reg", instruction="mma_sync", operand_smem_bytes=dq_frag),
                    dq_reduce,
                    dq_add,
                    Vector(fma=r * d),  # dQ_i += scale * partial: FFMA per element
                    Mma(kp, d, rp, p.dtype, a="reg", b="reg", instruction="mma_sync", operand_smem_bytes=tn_frag),
                    Store("dQ_acc", key, r * d * ACC_BYTES),  # HBM: dQ_i written back, fp32
                )

            return (
                # HBM: K_j and V_j (cols x d each), once per key block
                Load("K", (b, h, j), cols * d * eb, engine="cp_async", arrive="kv"),
                Load("V", (b, h, j), cols * d * eb, engine="cp_async", arrive="kv"),
                Wait("kv"),
                Repeat(len(inner), step),
                Vector(fma=cols * d, alu=cols * d),  # dK_j scale (FMUL); dK_j, dV_j packed to 16 bits
                # HBM: dK_j and dV_j in the output dtype, once per key block
                Store("dK", (b, h, j), cols * d * eb),
                Store("dV", (b, h, j), cols * d * eb),
            )

        def convert(i: int) -> Sequence[Op]:
            rows = rows_in_block(p.seqlen_q, cfg.block_m, i)
            return (  # final pass, HBM: dQ accumulator read (fp32), dQ written (output dtype)
                Load("dQ_acc", (b, h, i), rows * d * ACC_BYTES, engine="ldg"),
                Vector(alu=0.5 * rows * d),
                Store("dQ", (b, h, i), rows * d * eb),
            )

        return (Repeat(n_q, init), Repeat(n_k, outer), Repeat(n_q, convert))

    smem = (2 * cfg.block_m + 2 * cfg.block_n) * (d + SMEM_PAD_ELEMENTS) * eb  # Q_i, dO_i, K_j, V_j
    smem += cfg.block_m * (cfg.block_n + SMEM_PAD_ELEMENTS) * eb  # P / dS staging
    smem += cfg.warps * REDUCTION_ROWS * d * ACC_BYTES
    return Kernel(
        name="v1_bwd",
        tiles=tuple((b, h) for b in range(p.batch) for h in range(p.heads)),
        head_axes=HEAD_AXES,
        cta=CtaResources(cfg.warps * 32, REGISTERS_PER_THREAD, smem),
        roles=(Role("warps", cfg.warps, program),),
        barriers=(BarrierSpec("kv", arrivals=2), BarrierSpec("q", arrivals=2), BarrierSpec("state", arrivals=4)),
    )
