"""FlashAttention-4 on Blackwell: tcgen05 MMAs into TMEM, ping-pong Q tiles, software exp2, conditional rescaling.

Forward (Zadouri et al. 2026 §3.1; roles and tiles of FA-repo `flash_attn/cute/flash_fwd_sm100.py`): a persistent
kernel whose CTAs pull work items (batch, head, pair of Q tiles) in order. A work item is two Q tiles of `block_m` =
128 rows (one tcgen05 M each) against the key blocks of `block_n` columns they see. Tile order (FA-repo
`tile_scheduler.py`): non-causal, item fastest, then head, then batch (`StaticPersistentTileScheduler`); causal (or
`lpt`), FA4's `SingleTileLPTScheduler`: the (batch, head) pairs in sections of as many heads as fill
`L2_SECTION_BYTES` with K and V (a power of two), items outermost within a section, and with `lpt` (the default when
causal) the items in reverse, longest first. Roles:
  load (1 warp)        TMA: Q_0, Q_1 once per item; K_j and V_j into one `stages`-deep smem ring (K_j, V_j in
                       consecutive slots; `kv_full` / `kv_empty`).
  mma (1 warp)         tcgen05, all asynchronous with arrive barriers, issued in FA4's ping-pong order
                       S_0(0), S_1(0), then per block PV_0(j), S_0(j+1), PV_1(j), S_1(j+1):
                         S_t = Q_t K_j^T   SS: Q_t and K_j from smem, fp32 S_t into TMEM;
                         O_t += P_t V_j    TS: P_t from TMEM (written over S_t), V_j from smem, O_t in TMEM.
  softmax0, softmax1   one warpgroup per Q tile, one thread per row: read S_t from TMEM, row max, exp2 of each
  (4 warps each)       score (`exp_emulation_fraction` of them as a polynomial on the FMA pipe), row sum, P_t to
                       TMEM. The first warpgroup of the pair to finish with S releases K_j.
  correction (4 warps) per block after the first and per Q tile: waits for the row scales and for PV_t(j-1), then
                       rescales O_t in TMEM (read, FMUL, write) for the share of rows that need it (conditional
                       rescaling, below); releases V_j. At the end: O / l, LSE, O into smem.
  epilogue (1 warp)    TMA store of O from smem (its read of smem is charged to the port), and the LSE.
TMEM: per Q tile, S/P (`block_n` columns) and O (`headdim` columns): 2 (block_n + d) <= 512 columns, enforced at
placement through `CtaResources.tmem_columns` (d = 128, block_n = 128 fills TMEM exactly, as FA4's four tiles).
Conditional rescaling: the share of (block, 32-row warp) pairs that rescale is `rescale_fraction`; when not given
it is measured with `algorithms.v4.numerics` (its `rescales_performed / (performed + skipped)`) on one head of
random N(0, 1) bf16 inputs, 256 query rows against min(seqlen_k, 2048) keys, at this headdim, causality, tiles and
`rescale_threshold` (cached per configuration). The first block never rescales.
Software exp2: `exp_emulation_fraction` of each row's score exps run as the polynomial of degree `exp_poly_degree`
(`algorithms._schedule.exp2`: 3 + degree FMA-pipe ops and 3 ALU ops each); the rest, the per-row rescale factor
and the final reciprocal and log2 of each row run on MUFU.

Backward (§3.2; FA-repo `flash_bwd_sm100.py`): three kernels. A preprocess kernel computes D = rowsum(dO * O) and
zeroes the fp32 dQ accumulator; the main kernel is persistent over (batch, head, key block of `block_n` rows) work
items, each walking the `block_m`-row Q tiles that see its keys; a postprocess kernel converts dQ to the input
dtype. Main kernel roles: load (1 warp: K_j, V_j once; per Q tile, Q_i and LSE_i into a 2-stage ring, dO_i and D_i
into a 1-stage one, FA4's `Q_stage` and `dO_stage`), mma (1 warp), compute (8 warps: P and dS), dq (4 warps),
epilogue (4 warps). Five MMAs per Q tile:
  S^T = K Q_i^T      SS                 dP^T = V dO_i^T    SS
  dV += P^T dO_i     TS (P^T in TMEM)   dK += dS^T Q_i     TS (dS^T in TMEM)
  dQ_i = dS K        SS (dS written to smem by the compute warps)
issued in FA4's 1-CTA order: S(i), then dK(i-1) and dQ(i-1) while the compute warps turn S(i) into P(i), then dP(i)
and dV(i) while they turn dP(i) into dS(i); dK and dQ of the last Q tile close the item. Q_i's buffer is free once
dK(i) has read it, dO_i's once dV(i) has. TMEM: S/P, dP/dS, dV, dK take 4 x 128 columns; dQ_i is accumulated over
dP's columns (FA4's `tmem_dQ_offset = tmem_dP_offset`), so dP(i+1) waits until the dq warps have drained dQ_i.
With `two_cta`, FA4's 2-CTA kernel (d <= 128): the pair's MMAs split their query-side B operand by rows for S^T and
dP^T and by columns for dK and dV, so the load warp brings, into one buffer each, half of Q_i's rows (with LSE_i),
half of dO_i's rows (with D_i), half of Q_i's columns and half of dO_i's columns (FA4's load order), and K once
more, split by columns, for dQ. The MMA order is S(i), dK(i-1), dP(i), dQ(i-1), dV(i): dQ(i-1) waits until both
CTAs' halves of dS(i-1) have been exchanged, and dK(i-1) only for dS^T in TMEM. dQ's TMEM columns overlap S's, so
S(i+1) waits until the dq warps have drained dQ(i-1). The buffers of the rows are free once S^T(i) and dP^T(i) have
read them, those of the columns once dK(i) and dV(i) have. One thread of the leader CTA issues each MMA for the
pair (`cta_group::2`): each CTA is simulated as the same symmetric program, its pair MMAs cost it half the pair's
issue slots (`Mma.b_share`), and the barriers the MMA warp waits on take the peer's arrivals one SM-to-SM trip late
(`BarrierSpec.cluster`, the arch's `dsmem.latency_cycles`). The dq warps load their share of dQ_i (fp32) from TMEM
into registers and release TMEM, then stage it in smem chunk by chunk (FA-repo `dQacc_reduce`: chunks of 32
columns through 2 smem buffers, `_dq_staging`; the chunks save FA4 the 32 KiB that hold its second Q buffer); a TMA
reduce-add adds each chunk to the accumulator in HBM/L2 (fp32 atomics) as soon as it is written, and the TMA's smem
read is charged to the port. A buffer is reused once its add has read it (FA's
`cp_async_bulk_wait_group(stages - 1, read=True)`; the role's own Smem read op stands for that read);
deterministic, once its add has completed (`read=False`), waited for `stages - 1` chunks later.
`two_cta` (needs clusters): pairs of CTAs on adjacent key blocks; each CTA sends half of its dS to its peer
through DSMEM (an smem read at the sender and an smem write at the receiver: both directions charged to every
CTA), and the pair reduces dQ_i in its MMA, so each CTA stages and adds only half of dQ_i's rows.
`deterministic` (FA-repo `dQacc_reduce` with its delayed release, and `SingleTileLPTBwdScheduler`): the adds into
each dQ_i happen in a fixed order of key blocks, kept by a semaphore per dQ_i (per half of dQ_i with `two_cta`) in
global memory (`Load.acquire` / `Store.release`, `simgpu.engine`). Before adding dQ_i the dq warps spin until the
CTAs of the key blocks before theirs have released it (a spin before the first chunk's add); they release dQ_i
once all its chunks' adds have completed, which they know after issuing the first chunk of dQ_(i+1) (FA's delayed
release), and the last one at the end of the item.
Key block j's place in the order of dQ_i is the number of key blocks that add into dQ_i and come before j in the
tile queue, so the order follows the launch order and every wait ends.
Backward tile order (FA-repo `flash_bwd_sm100.py`): by default key block fastest, then head, then batch (FA4's
`SingleTileScheduler`; causal key blocks then come longest first within each head). `lpt` and `deterministic` take
the sectioned order of `SingleTileLPTBwdScheduler` (sections of heads filling `L2_SECTION_BYTES` with Q, dO and the
fp32 dQ accumulator, key blocks outermost): with `lpt` longest first; deterministic, when causal, shortest first
(FA's `spt`), whatever `lpt` says.

IO (HBM/L2) by the loop structure: forward Q once, K and V once per visited block, O and LSE once; backward K and
V once per key block, Q, dO, LSE and D once per visited (key block, Q tile), dQ atomics once per such pair.
Varlen batches (`Problem.seqlens`): each sequence's work items, in the forward and in the backward's three kernels,
are those of a batch of one sequence of its length, and the sequences run in turn (FA-repo
`SingleTileVarlenScheduler`), each in the order above; tiles and memory keys begin (head, batch), so that fast
mode's heads stay alike. The forward's rescaled share is measured per length. Ignored: FA4's varlen scheduler's cap
of 16 heads per section.

Ignored: FP8's V transpose, non-persistent launches (FA4's causal forward and its backward launch one CTA
per tile in the same order: the persistent queue overlaps one tile's epilogue with the next one's loads), and the
order of semaphore waits in fast mode (representative SMs do not see the other CTAs: `simgpu.engine`; the
deterministic backward's waits need exact mode). (2-CTA MMAs split their shared B operand between the pair:
`Mma.b_share`.)
"""

