"""The CuPy kernels: every instantiation the launchers use compiles with nvcc for sm_90a without register
spills, the launch configurations are validated, and (on a machine with CuPy and a GPU) the kernels match
``algorithms.reference`` on small random inputs under FlashAttention's tolerance rule.

The nvcc tests need only ``nvcc`` (skipped when it is absent); the four sources compile in parallel, one nvcc
process each, in well under a minute on two cores.
"""

from __future__ import annotations

import re
import shutil
import subprocess
import tempfile
from concurrent.futures import ThreadPoolExecutor
from functools import cache
from pathlib import Path

import pytest

from cupy_kernels import common
from cupy_kernels.standard import launch as standard
from cupy_kernels.v1 import launch as v1
from cupy_kernels.v2 import launch as v2

NVCC = shutil.which("nvcc")
ROOT = Path(__file__).resolve().parents[1]
KERNEL_SOURCES = sorted(
    str(path.relative_to(ROOT)) for folder in ("cupy_kernels", "validation") for path in (ROOT / folder).glob("**/*.cu")
)


def launched_instantiations() -> dict[Path, list[str]]:
    """Every template instantiation the launchers use with their default configurations."""
    names: dict[Path, list[str]] = {standard.SOURCE: [], v1.SOURCE: [], v2.FWD_SOURCE: [], v2.BWD_SOURCE: []}
    for d in common.SUPPORTED_HEADDIMS:
        for causal in (False, True):
            for bf16 in (True, False):
                names[standard.SOURCE] += standard.kernel_names(d, standard.fwd_config(d), causal, bf16)
                names[v1.SOURCE].append(v1.kernel_name(d, v1.fwd_config(d), causal, bf16))
                names[v2.FWD_SOURCE].append(v2.fwd_name(d, v2.fwd_config(d), causal, bf16))
                names[v2.BWD_SOURCE] += v2.bwd_names(d, v2.bwd_config(d), causal, bf16)
    return {path: sorted(set(batch)) for path, batch in names.items()}


def compile_report(source: Path, names: list[str], prefix: str = "") -> str:
    """ptxas -v report of `source` (after `prefix` lines) with `names` instantiated (taking a kernel's address
    instantiates it)."""
    with tempfile.TemporaryDirectory() as tmp:
        wrapper = Path(tmp) / "instantiate.cu"
        lines = [prefix, f'#include "{source}"']
        lines += [f"static void* const kernel_{i} = (void*)&{name};" for i, name in enumerate(names)]
        wrapper.write_text("\n".join(lines) + "\n")
        cmd = [NVCC, "-std=c++17", "-gencode=arch=compute_90a,code=sm_90a", "-cubin", "-Xptxas", "-v",
               "-diag-suppress", "177", "-o", str(Path(tmp) / "out.cubin"), str(wrapper)]  # fmt: skip
        result = subprocess.run(cmd, capture_output=True, text=True, timeout=300)
    report = result.stdout + result.stderr
    assert result.returncode == 0, report
    return report


@cache
def all_reports() -> dict[Path, tuple[int, str]]:
    """Compile the four sources in parallel: {source: (instantiations, ptxas report)}."""
    batches = launched_instantiations()
    with ThreadPoolExecutor(max_workers=len(batches)) as pool:
        futures = {path: pool.submit(compile_report, path, names) for path, names in batches.items()}
        return {path: (len(batches[path]), future.result()) for path, future in futures.items()}


# Spill bytes per thread (stores and loads each) that a source's instantiations may take: the v2 forward shares each
# K/V fragment between a warp's two m16 groups at d = 128, as FA2 does, and ptxas spills 52-76 bytes there
# (docs/results/v2_fwd_ptxas_2026-12-03.txt; FA2's own kernel runs 14 LDL and 14 STL per warp per key tile:
# validation/h200/torch_fa2_mix_h200.csv).
SPILL_BYTES_ALLOWED = {"v2/fwd.cu": 128}


