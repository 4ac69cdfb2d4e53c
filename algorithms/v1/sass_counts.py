"""The instructions FlashAttention-1's released forward issues per warp and query step beside those the v1 schedule's
ops stand for: address arithmetic, loop control, uniform-datapath and constant loads.

Counted from the executed SASS of v1.0.9's forward (`fmha_fwd_loop_kernel`, not causal, bf16) that Nsight Compute
recorded on an H100 (`validation/h200/fa1_release/ncu/*_source.csv`, `python docs/results/fa1_sass_counts.py`): the
instructions of a key block's query-step loop (the SASS's inner backward branch), each weighted by its executions
over the loop's iterations, at d = 64 (N = 1k) and d = 128 (N = 4k), in the first key block's loop and in the middle
key blocks' loop (later key blocks; the last key block's loop issues 3% fewer at d = 64, 2% more at d = 128). Per
warp and step:

- `imad`: IMAD, which runs on the FMA pipe;
- `integer`: LOP3, VIADD, ISETP, LEA, IADD3, PLOP3, SHF, SEL and FSEL on the ALU, less the mask's compare and
  select per score that the schedule's softmax counts (`algorithms.v1.schedule`: the kernel masks every score);
- `issue_only`: uniform-datapath instructions (UMOV, ULDC, UIMAD, ...), branches and convergence barriers (BRA,
  BSSY, BSYNC), the CTA barriers (BAR), constant loads (LDC) and NOPs: issue slots only.

The same source built here by nvcc 13 for sm_80 and sm_90 (`docs/results/fa1_sass_counts.txt`, static counts of
the same loops) has the Hopper build's loops within two instructions of the profiled kernel's, and the A100's
build 0-3% smaller (mostly fewer uniform instructions): one table serves both. Between and beyond the two head
dimensions the counts are taken linear in d (FA1's d = 32 build is not counted).
Ignored: that the kernel issues its smem traffic in narrower instructions than the schedule's 16 bytes per lane
(STS and LDS 39 per warp and step at d = 64 against the schedule's 18, `docs/results/v1_step_issue.txt`), and the
FADD/FMNMX/SHFL counts' own differences from the schedule's softmax; the backward (its SASS was not profiled).
"""

from __future__ import annotations

from dataclasses import dataclass

MASK_PER_SCORE = 2  # ISETP and FSEL per score and thread, counted by the schedule's softmax


@dataclass(frozen=True)
class StepInstructions:
    """Warp instructions per warp and query step, by where they go."""

    imad: float
    integer: float
    issue_only: float


# Head dimension -> (first key block's loop, later key blocks' loop), from `docs/results/fa1_sass_counts.txt`.
MEASURED: dict[int, tuple[StepInstructions, StepInstructions]] = {
    64: (StepInstructions(21.9, 36.9, 27.9), StepInstructions(34.8, 47.9, 39.9)),
    128: (StepInstructions(39.8, 73.9, 30.8), StepInstructions(56.7, 101.9, 55.8)),
}


def step_instructions(headdim: int, first: bool) -> StepInstructions:
    """The counts at `headdim`, on the line through the two measured head dimensions."""
    (low_d, low), (high_d, high) = sorted((d, counts[0 if first else 1]) for d, counts in MEASURED.items())
    t = (headdim - low_d) / (high_d - low_d)

    def at(a: float, b: float) -> float:
        return max(0.0, a + t * (b - a))  # a count: the line falls below zero under d = 8

    return StepInstructions(at(low.imad, high.imad), at(low.integer, high.integer), at(low.issue_only, high.issue_only))
