"""FlashAttention-3 on Hopper: warp-specialized TMA/WGMMA forward, ping-pong, intra-warpgroup overlap, FP8.

Forward (Shah et al. 2024, §3; defaults from FA3's `hopper/tile_size.h`): a persistent kernel whose CTAs pull
(batch, head, Q block) tiles from a queue. Each CTA has one producer warpgroup and `block_m / 64` consumer
warpgroups, each consumer owning 64 query rows (the M of one wgmma). The producer (one elected thread) issues TMA
copies: Q once per tile, then K_j and V_j into two `stages`-deep smem rings (`k_full`/`k_empty`,
`v_full`/`v_empty` mbarriers). A consumer, per key block j:
  S = Q K_j^T    wgmma, both operands from smem (SS), 64 x block_n x d per consumer;
  softmax        the online softmax of `algorithms._schedule.softmax` on its 64 x block_n scores (P stays in
                 registers);
  O += P V_j     wgmma with P from registers (RS), V from smem, 64 x d x block_n.
Mechanisms, each an option for the ablations:
  warp_specialization  False: no producer; the consumers issue the TMA copies themselves one block ahead, and the
                       CTA keeps registers at the launch split (no setmaxnreg, smaller tiles do not follow: the
                       same tile is kept so the difference is the mechanism alone). FP8 needs it (V is transposed
                       by the producer).
  pingpong             the consumers take turns for their GEMMs (named barriers): one does its softmax while the
                       other's GEMMs run. With intra_wg_overlap a turn issues S and PV; without it, S alone (FA3).
  intra_wg_overlap     a consumer issues S_{j+1} = Q K_{j+1}^T and O += P V_j back to back, asynchronously, and does
                       the softmax of S_{j+1} while PV_j runs (FA3's 2-stage GEMM-softmax pipelining). O's rescale
                       runs while the tensor cores take S's first wgmma, between it and S's other k-steps.
  persistent           True: as many CTAs as fit pull tiles from a queue (FA3's tile scheduler); False: one CTA per
                       tile, launched in tile order.
  epilogue             "tma" (FA3's): O leaves through shared memory in a TMA store; "registers" (our kernel's,
                       `cupy_kernels/v3`): each thread stores its accumulator fragments, 4 bytes per instruction.
  exp_pass_parts       the ops each consumer's softmax exp pass is cut into (16): two consumers' passes then share the
                       pipes a part at a time, as the chip's share them an instruction at a time
                       (`algorithms._schedule.softmax`); 1 serves each pass whole, first come, first served.
  lpt                  longest-processing-time first (default when causal): the Q blocks with the most keys first.
                       Persistent: FA3's L2-aware scheduler order, heads in sections whose K and V fill
                       `L2_SECTION_BYTES`, Q blocks outermost within a section. One CTA per tile: the grid's order
                       with each head's Q blocks reversed (FA's and our kernel's blockIdx remap). Else (batch, head,
                       Q block) order.
FP8 (dtype fp8): wgmma at the fp8 rate; V must be transposed in smem for the second GEMM (the producer warpgroup
reads and writes each V tile once more: 2 x block_n x d bytes of smem traffic); P's accumulator layout is permuted
in registers before the PV GEMM (one byte-permute per score on the ALU); per-block scales fold into the softmax
scale and the final O scaling (no per-score cost).
HBM bytes by the loop structure: Q once, K and V once per visited key block, O and LSE once.

Backward (FA3 §3.3 and `hopper/mainloop_bwd_sm90`): the preprocess and convert kernels of
`algorithms._schedule.backward` around a main kernel with one CTA per `block_n` keys of one head (K/V outer;
defaults FA3's, `default_backward_tile`: 80 queries x 128 keys at d = 128, 64 x 128 causal, 128 x 128 at d = 64;
64 x 64 at d = 256). A producer warpgroup loads
K_j, V_j once and streams Q_i, dO_i, LSE_i, Delta_i through a `stages`-deep ring; two consumer warpgroups each own
64 of the keys (the MMAs are swapped so that keys are wgmma's M):
  S^T = K Q^T, dP^T = V dO^T   wgmma SS, 64 x block_m x d each;
  P^T, dS^T                    per score 1 FFMA + 1 MUFU.EX2 (P), 2 FMA (dS), two conversions;
  dV += P^T dO, dK += dS^T Q   wgmma RS (P^T, dS^T from registers), 64 x d x block_m each;
  dQ_i = dS K                  dS^T goes to smem; each consumer computes dQ_i^T = K^T dS^T (wgmma SS) for its half
                               of the head dimension and all the block's queries, d/2 x block_m x block_n, where
                               d/2 is a whole wgmma M (FA3's TiledMmadQ at d = 128: hopper/mainloop_bwd_sm90_tma_
                               gmma_ws.hpp), else for half of the queries and all of d, d x block_m/2 x block_n;
                               stages it in smem and adds it to the fp32 accumulator with a TMA reduce-add (an L2
                               read-modify-write).
dK_j, dV_j are written once at the end.
Every role of both kernels starts its CTA with the prologue of `algorithms._schedule.prologue` (barrier init,
`__syncthreads`, `setmaxnreg` with warp specialization, the TMA issuer's tensor-map fences).
Ignored: the epilogue's smem staging of O (it reuses Q's smem), cluster multicast, the tile scheduler's own cost.
"""

