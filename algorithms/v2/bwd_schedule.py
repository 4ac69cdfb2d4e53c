"""FlashAttention-2's backward as the GPU runs it: three kernels, the main one with K/V outer per CTA.

  preprocess  Delta = rowsum(dO * O) in fp32, and the fp32 dQ accumulator zeroed;
  main        one CTA of `warps` warps per `block_n` keys of one head (K/V outer): K_j and V_j stay in smem while
              the Q blocks stream through; per Q block five mma.sync products (S = Q K^T, dP = dO V^T,
              dV += P^T dO, dK += dS^T Q, dQ = dS K), P and dS elementwise, and dQ_i added to the accumulator
              with fp32 atomics (a read-modify-write in L2);
  convert     the fp32 dQ accumulator to the input dtype.
The main kernel's program follows option `bwd_layout`:
  "fa2"   FA2's own (FA-repo `csrc/flash_attn/src/flash_bwd_kernel.h`, `compute_dq_dk_dv_1colblock`, with its
          launch choices of `flash_bwd_launch_template.h`), the default: the Q blocks from the last down; Q in two
          smem buffers (one on chips whose CTA may take under 176 KiB at d > 192: the A100), its next copy issued
          once dP is computed; dO in one, its next copy issued after dV; LSE and Delta read straight into
          registers; P and dS stored to smem, where the dV, dK and dQ products read them; dQ_i's atomics over 32
          consecutive elements per warp instruction (FA2 keeps the accumulator in its fragments' order); dK and dV
          leave through smem. Each product's warps form an `atom` x (warps / `atom`) grid over its output (FA2's
          `AtomLayoutMSdP`, `AtomLayoutNdKV`, `AtomLayoutMdQ`: options `atom_sdp`, `atom_dkv`, `atom_dq`), and each
          warp reads its rows of A and its columns of B from smem once per product (ldmatrix), so a product of
          M x N x K moves (N-warps x M + M-warps x N) x K elements; where FA2 keeps V in registers (d = 96, or
          small smem) dP reads only dO. Its 8 warps run as two halves (`HALF_TENSORS`) that meet at its three
          __syncthreads per Q block (after the copies land, after dS is stored, after dV).
  "ring"  our CUDA kernel (`cupy_kernels/v2/bwd.cu`, which `simgpu validate` times): the Q blocks in order
          through a `stages`-deep cp.async ring of (Q_i, dO_i, LSE_i, Delta_i); every warp owns 16 keys, so S^T
          = K Q^T leaves P^T and dS^T in its registers as the A operands of dV and dK; dS^T goes through smem for
          dQ = dS K, whose 16 x 32 output tasks are spread over all warps; dK and dV leave from the fragments. Its
          8 warps run as two halves that meet at its two __syncthreads per Q block (when the block has landed,
          when dS^T is complete).
Both kernels' 8 warps are two per scheduler, and between barriers each runs on its own: the model runs them as two
roles of one warp per scheduler each, which drift apart as the warps do (one's softmax beside the other's
products; a role's warps stay in lockstep). With one role for all 8 warps the model was 8% slow on our kernel
(MAPE 7.9%, `simgpu validate`) and 29-84% slow on FA2's (with our kernel's atomic cost; MAPE 56.9%,
`docs/results/torch_fa2_bwd_kernels_vs_model_at_5908ce8.txt`); with two, 3.5% and 4.7% (below).
Causal: Q blocks wholly above the diagonal are skipped. The CTAs of one head run next to each other (the
fastest-varying block index), which is what lets dQ re-use hit in L2.
Against PyTorch's FA2 on the H200, kernel by kernel (`docs/results/torch_fa2_bwd_kernels_vs_model.txt`), "fa2"'s
main kernel has MAPE 4.7% over 36 shapes (d = 64, 128, 256; seqlen 512-16k; causal and not; ring: 62%, all slow).
Against our kernel (`validation/h200/validation_2026-12-03c/`, exact mode), "ring" has MAPE 3.5%.
Ignored: FA2's padding of the head dimension to its template's (80 runs as 96) and of partial blocks; the L2-side
limit on atomics with every SM adding at once (FA2's order reaches about 60% of it, `sm.fragment_store_min_cycles`).
"""

from __future__ import annotations