@pytest.mark.skipif(NVCC is None, reason="nvcc not installed")
@pytest.mark.parametrize("source", ["standard/attention.cu", "v1/fwd.cu", "v2/fwd.cu", "v2/bwd.cu"])
def test_every_launched_instantiation_compiles_within_its_spill_allowance(source: str) -> None:
    count, report = all_reports()[common.KERNEL_DIR / source]
    entries = re.findall(r"Compiling entry function '(\w+)'", report)
    spills = re.findall(r"(\d+) bytes spill stores, (\d+) bytes spill loads", report)
    allowed = SPILL_BYTES_ALLOWED.get(source, 0)
    assert len(entries) == count, report
    assert len(spills) == count, report
    assert all(int(stores) <= allowed and int(loads) <= allowed for stores, loads in spills), report


PROBES = common.KERNEL_DIR.parent / "validation" / "probes"
FA2_TRACE = "#define FA2_PHASE_TRACE\n#define FA2_TRACE_X 3\n#define FA2_TRACE_Y 40\n#define FA2_TRACE_SLOTS 128"
FA2_SM_PHASE = (
    "#define FA2_SM_PHASE\n#define FA2_SM_PHASE_CTAS 1024\n#define FA2_SM_PHASE_SLOTS 32\n"
    "#define FA2_SM_PHASE_DELAY 3000"
)
FA1_TRACE = "#define FA1_PHASE_TRACE\n#define FA1_TRACE_CTA 3\n#define FA1_TRACE_STEPS 2048"
STD_QK_NAMES = [standard.kernel_names(d, standard.fwd_config(d), c, True)[0] for d in (64, 128) for c in (False, True)]
STD_PV_NAMES = [
    standard.kernel_names(d, standard.fwd_config(d, warps=w), False, True)[2] for d in (64, 128) for w in (4, 8)
]
WGMMA_SHAPE_GROUPS = ((0, (4, 8)), (1, (4, 8)), (2, (4,)), (3, (4, 8)), (4, (4, 8)), *((p, (1,)) for p in range(5, 10)))
PROBE_BUILDS = {  # the device probes' kernels, as their scripts instantiate them
    "v2_phases": (v2.FWD_SOURCE, FA2_TRACE, [v2.fwd_name(d, v2.fwd_config(d), False, True) for d in (64, 128)]),
    "v1_phases": (v1.SOURCE, FA1_TRACE, [v1.kernel_name(d, v1.fwd_config(d), False, True) for d in (64, 128)]),
    "v2_gemm_rate": (PROBES / "v2_gemm_rate.cu", "", ["s_gemm<64, 128, 2>", "pv_gemm<64, 128, 2>",
                     "s_gemm<128, 64, 1>", "pv_gemm<128, 64, 1>", "s_gemm<128, 64, 2>", "pv_gemm<128, 64, 2>",
                     "mma_distinct<8>", "mma_distinct<16>"]),
    "cta_launch": (PROBES / "cta_launch.cu", "", ["turnaround", "chase"]),
    "cta_sync": (PROBES / "cta_sync.cu", "", ["exchange"]),
    "cp_async_stream": (PROBES / "cp_async_stream.cu", "", [f"cp_async_stream<{d}, {n}, {st}>"
                        for d, n, st in ((64, 128, 2), (128, 64, 2), (64, 128, 3))]
                        + [f"cp_async_issue<{c}>" for c in (2, 4, 8, 16, 32)]),
    "smem_port": (PROBES / "smem_port.cu", "", [f"smem_port<{r}, {m}>" for r in range(4) for m in range(5)]),
    "dq_atomics": (PROBES / "dq_atomics.cu", "", [f"dq_atomics<{d}, {mode}>" for d in (64, 128) for mode in range(3)]),
    "bulk_reduce": (PROBES / "bulk_reduce.cu", "", [f"bulk_reduce<20480, {mode}>" for mode in range(4)]),
    "tma_boxes": (PROBES / "tma_boxes.cu", "", ["tma_boxes"]),
    "tma_cold": (PROBES / "tma_cold.cu", "", ["tma_cold"]),
    "loaded_latency": (PROBES / "loaded_latency.cu", "", ["loaded_latency"]),
    "cta_prologue": (PROBES / "cta_prologue.cu", "", ["cta_prologue_regs", "cta_prologue_plain"]),
    "wgmma_hold": (PROBES / "wgmma_hold.cu", "", ["wgmma_hold_d64", "wgmma_hold_d128"]),
    "wgmma_queue": (PROBES / "wgmma_queue.cu", "", ["wgmma_queue_d64", "wgmma_queue_d128", "wgmma_queue_softmax_d64",
                                                    "wgmma_queue_softmax_d128"]),
    "softmax_offset": (PROBES / "softmax_offset.cu", "", ["softmax_offset", "softmax_offset_passes"]),
    "stall_hold": (PROBES / "stall_hold.cu", "", [f"stall_hold<{mode}>" for mode in range(7)]),
    "v3_pieces": (PROBES / "v3_pieces.cu", "", [f"softmax_beside<{b}>" for b in range(3)]
                  + [f"sync_cost<{mode}>" for mode in range(5)] + [f"softmax_group<{w}>" for w in (1, 2, 3)]
                  + [f"pass_pair<{mode}>" for mode in range(5)]),
    # the softmax groups' builds without the ex2 and the row-max pass (v3_softmax_groups.py)
    "v3_pieces_ablated": (PROBES / "v3_pieces.cu", "#define FA3_ABLATE 34", [f"softmax_group<{w}>" for w in (1, 2, 3)]),
    "dsmem": (PROBES / "dsmem.cu", "", ["dsmem_latency<0>", "dsmem_latency<1>",
                                        *(f"dsmem_stream<{m}>" for m in range(4)), "dsmem_bulk", "dsmem_pingpong"]),
    "smem_read": (PROBES / "smem_read.cu", "", [f"smem_read<{k}, {ilp}>" for k in range(3) for ilp in (1, 2, 4, 8)]),
    # every ablation branch at once (the probe builds subsets of them)
    "v2_ablate": (v2.FWD_SOURCE, "#define FA2_ABLATE 15", [v2.fwd_name(d, v2.fwd_config(d), False, True)
                                                           for d in (64, 128)]),
    # std_kernels.py's PV ablations: no loads and no ldmatrix; no mma.sync; no loads and no product
    **{f"std_pv_ablate_{mask}": (standard.SOURCE, f"#define STD_PV_ABLATE {mask}", STD_PV_NAMES) for mask in (3, 5, 8)},
    # and its QK^T ablations: the product out; the stores out; everything but the stores out
    **{f"std_qk_ablate_{mask}": (standard.SOURCE, f"#define STD_QK_ABLATE {mask}", STD_QK_NAMES) for mask in (2, 8, 7)},
    "ldmatrix_under_copies": (PROBES / "ldmatrix_under_copies.cu", "", [f"ldmatrix_under_copies<{w}, {c}>"
                              for w, c in ((4, 32), (4, 0), (4, 24), (8, 16), (8, 0))]),
    "v2_sm_phase": (v2.FWD_SOURCE, FA2_SM_PHASE, [v2.fwd_name(d, v2.fwd_config(d), False, True) for d in (64, 128)]),
    "wgmma_shape": (PROBES / "wgmma_shape.cu", "", [f"wgmma_shape<{shape}, {group}, {wait}, {wgs}>"
                    for shape, groups in WGMMA_SHAPE_GROUPS for group in groups for wait in (0, 1) for wgs in (1, 2)]),
}  # fmt: skip
# The SM-phase trace adds a few live registers to the v2 forward at d = 128, which already spills (see above).
PROBE_SPILL_BYTES_ALLOWED = {"v2_sm_phase": 128}