from __future__ import annotations

import bisect
from collections.abc import Callable, Hashable, Sequence
from dataclasses import dataclass
from functools import cache
from typing import Any

from algorithms._schedule.exp2 import EXPONENT_INSERT_ALU, fma_per_exp2
from algorithms._schedule.tiling import (
    MEMORY_AXES,
    ceil_div,
    first_query_block,
    key_blocks,
    rows_in_block,
    sequence,
    sequence_order,
    split_tile,
    tile_axes,
    tile_key,
)
from simgpu.arch import Arch
from simgpu.errors import OptionError, ProblemError
from simgpu.kernel import BarrierSpec, CtaResources, Kernel, Role, TileGrid
from simgpu.ops import Advance, Arrive, Load, Mma, Op, Repeat, Smem, Store, Tmem, Vector, Wait
from simgpu.problem import Problem

PROBLEM = "attention"
VARLEN = True
OPTIONS: dict[str, Any] = {
    "block_m": None,
    "block_n": None,
    "stages": None,
    "two_cta": False,
    "lpt": None,
    "deterministic": False,
    "exp_emulation_fraction": None,
    "exp_poly_degree": 3,
    "rescale_threshold": None,
    "rescale_fraction": None,
}

TCGEN05_M = 128  # rows of one 1-CTA tcgen05 MMA: one Q tile per softmax warpgroup
Q_TILES = 2  # Q tiles per forward CTA (ping-pong)
WARPGROUP = 4
ACC_BYTES = 4  # fp32 accumulators and statistics
SAMPLE_KEYS = 2048  # keys of the numerics sample that measures the rescale fraction
SAMPLE_ROWS = Q_TILES * TCGEN05_M
# A softmax thread walks its row in chunks of 32 columns (tcgen05.ld/st 32x32b.x32): exps of one chunk, then its P.
SOFTMAX_CHUNKS = 4
SEMAPHORE_BYTES = 4  # one int32 per dQ_i (FA-repo `dQ_semaphore`)
# FA4's deterministic backward scheduler groups heads so that their Q, dO and dQ accumulator fill this much of L2
# (FA-repo `SingleTileLPTBwdScheduler`: `size_l2 = 50 * 1024 * 1024`): a constant of the schedule, not of the chip.
L2_SECTION_BYTES = 50 * 1024 * 1024


@dataclass(frozen=True)
class Config:
    block_m: int
    block_n: int
    stages: int | None
    two_cta: bool
    lpt: bool | None  # None: the pass's own default (see `config`)
    deterministic: bool
    exp_emulation_fraction: float
    exp_poly_degree: int
    rescale_threshold: float
    rescale_fraction: float | None


def config(problem: Problem, options: dict[str, Any]) -> Config:
    """Options with FA4's defaults: 128 x 128 tiles, 25% software exp2 (`algorithms.v4.numerics`), tau = 8 for
    16-bit inputs and 0 for FP8 (FA4's configs); `lpt` left at None means on for a causal forward, off otherwise
    (FA4's forward and non-deterministic backward schedulers)."""
    from algorithms.v4.numerics import DEFAULT_EXP_EMULATION_FRACTION

    defaults = {
        "block_m": TCGEN05_M,
        "block_n": 128,
        "exp_emulation_fraction": DEFAULT_EXP_EMULATION_FRACTION,
        "rescale_threshold": 0.0 if problem.dtype == "fp8" else 8.0,
    }
    values = {**OPTIONS, **defaults}
    values.update({k: v for k, v in options.items() if v is not None})
    for name in ("block_m", "block_n", "exp_poly_degree", *(("stages",) if values["stages"] is not None else ())):
        value = values[name]
        if isinstance(value, bool) or not isinstance(value, int) or value <= 0:
            raise OptionError(f"v4 option {name} must be a positive integer, got {value!r}")
    for name in ("two_cta", "lpt", "deterministic"):
        if not isinstance(values[name], bool) and not (name == "lpt" and values[name] is None):
            raise OptionError(f"v4 option {name} must be true or false, got {values[name]!r}")
    for name, low, high in (("exp_emulation_fraction", 0, 1), ("rescale_threshold", 0, 64), ("rescale_fraction", 0, 1)):
        value = values[name]
        if value is None and name == "rescale_fraction":
            continue
        if isinstance(value, bool) or not isinstance(value, (int, float)) or not low <= value <= high:
            raise OptionError(f"v4 option {name} must be a number in [{low}, {high}], got {value!r}")
    cfg = Config(**values)
    if cfg.block_m != TCGEN05_M:
        raise OptionError(f"v4: block_m must be {TCGEN05_M} (one 1-CTA tcgen05 M per Q tile), got {cfg.block_m}")
    if cfg.block_n % 16 or cfg.block_n > 256:
        raise OptionError(f"v4: block_n ({cfg.block_n}) must be a multiple of 16 up to 256 (tcgen05 N)")
    if problem.headdim % 16 or problem.headdim > 256:
        raise ProblemError(f"v4: headdim must be a multiple of 16 up to 256, got {problem.headdim}")
    return cfg


