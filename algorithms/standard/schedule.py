"""Standard attention as a framework runs it: separate kernels, with S and P (and dP, dS) materialized in HBM.

Two sets of kernels (`framework`):
  "cuda"     our CUDA kernels (`cupy_kernels/standard/attention.cu`, the default): S = QK^T with the scale and the
             causal mask in its epilogue, the softmax, O = PV; the backward's five kernels (`algorithms.standard.
             kernels` describes each).
  "pytorch"  PyTorch's eager attention in the form of Megatron-LM's unfused path, which FA1's GPT-2 comparison
             measured (its Fig. 1 splits that attention into Matmul, Mask, Softmax, Dropout, Matmul): a kernel of
             its own for the causal mask and for the dropout, and autograd's backward, kernel by kernel as PyTorch
             2.11 launched them on the H200 (`algorithms.standard.pytorch`). `dropout` (a probability) runs the
             dropout kernels; our CUDA kernels have none.
Memory footprint: the N x N buffers live at the pass's peak; a problem whose buffers exceed HBM raises
OutOfMemoryError (`algorithms._schedule.memory`).
"""

from __future__ import annotations

from typing import Any

from algorithms._schedule.memory import check_footprint
from algorithms.standard import pytorch
from algorithms.standard.kernels import (
    MMA_ROWS,
    STORAGE_BYTES,
    Config,
    Operand,
    long_k_kernel,
    nt_gemm_kernel,
    rowwise_kernel,
    softmax_bwd_ops,
    softmax_ops,
)
from simgpu.arch import Arch
from simgpu.errors import OptionError, ProblemError
from simgpu.kernel import Kernel
from simgpu.problem import Problem

PROBLEM = "attention"
OPTIONS: dict[str, Any] = {
    "block_m": None,
    "block_n": None,
    "warps": None,
    "stages": None,
    "softmax_passes": 1,
    "softmax_warps": None,
    "framework": "cuda",
    "dropout": 0.0,
}
FRAMEWORKS = ("cuda", "pytorch")
INTEGER_OPTIONS = ("block_m", "block_n", "warps", "stages", "softmax_passes", "softmax_warps")

# cupy_kernels/standard: DEFAULTS (d = 64 and 128) and SOFTMAX_WARPS; PyTorch's softmax_warp_forward also runs 4 rows
# (warps) a CTA at N <= 1024 (its launch in validation/h200/torch_gpt2/ncu_bytes_dropout.csv: blocks of 32 x 4 threads).
DEFAULT = Config(128, 128, 4, 2, 1, 4, "cuda", 0.0)


def config(problem: Problem, options: dict[str, Any]) -> Config:
    values = {name: options.get(name) if options.get(name) is not None else getattr(DEFAULT, name) for name in OPTIONS}
    for name in INTEGER_OPTIONS:
        value = values[name]
        if isinstance(value, bool) or not isinstance(value, int) or value <= 0:
            raise OptionError(f"standard option {name} must be a positive integer, got {value!r}")
    if values["framework"] not in FRAMEWORKS:
        raise OptionError(f"standard: framework must be one of {', '.join(FRAMEWORKS)}, got {values['framework']!r}")
    dropout = values["dropout"]
    if isinstance(dropout, bool) or not isinstance(dropout, (int, float)) or not 0 <= dropout < 1:
        raise OptionError(f"standard: dropout must be a probability in [0, 1), got {dropout!r}")
    if dropout and values["framework"] != "pytorch":
        raise OptionError("standard: dropout needs framework=pytorch (our CUDA kernels have no dropout)")
    cfg = Config(**{**values, "dropout": float(dropout)})
    for name in ("block_m", "block_n"):  # dV and dK put key blocks on the MMA rows: both must split over warps
        if getattr(cfg, name) % (MMA_ROWS * cfg.warps):
            raise OptionError(f"standard: {name} must be a multiple of 16 x warps ({MMA_ROWS * cfg.warps})")
    if cfg.stages < 2:
        raise OptionError(f"standard: stages must be at least 2, got {cfg.stages}")
    if cfg.softmax_passes not in (1, 2):
        raise OptionError(f"standard: softmax_passes must be 1 or 2, got {cfg.softmax_passes}")
    if problem.headdim % 16:
        raise ProblemError(f"standard: headdim must be a multiple of 16 for mma.sync, got {problem.headdim}")
    if problem.dtype not in ("bf16", "fp16"):
        raise ProblemError(f"standard: the kernels take 16-bit inputs (bf16, fp16), got {problem.dtype}")
    return cfg


def footprint_bytes(problem: Problem, cfg: Config = DEFAULT) -> dict[str, int]:
    """Buffers live in HBM at the peak of the pass: the O(N^2) ones are what makes standard attention run out."""
    q, kv = problem.tensor_bytes(problem.seqlen_q), problem.tensor_bytes(problem.nk)
    elements = problem.batch * problem.heads * problem.seqlen_q * problem.nk
    square = elements * STORAGE_BYTES
    buffers = {"Q": q, "K": kv, "V": kv, "O": q, "LSE": problem.lse_bytes}
    # PyTorch's dropout keeps its output (P V's operand, saved for dV) and a 1-byte keep mask beside P.
    dropped = {"P dropped": square, "keep": elements} if cfg.dropout else {}
    if problem.pass_ == "fwd":
        return buffers | {"S": square, "P": square} | dropped  # S and P live while the softmax runs
    # The backward peak (P saved by the forward, dP and dS live in the softmax backward) exceeds the forward's.
    return buffers | {"dO": q, "P": square, "dP": square, "dS": square, "dQ": q, "dK": kv, "dV": kv} | dropped


def schedule(arch: Arch, problem: Problem, **options: Any) -> tuple[Kernel, ...]:
    cfg = config(problem, options)
    check_footprint(arch, "standard", footprint_bytes(problem, cfg))
    if cfg.framework == "pytorch":
        return pytorch.kernels(problem, cfg)
    forward = (
        nt_gemm_kernel("std_qk", problem, cfg, a="Q", b="K", out="S", scaled=True, masked=problem.causal),
        rowwise_kernel(
            "std_softmax",
            problem,
            cfg,
            reads=(Operand("S"),),
            outs=(Operand("P"),),
            ops=softmax_ops,
            passes=cfg.softmax_passes,
            lse=True,
        ),
        long_k_kernel("std_pv", problem, cfg, square="P", operand="V", out="O", by_keys=False, scaled=False),
    )
    backward = (
        long_k_kernel("std_dv", problem, cfg, square="P", operand="dO", out="dV", by_keys=True, scaled=False),
        nt_gemm_kernel("std_dp", problem, cfg, a="dO", b="V", out="dP", scaled=False),
        rowwise_kernel(
            "std_softmax_bwd",
            problem,
            cfg,
            reads=(Operand("P"), Operand("dP")),
            outs=(Operand("dS"),),
            ops=softmax_bwd_ops,
        ),
        long_k_kernel("std_dq", problem, cfg, square="dS", operand="K", out="dQ", by_keys=False, scaled=True),
        long_k_kernel("std_dk", problem, cfg, square="dS", operand="Q", out="dK", by_keys=True, scaled=True),
    )
    return {"fwd": forward, "bwd": backward, "fwd_bwd": forward + backward}[problem.pass_]
