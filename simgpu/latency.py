"""Dependency latencies of a warp role: how soon an op can finish however idle the units are.

A warp issues in order and waits for an instruction's result before it issues one that uses it. If each warp of a
role runs a chain of dependent instructions through an op, the op cannot finish before the latencies along that
chain add up, whatever the units' rates. With `c` independent chains over `n` instructions of latency `L`, a warp
completes at most `c / L` instructions per cycle, so `n` take at least `(n / c) x L` cycles: throughput per SM =
min(the units' rate on the warps' schedulers, warps x chains / latency), the rule measured on the H200
(`validation/h200/latency_h200.json`, within 5%). The SM takes the later of this floor and the units' completion
(`simgpu.sm`). The floor occupies no unit, so the ops of other roles and co-resident CTAs run inside it: that is
how more warps hide latency.

Rules, per op kind (all warps of a role run the same chain side by side, so the floor does not depend on how many
warps the role has; their number enters through the units' shares):
- elementwise (`Fma`, `Alu`, `Exp`, `Vector`): the op's `Chain` if it gives one (a softmax's row reductions), else
  one latency of each kind of lane op it has: every element independent, one element's instructions in a chain
  (scale, exp2, pack). A software exp2 adds its polynomial as that many dependent FMAs.
- mma.sync: each accumulator fragment is a chain of K / k_instruction dependent MMAs (the k-steps), after one
  shared-memory round trip when the operands come from ldmatrix.
- wgmma, tcgen05 (asynchronous MMAs): the result is usable `mma_async_cycles` after the tensor-core work ends
  (fence, commit, wait); the tensor core itself pipelines back-to-back instructions at its rate.
- thread-issued shared-memory traffic (`Smem`): one shared-memory round trip.
- waits (`Wait`): `wait_cycles`, the round trip of an mbarrier try_wait or a wgmma.wait_group on a phase that has
  already completed; the engine returns from a wait no sooner than that after the role reaches it, or when the
  phase completes if later (an MMA's arrival already carries `mma_async_cycles`).
- hand-offs (`Arrive`): a role's arrival completes its phase `named_handoff_cycles` (a named barrier,
  `BarrierSpec.named`) or `mbarrier_handoff_cycles` later (measured 38 and 78: `validation/h200/v3_pieces_h200.csv`).
  Arrivals made by ops (a copy's complete_tx, an MMA's commit) carry their own units' latencies instead.
Ignored: TMEM load latency (not measured), and stalls that a particular compiler schedule adds (a rolled loop that
waits for each k-step's operands, a loop's backward branch).
"""

from __future__ import annotations

from simgpu.arch import LatencySpec
from simgpu.ops import Chain


def chain_cycles(latency: LatencySpec, chain: Chain) -> float:
    """Cycles of one warp's dependent chain."""
    return (
        chain.fma * latency.fma_cycles
        + chain.alu * latency.alu_cycles
        + chain.mufu * latency.mufu_cycles
        + chain.shuffle * latency.shuffle_cycles
        + chain.smem * latency.smem_cycles
    )


def elementwise_floor(
    latency: LatencySpec, chain: Chain | None, fma: float, alu: float, ex2: float, emulated_fma_chain: float
) -> float:
    """Floor of an elementwise op: its own chain, else one latency per kind of lane op it issues.

    `ex2` counts the exps on MUFU; `emulated_fma_chain` is the FMA chain of one software exp2 (0 when none)."""
    if chain is not None:
        return chain_cycles(latency, chain)
    floor = latency.fma_cycles * emulated_fma_chain
    if fma:
        floor += latency.fma_cycles
    if alu:
        floor += latency.alu_cycles
    if ex2:
        floor += latency.mufu_cycles
    return floor


def mma_sync_floor(latency: LatencySpec, k_steps: float, smem_operands: bool) -> float:
    """Floor of an mma.sync product: `k_steps` dependent MMAs per accumulator fragment, after the first ldmatrix."""
    return k_steps * latency.mma_sync_cycles + (latency.smem_cycles if smem_operands else 0.0)