def check_arch(arch: Arch, two_cta: bool) -> None:
    missing = [name for name in ("tma", "tcgen05", "tmem") if not getattr(arch.features, name)]
    if two_cta and not arch.features.clusters:
        missing.append("clusters")
    if two_cta and arch.dsmem is None:
        missing.append("a dsmem section (the SM-to-SM network that exchanges dS)")
    if missing or arch.tensor_core.instruction != "tcgen05":
        lacking = ", ".join(missing) or "its tensor cores are not tcgen05"
        raise OptionError(
            f"v4 needs TMA, tcgen05 and Tensor Memory{' and clusters' if two_cta else ''}, which {arch.name} lacks "
            f"({lacking}); for a what-if, give the arch `tma:` and `tmem:` sections, set features.tma=true, "
            "features.tcgen05=true, features.tmem=true and tensor_core.instruction=tcgen05 (with tcgen05's "
            "instruction shape: instruction_m=128, instruction_n_max=256)"
        )


def schedule(arch: Arch, problem: Problem, **options: Any) -> tuple[Kernel, ...]:
    cfg = config(problem, options)
    check_arch(arch, cfg.two_cta and problem.pass_ != "fwd")
    kernels: list[Kernel] = []
    if problem.pass_ in ("fwd", "fwd_bwd"):
        kernels.append(forward_kernel(arch, problem, cfg))
    if problem.pass_ in ("bwd", "fwd_bwd"):
        kernels += backward_kernels(problem, cfg)
    return tuple(kernels)


@cache
def measured_rescale_fraction(headdim: int, keys: int, causal: bool, block_n: int, tau: float) -> float:
    """Share of (block, warp) rescale decisions that rescale, from the v4 numerics on random N(0, 1) inputs."""
    import ml_dtypes
    import numpy as np

    from algorithms.v4.numerics import forward

    rng = np.random.default_rng(0)
    q = rng.standard_normal((1, 1, SAMPLE_ROWS, headdim)).astype(ml_dtypes.bfloat16)  # (1, 1, 256, d)
    k = rng.standard_normal((1, 1, keys, headdim)).astype(ml_dtypes.bfloat16)  # (1, 1, keys, d)
    v = rng.standard_normal((1, 1, keys, headdim)).astype(ml_dtypes.bfloat16)  # (1, 1, keys, d)
    stats = forward(q, k, v, causal, block_n=block_n, rescale_threshold=tau, return_stats=True)[-1]
    decisions = stats.rescales_performed + stats.rescales_skipped
    return stats.rescales_performed / decisions if decisions else 0.0


def _rescale_fraction(problem: Problem, cfg: Config) -> float:
    if cfg.rescale_fraction is not None:
        return float(cfg.rescale_fraction)
    if problem.nk <= cfg.block_n:  # one key block: nothing is ever rescaled
        return 0.0
    keys = min(problem.nk, SAMPLE_KEYS)
    return measured_rescale_fraction(problem.headdim, keys, problem.causal, cfg.block_n, float(cfg.rescale_threshold))


