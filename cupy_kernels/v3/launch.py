"""Launcher of the FlashAttention-3 forward kernel in ``fwd.cu`` (sm_90a: TMA, wgmma, warp specialization).

Tensors are CuPy arrays ``(batch, heads, seqlen, headdim)``, C-contiguous, bf16 as ``uint16`` bits (see
``cupy_kernels.common``; fp16 is not implemented here); ``lse`` is fp32 ``(batch, heads, seqlen)`` in natural log.
Option names are the simulator's: ``block_m`` (query rows per CTA: 128, two consumer warpgroups of 64),
``block_n`` (keys per K/V tile: 128), ``stages`` (K/V shared-memory slots), ``pingpong``, ``intra_wg_overlap``.

The copies are TMA tensor copies: the launcher encodes one 3-D tensor map (d, seqlen, batch * heads) per input
with the driver's ``cuTensorMapEncodeTiled`` (through ctypes: boxes of 64 columns, 128-byte swizzle, zero fill
past the sequence's end) and hands the kernel the three 128-byte maps in global memory. Maps are cached per
(pointer, shape), so timing loops copy them to the GPU once.
"""

from __future__ import annotations

import ctypes
import functools
import multiprocessing
from collections.abc import Sequence
from concurrent.futures import ProcessPoolExecutor
from typing import Any

import numpy as np

from cupy_kernels import common
from cupy_kernels.common import TileConfig, cpp_bool

SOURCE = common.KERNEL_DIR / "v3" / "fwd.cu"
NVRTC_OPTIONS = (*common.NVRTC_OPTIONS, "-arch=sm_90a")  # wgmma and setmaxnreg exist on sm_90a only
BLOCK_M = 128
BLOCK_N = 128
WARPS = 12  # 1 producer + 2 consumer warpgroups
DEFAULTS = {d: TileConfig(BLOCK_M, BLOCK_N, WARPS, 2) for d in common.SUPPORTED_HEADDIMS}
PANEL_COLUMNS = 64  # elements per 128-byte swizzled shared-memory row (the TMA box width)
SMEM_ALIGN_SLACK = 1024  # the kernel aligns its tiles to 1024 bytes (128-byte swizzle atoms)
STATIC_SMEM_SLACK = 256  # the kernel's static shared memory (mbarriers), kept out of the dynamic budget
TENSOR_MAP_BYTES = 128

# CUtensorMap enums (cuda.h)
_DATA_TYPE_BFLOAT16 = 9
_INTERLEAVE_NONE = 0
_SWIZZLE_128B = 3
_L2_PROMOTION_256B = 3
_OOB_FILL_NONE = 0  # out-of-bounds elements read as zeros


def fwd_config(headdim: int, block_m: int | None = None, block_n: int | None = None, stages: int | None = None):
    """The launch configuration for ``headdim``, validated."""
    if headdim not in DEFAULTS:
        raise ValueError(f"v3 forward: headdim must be one of {tuple(DEFAULTS)}, got {headdim}")
    config = DEFAULTS[headdim].resolve(block_m, block_n, None, stages)
    if config.block_m != BLOCK_M or config.block_n != BLOCK_N:
        raise ValueError(f"v3 forward: only block_m = {BLOCK_M} and block_n = {BLOCK_N} are implemented, got {config}")
    if config.stages < 2:
        raise ValueError(f"v3 forward: stages must be >= 2, got {config.stages}")
    common.check_smem("v3 forward", smem_bytes(headdim, config) + STATIC_SMEM_SLACK, config)
    return config


def smem_bytes(headdim: int, c: TileConfig) -> int:
    """Dynamic shared memory: the Q tile and STAGES K and V tiles, bf16, plus alignment slack."""
    return SMEM_ALIGN_SLACK + (c.block_m + 2 * c.stages * c.block_n) * headdim * 2


def kernel_name(headdim: int, c: TileConfig, causal: bool, pingpong: bool, intra_wg_overlap: bool) -> str:
    flags = ",".join(cpp_bool(f) for f in (causal, pingpong, intra_wg_overlap))
    return f"fa3_fwd<{headdim},{c.stages},{flags}>"


def variant_names(causal: bool = False) -> list[str]:
    """Every (pingpong, intra_wg_overlap) variant at both head dimensions, default tiles: the device probes' builds."""
    flags = (True, False)
    return [
        kernel_name(d, fwd_config(d), causal, pp, ov) for d in common.SUPPORTED_HEADDIMS for pp in flags for ov in flags
    ]


def probe_module(defines: dict[str, object]) -> Any:
    """fwd.cu compiled with `defines` before it and every variant of `variant_names` instantiated."""
    return common.module_with_defines(SOURCE, defines, variant_names(), NVRTC_OPTIONS)


def probe_modules(define: str, values: Sequence[int]) -> dict[int, Any]:
    """`probe_module` for each value of `define`, compiled first in parallel processes (spawned: a fresh CUDA
    context each), which fill CuPy's on-disk kernel cache for this process."""
    spawn = multiprocessing.get_context("spawn")
    with ProcessPoolExecutor(max_workers=len(values), mp_context=spawn) as pool:
        list(pool.map(_compile_probe, [{define: value} for value in values]))
    return {value: probe_module({define: value}) for value in values}


def _compile_probe(defines: dict[str, object]) -> None:
    probe_module(defines).get_function(variant_names()[0])  # compiles the whole module


# --------------------------------------------------------------------------------------------------------
# Compilation (NVRTC for sm_90a; common.precompile compiles for the plain sm_90 target)
# --------------------------------------------------------------------------------------------------------