@pytest.mark.skipif(NVCC is None, reason="nvcc not installed")
@pytest.mark.parametrize("probe", sorted(PROBE_BUILDS))
def test_the_probe_kernels_compile_within_their_spill_allowance_and_without_warnings(probe: str) -> None:
    source, prefix, names = PROBE_BUILDS[probe]
    report = compile_report(source, names, prefix)
    spills = re.findall(r"(\d+) bytes spill stores, (\d+) bytes spill loads", report)
    allowed = PROBE_SPILL_BYTES_ALLOWED.get(probe, 0)
    assert len(spills) == len(names) and all(int(a) <= allowed and int(b) <= allowed for a, b in spills), report
    assert "warning" not in report.lower(), report


def test_sources_expand_their_includes_once() -> None:
    text = common.load_source(v2.FWD_SOURCE)
    assert "#include" not in text
    assert text.count("__device__ __forceinline__ void mma16816") == 1


@pytest.mark.parametrize("source", KERNEL_SOURCES)
def test_every_kernel_source_expands_every_local_include(source: str) -> None:
    # NVRTC compiles the expanded text alone: a local include left in (one with a trailing comment was, until the
    # forty-fifth session) cannot be found there.
    assert '#include "' not in common.load_source(ROOT / source)


def test_ncu_csv_output_gives_each_launchs_metrics_in_launch_order() -> None:
    stdout = "\n".join(
        [
            "==PROF== Connected to process 1",
            '"ID","Kernel Name","Metric Name","Metric Unit","Metric Value"',
            '"1","std_softmax","dram__bytes_read.sum","byte","2,048"',
            '"0","std_softmax","dram__bytes_read.sum","byte","1,024"',
            '"0","std_softmax","lts__t_bytes.sum","byte","4096"',
        ]
    )
    assert common.ncu_metrics(stdout) == [
        {"dram__bytes_read.sum": 1024.0, "lts__t_bytes.sum": 4096.0},
        {"dram__bytes_read.sum": 2048.0},
    ]
    assert common.ncu_metrics("==ERROR== no kernels were profiled") is None


