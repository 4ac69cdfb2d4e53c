"""The instruction mix of FlashAttention's online softmax over one score tile, shared by the v2 and v3 schedules.

Per score: 1 FFMA (scale, subtract the running max), 1 MUFU.EX2, 1 FMNMX (row max), 1 FADD (row sum), half a
conversion (two scores packed to 16 bits per F2FP). Per row: the rescale of O (headdim FMUL; FA3 does it between its
two GEMMs instead, so a schedule can take it out as `o_rescale`) and of l, an ex2 for
the rescale factor, and the quad shuffles and max of the row max (8 ALU ops). Tiles that cross the diagonal or the
sequence end add a compare and a select per score for the mask.

It is two passes, as in FA2's and FA3's code (`cupy_kernels/v2/fwd.cu`, FA's `softmax.max` then the exps): every
exp needs its row's new max, so the row-max pass (mask, FMNMX, quad shuffles) ends before the exp pass (FFMA,
MUFU.EX2, FADD, F2FP, the rescale of O and l) begins, and the two do not share the pipes' time. The row-max pass is
two ops: the thread's FMNMX over its scores, then the quad's reduction, which needs the thread's last FMNMX, so its
shuffles wait behind the FMNMX's pipe time rather than inside it (one warpgroup's row max alone on the H200: 221
cycles, the model 136 as one op and 184 as two; `validation/h200/v3_pass_pair_h200.csv`,
`docs/results/checks_2026-12-02m.txt`).

Latency (`simgpu.ops.Chain`, per warp): in the accumulator layout of mma.sync and wgmma a row's scores sit in a quad
of 4 lanes, `cols / 4` per thread. The max pass is a chain of `cols / 8` FMNMX over pairs of the thread's scores
(after the mask's compare and select), then 2 shuffle + FMNMX steps across the quad. The exp pass: the scaled max
(FMUL), one score's FFMA and MUFU.EX2 while the old sum is rescaled (FMUL), then the row sum, a chain of `cols / 4`
FADD. The thread's other rows and exps are independent of these chains.
"""

from __future__ import annotations

from simgpu.ops import Chain, Vector

QUAD = 4  # lanes that share one accumulator row


def online_softmax(
    rows: int, cols: int, headdim: int, masked: bool, rescale_o: bool = True
) -> tuple[Vector, Vector, Vector]:
    """The row-max pass (the thread's FMNMX, the quad's reduction) and the exp pass over a `rows` x `cols` score
    tile (O has `headdim` columns). Without `rescale_o` the exp pass leaves O alone: the schedule places
    `o_rescale` itself (FA3 between its two GEMMs)."""
    scores = rows * cols
    per_thread = cols / QUAD
    mask = 2 * scores if masked else 0
    row_max = Vector(alu=scores + mask, chain=Chain(alu=per_thread / 2 + (2 if masked else 0)))
    quad_max = Vector(alu=8 * rows, chain=Chain(alu=2, shuffle=2))
    exps = Vector(
        fma=2 * scores + (rows * headdim if rescale_o else 0) + rows,
        alu=0.5 * scores,
        ex2=scores + rows,
        chain=Chain(fma=3 + per_thread, mufu=1),
    )
    return row_max, quad_max, exps


def o_rescale(rows: int, headdim: int) -> Vector:
    """O *= the rows' rescale factors: one FMUL per element of a `rows` x `headdim` accumulator, independent."""
    return Vector(fma=rows * headdim, chain=Chain(fma=1))
