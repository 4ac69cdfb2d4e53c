"""Standard attention as PyTorch's eager mode runs it, kernel by kernel: the `framework="pytorch"` schedule.

The program is the form of Megatron-LM's unfused path that FA1's GPT-2 comparison measured (its Fig. 1 splits the
attention into Matmul, Mask, Softmax, Dropout, Matmul): `baddbmm` with the softmax scale as alpha, `masked_fill_`
with a [1, 1, N, N] boolean causal mask, `softmax`, `dropout`, `bmm`, and autograd's backward. The kernels are those
PyTorch 2.11 launched for it on the H200 (`validation/probes/torch_gpt2_attention.py`; the list, each kernel's DRAM
bytes and its executed instructions in `validation/h200/torch_gpt2/`):

  forward   QK^T (scale in the epilogue) -> S; [causal] masked_fill: S and the mask -> S; softmax: S -> P;
            [dropout] P -> P dropped and its 1-byte keep mask; P V -> O.
  backward  dV = P^T dO; dP = dO V^T; [dropout] masked_scale: dP and the keep mask -> dP; T = dP * P (PyTorch's
            softmax backward multiplies first); softmax backward: T, P -> dS; [causal] a fill of an N x N buffer
            (autograd's copy of the in-place masked_fill_ on a view) and masked_fill: dS and the mask -> dS;
            dQ = dS K, then alpha times dQ (an N x d kernel); dK = dS^T Q, alpha times dK, and a copy of dK (the
            gradient of the transposed K).

The GEMMs' main loops are this schedule's own (`algorithms.standard.kernels`: mma.sync tiles; cuBLAS picks its own,
wgmma on Hopper), so their bytes follow that loop structure; their epilogue is cuBLAS's: the output tile staged
through shared memory and stored in whole lines (`c_store`; its SASS on the H200: stmatrix, then TMA stores), where
ours store from the accumulator fragments in parts of sectors. Each elementwise kernel is
a `rowwise_kernel` that streams its tensors a row group at a time (PyTorch's flat grid-stride kernels stream them in
the same order) with the lane ops per element that Nsight Compute counted on the H200 (`LANE_OPS`), its instructions
on no modeled pipe taking issue slots (`Vector.issue`), and its loads in the dependent rounds its threads make
(`LANE_ELEMENTS`, `Load.rounds`): masked_fill and the strided copy load, use and store one element a thread at a time,
which bounds them by memory latency, not by bandwidth or issue (masked_fill 2.91 ms on the H200 where its bytes take
about 1 ms). A CTA of the model stands for several of such a kernel's grid (masked_fill's take 512 elements, the
model's 4 rows); their launches are not counted (our probe of the same fill in CTAs of 512 and of 4096 elements ran
in 2.29 and 2.50 ms: `validation/h200/elementwise_rounds/`). Neither is the chip's limit on narrow stores (2 bytes a
thread, 64 bytes a warp instruction: a fill in them took 1.28 ms on the H200 where 16-byte stores took 0.65,
`docs/results/elementwise_rounds/vs_model.txt`), the limit `simgpu.sm` leaves out for fragment stores. The rounds
wait the HBM's loaded latency, whose extra follows the bookings a CTA makes at once for all its rounds; fast mode's
representative SMs see other bursts than the whole chip, so its masked_fill departs from exact mode's by up to 11%
on the H200 (0.906 of it at 8 x 16 heads, 1.003 without the loaded latency:
`docs/results/elementwise_rounds/fast_vs_exact.txt`; 1.108 at 64 x 16: `docs/results/torch_gpt2/vs_model*.txt`; its
further tiles are bounded by a lone SM's run, its HBM unloaded: `docs/results/masked_fill_cap_not_kept_29.txt`).

The causal mask is one N x N boolean tensor that every head reads: it stays in L2 from one head to the next at
N = 1024 (1 MB) and 2048, not at 4096 (16 MB: masked_fill then read 0.7 GB more than S holds). Its keys name no head
(`Kernel.head_axes`), and fast mode's replay extrapolates the bytes in heads rather than scaling the replayed heads'
(`simgpu.fast_bytes`): at GPT-2 medium's shape on the A100 it gives exact mode's HBM bytes, 53.96 GB (56.10 when it
counted the mask once per head). Ignored: that
masked_fill skips the loads of some masked elements (of S's 2.15 GB it read 2.15 with no element masked, 1.79 under
the causal mask at N = 1024, 1.61 with every element masked: `validation/h200/torch_gpt2/`), and the allocator's
buffers beyond those `algorithms.standard.schedule.footprint_bytes` counts.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from algorithms.standard.kernels import (
    Config,
    Operand,
    long_k_kernel,
    nt_gemm_kernel,
    rowwise_kernel,
)
from simgpu.kernel import Kernel
from simgpu.ops import Vector
from simgpu.problem import Problem
from simgpu.sm import VECTOR_BYTES_PER_LANE, WARP_LANES

# Elements each kernel went over in the measured run (GPT-2 medium: B = 64, H = 16, N = 1024, d = 64).
_SQUARE = 64 * 16 * 1024 * 1024
_ROWS_D = 64 * 16 * 1024 * 64
# Warp instructions executed per kernel (Nsight Compute, validation/h200/torch_gpt2/ncu_insts_dropout.csv, the second
# iteration): on the ALU, FMA and XU pipes (sm__inst_executed_pipe_{alu,fma,xu}.sum) and in all (smsp__inst_executed.
# sum), with the elements they went over and the bytes an element moves (reads and writes). XU holds the softmax's
# ex2 and conversions; the model runs it as MUFU work.
_MEASURED: dict[str, tuple[int, int, int, int, int, int]] = {
    "masked_fill": (671_088_640, 335_544_320, 0, 1_769_996_288, _SQUARE, 5),  # nocast: per-element index arithmetic
    "softmax": (712_058_880, 515_528_704, 100_663_296, 1_943_896_064, _SQUARE, 4),  # softmax_warp_forward<.., 10>
    # The softmax of longer rows (`more/ncu_insts_dropout_n{2048,4096}.csv`: 16 x 16 heads at N = 2048, 4 x 16 at
    # 4096, as many elements): softmax_warp_forward<.., 11> to 2048 keys, then cunn_SoftMaxForwardReg (a CTA of
    # 1024 threads a row); the backward's cunn_SoftMaxBackwardSmem from 2048 keys (as many instructions at 4096).
    "softmax_2048": (707_832_576, 501_552_384, 100_663_296, 1_911_472_128, _SQUARE, 4),
    "softmax_block": (961_503_232, 1_100_464_128, 134_217_728, 3_241_648_128, _SQUARE, 4),
    "softmax_bwd_block": (130_023_424, 201_850_880, 0, 434_110_464, _SQUARE, 6),
    "dropout": (419_742_976, 440_782_080, 8_448, 927_828_224, _SQUARE, 5),  # fused_dropout_kernel_vec: Philox
    "dropout_bwd": (163_577_856, 142_606_336, 0, 364_904_448, _SQUARE, 5),  # masked_scale_kernel
    "mul": (29_360_128, 125_829_120, 0, 209_715_200, _SQUARE, 6),  # BinaryFunctor<MulFunctor>
    "softmax_bwd": (177_209_344, 170_917_888, 0, 469_762_048, _SQUARE, 6),  # softmax_warp_backward<.., 10>
    "fill": (20_971_520, 25_165_824, 0, 88_080_384, _SQUARE, 2),  # FillFunctor
    "scale": (1_835_008, 5_242_880, 0, 10_223_616, _ROWS_D, 4),  # AUnaryFunctor<MulFunctor>: alpha times dQ or dK
    "copy": (39_321_600, 26_738_688, 0, 114_294_784, _ROWS_D, 4),  # direct_copy_kernel_cuda (nocast)
}


def lane_ops(
    alu: float, fma: float, xu: float, issued: float, elements: float, moved_bytes: float
) -> tuple[float, float, float, float]:
    """Lane ops per element from a kernel's warp instructions (on the ALU, FMA and XU pipes, and in all) over
    `elements`: ALU, FMA, XU, and the other instructions (branches, uniform datapath, narrow loads and stores), less
    the instructions the model's loads and stores of the element's `moved_bytes` already issue (one per 16 bytes a
    lane: `simgpu.sm.VECTOR_BYTES_PER_LANE`)."""
    per_element = WARP_LANES / elements
    other = (issued - alu - fma - xu) * per_element - moved_bytes / VECTOR_BYTES_PER_LANE
    return alu * per_element, fma * per_element, xu * per_element, other


LANE_OPS = {name: lane_ops(*counts) for name, counts in _MEASURED.items()}
# Registers per thread of each kernel (Nsight Compute's launch statistics, validation/h200/torch_gpt2/
# ncu_launch_dropout.csv.gz and more/ncu_launch_dropout_n{2048,4096}.csv.gz): they set its CTAs per SM. Its CTAs are
# 128 threads (the dropout's are 256 with 56 registers, four per SM: 32 warps, as nine of the model's 128-thread CTAs
# hold 36; cunn_SoftMaxForwardReg's 1024, one a row, 30 registers: two per SM, as 16 of the model's).
REGISTERS = {
    "masked_fill": 18,
    "softmax": 48,
    "softmax_2048": 80,
    "softmax_block": 30,
    "softmax_bwd_block": 32,
    "dropout": 56,
    "dropout_bwd": 40,
    "mul": 40,
    "softmax_bwd": 96,
    "fill": 16,
    "scale": 32,
    "copy": 18,
}
# Elements a thread loads before it waits for them (`rowwise_kernel`'s `lane_elements`) where the kernel does not
# load its whole row group first, as the model's row-wise kernels do: from the SASS with Nsight Compute's stall
# samples (validation/h200/elementwise_rounds/torch_masked_fill_source.csv and torch_sass/*_source.csv).
# elementwise_kernel<128, 4> (masked_fill, the strided copy) loads, uses and stores its 4 elements a thread one after
# another, its stores through pointers that may alias the next loads: 4 round trips of one element, the warps stalled
# on them in 82% of masked_fill's samples. vectorized_elementwise_kernel<8> makes one 16-byte load a thread per input
# (8 elements); fused_dropout_kernel_vec loops over its elements 8 a thread, one 16-byte load, a store and a CTA
# barrier a turn. The softmax kernels load whole rows before they use any: one round, as the model's row groups.
LANE_ELEMENTS = {"masked_fill": 1, "copy": 1, "mul": 8, "dropout_bwd": 8, "scale": 8, "dropout": 8}
# Elements a CTA of vectorized_elementwise_kernel<8> takes: 128 threads x 8 (its grid: 1,048,576 CTAs over 2^30
# elements, ncu_launch_dropout.csv.gz). The model's row-wise CTAs over N x N tensors hold 4 rows of N (more than the
# grids' CTAs: a model CTA stands for several, their launches not counted); over N x d ones, 4 rows of d would hold a
# quarter of it and pay four launches and four round trips where the kernel pays one.
VECTOR_CTA_ELEMENTS = 1024
MASK_BYTES = 1  # torch.bool: the causal mask and the dropout's keep mask


def _ops(name: str) -> Callable[[int, int], Vector]:
    """The kernel's work on a block of rows x cols elements, at its measured lane ops per element."""
    alu, fma, xu, other = LANE_OPS[name]

    def ops(rows: int, cols: int) -> Vector:
        elements = rows * cols
        return Vector(fma=fma * elements, alu=alu * elements, ex2=xu * elements, issue=other * elements)

    return ops


