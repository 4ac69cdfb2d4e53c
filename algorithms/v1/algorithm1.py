"""FlashAttention-1's Algorithm 1 as written (Dao et al. 2022), as our CUDA kernel runs it (`cupy_kernels/v1/fwd.cu`):
the v1 schedule's `variant="algorithm1"` (forward only; the default variant is FA1's released kernel).

One CTA per (batch, head), `warps` warps, each owning 16-row groups of every query block (split-Q, not the release's
split-K). Per key block j: K_j and V_j copied into smem with cp.async. Per query block i that sees j (causal: from
the first that reaches key block j's first key): Q_i copied into smem and waited for (the algorithm loads it at
every step; nothing is prefetched), S = Q_i K_j^T with mma.sync (Q and K fragments read with ldmatrix), the
two-pass online softmax of the warp's own rows (`algorithms._schedule.softmax`), P~ V_j with mma.sync (P from
registers, V with ldmatrix), then, from the second key block on, the fp32 working O_i, l_i and m_i loaded from HBM
(all of them before any store: the kernel's fix of 2026-12-02; the warps issue the loads right after P~ V_j's
HMMAs, so they are in flight while those run), merged (per row 2 ex2, a reciprocal and a few FMAs;
per O element 2 FMAs and a multiply) and written back from the accumulator fragments: O_i as fp32 and l_i, m_i,
or on the last key block the query block sees, O_i in the input dtype and lse_i (the warps wait while the SM's store
path takes the instructions, `sm.fragment_store_cycles` each).
Ignored: __syncthreads (the warps move in lockstep; only the serialization it imposes shows), the first key
block's K/V wait beyond the first step's Q wait (the kernel's cp.async wait covers both), register pressure, and
what `simgpu.sm` leaves out for every schedule: the chip-wide limit on fragment stores when every SM issues them
(the H200's 31-36 cycles per instruction against the 16 charged) and the HBM's latency growing with its load; the
kernel's phase trace puts ~780 and ~310 cycles per step on them at d = 64 (validation/h200/README.md).
"""

from __future__ import annotations

import functools
from collections.abc import Callable, Hashable, Sequence
from typing import Any

from algorithms._schedule.copies import tile_copy
from algorithms._schedule.softmax import online_softmax
from algorithms._schedule.tiling import HEAD_AXES, MEMORY_AXES, ceil_div, rows_in_block
from simgpu.kernel import BarrierSpec, CtaResources, Kernel, Role
from simgpu.ops import Chain, Load, Mma, Op, Repeat, Store, Vector, Wait
from simgpu.problem import Problem

STATE_BYTES = 4  # the working O, l and m are fp32
SMEM_PAD_ELEMENTS = 8  # the kernel's SMEM_PAD: 16 bytes added to every smem row
REGISTERS_PER_THREAD = 255  # `__launch_bounds__(WARPS * 32, 1)`: one CTA per SM, ptxas may take them all
# The warps store straight from their accumulator fragments (`simgpu.ops.Store.fragment_lane_bytes`): O as fp32 pairs
# (8 bytes per lane) or packed 16-bit pairs (4), and a row's l, m or lse from one lane of its quad: 8 lanes of 4 bytes
# per instruction, 1 byte per lane.
ROW_LANE_BYTES = 1
DEFAULT_TILES = (64, 64, 4)  # block_m, block_n, warps: `cupy_kernels/v1/launch.py`'s DEFAULTS at d = 64 and 128


