"""FlashAttention-2 as the GPU runs it: grid over (batch, heads, Q blocks), K/V inner loop, mma.sync everywhere.

Forward (Dao 2023, Algorithm 1): one CTA of `warps` warps per `block_m` query rows of one head ("split-Q": each
warp owns whole rows, so row statistics stay in the warp). Q is copied to smem once; each K/V tile costs
  S = Q K^T    mma.sync, Q and K fragments read from smem with ldmatrix,
  softmax      the online softmax of `algorithms._schedule.softmax` (FFMA, MUFU.EX2, FMNMX, FADD per score),
  O += P V     mma.sync, P from registers, V fragments read from smem;
each K/V fragment read once per warp, its m16 groups sharing it (FA2 and our kernel since the sixteenth session).
The K/V copies (cp.async) follow option `kv_layout`:
  "ring"       our CUDA kernel (`cupy_kernels/v2/fwd.cu`, which `simgpu validate` times; d = 64 and 128), the
               default at d <= 128: a `stages`-deep ring of (K, V) slots, rows padded by 16 bytes, the copies of
               tile j + stages - 1 issued as tile j starts;
  "split"      FA2's mainloop (FA-repo `csrc/flash_attn/src/flash_fwd_kernel.h`, `compute_attn_1rowblock`), the
               default at d > 128, where our kernel does not run: one K and one V buffer in smem (swizzled,
               unpadded); with K_j in, V_j's copy is issued and S_j computed, then with V_j in, K_{j+1}'s copy is
               issued and the softmax and P_j V_j run. Less smem, so more CTAs per SM where smem limits them: on
               the A100 two at d <= 128 (the ring: one), on the H100 two at d = 256 (the ring: one). Against
               PyTorch's FA2 on the H200 (`docs/results/torch_fa2_vs_model.txt`) its forward MAPE at d = 256 is
               14.7% (the ring 64.3%), at d = 64 and 128 10.3% and 3.4% (the ring 9.1% and 4.3%). Not the
               default at d <= 128, where the ring is what we validated: the two agree within 3% on the H100 and
               H200; on the A100 the split's two CTAs per SM give 66-74% of peak against the ring's 53-64%
               (`docs/results/v2_kv_layout.txt`; 56-60% against 51-60% before the sixty-fifth session's A100 GEMM
               rate, 88-97% before the A100 file took the H200's mma.sync contention).
The default tiles are FA2's launch choices (`flash_fwd_launch_template.h`): 128 x 128 at d <= 64, 128 x 64 at
d <= 128, 4 warps; at d = 256, 128 x 64 with 8 warps where a CTA may take 128 KiB of smem and the SM has less
than 192 KiB (A100), else 64 x 64 with 4 warps.
Causal: key tiles wholly above the diagonal are skipped. Outputs: O in the input dtype, LSE in fp32.
HBM bytes by the loop structure: Q once, K and V once per visited key tile, O and LSE once.

Backward (Algorithm 2): FA2's three kernels, or our CUDA kernel's main one (option `bwd_layout`), in
`algorithms.v2.bwd_schedule`.
In the forward the CTAs of one head run next to each other (the fastest-varying block index), which is what lets
K/V re-use hit in L2.
Ignored: the __syncthreads per tile (the role's warps are modelled in lockstep). Dependency latencies follow the
arch's `latency:` section (`simgpu.latency`; the softmax's chains in `algorithms._schedule.softmax`).
"""

from __future__ import annotations

import functools
from collections.abc import Callable, Hashable, Sequence
from dataclasses import dataclass
from typing import Any

from algorithms._schedule.copies import tile_copy
from algorithms._schedule.softmax import online_softmax
from algorithms._schedule.tiling import (
    HEAD_AXES,
    MEMORY_AXES,
    KeyRange,
    ceil_div,
    key_blocks,
    rows_in_block,
)
from algorithms.v2.bwd_schedule import ATOM_OPTIONS, backward_config, backward_kernels
from simgpu.arch import Arch
from simgpu.errors import OptionError, ProblemError
from simgpu.kernel import BarrierSpec, CtaResources, Kernel, Role, TileGrid
from simgpu.ops import Load, Mma, Op, Repeat, Store, Vector, Wait
from simgpu.problem import Problem

