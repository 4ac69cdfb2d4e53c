"""FlashAttention-2 as the GPU runs it: grid over (batch, heads, Q blocks), K/V inner loop, mma.sync everywhere.

Forward (Dao 2023, Algorithm 1; the same program as `cupy_kernels/v2/fwd.cu`): one CTA of `warps` warps per
`block_m` query rows of one head ("split-Q": each warp owns whole rows, so row statistics stay in the warp). Q is
copied to smem once; K/V tiles go through a `stages`-deep cp.async ring; each K/V tile costs
  S = Q K^T    mma.sync, Q and K fragments read from smem with ldmatrix,
  softmax      per score: 1 FFMA (scale, subtract max), 1 MUFU.EX2, 1 FMNMX (row max), 1 FADD (row sum), half a
               conversion (two scores packed to 16 bits per instruction); per row: rescale of O (d FMUL) and the
               quad shuffles of the max; on tiles crossing the diagonal or the sequence end, a compare and a
               select per score for the mask,
  O += P V     mma.sync, P from registers, V fragments read from smem.
Causal: key tiles wholly above the diagonal are skipped. Outputs: O in the input dtype, LSE in fp32.
HBM bytes by the loop structure: Q once, K and V once per visited key tile, O and LSE once.

Backward: see `backward_kernels`. The CTAs of one head run next to each other (Q blocks vary fastest), which is
what lets K/V re-reads hit in L2.
Ignored: the __syncthreads per tile (the role's warps are modelled in lockstep), register-dependency latency.
"""

from __future__ import annotations

from collections.abc import Hashable, Sequence
from dataclasses import dataclass
from typing import Any

from algorithms._schedule.tiling import ceil_div, key_blocks, rows_in_block
from simgpu.arch import Arch
from simgpu.errors import OptionError, ProblemError
from simgpu.kernel import BarrierSpec, CtaResources, Kernel, Role
from simgpu.ops import Load, Mma, Op, Repeat, Store, Vector, Wait
from simgpu.problem import Problem

PROBLEM = "attention"
OPTIONS: dict[str, Any] = {"block_m": None, "block_n": None, "warps": None, "stages": None}

SMEM_PAD_ELEMENTS = 8  # 16 bytes added to every smem row against bank conflicts (as in the CUDA kernel)
REGISTERS_PER_THREAD = 255  # the forward kernel uses 242-255 registers (ptxas report of cupy_kernels/v2)
LSE_BYTES = 4
MMA_ROWS = 16  # rows of one mma.sync m16 group


@dataclass(frozen=True)
class Config:
    block_m: int
    block_n: int
    warps: int
    stages: int


def default_config(headdim: int) -> Config:
    """FA2's launch configuration by head dimension (flash_fwd_launch_template.h)."""
    if headdim <= 64:
        return Config(128, 128, 4, 2)
    if headdim <= 128:
        return Config(128, 64, 4, 2)
    return Config(64, 64, 4, 2)


def config(problem: Problem, options: dict[str, Any]) -> Config:
    base = default_config(problem.headdim)
    values = {name: options.get(name) if options.get(name) is not None else getattr(base, name) for name in OPTIONS}
    for name, value in values.items():
        if isinstance(value, bool) or not isinstance(value, int) or value <= 0:
            raise OptionError(f"v2 option {name} must be a positive integer, got {value!r}")
    cfg = Config(**values)
    if cfg.block_m % (MMA_ROWS * cfg.warps):
        raise OptionError(f"v2: block_m ({cfg.block_m}) must be a multiple of 16 x warps ({MMA_ROWS * cfg.warps})")
    if cfg.block_n % 16:
        raise OptionError(f"v2: block_n ({cfg.block_n}) must be a multiple of 16")
    if cfg.stages < 2:
        raise OptionError(f"v2: stages must be at least 2, got {cfg.stages}")
    if problem.headdim % 16:
        raise ProblemError(f"v2: headdim must be a multiple of 16 for mma.sync, got {problem.headdim}")
    return cfg


def schedule(arch: Arch, problem: Problem, **options: Any) -> tuple[Kernel, ...]:
    cfg = config(problem, options)
    if problem.pass_ == "fwd":
        return (forward_kernel(problem, cfg),)
    raise OptionError(f"v2: pass {problem.pass_} is not scheduled yet")