def forward_kernel(p: Problem, block_m: int, block_n: int, warps: int, steps: Callable[[int], Sequence[Any]]) -> Kernel:
    """The forward kernel; `steps(j)` gives the query blocks that see key block j (the v1 schedule's `_Step`s)."""
    d, eb = p.headdim, p.element_bytes
    n_k = ceil_div(p.nk, block_n)

    @functools.cache
    def scores(rows: int, cols: int, masked: bool) -> tuple[Op, ...]:
        """S = Q_i K_j^T and its softmax, ops that name no tile (every warp reads all of K_j with ldmatrix)."""
        return (
            Mma(block_m, block_n, d, p.dtype, "reg", "reg", instruction="mma_sync",
                operand_smem_bytes=block_m * d * eb + warps * block_n * d * eb),
            *online_softmax(rows, cols, d, masked=masked, rescale_o=False),
        )  # fmt: skip

    # P~ V_j (every warp reads all of V_j with ldmatrix).
    pv = Mma(
        block_m, d, block_n, p.dtype, "reg", "reg", instruction="mma_sync", operand_smem_bytes=warps * block_n * d * eb
    )

    @functools.cache
    def merge(rows: int, first: bool, last: bool) -> Vector:
        """O_i = (l_i e^(m_i - m_new) O_i + e^(m~ - m_new) P~ V_j) / l_new: per row the two factors (ex2), l_new and
        its reciprocal; per element 2 FMAs and a multiply (1 FMA and a multiply on the first key block), and a
        conversion per pair of elements on the last."""
        per_element = 2 if first else 3
        return Vector(
            fma=per_element * rows * d + 4 * rows,
            alu=0.5 * rows * d if last else 0.0,
            ex2=3 * rows,
            chain=Chain(fma=3, mufu=2),
        )

    def program(tile: Hashable) -> Sequence[Op]:
        b, h = tile  # type: ignore[misc]

        def outer(j: int) -> Sequence[Op]:
            cols = rows_in_block(p.nk, block_n, j)
            inner = steps(j)
            first = j == 0

            def step(k: int) -> Sequence[Op]:
                s = inner[k]
                r, i = s.rows, s.i
                # The kernel's cp.async wait at the first step covers K_j and V_j too (issued at the block's head).
                ops: list[Op] = [tile_copy("Q", (b, h, i), r * d * eb, "q"), Wait("q")]
                if k == 0:
                    ops.append(Wait("kv"))
                ops += scores(r, cols, s.masked)
                if not first:  # the working state, loaded while P~ V_j's HMMAs run (issued right after them)
                    ops += [
                        Load("O_acc", (b, h, i), r * d * STATE_BYTES, engine="ldg", arrive="state"),
                        Load("M", (b, h, i), r * STATE_BYTES, engine="ldg", arrive="state"),
                        Load("L", (b, h, i), r * STATE_BYTES, engine="ldg", arrive="state"),
                        pv,
                        Wait("state"),
                    ]
                else:
                    ops.append(pv)
                ops.append(merge(r, first, s.last))
                if s.last:
                    ops += [
                        Store("O", (b, h, i), r * d * eb, fragment_lane_bytes=2 * eb),
                        Store("LSE", (b, h, i), r * STATE_BYTES, fragment_lane_bytes=ROW_LANE_BYTES),
                    ]
                else:
                    ops += [
                        Store("O_acc", (b, h, i), r * d * STATE_BYTES, fragment_lane_bytes=2 * STATE_BYTES),
                        Store("M", (b, h, i), r * STATE_BYTES, fragment_lane_bytes=ROW_LANE_BYTES),
                        Store("L", (b, h, i), r * STATE_BYTES, fragment_lane_bytes=ROW_LANE_BYTES),
                    ]
                return ops

            if not inner:
                return ()
            return (
                tile_copy("K", (b, h, j), cols * d * eb, "kv"),
                tile_copy("V", (b, h, j), cols * d * eb, "kv"),
                Repeat(len(inner), step),
            )

        return (Repeat(n_k, outer),)

    smem = (block_m + 2 * block_n) * (d + SMEM_PAD_ELEMENTS) * eb
    return Kernel(
        name="v1_fwd",
        tiles=tuple((b, h) for b in range(p.batch) for h in range(p.heads)),
        head_axes=HEAD_AXES,
        memory_axes=MEMORY_AXES,
        cta=CtaResources(warps * 32, REGISTERS_PER_THREAD, smem),
        roles=(Role("warps", warps, program),),
        barriers=(BarrierSpec("kv", arrivals=2), BarrierSpec("q"), BarrierSpec("state", arrivals=3)),
    )