import functools
from collections.abc import Callable, Hashable, Sequence
from dataclasses import dataclass, replace

from algorithms._schedule.backward import ACC_BYTES, convert_kernel, preprocess_kernel
from algorithms._schedule.copies import tile_copy
from algorithms._schedule.tiling import (
    HEAD_AXES,
    MEMORY_AXES,
    ceil_div,
    first_query_block,
    rows_in_block,
    tile_needs_mask,
)
from simgpu.arch import Arch
from simgpu.errors import OptionError
from simgpu.kernel import BarrierSpec, CtaResources, Kernel, Role, TileGrid
from simgpu.ops import Arrive, BarrierRef, Load, Mma, Op, Repeat, Smem, Store, Vector, Wait
from simgpu.problem import Problem

BWD_LAYOUTS = ("fa2", "ring")
ATOM_OPTIONS = ("atom_sdp", "atom_dkv", "atom_dq")
SMEM_PAD_ELEMENTS = 8  # the ring kernel's 16 bytes per smem row against bank conflicts (FA2 swizzles instead)
LSE_BYTES = 4
MMA_ROWS = 16  # rows of one mma.sync m16 group
FA2_WARPS = 8
# FA2 double-buffers Q where a CTA may take this much smem (`flash_bwd_launch_template.h`, d = 256: "H100").
FA2_DOUBLE_BUFFER_SMEM_BYTES = 176 * 1024
FA2_REGISTERS = 255  # FA2's backward kernels are register-bound: 8 warps, one CTA per SM
# Both kernels run 8 warps, two per scheduler; between their __syncthreads each warp runs on its own, so one
# scheduler's two warps drift apart (one's softmax beside the other's products). The model runs such a CTA as two
# roles of one warp per scheduler each ("halves"): warps 0-3 and 4-7, each with half of every product (FA2's warp
# grids give warps 0-3 the first half of the keys of S and dP and of the head dimension of dV, dQ and dK; ours give
# each warp its 16 keys and the dQ tasks round-robin). Every warp issues its share of the copies and atomics; the
# model gives each tile's to one half, so that every tile keeps its L2 name: these tensors to each half, and the
# atomics of the n-th Q block visited to half n % 2. A CTA of one warp per scheduler stays one role.
HALF_TENSORS = (frozenset({"K", "Q", "LSE", "dK"}), frozenset({"V", "dO", "Delta", "dV"}))
SYNC = (Arrive("sync"), Wait("sync"))  # a __syncthreads between the halves
Program = Callable[[Hashable], Sequence[Op]]


@dataclass(frozen=True)
class BackwardConfig:
    """The main kernel's tiles and layout. `stages`: the ring's depth, or FA2's Q buffers (2 or 1). `atoms`: FA2's
    warps along the first output dimension of (S and dP, dK and dV, dQ); `v_in_regs`: FA2 keeps V's fragments
    in registers for dP (then K and V share their smem with dS and P)."""

    block_m: int
    block_n: int
    warps: int
    stages: int
    layout: str = "fa2"
    atoms: tuple[int, int, int] = (1, 1, 1)
    v_in_regs: bool = False
    halves: int = 1  # roles the CTA runs as: 2 where its warps are two per scheduler (`HALF_TENSORS`)


def default_backward_config(headdim: int, arch: Arch | None = None) -> BackwardConfig:
    """FA2's launch choice by head dimension (`flash_bwd_launch_template.h`, on chips whose CTA may take 144 KiB of
    smem or more: the A100, H100 and later; without a chip, the H100's)."""
    per_cta = arch.smem.per_cta_bytes if arch is not None else FA2_DOUBLE_BUFFER_SMEM_BYTES
    stages = 2 if headdim <= 192 or per_cta >= FA2_DOUBLE_BUFFER_SMEM_BYTES else 1
    if headdim <= 64:
        return BackwardConfig(128, 128, FA2_WARPS, stages, atoms=(4, 4, 4))
    if headdim <= 96:
        return BackwardConfig(64, 128, FA2_WARPS, stages, atoms=(2, 4, 4), v_in_regs=True)
    if headdim <= 128:
        return BackwardConfig(64, 128, FA2_WARPS, stages, atoms=(2, 4, 2))
    if headdim <= 160:
        return BackwardConfig(64, 64, FA2_WARPS, stages, atoms=(4, 4, 4))
    return BackwardConfig(64, 64, FA2_WARPS, stages, atoms=(4, 2, 2))