PROBLEM = "attention"
OPTIONS: dict[str, Any] = {
    "block_m": None,
    "block_n": None,
    "warps": None,
    "stages": None,
    "kv_layout": None,
    "bwd_layout": None,
    **dict.fromkeys(ATOM_OPTIONS),
}
TILE_OPTIONS = ("block_m", "block_n", "warps", "stages")
KV_LAYOUTS = ("ring", "split")
MAX_HEADDIM = 256  # FA2's kernels are instantiated up to d = 256 (flash_fwd_launch_template.h)

SMEM_PAD_ELEMENTS = 8  # 16 bytes added to every smem row against bank conflicts (as in the CUDA kernel)
REGISTERS_PER_THREAD = 255  # the forward kernel uses 255 (ptxas report of cupy_kernels/v2; at d = 128 it spills ~70 B)
LSE_BYTES = 4
MMA_ROWS = 16  # rows of one mma.sync m16 group


@dataclass(frozen=True)
class Config:
    block_m: int
    block_n: int
    warps: int
    stages: int
    kv_layout: str = "ring"  # the forward's K/V buffers (module docstring)


def default_config(headdim: int, arch: Arch | None = None) -> Config:
    """FA2's forward launch configuration by head dimension and chip (flash_fwd_launch_template.h; at d = 256
    without a chip, the H100's), with our kernel's K/V ring where it runs (d <= 128) and FA2's buffers elsewhere."""
    if headdim <= 64:
        return Config(128, 128, 4, 2)
    if headdim <= 128:
        return Config(128, 64, 4, 2)
    wide = 2 * headdim * (128 + 2 * 64)  # smem bytes of a 128 x 64 CTA: Q, K and V in 16 bits
    two_narrow = 2 * (2 * headdim * (64 + 2 * 64))  # of two 64 x 64 CTAs
    if arch is not None and arch.smem.per_cta_bytes >= wide and arch.smem.capacity_bytes < two_narrow:
        return Config(128, 64, 8, 2, "split")
    return Config(64, 64, 4, 2, "split")


def config(problem: Problem, options: dict[str, Any], arch: Arch | None = None) -> Config:
    """The forward kernel's configuration: FA2's defaults (`default_config`), overridden by the options given."""
    base = default_config(problem.headdim, arch)
    values = {
        name: options.get(name) if options.get(name) is not None else getattr(base, name) for name in TILE_OPTIONS
    }
    for name, value in values.items():
        if isinstance(value, bool) or not isinstance(value, int) or value <= 0:
            raise OptionError(f"v2 option {name} must be a positive integer, got {value!r}")
    layout = options.get("kv_layout") if options.get("kv_layout") is not None else base.kv_layout
    if layout not in KV_LAYOUTS:
        raise OptionError(f"v2 option kv_layout must be one of {', '.join(KV_LAYOUTS)}, got {layout!r}")
    cfg = Config(**values, kv_layout=layout)
    if cfg.block_m % (MMA_ROWS * cfg.warps):
        raise OptionError(f"v2: block_m ({cfg.block_m}) must be a multiple of 16 x warps ({MMA_ROWS * cfg.warps})")
    if cfg.block_n % 16:
        raise OptionError(f"v2: block_n ({cfg.block_n}) must be a multiple of 16")
    if cfg.stages < 2:
        raise OptionError(f"v2: stages must be at least 2, got {cfg.stages}")
    return cfg


def check_problem(problem: Problem) -> None:
    if problem.headdim % 16:
        raise ProblemError(f"v2: headdim must be a multiple of 16 for mma.sync, got {problem.headdim}")
    if problem.headdim > MAX_HEADDIM:
        raise ProblemError(f"v2: FlashAttention-2 takes head dimensions up to {MAX_HEADDIM}, got {problem.headdim}")
    if problem.dtype not in ("bf16", "fp16"):
        raise ProblemError(f"v2: FlashAttention-2 takes 16-bit inputs (bf16, fp16), got {problem.dtype}")


def schedule(arch: Arch, problem: Problem, **options: Any) -> tuple[Kernel, ...]:
    check_problem(problem)
    kernels: tuple[Kernel, ...] = ()
    if problem.pass_ in ("fwd", "fwd_bwd"):
        kernels += (forward_kernel(problem, config(problem, options, arch=arch)),)
    if problem.pass_ in ("bwd", "fwd_bwd"):
        kernels += backward_kernels(problem, backward_config(problem, options, arch))
    return kernels