from __future__ import annotations

import dataclasses
import functools
from collections.abc import Callable, Hashable, Sequence
from dataclasses import dataclass
from typing import Any

from algorithms._schedule.backward import ACC_BYTES, convert_kernel, preprocess_kernel
from algorithms._schedule.prologue import cta_setup
from algorithms._schedule.softmax import o_rescale, online_softmax
from algorithms._schedule.tiling import (
    HEAD_AXES,
    MEMORY_AXES,
    ceil_div,
    first_query_block,
    key_blocks,
    rows_in_block,
    sectioned_order,
    tile_needs_mask,
)
from simgpu.arch import Arch
from simgpu.errors import OptionError, ProblemError
from simgpu.kernel import BarrierSpec, CtaResources, Kernel, Role, TileGrid
from simgpu.ops import Advance, Alu, Arrive, Load, Mma, Op, Repeat, Smem, Store, Vector, Wait
from simgpu.problem import Problem

PROBLEM = "attention"
OPTIONS: dict[str, Any] = {
    "block_m": None,
    "block_n": None,
    "stages": None,
    "warp_specialization": True,
    "pingpong": True,
    "intra_wg_overlap": True,
    "persistent": True,
    "epilogue": "tma",
    "lpt": None,
    "exp_pass_parts": 16,
}
EPILOGUES = ("tma", "registers")

WGMMA_ROWS = 64  # rows of one wgmma: each consumer warpgroup owns 64 query rows
WARPGROUP = 4  # warps
LSE_BYTES = 4
# FA3's persistent scheduler groups heads so that their K and V fill this much of L2 (FA-repo hopper
# `tile_scheduler.hpp`: `size_l2 = 32 MB for K & V`): a constant of the schedule, not of the chip.
L2_SECTION_BYTES = 32 * 1024 * 1024
REGISTERS = 65536