def _default_stages(arch: Arch, fixed_smem: int, slot_bytes: int) -> int:
    """As many K/V ring slots as fit next to the fixed buffers (at least 2: K_j and V_j)."""
    return max(2, (arch.smem.per_cta_bytes - fixed_smem) // slot_bytes)


def forward_kernel(arch: Arch, problem: Problem, cfg: Config) -> Kernel:
    d, eb = problem.headdim, problem.element_bytes
    r, c = cfg.block_m, cfg.block_n
    f_emu = float(cfg.exp_emulation_fraction)
    fma_emu = fma_per_exp2(cfg.exp_poly_degree)
    fixed_smem = 2 * Q_TILES * r * d * eb  # Q_0, Q_1 and the O staging of both tiles
    stages = cfg.stages or _default_stages(arch, fixed_smem, c * d * eb)

    @cache  # asked by each of the six roles of a work item, and again by each fold of it
    def visits(tile: Hashable) -> tuple[int, int, int, tuple[int, ...], Any]:
        """(b, h, first Q tile, rows of each present Q tile, key blocks of the item's rows)."""
        b, h, p = split_tile(problem, tile)
        seq, first = sequence(problem, b), p * Q_TILES
        n_q_tiles = ceil_div(seq.seqlen_q, r)
        rows = tuple(rows_in_block(seq.seqlen_q, r, first + t) for t in range(min(Q_TILES, n_q_tiles - first)))
        return b, h, first, rows, key_blocks(seq, first * r, sum(rows), c)

    def kv_bytes(b: int, j: int) -> int:
        return rows_in_block(sequence(problem, b).nk, c, j) * d * eb

    @cache
    def cursor(ring: str, steps: int) -> tuple[Op, ...]:
        """`steps` advances of `ring`: one op, made once per kernel (the roles' loop bodies ask for thousands)."""
        return (Advance((ring,)),) * steps

    def key(b: int, h: int, index: int) -> tuple[int, ...]:
        return tile_key(problem, b, h, index)

    # A key block's loads name no work item: built once per (batch, head, key block) and shared by the items of the
    # head that visit it (fast mode's replay builds them for every item it folds: 512 a head at 128k tokens).
    @cache
    def kv_step(b: int, h: int, j: int) -> tuple[Op, ...]:
        return (
            Wait("kv_empty"), Load("K", key(b, h, j), kv_bytes(b, j), arrive="kv_full"),
            Advance(("kv_empty", "kv_full")),
            Wait("kv_empty"), Load("V", key(b, h, j), kv_bytes(b, j), arrive="kv_full"),
            Advance(("kv_empty", "kv_full")),
        )  # fmt: skip

    def load(tile: Hashable) -> Sequence[Op]:
        b, h, first, rows, keys = visits(tile)

        def step(j: int) -> Sequence[Op]:
            return kv_step(b, h, j)

        q_loads = [Load("Q", key(b, h, first + t), n * d * eb, arrive=("q_full", t)) for t, n in enumerate(rows)]
        return (Wait("q_empty"), *q_loads, Advance(("q_empty",)), Repeat(keys.visited, step))

    s_args = (r, c, d, problem.dtype)  # S_t = Q_t K_j^T: 2 r c d FLOPs; smem reads Q_t (r d) + K_j (c d) elements
    pv_args = (r, d, c, problem.dtype)  # O_t += P_t V_j: 2 r d c FLOPs; P_t from TMEM, smem reads V_j (c d)

    def mma(tile: Hashable) -> Sequence[Op]:
        _, _, _, rows, keys = visits(tile)
        n, tiles = keys.visited, range(len(rows))
        q_waits = tuple(Wait(("q_full", t)) for t in tiles)
        if not n:
            return q_waits
        s = [Mma(*s_args, acc="tmem", arrive=f"s_full{t}") for t in tiles]
        pv = [Mma(*pv_args, a="tmem", acc="tmem", arrive=f"pv_done{t}") for t in tiles]

        def body(more: bool) -> tuple[Op, ...]:
            """A block's MMAs, and with `more` the next block's S."""
            ops: list[Op] = []
            for t in tiles:
                ops += [Wait(f"p_full{t}"), Wait(f"o_ready{t}")]
                ops += [Wait("kv_full@v")] if t == 0 else []
                ops.append(pv[t])
                if more:
                    ops += [Wait("kv_full@k")] if t == 0 else []
                    ops.append(s[t])
            return (*ops, *cursor("kv_full@v", 2), *(cursor("kv_full@k", 2) if more else ()))

        # Every block but the last issues the next S: two bodies, made once per work item (blocks ask thousands).
        inner, last_block = body(True), body(False)

        def step(j: int) -> Sequence[Op]:
            return inner if j + 1 < n else last_block

        return (
            *q_waits, Wait("kv_full@k"), *s, *cursor("kv_full@k", 2), *cursor("kv_full@v", 1),
            Repeat(n, step), *cursor("kv_full@v", stages - 1),
        )  # fmt: skip

    def softmax(t: int) -> Role:
        def program(tile: Hashable) -> Sequence[Op]:
            _, _, _, rows, keys = visits(tile)
            n = keys.visited
            releases = t == len(rows) - 1  # the last Q tile's S_t(j) is the last reader of K_j and of Q
            if t >= len(rows):  # no second Q tile in this item: keep the K-release cursor in step
                return cursor("kv_empty@k", 2 * n)
            if not n:
                return (Arrive("q_empty"),) if releases else ()
            scores = r * c
            part = scores / SOFTMAX_CHUNKS
            emulated = f_emu * part

            def chunks(masked: bool) -> tuple[Op, ...]:
                # Per score: FFMA (scale, subtract max), exp2, FADD (row sum), half an F2FP; the mask adds a compare
                # and a select; each emulated exp2 adds its ALU ops (its FMA ops come with the Vector). Then P, in
                # the input dtype, over S's columns in TMEM.
                vector = Vector(
                    fma=2 * part,
                    alu=0.5 * part + (2 * part if masked else 0) + EXPONENT_INSERT_ALU * emulated,
                    ex2=part,
                    emulated_fraction=f_emu,
                    fma_per_emulated=fma_emu,
                )
                return (vector, Tmem(write_bytes=part * eb)) * SOFTMAX_CHUNKS

            def step(j: int) -> Sequence[Op]:
                return block(j >= keys.unmasked, j == 0, j == n - 1)

            # A block's ops depend on whether it is masked, the first, the last: each form made once per work item.
            @cache
            def block(masked: bool, first_block: bool, last_block: bool) -> tuple[Op, ...]:
                release = (Arrive("kv_empty@k"),) if releases else ()
                release_q = (Arrive("q_empty"),) if releases and last_block else ()
                return (
                    Wait(f"s_full{t}"), *release, *release_q, *cursor("kv_empty@k", 2),
                    Tmem(read_bytes=scores * ACC_BYTES),  # S_t: r x c fp32 from TMEM
                    # Row max (one FMNMX per score) and, after the first block, the rescale factor exp2 and the
                    # running sum's update per row.
                    Vector(alu=scores, fma=0 if first_block else 2 * r, ex2=0 if first_block else r),
                    *(() if first_block else (Arrive(f"scale{t}"),)),
                    *chunks(masked),
                    Arrive(f"p_full{t}"),
                )  # fmt: skip

            return (Repeat(n, step),)

        return Role(f"softmax{t}", WARPGROUP, program)

    o_tile = r * d * ACC_BYTES  # one O accumulator in TMEM

    def correction(tile: Hashable) -> Sequence[Op]:
        b, _, _, rows, keys = visits(tile)
        n, tiles = keys.visited, range(len(rows))
        f_rescale = _rescale_fraction(sequence(problem, b), cfg)
        last = len(rows) - 1
        if not n:
            return ()

        # Block j >= 1: rescale O_t after PV_t(j - 1); the same ops in every block, made once per work item.
        rescales: list[Op] = []
        for t in tiles:
            rescales += [Wait(f"scale{t}"), Wait(f"pv_done{t}")]
            rescales += [Arrive("kv_empty@v"), *cursor("kv_empty@v", 2)] if t == last else []
            rescales += [
                Tmem(read_bytes=f_rescale * o_tile),
                Vector(fma=f_rescale * r * d),  # O_t rows times their scale (FMUL)
                Tmem(write_bytes=f_rescale * o_tile),
                Arrive(f"o_ready{t}"),
            ]

        def block(j: int) -> Sequence[Op]:
            return list(rescales)  # a list of its own per block, as each was built

        final: list[Op] = []
        for t in tiles:
            final += [Wait(f"pv_done{t}")]
            final += [Arrive("kv_empty@v"), *cursor("kv_empty@v", 2)] if t == last else []
            final += [
                Wait(f"o_empty{t}"),
                Tmem(read_bytes=o_tile),
                Arrive(f"o_ready{t}"),  # O_t's columns are free for the next item
                Vector(fma=r * d, ex2=2 * r),  # O / l (FMUL); 1 / l and log2(l) per row on MUFU
                Smem(write_bytes=rows[t] * d * eb),  # O_t staged in smem for the TMA store
                Arrive(f"o_staged{t}"),
            ]
        return (
            *cursor("kv_empty@v", 1), Repeat(n - 1, lambda i: block(i + 1)), *final,
            *cursor("kv_empty@v", stages - 1),
        )  # fmt: skip

    def epilogue(tile: Hashable) -> Sequence[Op]:
        b, h, first, rows, keys = visits(tile)
        ops: list[Op] = []
        for t, n_rows in enumerate(rows):
            if keys.visited:  # else no key is seen: O = 0 and LSE = -inf are written from registers
                ops += [Wait(f"o_staged{t}"), Smem(read_bytes=n_rows * d * eb), Arrive(f"o_empty{t}")]
            ops += [
                Store("O", key(b, h, first + t), n_rows * d * eb, engine="tma"),
                Store("LSE", key(b, h, first + t), n_rows * ACC_BYTES),
            ]
        return ops

    roles = (
        Role("load", 1, load),
        Role("mma", 1, mma),
        *(softmax(t) for t in range(Q_TILES)),
        Role("correction", WARPGROUP, correction),
        Role("epilogue", 1, epilogue),
    )
    barriers = [
        BarrierSpec("q_full", slots=Q_TILES),
        BarrierSpec("q_empty", initial_phases=1),
        BarrierSpec("kv_full", slots=stages),
        BarrierSpec("kv_empty", initial_phases=1, slots=stages),
    ]
    for t in range(Q_TILES):
        barriers += [BarrierSpec(f"s_full{t}"), BarrierSpec(f"p_full{t}"), BarrierSpec(f"pv_done{t}")]
        barriers += [BarrierSpec(f"scale{t}"), BarrierSpec(f"o_ready{t}", initial_phases=1)]
        barriers += [BarrierSpec(f"o_staged{t}"), BarrierSpec(f"o_empty{t}", initial_phases=1)]
    threads = 32 * sum(role.warps for role in roles)
    tiles = _forward_order(problem, cfg)
    return Kernel(
        name="v4_fwd",
        tiles=tiles,
        head_axes=tile_axes(problem),
        memory_axes=MEMORY_AXES,
        cta=CtaResources(
            threads,
            _registers(threads),
            fixed_smem + stages * c * d * eb,
            tmem_columns=Q_TILES * (c + d),  # per Q tile: S/P (c columns) and O (d columns), fp32 lanes
        ),
        roles=roles,
        barriers=tuple(barriers),
        persistent=True,
        # Without a mask the work items differ in their Q tiles' keys only, but the last one (one or a short Q tile).
        alike_but_edges=isinstance(tiles, TileGrid) and not problem.causal,
    )


def _forward_order(problem: Problem, cfg: Config) -> Sequence[tuple[int, ...]]:
    """The work items in launch order (module docstring; a varlen batch's sequences in turn)."""
    lpt = problem.causal if cfg.lpt is None else cfg.lpt
    d, eb = problem.headdim, problem.element_bytes

    def items(seq: Problem) -> int:
        return ceil_div(ceil_div(seq.seqlen_q, cfg.block_m), Q_TILES)

    def kv_bytes(seq: Problem) -> int:  # K and V of a section's heads stay in L2 while its items pass
        return seq.nk * 2 * d * eb

    # Later items see more keys: `lpt` takes them first.
    sections = kv_bytes if problem.causal or lpt else None
    return _launch_order(problem, items, sections, lpt)


def backward_kernels(problem: Problem, cfg: Config) -> tuple[Kernel, Kernel, Kernel]:
    return (_preprocess_kernel(problem, cfg), _backward_kernel(problem, cfg), _postprocess_kernel(problem, cfg))


def _q_tiles(problem: Problem, cfg: Config) -> Sequence[tuple[int, ...]]:
    """The preprocess and postprocess kernels' tiles, (b, h, i) as `tile_key` names them, in launch order."""
    if problem.seqlens is None:  # a dense grid: not built tile by tile (long sequences have tens of thousands)
        return TileGrid((problem.batch, problem.heads, ceil_div(problem.seqlen_q, cfg.block_m)))
    tiles = []
    for b in range(problem.batch):
        n_q = ceil_div(sequence(problem, b).seqlen_q, cfg.block_m)
        tiles += [tile_key(problem, b, h, i) for h in range(problem.heads) for i in range(n_q)]
    return tuple(tiles)


def _q_tile(problem: Problem, cfg: Config, tile: Hashable) -> tuple[int, int, int, int]:
    """(b, h, i, rows) of a preprocess or postprocess tile."""
    b, h, i = split_tile(problem, tile)
    return b, h, i, rows_in_block(sequence(problem, b).seqlen_q, cfg.block_m, i)


def _preprocess_kernel(problem: Problem, cfg: Config) -> Kernel:
    """D_i = rowsum(dO_i * O_i) (d FFMA per row) and a zeroed fp32 dQ accumulator, per Q tile."""
    d, eb = problem.headdim, problem.element_bytes

    def program(tile: Hashable) -> Sequence[Op]:
        b, h, i, rows = _q_tile(problem, cfg, tile)
        key = tile_key(problem, b, h, i)
        return (
            Load("O", key, rows * d * eb, engine="ldg"),
            Load("dO", key, rows * d * eb, engine="ldg"),
            Vector(fma=rows * d),
            Store("D", key, rows * ACC_BYTES),
            Store("dQaccum", key, rows * d * ACC_BYTES),
        )

    return Kernel(
        name="v4_bwd_preprocess",
        tiles=_q_tiles(problem, cfg),
        head_axes=tile_axes(problem),
        memory_axes=MEMORY_AXES,
        alike_but_edges=True,  # Q tiles differ in their keys but the last one of a sequence (short)
        cta=CtaResources(128, 64, 0),
        roles=(Role("preprocess", WARPGROUP, program),),
    )


def _postprocess_kernel(problem: Problem, cfg: Config) -> Kernel:
    """dQ = scale * dQaccum, converted to the input dtype, per Q tile."""
    d, eb = problem.headdim, problem.element_bytes

    def program(tile: Hashable) -> Sequence[Op]:
        b, h, i, rows = _q_tile(problem, cfg, tile)
        key = tile_key(problem, b, h, i)
        return (
            Load("dQaccum", key, rows * d * ACC_BYTES, engine="ldg"),
            Vector(fma=rows * d, alu=0.5 * rows * d),
            Store("dQ", key, rows * d * eb),
        )

    return Kernel(
        name="v4_bwd_postprocess",
        tiles=_q_tiles(problem, cfg),
        head_axes=tile_axes(problem),
        memory_axes=MEMORY_AXES,
        alike_but_edges=True,  # Q tiles differ in their keys but the last one of a sequence (short)
        cta=CtaResources(128, 64, 0),
        roles=(Role("postprocess", WARPGROUP, program),),
    )


def _backward_kernel(problem: Problem, cfg: Config) -> Kernel:
    d, eb = problem.headdim, problem.element_bytes
    r, c = cfg.block_m, cfg.block_n  # Q tile rows, key block rows (the M of the KV-side MMAs)

    def q_tiles(b: int) -> int:
        return ceil_div(sequence(problem, b).seqlen_q, r)

    # FA4's rings (`Q_stage`, `dO_stage`): 1-CTA, Q_i (with LSE_i) double-buffered and dO_i (with D_i) single; 2-CTA,
    # one buffer each for the rows and for the columns of Q_i and of dO_i.
    q_stages = 1 if cfg.two_cta else 2
    dq_share = 2 if cfg.two_cta else 1  # a 2-CTA pair reduces dQ_i in its MMA: each CTA adds half of the rows
    dq_columns, dq_buffers = _dq_staging(cfg)
    dq_chunks = ceil_div(d // dq_share, dq_columns)

    def visits(tile: Hashable) -> tuple[int, int, int, int]:
        b, h, j = split_tile(problem, tile)
        return b, h, j, first_query_block(sequence(problem, b), j * c, r)

    def masked(b: int, j: int, i: int) -> bool:
        seq = sequence(problem, b)
        return seq.causal and i * r + (seq.nk - seq.seqlen_q) < (j + 1) * c - 1

    # A Q tile's loads, the same for every key block that visits it: built once per (batch, head, Q tile) and shared
    # (ops are frozen values; long sequences fold thousands of key blocks).
    q_loads: dict[tuple[int, int, int], tuple[Op, ...]] = {}

    @cache
    def loads(b: int, h: int, start: int) -> Callable[[int], Sequence[Op]]:
        """The load warp's loop body of the key blocks of (b, h) whose Q tiles start at `start`, each step found once
        and shared by those key blocks: fast mode's L2 replay folds hundreds of a long sequence's key blocks, each
        asking for the same steps."""

        @cache
        def step(k: int) -> Sequence[Op]:
            i = start + k
            ops = q_loads.get((b, h, i))
            if ops is None:
                ops = q_loads[b, h, i] = q_load(b, h, i)
            return ops

        return step

    def q_load(b: int, h: int, i: int) -> tuple[Op, ...]:
        rows = rows_in_block(sequence(problem, b).seqlen_q, r, i)
        key = tile_key(problem, b, h, i)
        if cfg.two_cta:  # FA4's 2-CTA order [LSE | Q | D | dO^T | Q^T | dO], each a half of the pair's operand
            half = rows * d * eb // 2
            return (
                Wait("q_empty"),
                Load("LSE", key, rows * ACC_BYTES, arrive="q_full"),
                Load("Q", key, half, arrive="q_full"),  # rows of Q_i for S^T
                Wait("do_empty"),
                Load("D", key, rows * ACC_BYTES, arrive="do_full"),
                Load("dO", key, half, arrive="do_full"),  # rows of dO_i for dP^T
                Wait("qt_empty"),
                Load("Q", key, half, arrive="qt_full"),  # columns of Q_i for dK
                Wait("dov_empty"),
                Load("dO", key, half, arrive="dov_full"),  # columns of dO_i for dV
            )
        return (
            Wait("q_empty"),
            Load("Q", key, rows * d * eb, arrive="q_full"),
            Load("LSE", key, rows * ACC_BYTES, arrive="q_full"),
            Advance(("q_empty", "q_full")),
            Wait("do_empty"),
            Load("dO", key, rows * d * eb, arrive="do_full"),
            Load("D", key, rows * ACC_BYTES, arrive="do_full"),
            Advance(("do_empty", "do_full")),
        )

    def load(tile: Hashable) -> Sequence[Op]:
        b, h, j, start = visits(tile)
        kv = rows_in_block(sequence(problem, b).nk, c, j) * d * eb
        key = tile_key(problem, b, h, j)
        # 2-CTA: K again, split by columns across the pair, as the dQ MMA's B operand (FA4's `Kt`).
        k_t = (Load("K", key, kv, arrive="kv_full"),) if cfg.two_cta else ()
        return (
            Wait("kv_empty"),
            Load("K", key, kv, arrive="kv_full"),
            Load("V", key, kv, arrive="kv_full"),
            *k_t,
            Repeat(q_tiles(b) - start, loads(b, h, start)),
        )

    # FLOPs: 2 c r d each for S^T, dP^T, dV, dK and dQ_i (5 x 2 r c d = 2.5 x the forward's 4 r c d).
    # With two_cta, the pair's 256-row MMAs share the query-side operand (Q_i or dO_i): each CTA's smem holds and
    # supplies half of it (b_share=2).
    pair = 2 if cfg.two_cta else 1
    s_t = Mma(c, r, d, problem.dtype, acc="tmem", arrive="s_full", b_share=pair)  # smem: K (c d) + Q_i (r d)
    dp_t = Mma(c, r, d, problem.dtype, acc="tmem", arrive="dp_full", b_share=pair)  # smem: V (c d) + dO_i (r d)
    # P^T from TMEM; smem: dO_i (r d), whose buffer is free once this MMA has read it.
    dv = Mma(
        c, d, r, problem.dtype, a="tmem", acc="tmem", arrive="dov_empty" if cfg.two_cta else "do_empty", b_share=pair
    )
    dk = Mma(c, d, r, problem.dtype, a="tmem", acc="tmem", b_share=pair)  # dS^T from TMEM; smem: Q_i (r d)
    dk_last = Mma(c, d, r, problem.dtype, a="tmem", acc="tmem", arrive="dkv_full", b_share=pair)
    dq = Mma(r, d, c, problem.dtype, acc="tmem", arrive="dq_full")  # smem: dS (r c) + K (c d)

    # The MMA warp's steps depend on whether they are a work item's first only: each built once, shared by every
    # item (fast mode's L2 replay folds hundreds of a long sequence's key blocks).
    @cache
    def mma_step(first: bool) -> tuple[Op, ...]:
        # FA4's main loop: S(k), then dK and dQ of the previous Q tile (the compute warps meanwhile turn S(k)
        # into P(k)), then dP(k) once the dq warps have drained dQ(k-1) from dP's columns, then dV(k).
        previous = () if first else (Wait("ds_full"), dk, dq)
        return (
            Wait("q_full"), s_t, Advance(("q_full",)),
            *previous,
            Wait("do_full"), Advance(("do_full",)), Wait("dq_empty"), dp_t,
            Wait("p_full"), *((Wait("dkv_empty"),) if first else ()), dv,
        )  # fmt: skip

    def mma_body(k: int) -> Sequence[Op]:
        return mma_step(k == 0)

    def mma(tile: Hashable) -> Sequence[Op]:
        b, *_, start = visits(tile)
        n = q_tiles(b) - start
        if not n:
            return (Wait("kv_full"),)
        return (Wait("kv_full"), Repeat(n, mma_body), Wait("ds_full"), dk_last, dq)

    # FA4's 2-CTA main loop (d <= 128): S(k), dK(k-1), dP(k), then dQ(k-1) once both CTAs' halves of dS(k-1) have
    # been exchanged, then dV(k); dK and dQ of the last Q tile close the item. dQ's TMEM columns overlap S's
    # (FA4's `tmem_dQ_offset = tmem_S_offset + d / 2`), so S(k) waits until the dq warps have drained dQ(k-2).
    # One thread of the leader CTA issues each MMA for the pair; the barriers it waits on are cluster barriers.
    # Its steps, as the 1-CTA loop's, each built once.
    @cache
    def pair_step(first: bool) -> tuple[Op, ...]:
        previous = () if first else (Wait("qt_full"), Wait("dst_full"), dk)
        return (
            Wait("q_full"), *(() if first else (Wait("dq_empty"),)), s_t,
            *previous,
            Wait("do_full"), dp_t,
            *(() if first else (Wait("ds_full"), dq)),
            Wait("dov_full"), Wait("p_full"), *((Wait("dkv_empty"),) if first else ()), dv,
        )  # fmt: skip

    def pair_body(k: int) -> Sequence[Op]:
        return pair_step(k == 0)

    def mma_two_cta(tile: Hashable) -> Sequence[Op]:
        b, *_, start = visits(tile)
        n = q_tiles(b) - start
        if not n:
            return (Wait("kv_full"),)
        return (
            Wait("kv_full"), Repeat(n, pair_body),
            Wait("qt_full"), Wait("dst_full"), dk_last, Wait("ds_full"), Wait("dq_empty"), dq,
        )  # fmt: skip

    scores = r * c
    # dS is ready for the dQ MMA once written (1-CTA), or once the DSMEM copy of half of it to the peer CTA (FA4's
    # `cpasync_bulk_s2cluster` from `sdS_xchg`, completing on the pair's mbarrier) has landed: an smem read at the
    # sender and a write at the receiver, both charged to every CTA (the pair is symmetric), and the half crossing
    # the SM-to-SM network (the arch's `dsmem` link and latency). The compute warps issue the copy and go on.
    if cfg.two_cta:
        half_ds = scores * eb / 2
        ds_ready: tuple[Op, ...] = (
            Smem(read_bytes=half_ds, write_bytes=half_ds, dsmem_bytes=half_ds, arrive="ds_full"),
        )
    else:
        ds_ready = (Arrive("ds_full"),)

    # 2-CTA: the Q_i rows' buffer is free once S^T has read it, that of dO_i's rows once dP^T has; dK may start
    # once dS^T is in TMEM, dQ only once dS has been exchanged.
    s_read = (Arrive("q_empty"),) if cfg.two_cta else ()
    dp_read = (Arrive("do_empty"),) if cfg.two_cta else ()
    ds_t_written = (Arrive("dst_full"),) if cfg.two_cta else ()

    @cache
    def compute_step(is_masked: bool) -> tuple[Op, ...]:
        """A Q tile's compute ops, which name no tile: built once (long sequences fold thousands of tiles)."""
        mask = 2 * scores if is_masked else 0
        return (
            Wait("s_full"),
            *s_read,
            Tmem(read_bytes=scores * ACC_BYTES),
            Vector(fma=scores, alu=0.5 * scores + mask, ex2=scores),  # P = exp2(S scale - LSE), to 16 bits
            Tmem(write_bytes=scores * eb),  # P^T for the dV MMA
            Arrive("p_full"),
            Wait("dp_full"),
            *dp_read,
            Tmem(read_bytes=scores * ACC_BYTES),
            Vector(fma=2 * scores, alu=0.5 * scores),  # dS = P (dP - D), to 16 bits
            Tmem(write_bytes=scores * eb),  # dS^T for the dK MMA
            *ds_t_written,
            Wait("ds_empty"),
            Smem(write_bytes=scores * eb),  # dS for the dQ MMA's A operand
            *ds_ready,
        )

    @cache
    def computes(b: int, j: int, start: int) -> Callable[[int], Sequence[Op]]:
        """The compute warps' loop body of the key blocks of batch b whose Q tiles start at `start` (`j`, the key
        block, matters only to a causal mask: 0 without one), each step found once and shared by those key blocks
        (as the load warp's, `loads`)."""

        @cache
        def step(k: int) -> Sequence[Op]:
            return compute_step(masked(b, j, start + k))

        return step

    def compute(tile: Hashable) -> Sequence[Op]:
        b, _, j, start = visits(tile)
        return (Repeat(q_tiles(b) - start, computes(b, j if problem.causal else 0, start)),)

    tiles = _backward_order(problem, cfg)
    # Deterministic dQ: per sequence and key block, the first Q tiles of the key blocks that come before it in the
    # queue and add into the same half of dQ (every head's blocks come in the same order), sorted. Only the
    # deterministic adds read them: not found otherwise (a scan of every tile, 12 ms at 128k tokens).
    earlier_starts: dict[int, dict[int, list[int]]] = {}  # per sequence (one entry unless varlen)
    for b in (range(problem.batch) if problem.seqlens is not None else (0,)) if cfg.deterministic else ():
        mine = [tile for tile in tiles if split_tile(problem, tile)[0] == b]
        head_order = [tile[-1] for tile in mine if tile[:2] == mine[0][:2]]
        ahead: dict[int, list[int]] = {}  # per half of dQ: the first Q tiles of the key blocks so far, sorted
        per_block = earlier_starts[b] = {}
        for j in head_order:
            half = ahead.setdefault(j % dq_share, [])
            per_block[j] = list(half)
            bisect.insort(half, first_query_block(sequence(problem, b), j * c, r))

    def dq_semaphore(b: int, h: int, i: int, j: int) -> tuple[str, tuple[int, ...]]:
        return "dQ_semaphore", tile_key(problem, b, h, i, j % dq_share)

    # A Q tile's ops of the dq warps that name no tile, built once (long sequences fold thousands of Q tiles): dQ_i
    # taken from TMEM, and per row count the staging buffer's write and read of a chunk of fp32 columns of this CTA's
    # share of dQ_i.
    dq_taken: tuple[Op, ...] = (
        Wait("dq_full"),
        Arrive("ds_empty"),  # the dQ MMA has read dS
        # ... and dK before it has read Q_i (2-CTA: the Q_i columns' buffer; its rows' went after S^T)
        *((Arrive("qt_empty"),) if cfg.two_cta else (Arrive("q_empty"), Advance(("q_empty",)))),
        Tmem(read_bytes=r * d * ACC_BYTES / dq_share),  # all of this CTA's dQ_i into registers
        Arrive("dq_empty"),
    )

    @cache
    def dq_staging(rows: int) -> tuple[Smem, Smem]:
        chunk = rows * d * ACC_BYTES / dq_share / dq_chunks
        return Smem(write_bytes=chunk), Smem(read_bytes=chunk)

    # A Q tile's ops of the dq warps, built once per (batch, head, Q tile, half of dQ) and shared by the key blocks
    # that add into that half (as the loads, `q_loads`); deterministic, per key block and step (the semaphores).
    dq_steps: dict[tuple[int, ...], tuple[Op, ...]] = {}

    # Deterministic: the adds' completions, waited for `dq_buffers - 1` chunks later (FA's wait_group with
    # read=False); otherwise only the buffer's smem read, which the role has waited for in its Smem op.
    added = "dq_added" if cfg.deterministic else None
    finished = (Wait("dq_added@w"), Advance(("dq_added@w",)))  # one more chunk's add has completed

    def release(b: int, h: int, i: int, j: int) -> Store:  # the next key block may add into dQ_i
        return Store(*dq_semaphore(b, h, i, j), SEMAPHORE_BYTES, atomic=True, release=True)

    @cache
    def dq_body(b: int, h: int, j: int, start: int) -> Callable[[int], Sequence[Op]]:
        """The dq warps' loop body of the key blocks of (b, h) whose Q tiles start at `start` and that add into
        half `j` of dQ (deterministic: key block j, whose semaphores the steps name), each step found once and
        shared by those key blocks (as the load warp's, `loads`)."""

        @cache
        def step(k: int) -> Sequence[Op]:
            i = start + k
            key = (b, h, i, j, k) if cfg.deterministic else (b, h, i, j)
            ops = dq_steps.get(key)
            if ops is None:
                ops = dq_steps[key] = adds(i, k)
            return ops

        def adds(i: int, k: int) -> tuple[Op, ...]:
            write, read = dq_staging(rows_in_block(sequence(problem, b).seqlen_q, r, i))
            ops: list[Op] = list(dq_taken)
            for s in range(dq_chunks):
                ops.append(write)  # into a staging buffer, free once its last add has read it
                if cfg.deterministic and s == 0:  # spin until the key blocks before this one have added into dQ_i
                    place = bisect.bisect_right(earlier_starts[b if problem.seqlens is not None else 0][j], i)
                    ops.append(Load(*dq_semaphore(b, h, i, j), SEMAPHORE_BYTES, engine="ldg", acquire=place))
                ops += [
                    read,  # read by the TMA reduce-add
                    Store(
                        "dQaccum",
                        tile_key(problem, b, h, i, j % dq_share, s),
                        read.read_bytes,
                        engine="tma",
                        atomic=True,
                        arrive=added,
                    ),
                ]
                if cfg.deterministic:
                    ops.append(Advance(("dq_added",)))
                    if k * dq_chunks + s >= dq_buffers - 1:
                        ops += finished
                    if s == 0 and k:  # every add into dQ_(i-1) has completed (FA's delayed release)
                        ops.append(release(b, h, i - 1, j))
            return tuple(ops)

        return step

    def dq_role(tile: Hashable) -> Sequence[Op]:
        b, h, j, start = visits(tile)
        n = q_tiles(b) - start
        last: tuple[Op, ...] = ()
        if cfg.deterministic and n:  # drain the adds still in flight, then release the last dQ_i
            last = (*finished * min(dq_buffers - 1, n * dq_chunks), release(b, h, q_tiles(b) - 1, j))
        step = dq_body(b, h, j if cfg.deterministic else j % dq_share, start)
        return (Repeat(n, step), *last, Arrive("kv_empty"))

    def epilogue(tile: Hashable) -> Sequence[Op]:
        b, h, j, start = visits(tile)
        kv_rows = rows_in_block(sequence(problem, b).nk, c, j)
        key = tile_key(problem, b, h, j)
        if start >= q_tiles(b):  # no query sees these keys: dK and dV are zero
            return (
                Store("dK", key, kv_rows * d * eb, engine="tma"),
                Store("dV", key, kv_rows * d * eb, engine="tma"),
            )
        return (
            Wait("dkv_full"),
            Tmem(read_bytes=2 * c * d * ACC_BYTES),  # dK and dV accumulators
            Arrive("dkv_empty"),
            Vector(fma=2 * c * d, alu=c * d),  # dK times the softmax scale; both to 16 bits
            Smem(write_bytes=2 * kv_rows * d * eb),
            Smem(read_bytes=2 * kv_rows * d * eb),  # the TMA stores' reads
            Store("dK", key, kv_rows * d * eb, engine="tma"),
            Store("dV", key, kv_rows * d * eb, engine="tma"),
        )

    roles = (
        Role("load", 1, load),
        Role("mma", 1, mma_two_cta if cfg.two_cta else mma),
        Role("compute", 2 * WARPGROUP, compute),
        Role("dq", WARPGROUP, dq_role),
        Role("epilogue", WARPGROUP, epilogue),
    )
    # 2-CTA: one thread of the leader CTA issues each MMA for the pair (tcgen05 `cta_group::2`), so the barriers the
    # MMA warp waits on collect both CTAs' arrivals (their TMA loads, their compute, dq and epilogue warps): the
    # peer's reach the leader over the SM-to-SM network (`BarrierSpec.cluster`). The MMAs' own commits go to both
    # CTAs (multicast) and are not delayed.
    pair = cfg.two_cta
    barriers = (
        BarrierSpec("kv_full", arrivals=3 if cfg.two_cta else 2, cluster=pair),  # K, V (2-CTA: and K's columns)
        BarrierSpec("kv_empty", initial_phases=1),
        BarrierSpec("q_full", arrivals=2, slots=q_stages, cluster=pair),
        BarrierSpec("q_empty", initial_phases=1, slots=q_stages),
        BarrierSpec("do_full", arrivals=2, cluster=pair),
        BarrierSpec("do_empty", initial_phases=1),
        BarrierSpec("s_full"),
        BarrierSpec("dp_full"),
        BarrierSpec("p_full", cluster=pair),
        BarrierSpec("ds_full", cluster=pair),
        BarrierSpec("ds_empty", initial_phases=1),
        BarrierSpec("dq_full"),
        BarrierSpec("dq_empty", initial_phases=1, cluster=pair),
        BarrierSpec("dkv_full"),
        BarrierSpec("dkv_empty", initial_phases=1, cluster=pair),
        BarrierSpec("dq_added", slots=dq_buffers),  # deterministic: a chunk's reduce-add has completed
        # 2-CTA: the Q_i columns and dO_i columns rings, and dS^T in TMEM (dK's operand) before dS is exchanged
        BarrierSpec("qt_full", cluster=pair),
        BarrierSpec("qt_empty", initial_phases=1),
        BarrierSpec("dov_full", cluster=pair),
        BarrierSpec("dov_empty", initial_phases=1),
        BarrierSpec("dst_full", cluster=pair),
    )
    threads = 32 * sum(role.warps for role in roles)
    # smem: K, V; the Q_i ring and dO_i; dS (r x c); the dQ staging buffers (fp32); LSE_i (per Q slot), D_i.
    # 2-CTA: K's columns again; halves of Q_i and dO_i by rows and by columns; the peer's half of dS (`sdS_xchg`).
    operands = 2 * r * d * eb if cfg.two_cta else (q_stages + 1) * r * d * eb
    smem = (3 if cfg.two_cta else 2) * c * d * eb + operands + r * c * eb + dq_buffers * r * dq_columns * ACC_BYTES
    smem += (q_stages + 1) * r * ACC_BYTES + (c * r // 2 * eb if cfg.two_cta else 0)
    return Kernel(
        name="v4_bwd",
        tiles=tiles,
        head_axes=tile_axes(problem),
        memory_axes=MEMORY_AXES,
        cta=CtaResources(threads, _registers(threads), smem, tmem_columns=2 * r + 2 * d),
        roles=roles,
        barriers=barriers,
        persistent=True,
        # Without a mask or the deterministic order the key blocks differ in their keys only (a 2-CTA pair's halves
        # of dQ by parity, one to one), but the last one (short).
        alike_but_edges=isinstance(tiles, TileGrid) and not problem.causal and not cfg.deterministic,
    )


def _backward_order(problem: Problem, cfg: Config) -> Sequence[tuple[int, ...]]:
    """The main kernel's key blocks in launch order (module docstring; a varlen batch's sequences in turn)."""
    d, eb = problem.headdim, problem.element_bytes

    def key_blocks(seq: Problem) -> int:
        return ceil_div(seq.nk, cfg.block_n)

    def head_bytes(seq: Problem) -> int:  # Q, dO and dQ of a section's heads stay in L2 while its key blocks pass
        return seq.seqlen_q * (2 * d * eb + d * ACC_BYTES)

    # Later causal key blocks are seen by fewer Q tiles: `lpt` keeps the index order, deterministic reverses it.
    spt = cfg.deterministic and problem.causal
    sections = head_bytes if cfg.deterministic or cfg.lpt else None
    return _launch_order(problem, key_blocks, sections, spt)


def _launch_order(
    problem: Problem, blocks: Callable[[Problem], int], sections: Callable[[Problem], int] | None, reverse: bool
) -> Sequence[tuple[int, ...]]:
    """The tiles in `sequence_order`'s launch order: a `TileGrid` where that order is a dense grid's (one sequence
    length, no L2 sections: block fastest, then head, then batch), so that fast mode may fold one tile per form
    (`Kernel.alike_but_edges`: at 128k tokens a head has 512 forward work items and 1,024 key blocks); else a tuple."""
    if problem.seqlens is None and sections is None:
        return TileGrid((problem.batch, problem.heads, blocks(problem)))
    return tuple(sequence_order(problem, blocks, sections, L2_SECTION_BYTES, reverse=reverse))


def _dq_staging(cfg: Config) -> tuple[int, int]:
    """(fp32 columns per chunk, smem buffers) of FA4's dQ path (FA-repo `flash_bwd_sm100.py`, `_setup_attributes`:
    `dQ_reduce_ncol`, `sdQaccum_stage`): 1-CTA, 32 columns through 64 // 32 = 2 buffers; 2-CTA, 8 columns through 4
    buffers, or 16 through 2 when deterministic. (Its 2-CTA d = 192 kernel's 24 / 32 columns are not modelled.)"""
    if not cfg.two_cta:
        return 32, 2
    return (16, 2) if cfg.deterministic else (8, 4)


def _registers(threads: int) -> int:
    """Registers per thread at launch (setmaxnreg then moves them between roles)."""
    return min(255, 65536 // threads // 8 * 8)