def _fragment_passes(cfg: Config, headdim: int) -> int:
    """How many times each warp reads K and V from smem per tile.

    At d <= 64 a warp's m16 groups share every K/V fragment; at larger d the groups run one after the other (the
    O accumulators of two groups do not fit in 255 registers) and each re-reads K/V.
    """
    groups = cfg.block_m // (MMA_ROWS * cfg.warps)
    return 1 if headdim <= 64 else groups


def softmax_ops(rows: int, cols: int, headdim: int, masked: bool) -> Vector:
    """FA2's online softmax over a rows x cols score tile (instruction mix of the CUDA kernel)."""
    scores = rows * cols
    fma = 2 * scores + rows * headdim + rows  # FFMA scale-subtract, FADD row sum; O and l rescale
    alu = 1.5 * scores + 8 * rows  # FMNMX row max, F2FP pack (2 scores each); quad shuffles + max of the max
    if masked:
        alu += 2 * scores  # compare with the row's limit, select -inf
    return Vector(fma=fma, alu=alu, ex2=scores + rows)  # one ex2 per score, one per row for the rescale factor


def forward_kernel(problem: Problem, cfg: Config) -> Kernel:
    d, eb = problem.headdim, problem.element_bytes
    r, c = cfg.block_m, cfg.block_n
    passes = _fragment_passes(cfg, d)
    n_q_blocks = ceil_div(problem.seqlen_q, r)
    # ldmatrix traffic per key tile: Q (r x d) once, K and V (c x d) once per warp per fragment pass.
    q_frag = r * d * eb
    kv_frag = cfg.warps * passes * c * d * eb

    def program(tile: Hashable) -> Sequence[Op]:
        b, h, i = tile  # type: ignore[misc]
        rows = rows_in_block(problem.seqlen_q, r, i)
        keys = key_blocks(problem, i * r, rows, c)

        def kv_loads(j: int) -> tuple[Load, Load]:
            cols = rows_in_block(problem.nk, c, j)
            slot = ("kv", j % cfg.stages)
            return (
                Load("K", (b, h, j), cols * d * eb, engine="cp_async", arrive=slot),
                Load("V", (b, h, j), cols * d * eb, engine="cp_async", arrive=slot),
            )

        def step(j: int) -> Sequence[Op]:
            ahead = j + cfg.stages - 1
            return (
                Wait(("kv", j % cfg.stages)),
                *(kv_loads(ahead) if ahead < keys.visited else ()),
                Mma(r, c, d, problem.dtype, a="reg", b="reg", instruction="mma_sync",
                    operand_smem_bytes=q_frag + kv_frag),
                softmax_ops(r, c, d, masked=j >= keys.unmasked),
                Mma(r, d, c, problem.dtype, a="reg", b="reg", instruction="mma_sync", operand_smem_bytes=kv_frag),
            )

        prologue = [Load("Q", (b, h, i), rows * d * eb, engine="cp_async", arrive="q")]
        prologue += [op for j in range(min(cfg.stages - 1, keys.visited)) for op in kv_loads(j)]
        return (
            *prologue,
            Wait("q"),
            Repeat(keys.visited, step),
            # Epilogue: O / l (d FMUL per row), LSE; O leaves registers in 4-byte stores.
            Vector(fma=rows * d, ex2=rows),
            Store("O", (b, h, i), rows * d * eb, engine="ldg"),
            Store("LSE", (b, h, i), rows * LSE_BYTES, engine="ldg"),
        )

    tiles = tuple((b, h, i) for b in range(problem.batch) for h in range(problem.heads) for i in range(n_q_blocks))
    smem = (r + 2 * cfg.stages * c) * (d + SMEM_PAD_ELEMENTS) * eb
    return Kernel(
        name="v2_fwd",
        tiles=tiles,
        cta=CtaResources(cfg.warps * 32, REGISTERS_PER_THREAD, smem),
        roles=(Role("warps", cfg.warps, program),),
        barriers=(BarrierSpec("q"), BarrierSpec("kv", arrivals=2, slots=cfg.stages)),
    )