_functions: dict[str, Any] = {}


def precompile(names: Any) -> None:
    """Compile every instantiation in ``names`` with one NVRTC call."""
    missing = tuple(sorted({n for n in names if n not in _functions}))
    if missing:
        module = common.cp.RawModule(code=common.load_source(SOURCE), options=NVRTC_OPTIONS, name_expressions=missing)
        for name in missing:
            _functions[name] = module.get_function(name)


def get_kernel(name: str, smem: int) -> Any:
    precompile((name,))
    kernel = _functions[name]
    kernel.max_dynamic_shared_size_bytes = smem
    return kernel


# --------------------------------------------------------------------------------------------------------
# Tensor maps
# --------------------------------------------------------------------------------------------------------


@functools.cache
def _encode_fn() -> Any:
    fn = ctypes.CDLL("libcuda.so.1").cuTensorMapEncodeTiled
    fn.restype = ctypes.c_int
    fn.argtypes = [
        ctypes.c_void_p,  # CUtensorMap* (64-byte aligned)
        ctypes.c_int,  # data type
        ctypes.c_uint32,  # rank
        ctypes.c_void_p,  # global address
        ctypes.POINTER(ctypes.c_uint64),  # global dims (innermost first)
        ctypes.POINTER(ctypes.c_uint64),  # global strides in bytes of dims 1.. (rank - 1 values)
        ctypes.POINTER(ctypes.c_uint32),  # box dims
        ctypes.POINTER(ctypes.c_uint32),  # element strides
        ctypes.c_int,  # interleave
        ctypes.c_int,  # swizzle
        ctypes.c_int,  # L2 promotion
        ctypes.c_int,  # out-of-bounds fill
    ]
    return fn


def encode_tensor_map(ptr: int, shape: tuple[int, int, int, int], box_rows: int) -> bytes:
    """The 128-byte CUtensorMap of a (B, H, N, D) bf16 tensor at ``ptr`` seen as 3-D (D, N, B * H), with boxes
    of 64 columns x ``box_rows`` rows of one head (rows past N read as zeros), written 128-byte swizzled."""
    batch, heads, n, d = shape
    dims = (ctypes.c_uint64 * 3)(d, n, batch * heads)
    strides = (ctypes.c_uint64 * 2)(d * 2, n * d * 2)
    box = (ctypes.c_uint32 * 3)(PANEL_COLUMNS, box_rows, 1)
    element_strides = (ctypes.c_uint32 * 3)(1, 1, 1)
    buf = ctypes.create_string_buffer(TENSOR_MAP_BYTES + 64)
    addr = (ctypes.addressof(buf) + 63) & ~63
    err = _encode_fn()(addr, _DATA_TYPE_BFLOAT16, 3, ptr, dims, strides, box, element_strides, _INTERLEAVE_NONE,
                       _SWIZZLE_128B, _L2_PROMOTION_256B, _OOB_FILL_NONE)  # fmt: skip
    if err != 0:
        raise RuntimeError(f"cuTensorMapEncodeTiled failed with CUresult {err} for shape {shape}")
    return ctypes.string_at(addr, TENSOR_MAP_BYTES)


@functools.lru_cache(maxsize=64)
def _tensor_maps(ptrs: tuple[int, int, int], shape: tuple[int, int, int, int], device: int) -> Any:
    """The Q, K, V maps in one device buffer (CuPy allocations are 256-byte aligned; maps need 64)."""
    maps = b"".join(
        encode_tensor_map(ptr, shape, rows) for ptr, rows in zip(ptrs, (BLOCK_M, BLOCK_N, BLOCK_N), strict=True)
    )
    with common.cp.cuda.Device(device):
        return common.cp.asarray(np.frombuffer(maps, dtype=np.uint8))


# --------------------------------------------------------------------------------------------------------
# Forward
# --------------------------------------------------------------------------------------------------------


def forward(
    q: Any,
    k: Any,
    v: Any,
    causal: bool = False,
    block_m: int | None = None,
    block_n: int | None = None,
    stages: int | None = None,
    pingpong: bool = True,
    scale: float | None = None,
    out: tuple[Any, Any] | None = None,
    intra_wg_overlap: bool = True,
) -> tuple[Any, Any]:
    """FA3 forward: ``(o, lse)``. ``out`` optionally gives the ``(o, lse)`` buffers to write."""
    cp = common.cp
    batch, heads, n, d = common.check_qkv(q, k, v)
    if not common.is_bf16(q):
        raise ValueError("v3 forward: only bf16 (uint16 bits) is implemented, got float16")
    for name, x in (("q", q), ("k", k), ("v", v)):
        if x.data.ptr % 16:
            raise ValueError(f"v3 forward: {name} must be 16-byte aligned for the tensor copies")
    config = fwd_config(d, block_m, block_n, stages)
    scale = common.default_scale(d, scale)
    if not scale > 0:
        raise ValueError(f"v3 forward: scale must be positive (the running max is taken on raw scores), got {scale}")
    o, lse = common.forward_outputs(q, out)
    maps = _tensor_maps((q.data.ptr, k.data.ptr, v.data.ptr), q.shape, q.device.id)
    smem = smem_bytes(d, config)
    kernel = get_kernel(kernel_name(d, config, causal, pingpong, intra_wg_overlap), smem)
    grid = ((n + BLOCK_M - 1) // BLOCK_M, batch * heads)
    kernel(grid, (WARPS * 32,), (maps, o, lse, cp.int32(n), cp.float32(scale)), shared_mem=smem)
    return o, lse