def test_default_configs_are_fa2s() -> None:
    assert v2.fwd_config(64) == common.TileConfig(block_m=128, block_n=128, warps=4, stages=2)
    assert v2.fwd_config(128) == common.TileConfig(block_m=128, block_n=64, warps=4, stages=2)


@pytest.mark.parametrize(
    ("config", "kwargs"),
    [
        (v2.fwd_config, {"block_m": 96}),  # not a multiple of 16 * warps
        (v2.fwd_config, {"stages": 1}),
        (v2.fwd_config, {"block_n": 512}),  # too much shared memory
        (v2.bwd_config, {"warps": 4}),  # block_n != 16 * warps
        (v1.fwd_config, {"stages": 2}),
        (standard.fwd_config, {"block_n": 8}),
    ],
)
def test_bad_launch_configs_raise_value_error(config, kwargs) -> None:
    with pytest.raises(ValueError):
        config(128, **kwargs)


# ---------------------------------------------------------------------------------------------------------
# On a GPU
# ---------------------------------------------------------------------------------------------------------


def gpu_available() -> bool:
    if common.cp is None:
        return False
    try:
        return common.cp.cuda.runtime.getDeviceCount() > 0
    except common.cp.cuda.runtime.CUDARuntimeError:
        return False


gpu = pytest.mark.skipif(not gpu_available(), reason="needs CuPy and a CUDA GPU")


@gpu
@pytest.mark.parametrize("headdim", [64, 128])
@pytest.mark.parametrize("causal", [False, True])
@pytest.mark.parametrize("kernel", ["standard", "v1", "v2"])
def test_forward_matches_reference(kernel: str, causal: bool, headdim: int) -> None:
    from algorithms import reference
    from cupy_kernels import selfcheck

    cp = common.cp
    shape = (1, 2, 257, headdim)  # odd seqlen: partial tiles everywhere
    q, k, v = (common.random_tensor(shape, "bf16", seed) for seed in (1, 2, 3))
    qh, kh, vh = (selfcheck.host(x) for x in (q, k, v))
    o, lse = cp.empty_like(q), cp.empty(shape[:3], dtype=cp.float32)
    common.poison(o, lse)
    selfcheck.FORWARDS[kernel](q, k, v, causal=causal, out=(o, lse))
    ref_o, ref_lse = reference.forward(qh, kh, vh, causal=causal)
    base_o, base_lse = selfcheck.baseline_forward(qh, kh, vh, causal, headdim**-0.5, "bf16")
    assert selfcheck.compare(selfcheck.host(o), ref_o, base_o)["ok"]
    assert selfcheck.compare(selfcheck.host(lse), ref_lse, base_lse)["ok"]