def ring_config(headdim: int) -> BackwardConfig:
    """Our CUDA kernel's configuration: 64 query rows per step, 16 keys per warp (`cupy_kernels/v2`)."""
    if headdim <= 128:
        return BackwardConfig(64, 128, 8, 2, "ring")
    return BackwardConfig(64, 64, 4, 2, "ring")


def backward_config(problem: Problem, options: dict[str, object], arch: Arch | None) -> BackwardConfig:
    """The main kernel's configuration: the layout's defaults, overridden by the options given."""
    layout = options.get("bwd_layout") if options.get("bwd_layout") is not None else "fa2"
    if layout not in BWD_LAYOUTS:
        raise OptionError(f"v2 option bwd_layout must be one of {', '.join(BWD_LAYOUTS)}, got {layout!r}")
    base = default_backward_config(problem.headdim, arch) if layout == "fa2" else ring_config(problem.headdim)
    values = {}
    for name in ("block_m", "block_n", "warps", "stages", *ATOM_OPTIONS):
        value = options.get(name)
        if value is None:
            continue
        if isinstance(value, bool) or not isinstance(value, int) or value <= 0:
            raise OptionError(f"v2 option {name} must be a positive integer, got {value!r}")
        if name in ATOM_OPTIONS and layout != "fa2":
            raise OptionError(f"v2 option {name} applies to bwd_layout=fa2 only")
        values[name] = value
    atoms = tuple(values.get(name, base.atoms[n]) for n, name in enumerate(ATOM_OPTIONS))
    cfg = BackwardConfig(
        values.get("block_m", base.block_m),
        values.get("block_n", base.block_n),
        values.get("warps", base.warps),
        values.get("stages", base.stages),
        layout,
        (atoms[0], atoms[1], atoms[2]),
        base.v_in_regs,
    )
    _check(cfg)
    schedulers = arch.sm.warp_schedulers if arch is not None else cfg.warps
    return replace(cfg, halves=2 if cfg.warps == 2 * schedulers else 1)


