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

The exp pass may be cut into `parts` ops of equal work, one after the other. On the chip a warp's exps go to the MUFU
one instruction at a time through a queue that holds only a few (`validation/h200/mufu_queue_on_h100/`: two warps on
one scheduler get one exp through every 7.5 cycles between them), and the pass's FFMAs and FADDs issue between them:
two warpgroups' exp passes share the SM's pipes instruction by instruction. The units serve whole ops first come,
first served (`simgpu.units.server`), so as one op the first warpgroup's pass runs whole before the second's. Where a
schedule runs two roles' softmaxes beside each other by design (FA3's consumer warpgroups, `algorithms.v3`), that
made them fall into turns where the chip's meet (the model's period per key tile 22.8% under the chip's at d = 64
with the intra-warpgroup overlap); in parts they take turns a part at a time. The periods converge from 16 parts (v3
on the H200, eight builds: mean error 2.4%, 2.1% and 1.9% with 16, 24 and 64 parts; 3.8% with 4, and 8 settles into
turns again, 5.1%; `docs/results/session_66/`). A part's latency chain is the pass's shared out: the parts in a row
have the whole pass's floor. Parts cost ops (16 parts: about three times a forward's), and a schedule of one role per
CTA (v2, v1) keeps the pass whole by default: there only co-resident CTAs meet, and 16 parts took v2's forward's error
against the H200 from 9.2% to 8.8% and v1's (`variant="algorithm1"`) from 8.2% to 8.3% (`docs/results/session_66/`).
"""

from __future__ import annotations

from simgpu.ops import Chain, Vector

QUAD = 4  # lanes that share one accumulator row


def online_softmax(
    rows: int, cols: int, headdim: int, masked: bool, rescale_o: bool = True, parts: int = 1
) -> tuple[Vector, ...]:
    """The row-max pass (the thread's FMNMX, the quad's reduction), then the exp pass (`parts` ops of equal work) over
    a `rows` x `cols` score tile (O has `headdim` columns). Without `rescale_o` the exp pass leaves O alone: the
    schedule places `o_rescale` itself (FA3 between its two GEMMs)."""
    scores = rows * cols
    per_thread = cols / QUAD
    mask = 2 * scores if masked else 0
    row_max = Vector(alu=scores + mask, chain=Chain(alu=per_thread / 2 + (2 if masked else 0)))
    quad_max = Vector(alu=8 * rows, chain=Chain(alu=2, shuffle=2))
    part = Vector(
        fma=(2 * scores + (rows * headdim if rescale_o else 0) + rows) / parts,
        alu=0.5 * scores / parts,
        ex2=(scores + rows) / parts,
        chain=Chain(fma=(3 + per_thread) / parts, mufu=1 / parts),
    )
    return (row_max, quad_max, *(part,) * parts)


def o_rescale(rows: int, headdim: int) -> Vector:
    """O *= the rows' rescale factors: one FMUL per element of a `rows` x `headdim` accumulator, independent."""
    return Vector(fma=rows * headdim, chain=Chain(fma=1))