@gpu
@pytest.mark.parametrize("headdim", [64, 128])
@pytest.mark.parametrize("causal", [False, True])
def test_v2_backward_matches_reference(causal: bool, headdim: int) -> None:
    from algorithms import reference
    from cupy_kernels import selfcheck

    cp = common.cp
    shape = (1, 2, 257, headdim)
    q, k, v, do = (common.random_tensor(shape, "bf16", seed) for seed in (4, 5, 6, 7))
    qh, kh, vh, doh = (selfcheck.host(x) for x in (q, k, v, do))
    o, lse = v2.forward(q, k, v, causal=causal)
    grads = tuple(cp.empty_like(q) for _ in range(3))
    common.poison(*grads)
    v2.backward(q, k, v, o, lse, do, causal=causal, out=grads)
    ref_o, ref_lse = reference.forward(qh, kh, vh, causal=causal)
    refs = reference.backward(qh, kh, vh, ref_o, ref_lse, doh, causal=causal)
    bases = selfcheck.baseline_backward(qh, kh, vh, doh, causal, headdim**-0.5, "bf16")
    for got, ref, base in zip(grads, refs, bases, strict=True):
        assert selfcheck.compare(selfcheck.host(got), ref, base)["ok"]


@gpu
def test_launcher_rejects_bad_inputs() -> None:
    cp = common.cp
    q = common.random_tensor((1, 1, 16, 64), "bf16", 0)
    with pytest.raises(ValueError, match="headdim"):
        v2.forward(*(common.random_tensor((1, 1, 16, 96), "bf16", i) for i in range(3)))
    with pytest.raises(ValueError, match="dtype"):
        v2.forward(q.astype(cp.float32), q, q)
    with pytest.raises(ValueError, match="shape"):
        v2.forward(q, q[:, :, :8].copy(), q)


def test_clock_in_windows_counts_only_the_samples_inside_the_timed_windows() -> None:
    import numpy as np

    # The probe samples every 10 ns; the clock runs at 2 cycles/ns in [0, 100] ns and 1 cycle/ns after.
    times = np.arange(0.0, 301.0, 10.0)
    cycles = np.where(times <= 100, 2 * times, 200 + (times - 100))
    samples = np.column_stack([times, cycles])
    assert common.clock_in_windows_mhz(samples, np.array([[0.0, 100.0]])) == 2000.0
    assert common.clock_in_windows_mhz(samples, np.array([[150.0, 300.0]])) == 1000.0
    # Two windows: cycles and nanoseconds are summed (100 ns at 2 GHz + 100 ns at 1 GHz).
    assert common.clock_in_windows_mhz(samples, np.array([[0.0, 100.0], [200.0, 300.0]])) == 1500.0
    # A window shorter than the sample period holds at most one sample: it cannot be counted.
    assert np.isnan(common.clock_in_windows_mhz(samples, np.array([[12.0, 18.0]])))
    assert common.format_mhz(float("nan")) == ""
    assert common.format_mhz(1797.4) == "1797"


@pytest.mark.skipif(NVCC is None, reason="nvcc not installed")
def test_clock_trace_probe_is_a_light_warp() -> None:
    """The probe shares an SM with the timed kernel: it must not take registers a kernel's CTA could need."""
    with tempfile.TemporaryDirectory() as tmp:
        source = Path(tmp) / "clock_trace.cu"
        source.write_text(common.CLOCK_TRACE_SOURCE)
        cmd = [NVCC, "-gencode=arch=compute_90a,code=sm_90a", "-cubin", "-Xptxas", "-v", "--maxrregcount=32",
               "-o", str(Path(tmp) / "out.cubin"), str(source)]  # fmt: skip
        result = subprocess.run(cmd, capture_output=True, text=True, timeout=300)
    report = result.stdout + result.stderr
    assert result.returncode == 0, report
    registers = [int(r) for r in re.findall(r"Used (\d+) registers", report)]
    assert len(registers) == 2 and max(registers) <= 32, report
    assert "bytes smem" not in report and "spill stores" in report, report
    assert all(stores == "0" for stores in re.findall(r"(\d+) bytes spill stores", report)), report