WARP_SOFTMAX_KEYS = 2048  # rows up to this long: softmax_warp_forward (longer: cunn_SoftMaxForwardReg)
WARP_SOFTMAX_BWD_KEYS = 1024  # rows up to this long: softmax_warp_backward (longer: cunn_SoftMaxBackwardSmem)


def softmax_kinds(keys: int) -> tuple[str, str]:
    """The forward's and the backward's softmax kernel for rows of `keys` elements, as PyTorch 2.11 picked them on
    the H200 at 1024, 2048 and 4096 keys (the measured kernel nearest in kind stands for the others)."""
    forward = "softmax" if keys <= 1024 else "softmax_2048" if keys <= WARP_SOFTMAX_KEYS else "softmax_block"
    return forward, "softmax_bwd" if keys <= WARP_SOFTMAX_BWD_KEYS else "softmax_bwd_block"


def kernels(p: Problem, cfg: Config) -> tuple[Kernel, ...]:
    """The kernels of `p.pass_` (forward, backward or both) in launch order."""
    causal, dropout = p.causal, cfg.dropout > 0
    softmax, softmax_bwd = softmax_kinds(p.nk)
    mask = Operand("mask", MASK_BYTES, shared=True)
    keep = Operand("keep", MASK_BYTES)
    scores = "Sm" if causal else "S"  # masked in place: the masked S under a name of its own
    probs = "Pd" if dropout else "P"  # what P V multiplies: the dropped P where there is dropout

    def elementwise(
        name: str, reads: tuple[Operand, ...], outs: tuple[Operand, ...], kind: str, **rows_d: Any
    ) -> Kernel:
        return rowwise_kernel(
            name, p, cfg, reads, outs, _ops(kind), registers=REGISTERS[kind], lane_elements=LANE_ELEMENTS.get(kind),
            **rows_d,
        )  # fmt: skip

    def rows_d(name: str, read: str, out: str, kind: str, by_keys: bool) -> Kernel:
        """An elementwise kernel over an N x d gradient, a CTA over as many rows as a vectorized kernel's CTA holds
        elements (one group for the scale and the copy, which reads what the scale wrote)."""
        group_rows = max(1, VECTOR_CTA_ELEMENTS // p.headdim)
        return elementwise(
            name, (Operand(read),), (Operand(out),), kind, cols=p.headdim, by_keys=by_keys, group_rows=group_rows
        )

    forward = (
        nt_gemm_kernel("torch_qk", p, cfg, a="Q", b="K", out="S", scaled=True),
        *((elementwise("torch_mask", (Operand("S"), mask), (Operand("Sm"),), "masked_fill"),) if causal else ()),
        elementwise("torch_softmax", (Operand(scores),), (Operand("P"),), softmax),
        *((elementwise("torch_dropout", (Operand("P"),), (Operand("Pd"), keep), "dropout"),) if dropout else ()),
        long_k_kernel("torch_pv", p, cfg, square=probs, operand="V", out="O", by_keys=False, scaled=False),
    )
    grad_probs = "dPd" if dropout else "dP"
    grad_scores = "dSm" if causal else "dS"
    backward = (
        long_k_kernel("torch_dv", p, cfg, square=probs, operand="dO", out="dV", by_keys=True, scaled=False),
        nt_gemm_kernel("torch_dp", p, cfg, a="dO", b="V", out=grad_probs, scaled=False),
        *(
            (elementwise("torch_dropout_bwd", (Operand("dPd"), keep), (Operand("dP"),), "dropout_bwd"),)
            if dropout
            else ()
        ),
        elementwise("torch_softmax_mul", (Operand("dP"), Operand("P")), (Operand("T"),), "mul"),
        elementwise("torch_softmax_bwd", (Operand("T"), Operand("P")), (Operand("dS"),), softmax_bwd),
        *(
            (
                elementwise("torch_mask_fill", (), (Operand("Z"),), "fill"),
                elementwise("torch_mask_bwd", (Operand("dS"), mask), (Operand("dSm"),), "masked_fill"),
            )
            if causal
            else ()
        ),
        long_k_kernel("torch_dq", p, cfg, square=grad_scores, operand="K", out="dQs", by_keys=False, scaled=False),
        rows_d("torch_dq_scale", "dQs", "dQ", "scale", by_keys=False),
        long_k_kernel("torch_dk", p, cfg, square=grad_scores, operand="Q", out="dKs", by_keys=True, scaled=False),
        rows_d("torch_dk_scale", "dKs", "dKt", "scale", by_keys=True),
        rows_d("torch_dk_copy", "dKt", "dK", "copy", by_keys=True),
    )
    return {"fwd": forward, "bwd": backward, "fwd_bwd": forward + backward}[p.pass_]