@dataclass(frozen=True)
class Config:
    block_m: int
    block_n: int
    stages: int
    warp_specialization: bool
    pingpong: bool
    intra_wg_overlap: bool
    persistent: bool
    epilogue: str
    lpt: bool
    exp_pass_parts: int

    @property
    def consumers(self) -> int:
        return self.block_m // WGMMA_ROWS

    @property
    def consumers_for_keys(self) -> int:
        """The backward's consumer warpgroups: one per 64 keys of the key block."""
        return max(1, self.block_n // WGMMA_ROWS)


def default_tile(headdim: int, causal: bool, dtype: str) -> tuple[int, int]:
    """FA3's forward tile (block_m, block_n) by head dimension, dtype and causality (hopper/tile_size.h)."""
    if dtype == "fp8":
        return (192, 160) if headdim <= 64 else (128, 224) if headdim <= 128 else (128, 128)
    if headdim <= 64:
        return (192, 128) if causal else (192, 192)
    if headdim <= 128:
        return (128, 128) if causal else (128, 176)
    return (128, 80)


def config(problem: Problem, options: dict[str, Any]) -> Config:
    block_m, block_n = default_tile(problem.headdim, problem.causal, problem.dtype)
    values = {**OPTIONS, "block_m": block_m, "block_n": block_n, "stages": 2, "lpt": problem.causal}
    values.update({k: v for k, v in options.items() if v is not None})
    for name in ("block_m", "block_n", "stages", "exp_pass_parts"):
        value = values[name]
        if isinstance(value, bool) or not isinstance(value, int) or value <= 0:
            raise OptionError(f"v3 option {name} must be a positive integer, got {value!r}")
    for name in ("warp_specialization", "pingpong", "intra_wg_overlap", "persistent", "lpt"):
        if not isinstance(values[name], bool):
            raise OptionError(f"v3 option {name} must be true or false, got {values[name]!r}")
    if values["epilogue"] not in EPILOGUES:
        raise OptionError(f"v3 option epilogue must be one of {', '.join(EPILOGUES)}, got {values['epilogue']!r}")
    cfg = Config(**values)
    if problem.pass_ != "bwd" and cfg.block_m % WGMMA_ROWS:
        raise OptionError(f"v3: block_m ({cfg.block_m}) must be a multiple of 64 (one wgmma M per consumer)")
    if cfg.block_n % 8 or cfg.block_n > 256:
        raise OptionError(f"v3: block_n ({cfg.block_n}) must be a multiple of 8 up to 256 (wgmma N)")
    step = 32 if problem.dtype == "fp8" else 16  # wgmma's K: 32 bytes, 16 elements of 16 bits or 32 of fp8
    if problem.headdim % step or problem.headdim > 256:
        raise ProblemError(
            f"v3: headdim must be a multiple of {step} up to 256 for {problem.dtype}, got {problem.headdim}"
        )
    if cfg.pingpong and cfg.consumers < 2 and problem.pass_ != "bwd":
        raise OptionError("v3: pingpong needs at least two consumer warpgroups (block_m >= 128)")
    if problem.dtype == "fp8" and not cfg.warp_specialization:
        # FA3 transposes FP8's V in smem for the second GEMM in its producer warpgroup (§3.3): without one, nothing
        # would (the consumers waited for it forever: a deadlock the random benchmark found).
        raise OptionError("v3: fp8 needs warp_specialization (its producer warpgroup transposes V for P V)")
    return cfg


def check_arch(arch: Arch) -> None:
    missing = [name for name in ("tma", "wgmma") if not getattr(arch.features, name)]
    if missing or arch.tensor_core.instruction != "wgmma":
        lacking = ", ".join(missing) or "its tensor cores are not wgmma"
        raise OptionError(
            f"v3 needs TMA and wgmma, which {arch.name} lacks ({lacking}); "
            "for a what-if, give the arch a `tma:` section and set features.tma=true, features.wgmma=true and "
            "tensor_core.instruction=wgmma (with wgmma's instruction shape)"
        )


def schedule(arch: Arch, problem: Problem, **options: Any) -> tuple[Kernel, ...]:
    check_arch(arch)
    kernels: tuple[Kernel, ...] = ()
    if problem.pass_ in ("fwd", "fwd_bwd"):
        kernels += (forward_kernel(arch, problem, config(problem, options)),)
    if problem.pass_ in ("bwd", "fwd_bwd"):
        kernels += backward_kernels(arch, problem, backward_config(problem, options))
    return kernels


def default_backward_tile(headdim: int, causal: bool = False) -> tuple[int, int]:
    """FA3's backward tile (block_m queries, block_n keys) by head dimension and causality
    (hopper/flash_bwd_launch_template.h: 128 x 128 at d = 64; 80 x 128 at d = 128, 64 x 128 causal). At d = 256 FA3
    takes 64 x 80 with the keys as the products' N (`dKV_swapAB`), which this schedule's 64 keys per consumer cannot
    express: 64 x 64 here."""
    if headdim <= 64:
        return (128, 128)
    if headdim <= 128:
        return (64, 128) if causal else (80, 128)
    return (64, 64)


def backward_config(problem: Problem, options: dict[str, Any]) -> Config:
    if problem.dtype not in ("bf16", "fp16"):
        raise ProblemError(f"v3: the backward takes 16-bit inputs (bf16, fp16), got {problem.dtype}")
    if problem.headdim % WGMMA_ROWS:
        # dQ^T = K^T dS^T runs the head dimension as wgmma's M (FA3 swaps operands for other head dimensions; this
        # schedule does not).
        raise ProblemError(f"v3: the backward takes a headdim that is a multiple of 64, got {problem.headdim}")
    block_m, block_n = default_backward_tile(problem.headdim, problem.causal)
    tile = {"block_m": options.get("block_m") or block_m, "block_n": options.get("block_n") or block_n}
    # Checked as the backward pass's (in a forward-and-backward run too: its tile is not the forward's).
    cfg = config(dataclasses.replace(problem, pass_="bwd"), {**options, **tile, "pingpong": False})
    if cfg.block_n != WGMMA_ROWS * cfg.consumers_for_keys:
        raise OptionError(f"v3 backward: block_n ({cfg.block_n}) must be 64 per consumer warpgroup (64 or 128)")
    if cfg.block_m % 8 or cfg.block_m > 256:
        raise OptionError(f"v3 backward: block_m ({cfg.block_m}) must be a multiple of 8 up to 256 (wgmma N)")
    return cfg


def forward_kernel(arch: Arch, problem: Problem, cfg: Config) -> Kernel:
    d, eb = problem.headdim, problem.element_bytes
    r, c = cfg.block_m, cfg.block_n
    fp8 = problem.dtype == "fp8"
    n_q_blocks = ceil_div(problem.seqlen_q, r)

    def visits(tile: Hashable) -> tuple[int, int, int, int, Any]:
        b, h, i = tile  # type: ignore[misc]
        rows = rows_in_block(problem.seqlen_q, r, i)
        return b, h, i, rows, key_blocks(problem, i * r, rows, c)

    def kv_bytes(j: int) -> int:
        return rows_in_block(problem.nk, c, j) * d * eb

    def load_k(b: int, h: int, j: int, slot: Any = "k_full") -> Load:
        return Load("K", (b, h, j), kv_bytes(j), engine="tma", arrive=slot)

    def load_v(b: int, h: int, j: int, slot: Any = "v_full") -> Load:
        return Load("V", (b, h, j), kv_bytes(j), engine="tma", arrive=slot)

    @functools.cache
    def kv_loads(b: int, h: int) -> Callable[[int], Sequence[Op]]:
        """The producer's loop body of the Q blocks of (b, h), each key block's step built once and shared by them:
        fast mode's L2 replay folds hundreds of a long sequence's Q blocks, each asking for the same steps."""

        @functools.cache
        def step(j: int) -> Sequence[Op]:
            ops: list[Op] = [Wait("k_empty"), load_k(b, h, j), Advance(("k_empty", "k_full"))]
            ops += [Wait("v_empty"), load_v(b, h, j)]
            if fp8:  # transpose V in smem for the second GEMM (LDSM + STSM by the producer warpgroup)
                ops += [Wait("v_full"), Smem(read_bytes=kv_bytes(j), write_bytes=kv_bytes(j)), Arrive("v_ready")]
                return (*ops, Advance(("v_empty", "v_full", "v_ready")))
            return (*ops, Advance(("v_empty", "v_full")))

        return step

    def producer(tile: Hashable) -> Sequence[Op]:
        b, h, i, rows, keys = visits(tile)
        return (
            Wait("q_empty"),
            Load("Q", (b, h, i), rows * d * eb, engine="tma", arrive="q_full"),
            Advance(("q_empty", "q_full")),
            Repeat(keys.visited, kv_loads(b, h)),
        )

    v_ready = "v_ready" if fp8 else "v_full"

    def consumer(index: int) -> Role:
        mine = f"c{index}"
        other = f"c{(index + 1) % cfg.consumers}"
        s_args = (WGMMA_ROWS, c, d, problem.dtype)
        s_step = 32 // eb  # S's first wgmma: one k-step of 32 bytes
        pv_args = (WGMMA_ROWS, d, c, problem.dtype)
        permute = (Alu(WGMMA_ROWS * c),) if fp8 else ()  # FP8: P's accumulator layout permuted into an A operand
        # Ping-pong: the consumers take turns to issue their GEMMs (FA3's warp_scheduler_barrier sync/arrive).
        turn_start = (Wait(f"turn_{mine}"),) if cfg.pingpong else ()
        turn_end = (Arrive(f"turn_{other}"),) if cfg.pingpong else ()
        release_k = (Arrive("k_empty"), Advance(("k_full", "k_empty")))
        release_v = (Arrive("v_empty"), Advance((v_ready, "v_empty")))

        @functools.cache
        def softmax_ops(masked: bool, rescale_o: bool = True) -> tuple[Op, ...]:
            """The softmax of a key block, which names no tile: built once (long sequences fold thousands of tiles)."""
            return (
                *online_softmax(WGMMA_ROWS, c, d, masked=masked, rescale_o=rescale_o, parts=cfg.exp_pass_parts),
                *permute,
            )

        rescale = o_rescale(WGMMA_ROWS, d)

        # A key block's ops but the copies of a consumer that loads (no producer) name no tile: each form built once
        # per kernel and shared by the blocks and tiles (long sequences fold thousands of Q blocks).
        @functools.cache
        def serial_ops(masked: bool) -> tuple[Op, ...]:
            # No GEMM-softmax pipelining: S_j, its softmax, then PV_j, each waiting for the one before. Only
            # S_j is issued in the ping-pong turn (FA3's mainloop without IntraWGOverlap).
            return (
                Wait("k_full"), *turn_start, Mma(*s_args), *turn_end, *release_k,
                *softmax_ops(masked),
                Wait(v_ready), Mma(*pv_args, a="reg"), *release_v,
            )  # fmt: skip

        @functools.cache
        def overlapped_ops(ahead: bool, next_masked: bool) -> tuple[Op, ...]:
            # FA3's order: issue S_{j+1}, rescale O by the factors of softmax j (registers PV_j accumulates
            # into: between the two issues, with the turn held), issue PV_j (P_j came from the previous
            # softmax), then the softmax of S_{j+1} runs while PV_j is still on the tensor cores. The rescale's
            # FMULs sit after S's first wgmma (our kernel's SASS, bf16 at d = 64 and 128; taken as the same for
            # FP8 and d = 256, not checked): they run while the tensor cores take it, and S's other k-steps are
            # issued after them (where there are any: FP8 at d = 32 is one k-step). `ahead`: there is a block j+1
            # (`next_masked`: it is masked).
            if not ahead:
                issue_s: tuple[Op, ...] = (rescale,)
            elif d > s_step:
                issue_s = (
                    Wait("k_full"), Mma(WGMMA_ROWS, c, s_step, problem.dtype), rescale,
                    Mma(WGMMA_ROWS, c, d - s_step, problem.dtype, arrive=f"s_{mine}"),
                )  # fmt: skip
            else:
                issue_s = (Wait("k_full"), Mma(*s_args, arrive=f"s_{mine}"), rescale)
            return (
                *turn_start, *issue_s,
                Wait(v_ready), Mma(*pv_args, a="reg", arrive=f"pv_{mine}"), *turn_end,
                *((Wait(f"s_{mine}"), *release_k, *softmax_ops(next_masked, False)) if ahead else ()),
                Wait(f"pv_{mine}"), *release_v,
            )  # fmt: skip

        def program(tile: Hashable) -> Sequence[Op]:
            b, h, i, rows, keys = visits(tile)
            n = keys.visited
            loads_here = not cfg.warp_specialization and index == 0

            def own_loads(j: int) -> tuple[Op, ...]:
                """Without a producer, consumer 0 copies block j itself, through a second cursor on each ring
                ("@load": its first cursor drains the rings). It runs `stages` blocks ahead, after its release."""
                if not loads_here or j >= n:
                    return ()
                return (
                    Wait("k_empty@load"), load_k(b, h, j, "k_full@load"),
                    Wait("v_empty@load"), load_v(b, h, j, "v_full@load"),
                    Advance(("k_empty@load", "k_full@load", "v_empty@load", "v_full@load")),
                )  # fmt: skip

            def softmax(j: int, rescale_o: bool = True) -> tuple[Op, ...]:
                return softmax_ops(j >= keys.unmasked, rescale_o)

            def serial(j: int) -> Sequence[Op]:
                ops = serial_ops(j >= keys.unmasked)
                return (*ops, *own_loads(j + cfg.stages)) if loads_here else ops

            def overlapped(j: int) -> Sequence[Op]:
                ahead = j + 1 < n
                ops = overlapped_ops(ahead, ahead and j + 1 >= keys.unmasked)
                return (*ops, *own_loads(j + cfg.stages)) if loads_here else ops

            prologue: list[Op] = [op for j in range(cfg.stages) for op in own_loads(j)]
            prologue.append(Wait("q_full"))
            if cfg.intra_wg_overlap and n:
                prologue += [
                    Wait("k_full"), *turn_start, Mma(*s_args), *turn_end, *release_k, *softmax(0, rescale_o=False)
                ]  # fmt: skip
            return (
                *prologue,
                Repeat(n, overlapped if cfg.intra_wg_overlap else serial),
                Arrive("q_empty"),
                Advance(("q_full", "q_empty")),
                # Epilogue: O / l (d FMUL per row), LSE, then O through smem and a TMA store of this warpgroup's rows
                # (FA3's), or straight from the registers (ours: no smem staging).
                Vector(fma=WGMMA_ROWS * d, ex2=WGMMA_ROWS),
                *((Smem(write_bytes=WGMMA_ROWS * d * eb),) if cfg.epilogue == "tma" else ()),
                *_stores(problem, b, h, i, index, rows, cfg.epilogue),
            )

        loads = 0 if cfg.warp_specialization or index else 3  # without a producer consumer 0 copies Q, K and V
        setup = cta_setup(arch, tensor_maps=loads, setmaxnreg=cfg.warp_specialization)
        return Role(f"consumer{index}", WARPGROUP, program, setup)

    roles: list[Role] = []
    if cfg.warp_specialization:
        roles.append(Role("producer", WARPGROUP, producer, cta_setup(arch, tensor_maps=3)))
    roles += [consumer(k) for k in range(cfg.consumers)]
    barriers = [
        BarrierSpec("q_full", arrivals=1),
        BarrierSpec("q_empty", arrivals=cfg.consumers, initial_phases=1),
        BarrierSpec("k_full", arrivals=1, slots=cfg.stages),
        BarrierSpec("k_empty", arrivals=cfg.consumers, initial_phases=1, slots=cfg.stages),
        BarrierSpec("v_full", arrivals=1, slots=cfg.stages),
        BarrierSpec("v_empty", arrivals=cfg.consumers, initial_phases=1, slots=cfg.stages),
    ]
    if fp8:
        barriers.append(BarrierSpec("v_ready", arrivals=1, slots=cfg.stages))
    for k in range(cfg.consumers):
        barriers += [BarrierSpec(f"s_c{k}"), BarrierSpec(f"pv_c{k}")]
        if cfg.pingpong:
            barriers.append(BarrierSpec(f"turn_c{k}", initial_phases=1 if k == 0 else 0, named=True))
    if not cfg.warp_specialization:
        # The consumers load Q themselves too: consumer 0's program starts with it.
        roles[0] = _with_q_load(roles[0], problem, r)
    threads = 32 * sum(role.warps for role in roles)
    smem = (r * d + 2 * cfg.stages * c * d) * eb
    tiles: Sequence[Hashable] = TileGrid((problem.batch, problem.heads, n_q_blocks))
    if cfg.lpt:  # later causal Q blocks see more keys
        section_bytes = L2_SECTION_BYTES if cfg.persistent else 0  # a grid launches one head after another
        tiles = sectioned_order(problem, problem.nk * 2 * d * eb, section_bytes, n_q_blocks, reverse=True)
    return Kernel(
        name="v3_fwd",
        tiles=tiles,
        head_axes=HEAD_AXES,
        memory_axes=MEMORY_AXES,
        # Without a causal mask, every Q block visits every key block alike but the last one (short); a causal one
        # visits the key blocks up to the diagonal. (LPT's order is not a TileGrid: the plan does not use it there.)
        alike_but_edges=not problem.causal,
        cta=CtaResources(threads, _launch_registers(threads), smem),
        roles=tuple(roles),
        barriers=tuple(barriers),
        persistent=cfg.persistent,
    )


def _stores(problem: Problem, b: int, h: int, i: int, index: int, rows: int, epilogue: str) -> tuple[Store, ...]:
    """This consumer's share of O (its 64 rows, as many as are real) and of the LSE."""
    mine = max(0, min(WGMMA_ROWS, rows - index * WGMMA_ROWS))
    if not mine:
        return ()
    d, eb = problem.headdim, problem.element_bytes
    return (
        Store("O", (b, h, i, index), mine * d * eb, engine="tma")
        if epilogue == "tma"
        else Store("O", (b, h, i, index), mine * d * eb, engine="ldg", fragment_lane_bytes=4),
        Store("LSE", (b, h, i, index), mine * LSE_BYTES),
    )


def _with_q_load(role: Role, problem: Problem, block_m: int) -> Role:
    """Consumer 0 of a kernel without a producer also loads the Q tile, once per tile."""
    d, eb = problem.headdim, problem.element_bytes

    def program(tile: Hashable) -> Sequence[Op]:
        b, h, i = tile  # type: ignore[misc]
        rows = rows_in_block(problem.seqlen_q, block_m, i)
        q = (Wait("q_empty"), Load("Q", (b, h, i), rows * d * eb, engine="tma", arrive="q_full"))
        return (*q, *role.program(tile))

    return Role(role.name, role.warps, program, role.setup)


def _launch_registers(threads: int) -> int:
    """Registers per thread at launch (setmaxnreg then moves them from the producer to the consumers)."""
    return min(255, REGISTERS // threads // 8 * 8)


def backward_kernels(arch: Arch, problem: Problem, cfg: Config) -> tuple[Kernel, ...]:
    d, eb = problem.headdim, problem.element_bytes
    r, c = cfg.block_m, cfg.block_n  # queries per Q block, keys per CTA
    keys = WGMMA_ROWS  # per consumer warpgroup
    consumers = cfg.consumers_for_keys
    n_q_blocks = ceil_div(problem.seqlen_q, r)
    # dQ_i^T = K^T dS^T: where each consumer's share of the head dimension is a whole wgmma M, each computes its
    # share of d for all the block's queries (FA3's TiledMmadQ at d = 128); else its share of the queries for all of d.
    split_d = consumers > 1 and (d // consumers) % WGMMA_ROWS == 0
    dq_m, dq_n = (d // consumers, r) if split_d else (d, r // consumers)

    def dq_bytes(rows: int, index: int) -> int:
        """The fp32 dQ a consumer adds for a Q block of `rows` real rows."""
        if split_d:
            return rows * dq_m * ACC_BYTES
        return max(0, min(dq_n, rows - index * dq_n)) * d * ACC_BYTES

    def q_blocks(j: int) -> range:
        return range(first_query_block(problem, j * c, r), n_q_blocks)

    # The producer's loads of a Q block, the same for every key block that visits it: built once per (batch, head,
    # block) and shared (ops are frozen values; long sequences fold thousands of key blocks).
    q_loads: dict[tuple[int, int, int], tuple[Op, ...]] = {}

    @functools.cache
    def loads(b: int, h: int, start: int) -> Callable[[int], Sequence[Op]]:
        """The producer's loop body of the key blocks of (b, h) that visit the Q blocks from `start` on, each step
        found once and shared by those key blocks: fast mode's L2 replay folds hundreds of a long sequence's key
        blocks, each asking for the same steps."""

        @functools.cache
        def step(n: int) -> Sequence[Op]:
            i = start + n
            ops = q_loads.get((b, h, i))
            if ops is None:
                ops = q_loads[b, h, i] = load(b, h, i)
            return ops

        return step

    def load(b: int, h: int, i: int) -> tuple[Op, ...]:
        rows = rows_in_block(problem.seqlen_q, r, i)
        return (
            Wait("q_empty"),
            Load("Q", (b, h, i), rows * d * eb, arrive="q_full"),
            Load("dO", (b, h, i), rows * d * eb, arrive="q_full"),
            Load("LSE", (b, h, i), rows * LSE_BYTES, arrive="q_full"),
            Load("Delta", (b, h, i), rows * ACC_BYTES, arrive="q_full"),
            Advance(("q_empty", "q_full")),
        )

    def producer(tile: Hashable) -> Sequence[Op]:
        b, h, j = tile  # type: ignore[misc]
        cols = rows_in_block(problem.nk, c, j)
        blocks = q_blocks(j)
        return (
            Load("K", (b, h, j), cols * d * eb, arrive="kv_full"),
            Load("V", (b, h, j), cols * d * eb, arrive="kv_full"),
            Repeat(len(blocks), loads(b, h, blocks.start)),
        )

    def consumer(index: int) -> Role:
        @functools.cache
        def compute(masked: bool) -> tuple[Op, ...]:
            """A Q block's ops up to the dQ reduction, which name no tile: built once (long sequences fold thousands
            of tiles)."""
            scores = keys * r
            return (
                Wait("q_full"),
                Mma(keys, r, d, problem.dtype, arrive=f"sdp{index}"),  # S^T = K Q^T, SS
                Mma(keys, r, d, problem.dtype, arrive=f"sdp{index}"),  # dP^T = V dO^T, SS
                Wait(f"sdp{index}"),
                # P^T = exp2(S^T scale - LSE), dS^T = P^T (dP^T - Delta); both packed to 16 bits; the mask.
                Vector(fma=3 * scores, ex2=scores, alu=scores + (2 * scores if masked else 0)),
                Mma(keys, d, r, problem.dtype, a="reg", arrive=f"dkv{index}"),  # dV += P^T dO, RS
                Mma(keys, d, r, problem.dtype, a="reg", arrive=f"dkv{index}"),  # dK += dS^T Q, RS
                Smem(write_bytes=scores * eb),  # dS^T for the dQ product
                Arrive("ds_ready"),
                Wait("ds_ready"),  # both halves of dS^T are in smem
                Mma(dq_m, dq_n, c, problem.dtype),  # its part of dQ_i^T = K^T dS^T, SS
                Wait(f"dkv{index}"),
            )

        # A Q block's ops depend on the key block only through the mask: built once per (batch, head, block,
        # mask) and shared by the key blocks (as the producer's loads).
        steps: dict[tuple[int, int, int, bool], tuple[Op, ...]] = {}

        @functools.cache
        def visits(b: int, h: int, j: int, cols: int, start: int) -> Callable[[int], Sequence[Op]]:
            """The loop body of the key blocks of (b, h) that hold `cols` keys and visit the Q blocks from `start`
            on (`j`, the key block, matters only to a causal mask: 0 without one), each step found once and shared
            by those key blocks (as the producer's, `loads`)."""

            @functools.cache
            def step(n: int) -> Sequence[Op]:
                i = start + n
                rows = rows_in_block(problem.seqlen_q, r, i)
                masked = tile_needs_mask(problem, i * r, rows, j * c, cols) or rows < r or cols < c
                ops = steps.get((b, h, i, masked))
                if ops is None:
                    ops = steps[b, h, i, masked] = visit(b, h, i, rows, masked)
                return ops

            return step

        def visit(b: int, h: int, i: int, rows: int, masked: bool) -> tuple[Op, ...]:
            return (
                *compute(masked),
                *_dq_reduce(b, h, i, dq_bytes(rows, index)),
                Arrive("q_empty"),
                Advance(("q_full", "q_empty", "ds_ready")),
            )

        # The ops around the loop that name no tile, built once.
        kv_wait = Wait("kv_full")
        epilogue = (Vector(fma=keys * d), Smem(write_bytes=2 * keys * d * eb))  # dK * softmax scale; dK, dV to smem

        def program(tile: Hashable) -> Sequence[Op]:
            b, h, j = tile  # type: ignore[misc]
            cols = rows_in_block(problem.nk, c, j)
            blocks = q_blocks(j)
            mine = max(0, min(keys, cols - index * keys))
            return (
                kv_wait,
                Repeat(len(blocks), visits(b, h, j if problem.causal else 0, cols, blocks.start)),
                *epilogue,
                *((Store("dK", (b, h, j, index), mine * d * eb, engine="tma"),
                   Store("dV", (b, h, j, index), mine * d * eb, engine="tma")) if mine else ()),
            )  # fmt: skip

        return Role(f"consumer{index}", WARPGROUP, program, cta_setup(arch, tensor_maps=0))

    def _dq_reduce(b: int, h: int, i: int, nbytes: int) -> tuple[Op, ...]:
        if not nbytes:
            return ()
        return (
            Smem(write_bytes=nbytes, read_bytes=nbytes),  # registers -> smem, read by the TMA reduce
            # Same L2 name as the preprocess/convert kernels' tile, so the zeroed accumulator is found resident.
            Store("dQacc", (b, h, i), nbytes, engine="tma", atomic=True),
        )

    # The producer acquires the maps of Q, dO, LSE, Delta, K and V.
    roles = (
        Role("producer", WARPGROUP, producer, cta_setup(arch, tensor_maps=6)),
        *(consumer(k) for k in range(consumers)),
    )
    threads = 32 * sum(role.warps for role in roles)
    smem = (
        2 * c * d * eb  # K_j, V_j
        + 2 * cfg.stages * r * d * eb  # Q and dO ring
        + c * r * eb  # dS^T
        + r * d * ACC_BYTES  # dQ staging for the reduce-add
        + 2 * cfg.stages * r * ACC_BYTES  # LSE and Delta ring
    )
    barriers = (
        BarrierSpec("kv_full", arrivals=2),
        BarrierSpec("q_full", arrivals=4, slots=cfg.stages),
        BarrierSpec("q_empty", arrivals=consumers, initial_phases=1, slots=cfg.stages),
        BarrierSpec("ds_ready", arrivals=consumers),
        *(BarrierSpec(f"{name}{k}", arrivals=2) for k in range(consumers) for name in ("sdp", "dkv")),
    )
    main = Kernel(
        name="v3_bwd",
        tiles=TileGrid((problem.batch, problem.heads, ceil_div(problem.nk, c))),
        head_axes=HEAD_AXES,
        memory_axes=MEMORY_AXES,
        # Without a causal mask, every key block visits every Q block alike but the last one (short: every visit
        # masked); a causal one starts its visits at the diagonal.
        alike_but_edges=not problem.causal,
        cta=CtaResources(threads, _launch_registers(threads), smem),
        roles=roles,
        barriers=barriers,
    )
    return (preprocess_kernel("v3_bwd_preprocess", problem, r), main, convert_kernel("v3_bwd_convert_dq", problem, r))