def forward_kernel(problem: Problem, cfg: Config) -> Kernel:
    d, eb = problem.headdim, problem.element_bytes
    r, c = cfg.block_m, cfg.block_n
    n_q_blocks = ceil_div(problem.seqlen_q, r)
    # ldmatrix traffic per key tile: Q (r x d) once, K and V (c x d) once per warp, its m16 groups sharing each
    # fragment (FA2's kernel and ours since the sixteenth session: 80 and 83 ldmatrix per warp per 128 x 64 tile
    # at d = 128, validation/h200/torch_fa2_mix_h200.csv).
    q_frag = r * d * eb
    kv_frag = cfg.warps * c * d * eb
    ring = cfg.kv_layout == "ring"

    @functools.cache
    def compute(masked: bool) -> tuple[Op, ...]:
        """A key tile's ops that name no tile, built once (long sequences fold thousands of tiles)."""
        return (
            Mma(r, c, d, problem.dtype, a="reg", b="reg", instruction="mma_sync", operand_smem_bytes=q_frag + kv_frag),
            *online_softmax(r, c, d, masked=masked),
            Mma(r, d, c, problem.dtype, a="reg", b="reg", instruction="mma_sync", operand_smem_bytes=kv_frag),
        )

    def copy(tensor: str, b: int, h: int, j: int, barrier: Hashable) -> Load:
        return tile_copy(tensor, (b, h, j), rows_in_block(problem.nk, c, j) * d * eb, barrier)

    @functools.cache
    def visits(b: int, h: int, keys: KeyRange) -> Callable[[int], Sequence[Op]]:
        """The loop body of the Q blocks of (b, h) that visit the key blocks `keys`, each step built once and shared
        by those Q blocks: fast mode's L2 replay folds hundreds of a long sequence's Q blocks, each asking for the
        same steps."""

        @functools.cache
        def ring_step(j: int) -> Sequence[Op]:
            ahead = j + cfg.stages - 1
            slot = ("kv", ahead % cfg.stages)
            return (
                Wait(("kv", j % cfg.stages)),
                *((copy("K", b, h, ahead, slot), copy("V", b, h, ahead, slot)) if ahead < keys.visited else ()),
                *compute(j >= keys.unmasked),
            )

        @functools.cache
        def split_step(j: int) -> Sequence[Op]:
            first_mma, *softmax_pv = compute(j >= keys.unmasked)
            return (
                Wait("k"),
                copy("V", b, h, j, "v"),
                first_mma,
                Wait("v"),
                *((copy("K", b, h, j + 1, "k"),) if j + 1 < keys.visited else ()),
                *softmax_pv,
            )

        return ring_step if ring else split_step

    def program(tile: Hashable) -> Sequence[Op]:
        b, h, i = tile  # type: ignore[misc]
        rows = rows_in_block(problem.seqlen_q, r, i)
        keys = key_blocks(problem, i * r, rows, c)
        prologue: list[Op] = [tile_copy("Q", (b, h, i), rows * d * eb, "q")]
        if ring:
            ahead = range(min(cfg.stages - 1, keys.visited))
            prologue += [copy(t, b, h, j, ("kv", j % cfg.stages)) for j in ahead for t in ("K", "V")]
        elif keys.visited:
            prologue.append(copy("K", b, h, 0, "k"))
        return (
            *prologue,
            Wait("q"),
            Repeat(keys.visited, visits(b, h, keys)),
            # Epilogue: O / l (d FMUL per row), LSE; O leaves registers in 4-byte stores.
            Vector(fma=rows * d, ex2=rows),
            Store("O", (b, h, i), rows * d * eb, engine="ldg", fragment_lane_bytes=4),
            Store("LSE", (b, h, i), rows * LSE_BYTES, engine="ldg"),
        )

    tiles = TileGrid((problem.batch, problem.heads, n_q_blocks))
    if ring:
        smem = (r + 2 * cfg.stages * c) * (d + SMEM_PAD_ELEMENTS) * eb
        barriers = (BarrierSpec("q"), BarrierSpec("kv", arrivals=2, slots=cfg.stages))
    else:
        smem = (r + 2 * c) * d * eb
        barriers = (BarrierSpec("q"), BarrierSpec("k"), BarrierSpec("v"))
    return Kernel(
        name="v2_fwd",
        tiles=tiles,
        head_axes=HEAD_AXES,
        memory_axes=MEMORY_AXES,
        # Without a causal mask, every Q block visits every key block alike but the last one (short); a causal one
        # visits the key blocks up to the diagonal.
        alike_but_edges=not problem.causal,
        cta=CtaResources(cfg.warps * 32, REGISTERS_PER_THREAD, smem),
        roles=(Role("warps", cfg.warps, program),),
        barriers=barriers,
    )