def _check(cfg: BackwardConfig) -> None:
    if cfg.block_m % MMA_ROWS or cfg.block_n % MMA_ROWS:
        raise OptionError(f"v2 backward: block_m and block_n must be multiples of 16, got {cfg.block_m}, {cfg.block_n}")
    if cfg.layout == "ring":
        if cfg.block_n != MMA_ROWS * cfg.warps:
            raise OptionError(f"v2 backward: block_n ({cfg.block_n}) must be 16 x warps ({MMA_ROWS * cfg.warps})")
        if cfg.stages < 2:
            raise OptionError(f"v2: stages must be at least 2, got {cfg.stages}")
        return
    if cfg.stages > 2:
        raise OptionError(f"v2 backward with bwd_layout=fa2: stages (Q buffers) must be 1 or 2, got {cfg.stages}")
    sdp, dkv, dq = cfg.atoms
    for name, atom in zip(ATOM_OPTIONS, cfg.atoms, strict=True):
        if cfg.warps % atom:
            raise OptionError(f"v2 backward: {name} ({atom}) must divide warps ({cfg.warps})")
    tiled = (
        ("block_m", cfg.block_m, sdp),
        ("block_n", cfg.block_n, cfg.warps // sdp),
        ("block_n", cfg.block_n, dkv),
        ("block_m", cfg.block_m, dq),
    )
    for name, extent, warps in tiled:
        if extent % (MMA_ROWS * warps):
            raise OptionError(f"v2 backward: {name} ({extent}) must be a multiple of 16 x {warps} warps")


def backward_kernels(problem: Problem, cfg: BackwardConfig) -> tuple[Kernel, ...]:
    main = _fa2_kernel(problem, cfg) if cfg.layout == "fa2" else _ring_kernel(problem, cfg)
    return (
        preprocess_kernel("v2_bwd_preprocess", problem, cfg.block_m),
        main,
        convert_kernel("v2_bwd_convert_dq", problem, cfg.block_m),
    )


def _operand_bytes(m: int, n: int, k: int, atom: int, warps: int, eb: int, a: bool = True) -> float:
    """ldmatrix bytes of an M x N x K product whose warps form an `atom` x (warps / `atom`) grid over its output:
    each warp reads its M / atom rows of A (unless `a` is False: A in registers) and N / (warps / atom) columns of
    B, once."""
    return ((warps // atom) * m * a + atom * n) * k * eb


def _masked(problem: Problem, cfg: BackwardConfig, i: int, rows: int, j: int, cols: int) -> bool:
    """Whether Q block i against key block j needs a mask: the causal diagonal, or a partial block."""
    partial = rows < cfg.block_m or cols < cfg.block_n
    return partial or tile_needs_mask(problem, i * cfg.block_m, rows, j * cfg.block_n, cols)


def _copies(half: int, halves: int) -> frozenset[str]:
    """The tensors whose tiles a half copies, reads or stores (`HALF_TENSORS`); one role does them all."""
    return HALF_TENSORS[half] if halves > 1 else HALF_TENSORS[0] | HALF_TENSORS[1]


def _dq_atomics(key: tuple[int, int, int], elements: int, mine: bool, rows_per_instruction: int) -> tuple[Store, ...]:
    """dQ_i added to the fp32 accumulator, one RED per thread per element (nothing where it is the other half's)."""
    if not mine:
        return ()
    return (
        Store(
            "dQacc",
            key,
            elements * ACC_BYTES,
            atomic=True,
            fragment_lane_bytes=ACC_BYTES,
            fragment_rows=rows_per_instruction,
        ),
    )


def _key_block(problem: Problem, cfg: BackwardConfig, tile: Hashable) -> tuple[int, int, int, int, int]:
    """A main-kernel tile's batch, head and key block, its keys, and the first Q block that sees them."""
    b, h, j = tile  # type: ignore[misc]
    return b, h, j, rows_in_block(problem.nk, cfg.block_n, j), first_query_block(problem, j * cfg.block_n, cfg.block_m)


def _main_kernel(
    cfg: BackwardConfig, problem: Problem, cta: CtaResources, program: Callable[[int], Program], q_copies: int
) -> Kernel:
    """The main kernel: one CTA per key block, its warps as `cfg.halves` roles running `program(half)`; a Q block
    has landed once `q_copies` copies have (FA2: Q, and dO, LSE and Delta on barriers of their own; ours: all four)."""
    return Kernel(
        name="v2_bwd",
        tiles=TileGrid((problem.batch, problem.heads, ceil_div(problem.nk, cfg.block_n))),
        head_axes=HEAD_AXES,
        memory_axes=MEMORY_AXES,
        # Without a causal mask, every key block visits every Q block alike but the last one (short: every visit
        # masked); a causal one starts its visits at the diagonal.
        alike_but_edges=not problem.causal,
        cta=cta,
        roles=tuple(Role(f"warps {half}", cfg.warps // cfg.halves, program(half)) for half in range(cfg.halves)),
        barriers=(
            BarrierSpec("kv", arrivals=2),
            BarrierSpec("q", arrivals=q_copies, slots=cfg.stages),
            BarrierSpec("do"),
            BarrierSpec("lse"),
            BarrierSpec("delta"),
            BarrierSpec("sync", arrivals=cfg.halves, named=True),
        ),
    )


def _fa2_kernel(problem: Problem, cfg: BackwardConfig) -> Kernel:
    """FA2's main kernel: its warps as `cfg.halves` roles, each running its share of every product, meeting at the
    kernel's three __syncthreads per Q block (module docstring)."""
    d, eb = problem.headdim, problem.element_bytes
    r, c, w = cfg.block_m, cfg.block_n, cfg.warps
    sdp, dkv, dq = cfg.atoms
    halves = cfg.halves
    n_q_blocks = ceil_div(problem.seqlen_q, r)
    double = cfg.stages == 2
    dp_v_bytes = sdp * c * d * eb if cfg.v_in_regs else 0  # V's ldmatrix, where FA2 holds V in registers
    sync = SYNC if halves > 1 else ()

    @functools.cache
    def products(masked: bool) -> tuple[tuple[Op, ...], ...]:
        """A half's ops of one Q block that name no tile, in the kernel's order around its copies and barriers:
        (S, P), (dP, dS), dS to smem, dV, dQ, dK. Each half takes half the keys of S and dP and half the head
        dimension of dV, dQ and dK, and half of each product's operand reads. Built once (long sequences fold
        thousands of blocks)."""
        scores = r * c // halves
        mma = {"a": "reg", "b": "reg", "instruction": "mma_sync"}

        def product(m: int, n: int, k: int, smem_bytes: float) -> Mma:
            return Mma(m, n, k, problem.dtype, operand_smem_bytes=smem_bytes / halves, **mma)  # type: ignore[arg-type]

        return (
            (
                product(r, c // halves, d, _operand_bytes(r, c, d, sdp, w, eb)),
                Wait("lse"),
                # P = exp2(S * scale - LSE): one FFMA and one MUFU.EX2 per score, a pack per two; the mask.
                Vector(fma=scores, ex2=scores, alu=scores / 2 + (2 * scores if masked else 0)),
                Smem(write_bytes=scores * eb),  # P to smem
            ),
            (
                product(r, c // halves, d, _operand_bytes(r, c, d, sdp, w, eb) - dp_v_bytes),
                Wait("delta"),
                Vector(fma=2 * scores, alu=scores / 2),  # dS = P (dP - Delta); pack to 16 bits
            ),
            (Smem(write_bytes=scores * eb),),  # dS to smem
            (product(c, d // halves, r, _operand_bytes(c, d, r, dkv, w, eb)),),  # dV += P^T dO
            (product(r, d // halves, c, _operand_bytes(r, d, c, dq, w, eb)),),  # dQ = dS K
            (product(c, d // halves, r, _operand_bytes(c, d, r, dkv, w, eb)),),  # dK += dS^T Q
        )

    def program(half: int) -> Program:
        mine = _copies(half, halves)
        # A visit's ops depend on the key block only through its mask and whether another visit follows: built once
        # per (batch, head, visit, mask, next) and shared by the key blocks (ops are frozen values; long sequences
        # fold thousands of key blocks, each building its first and last visits).
        steps: dict[tuple[int, int, int, bool, bool], tuple[Op, ...]] = {}

        def block(b: int, h: int, n: int) -> tuple[int, int, tuple[int, int, int]]:
            """The n-th Q block visited (FA2 walks them from the last down), its rows and its name."""
            i = n_q_blocks - 1 - n
            return i, rows_in_block(problem.seqlen_q, r, i), (b, h, i)

        def copy(tensor: str, b: int, h: int, n: int, barrier: BarrierRef) -> tuple[Load, ...]:
            if tensor not in mine:
                return ()
            _, rows, key = block(b, h, n)
            return (tile_copy(tensor, key, rows * d * eb, barrier),)

        def stat(tensor: str, b: int, h: int, n: int) -> tuple[Load, ...]:
            if tensor not in mine:
                return ()
            _, rows, key = block(b, h, n)
            nbytes = rows * (LSE_BYTES if tensor == "LSE" else ACC_BYTES)
            return (Load(tensor, key, nbytes, engine="ldg", arrive=tensor.lower()),)

        @functools.cache
        def visits(b: int, h: int, j: int, cols: int, first: int) -> Callable[[int], Sequence[Op]]:
            """The loop body of the key blocks of (b, h) that hold `cols` keys and visit the Q blocks from `first`
            on (`j`, the key block, matters only to a causal mask: 0 without one), each visit's ops found once:
            shared by those key blocks, as fast mode's L2 replay folds hundreds of a long sequence's key blocks and
            asks each for the same visits (some 2-3 us of Python each when found anew)."""
            visited = n_q_blocks - first

            @functools.cache
            def step(n: int) -> Sequence[Op]:
                i, rows, _ = block(b, h, n)
                masked, more = _masked(problem, cfg, i, rows, j, cols), n + 1 < visited
                ops = steps.get((b, h, n, masked, more))
                if ops is None:
                    ops = steps[b, h, n, masked, more] = visit(b, h, n, masked, more)
                return ops

            return step

        def visit(b: int, h: int, n: int, masked: bool, more: bool) -> tuple[Op, ...]:
            _, rows, key = block(b, h, n)
            s_p, dp_ds, ds_out, dv, dq_mma, dk = products(masked)
            q_next = ("q", (n + 1) % cfg.stages)
            return (
                Wait(("q", n % cfg.stages)),
                Wait("do"),
                *sync,
                *stat("Delta", b, h, n),
                *s_p,
                *dp_ds,
                *(copy("Q", b, h, n + 1, q_next) if more and double else ()),
                *ds_out,
                *sync,
                *dv,
                *sync,
                *(copy("dO", b, h, n + 1, "do") if more else ()),
                *dq_mma,
                *(stat("LSE", b, h, n + 1) if more else ()),
                # 32 consecutive elements per warp instruction: FA2 keeps the accumulator in the fragments' order
                # (its convert kernel reads it back in that order).
                *_dq_atomics(key, rows * d, n % halves == half, rows_per_instruction=1),
                *dk,
                *(copy("Q", b, h, n + 1, q_next) if more and not double else ()),
            )

        def main(tile: Hashable) -> Sequence[Op]:
            b, h, j, cols, first = _key_block(problem, cfg, tile)
            kv_bytes = cols * d * eb
            stores = [tensor for tensor in ("dK", "dV") if tensor in mine]
            return (
                *copy("Q", b, h, 0, ("q", 0)),
                *stat("LSE", b, h, 0),
                *copy("dO", b, h, 0, "do"),
                *(tile_copy(tensor, (b, h, j), kv_bytes, "kv") for tensor in ("K", "V") if tensor in mine),
                Wait("kv"),
                Repeat(n_q_blocks - first, visits(b, h, j if problem.causal else 0, cols, first)),
                Vector(fma=cols * d / halves),  # dK * scale
                # dK and dV through smem (over K and V), then 16-byte stores.
                Smem(write_bytes=len(stores) * kv_bytes),
                *sync,
                Smem(read_bytes=len(stores) * kv_bytes),
                *(Store(tensor, (b, h, j), kv_bytes) for tensor in stores),
            )

        return main

    q_do = (cfg.stages + 1) * r * d * eb
    kv, p_ds = 2 * c * d * eb, 2 * r * c * eb
    smem = q_do + (max(kv, kv // 2 + p_ds) if cfg.v_in_regs else kv + p_ds)
    return _main_kernel(cfg, problem, CtaResources(w * 32, FA2_REGISTERS, smem), program, q_copies=1)


def _ring_kernel(problem: Problem, cfg: BackwardConfig) -> Kernel:
    """Our CUDA kernel's main loop: its warps as `cfg.halves` roles, each with its warps' keys, meeting at the
    kernel's two __syncthreads per Q block (when the block has landed, when dS^T is complete)."""
    d, eb = problem.headdim, problem.element_bytes
    r, c = cfg.block_m, cfg.block_n
    halves = cfg.halves
    n_q_blocks = ceil_div(problem.seqlen_q, r)
    sync = SYNC if halves > 1 else ()

    # ldmatrix traffic per Q block (see the kernel's product list): K and V once (each warp its 16 keys), Q and
    # dO once per warp per product that reads them, dS^T and K for the dQ tasks (16 x 32 outputs per task).
    s_t_smem = _operand_bytes(c, r, d, cfg.warps, cfg.warps, eb) / halves  # S^T = K Q^T
    dv_smem = _operand_bytes(c, d, r, cfg.warps, cfg.warps, eb, a=False) / halves  # dV += P^T dO (dO transposed)
    dq_smem = (r * d * c * eb // 32 + r * d * c * eb // 16) / halves  # dS rows and K columns of every dQ task

    @functools.cache
    def compute(masked: bool) -> tuple[tuple[Op, ...], tuple[Op, ...]]:
        """A half's ops of one Q block that name no tile, before and after the barrier on dS^T: its warps' keys of
        every key-side product, half the dQ tasks. Built once (long sequences fold thousands of tiles)."""
        keys, scores = c // halves, r * c // halves
        mma = {"a": "reg", "b": "reg", "instruction": "mma_sync"}
        return (
            (
                Mma(keys, r, d, problem.dtype, operand_smem_bytes=s_t_smem, **mma),  # type: ignore[arg-type]
                # P^T = exp2(S^T * scale - LSE): one FFMA and one MUFU.EX2 per score, a pack per two; the mask.
                Vector(fma=scores, ex2=scores, alu=scores / 2 + (2 * scores if masked else 0)),
                Mma(keys, d, r, problem.dtype, operand_smem_bytes=dv_smem, **mma),  # type: ignore[arg-type]
                Mma(keys, r, d, problem.dtype, operand_smem_bytes=s_t_smem, **mma),  # type: ignore[arg-type]  # dP^T
                Vector(fma=2 * scores, alu=scores / 2),  # dS^T = P^T (dP^T - Delta); pack to 16 bits
                Mma(keys, d, r, problem.dtype, operand_smem_bytes=dv_smem, **mma),  # type: ignore[arg-type]  # dK
                Smem(write_bytes=scores * eb),  # dS^T to smem for the dQ product
            ),
            (
                Mma(r, d // halves, c, problem.dtype, operand_smem_bytes=dq_smem, **mma),  # type: ignore[arg-type]
                Vector(fma=r * d / halves),  # scale dQ before the atomics
            ),
        )

    def program(half: int) -> Program:
        mine = _copies(half, halves)
        # A Q block's ops depend on the key block only through the mask and the step's place in the rings: built
        # once per (batch, head, block, step, mask) and shared by the key blocks (as FA2's, `_fa2_kernel`).
        steps: dict[tuple[int, int, int, int, bool], tuple[Op, ...]] = {}

        def main(tile: Hashable) -> Sequence[Op]:
            b, h, j, cols, first = _key_block(problem, cfg, tile)
            visited = n_q_blocks - first

            def q_loads(i: int) -> tuple[Load, ...]:
                rows = rows_in_block(problem.seqlen_q, r, i)
                slot = ("q", (i - first) % cfg.stages)
                row_bytes = {"Q": d * eb, "dO": d * eb, "LSE": LSE_BYTES, "Delta": ACC_BYTES}
                return tuple(
                    Load(tensor, (b, h, i), rows * size, engine="cp_async", arrive=slot)
                    if tensor in ("LSE", "Delta")
                    else tile_copy(tensor, (b, h, i), rows * size, slot)
                    for tensor, size in row_bytes.items()
                    if tensor in mine
                )

            def step(n: int) -> Sequence[Op]:
                i = first + n
                masked = _masked(problem, cfg, i, rows_in_block(problem.seqlen_q, r, i), j, cols)
                ops = steps.get((b, h, i, n, masked))
                if ops is None:
                    ops = steps[b, h, i, n, masked] = visit(i, n, masked)
                return ops

            def visit(i: int, n: int, masked: bool) -> tuple[Op, ...]:
                rows = rows_in_block(problem.seqlen_q, r, i)
                ahead = i + cfg.stages - 1
                key_side, dq_side = compute(masked)
                return (
                    Wait(("q", n % cfg.stages)),
                    *sync,
                    *(q_loads(ahead) if ahead < n_q_blocks else ()),
                    *key_side,
                    *sync,
                    *dq_side,
                    # From the dQ product's fragments: 8 rows per warp instruction.
                    *_dq_atomics((b, h, i), rows * d, n % halves == half, rows_per_instruction=8),
                )

            prologue = [tile_copy(tensor, (b, h, j), cols * d * eb, "kv") for tensor in ("K", "V") if tensor in mine]
            prologue += [op for i in range(first, min(first + cfg.stages - 1, n_q_blocks)) for op in q_loads(i)]
            return (
                *prologue,
                Wait("kv"),
                Repeat(visited, step),
                Vector(fma=cols * d / halves),  # dK * scale
                # Packed pairs from the fragments.
                *(Store(t, (b, h, j), cols * d * eb, fragment_lane_bytes=4) for t in ("dK", "dV") if t in mine),
            )

        return main

    smem = (
        2 * c * (d + SMEM_PAD_ELEMENTS) * eb  # K_j, V_j
        + 2 * cfg.stages * r * (d + SMEM_PAD_ELEMENTS) * eb  # Q and dO ring
        + c * (r + SMEM_PAD_ELEMENTS) * eb  # dS^T
        + 2 * cfg.stages * r * ACC_BYTES  # LSE and Delta ring
    )
    registers = 255 if d > 64 else 196  # ptxas report of cupy_kernels/v2/bwd.cu
    return _main_kernel(cfg, problem, CtaResources(cfg.warps * 32, registers, smem), program, q_copies=4)
