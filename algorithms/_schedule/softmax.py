"""The instruction mix of FlashAttention's online softmax over one score tile, shared by the v2 and v3 schedules.

Per score: 1 FFMA (scale, subtract the running max), 1 MUFU.EX2, 1 FMNMX (row max), 1 FADD (row sum), half a
conversion (two scores packed to 16 bits per F2FP). Per row: the rescale of O (headdim FMUL) and of l, an ex2 for
the rescale factor, and the quad shuffles and max of the row max (8 ALU ops). Tiles that cross the diagonal or the
sequence end add a compare and a select per score for the mask.
"""

from __future__ import annotations

from simgpu.ops import Vector


def online_softmax(rows: int, cols: int, headdim: int, masked: bool) -> Vector:
    scores = rows * cols
    fma = 2 * scores + rows * headdim + rows
    alu = 1.5 * scores + 8 * rows + (2 * scores if masked else 0)
    return Vector(fma=fma, alu=alu, ex2=scores + rows)
