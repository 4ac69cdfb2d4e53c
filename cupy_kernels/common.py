"""Shared plumbing of the CuPy launchers: sources, compilation, dtypes, input checks, timing, GPU facts.

Element types: CuPy has no bfloat16, so a bf16 tensor is a CuPy ``uint16`` array holding the raw bf16 bits
(``to_bf16_bits`` makes one from floats, ``to_float32`` reads it back); an fp16 tensor is a plain
``float16`` array. Every kernel takes both and picks the MMA type from the array's dtype.

Timing follows the project's measurement rules (``DESIGN.md``): CUDA events around each run, warm-up runs
first, the median (and 10th/90th percentiles) of many runs, the L2 flushed before every run by writing a
buffer several times its size, outputs poisoned (NaN) before every run by the caller's ``before`` hook, the SM
clock sampled with ``nvidia-smi`` while the runs execute, and (``ClockTrace``) the SM clock the timed kernels
really ran at, counted in SM cycles by a probe warp running beside them. Nothing here imports ``simgpu``.
"""

from __future__ import annotations

import csv
import functools
import gzip
import re
import statistics
import subprocess
import sys
import threading
import time
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

try:  # the launchers need CuPy; importing this module for its pure-Python parts must not
    import cupy as cp
except ImportError:  # pragma: no cover - exercised on machines without CuPy
    cp = None

KERNEL_DIR = Path(__file__).resolve().parent
NVRTC_OPTIONS = ("-std=c++17",)
SUPPORTED_HEADDIMS = (64, 128)
MAX_SMEM_PER_BLOCK = 232448  # bytes, sm_90 opt-in limit (227 KiB)
BF16_NAN_BITS = 0x7FC0
_INCLUDE = re.compile(r'^\s*#include\s+"([^"]+)"\s*(?://.*)?$', re.MULTILINE)  # a trailing // comment allowed


# --------------------------------------------------------------------------------------------------------
# Sources and compilation
# --------------------------------------------------------------------------------------------------------


def load_source(path: Path, _seen: set[Path] | None = None) -> str:
    """Return the text of a ``.cu`` file with its local ``#include "..."`` files pasted in (once each).

    CuPy's compile cache keys on the source text only, so headers are expanded here: editing a header then
    recompiles, where ``-I`` would silently reuse a stale binary.
    """
    seen = set() if _seen is None else _seen
    path = path.resolve()
    if path in seen:
        return ""
    seen.add(path)
    text = path.read_text()

    def expand(match: re.Match[str]) -> str:
        return load_source(path.parent / match.group(1), seen)

    return _INCLUDE.sub(expand, text).replace("#pragma once", "")


def module_with_defines(
    path: Path, defines: dict[str, object], names: list[str], options: tuple[str, ...] = NVRTC_OPTIONS
) -> Any:
    """A RawModule of `path` compiled with `#define NAME VALUE` lines before it (the probes' traced builds)."""
    prefix = "".join(f"#define {name} {value}\n" for name, value in defines.items())
    return cp.RawModule(code=prefix + load_source(path), options=options, name_expressions=names)


@functools.cache
def _module(path: Path, names: tuple[str, ...]) -> Any:
    return cp.RawModule(code=load_source(path), options=NVRTC_OPTIONS, name_expressions=names)


_functions: dict[tuple[Path, str], Any] = {}


def precompile(path: Path, names: Iterable[str]) -> None:
    """Compile every template instantiation in ``names`` of ``path`` with one NVRTC call."""
    missing = tuple(sorted({n for n in names if (path, n) not in _functions}))
    if missing:
        module = _module(path, missing)
        for name in missing:
            _functions[(path, name)] = module.get_function(name)


def get_kernel(path: Path, name: str, smem_bytes: int = 0) -> Any:
    """The compiled kernel ``name`` (a name expression such as ``fa2_fwd<64,128,128,4,2,false,true>``)."""
    precompile(path, (name,))
    kernel = _functions[(path, name)]
    if smem_bytes > 48 * 1024:  # above 48 KB a kernel must opt in to more dynamic shared memory
        kernel.max_dynamic_shared_size_bytes = smem_bytes
    return kernel


def cpp_bool(flag: bool) -> str:
    return "true" if flag else "false"


# --------------------------------------------------------------------------------------------------------
# Element types and input checks
# --------------------------------------------------------------------------------------------------------


def is_bf16(x: Any) -> bool:
    """True for a bf16 tensor (uint16 bits), False for fp16; ValueError for anything else."""
    if x.dtype == np.uint16:
        return True
    if x.dtype == np.float16:
        return False
    raise ValueError(f"dtype must be uint16 (bf16 bits) or float16, got {x.dtype}")


def dtype_name(x: Any) -> str:
    return "bf16" if is_bf16(x) else "fp16"


def check_qkv(q: Any, k: Any, v: Any) -> tuple[int, int, int, int]:
    """Validate q, k, v (CuPy, (B, H, N, D), one 16-bit dtype, C-contiguous); return (B, H, N, D)."""
    if cp is None:
        raise RuntimeError("cupy is not installed")
    for name, x in (("q", q), ("k", k), ("v", v)):
        if not isinstance(x, cp.ndarray):
            raise ValueError(f"{name} must be a cupy.ndarray, got {type(x).__name__}")
        if x.ndim != 4:
            raise ValueError(f"{name} must be 4-D (batch, heads, seqlen, headdim), got shape {x.shape}")
        if not x.flags.c_contiguous:
            raise ValueError(f"{name} must be C-contiguous")
    if not q.shape == k.shape == v.shape:
        raise ValueError(f"q, k, v must have one shape (seqlen_q == seqlen_k), got {q.shape}, {k.shape}, {v.shape}")
    if not q.dtype == k.dtype == v.dtype:
        raise ValueError(f"q, k, v must have one dtype, got {q.dtype}, {k.dtype}, {v.dtype}")
    is_bf16(q)
    batch, heads, seqlen, headdim = q.shape
    if headdim not in SUPPORTED_HEADDIMS:
        raise ValueError(f"headdim must be one of {SUPPORTED_HEADDIMS}, got {headdim}")
    if batch < 1 or heads < 1 or seqlen < 1:
        raise ValueError(f"batch, heads and seqlen must be positive, got {q.shape}")
    if batch * heads > 65535:  # batch * heads is a grid dimension of at most 65535 in some kernels
        raise ValueError(f"batch * heads must be at most 65535, got {batch * heads}")
    return batch, heads, seqlen, headdim


def check_like(name: str, x: Any, ref: Any, dtype: Any, shape: tuple[int, ...]) -> None:
    """Validate an extra input (or an ``out=`` buffer): CuPy, C-contiguous, the given dtype and shape."""
    if not isinstance(x, cp.ndarray) or x.dtype != dtype or x.shape != shape or not x.flags.c_contiguous:
        got = f"{type(x).__name__} {getattr(x, 'dtype', None)} {getattr(x, 'shape', None)}"
        raise ValueError(f"{name} must be a C-contiguous cupy {np.dtype(dtype)} array of shape {shape}, got {got}")


def forward_outputs(q: Any, out: tuple[Any, Any] | None) -> tuple[Any, Any]:
    """A forward's ``(o, lse)`` buffers: ``out`` when given (checked against ``q``), else new ones."""
    batch, heads, n, _ = q.shape
    o, lse = out if out is not None else (cp.empty_like(q), cp.empty((batch, heads, n), dtype=cp.float32))
    check_like("o", o, q, q.dtype, q.shape)
    check_like("lse", lse, q, cp.float32, (batch, heads, n))
    return o, lse


def default_scale(headdim: int, scale: float | None) -> float:
    return float(headdim) ** -0.5 if scale is None else float(scale)


@dataclass(frozen=True)
class TileConfig:
    """Launch parameters shared with the simulator's options of the same names."""

    block_m: int
    block_n: int
    warps: int
    stages: int

    def resolve(self, block_m: int | None, block_n: int | None, warps: int | None, stages: int | None) -> TileConfig:
        """This default with the given overrides applied (None keeps the default)."""
        return TileConfig(
            self.block_m if block_m is None else int(block_m),
            self.block_n if block_n is None else int(block_n),
            self.warps if warps is None else int(warps),
            self.stages if stages is None else int(stages),
        )


def check_split_q(kernel: str, config: TileConfig) -> None:
    """The tile rule of the split-Q mma.sync kernels: each warp owns whole m16 row groups, keys come in k16 steps,
    and the cp.async ring needs two stages."""
    if config.warps < 1 or config.block_m % (16 * config.warps) or config.block_n % 16 or config.block_n < 16:
        raise ValueError(f"{kernel}: block_m must be a multiple of 16 * warps and block_n of 16, got {config}")
    if config.stages < 2:
        raise ValueError(f"{kernel}: stages must be >= 2, got {config.stages}")


def check_smem(kernel: str, smem_bytes: int, config: TileConfig) -> None:
    if smem_bytes > MAX_SMEM_PER_BLOCK:
        raise ValueError(
            f"{kernel}: {config} needs {smem_bytes} bytes of shared memory, more than {MAX_SMEM_PER_BLOCK}"
        )


# --------------------------------------------------------------------------------------------------------
# Conversions and random inputs
# --------------------------------------------------------------------------------------------------------


def to_bf16_bits(x: Any) -> Any:
    """Float array (CuPy or NumPy) -> uint16 bf16 bits, rounded to nearest even (finite inputs)."""
    xp = cp.get_array_module(x) if cp is not None else np
    bits = xp.ascontiguousarray(x, dtype=xp.float32).view(xp.uint32)
    rounded = (bits + xp.uint32(0x7FFF) + ((bits >> 16) & xp.uint32(1))) >> 16
    return rounded.astype(xp.uint16)


def to_float32(x: Any) -> Any:
    """A 16-bit tensor (bf16 bits or float16), CuPy or NumPy, as float32 of the same module."""
    xp = cp.get_array_module(x) if cp is not None else np
    if x.dtype == np.uint16:
        return (x.astype(xp.uint32) << 16).view(xp.float32)
    return x.astype(xp.float32)


def random_tensor(shape: tuple[int, ...], dtype: str, seed: int) -> Any:
    """Standard-normal random CuPy tensor in ``dtype`` ("bf16" or "fp16"); never zeros."""
    x = cp.random.default_rng(seed).standard_normal(shape, dtype=cp.float32)
    return to_bf16_bits(x) if dtype == "bf16" else x.astype(cp.float16)


def poison(*arrays: Any) -> None:
    """Fill outputs with NaN (bf16 NaN bits for uint16 arrays) so that unwritten elements show."""
    for a in arrays:
        if a.dtype == np.uint16:
            a.fill(BF16_NAN_BITS)
        else:
            a.fill(np.nan)


# --------------------------------------------------------------------------------------------------------
# GPU facts and clocks
# --------------------------------------------------------------------------------------------------------


def nvidia_smi(fields: str) -> list[str]:
    """One ``nvidia-smi --query-gpu`` sample of GPU 0 (empty strings if nvidia-smi is unavailable)."""
    try:
        out = subprocess.run(
            ["nvidia-smi", f"--query-gpu={fields}", "--format=csv,noheader,nounits", "-i", "0"],
            capture_output=True,
            text=True,
            timeout=30,
            check=True,
        ).stdout
    except (OSError, subprocess.SubprocessError):
        return ["" for _ in fields.split(",")]
    return [s.strip() for s in out.strip().splitlines()[0].split(",")]


def gpu_facts() -> dict[str, Any]:
    """Name, SM count, L2 size, clocks and driver of device 0."""
    props = cp.cuda.runtime.getDeviceProperties(0)
    sm_clock, max_sm_clock, driver = nvidia_smi("clocks.sm,clocks.max.sm,driver_version")
    name = props["name"]
    return {
        "gpu_name": name.decode() if isinstance(name, bytes) else str(name),
        "sm_count": int(props["multiProcessorCount"]),
        "l2_bytes": int(props["l2CacheSize"]),
        "props_clock_mhz": int(props["clockRate"]) // 1000,
        "sm_clock_mhz_idle": sm_clock,
        "max_sm_clock_mhz": max_sm_clock,
        "driver": driver,
        "cupy": cp.__version__,
    }


class ClockSampler:
    """Samples the SM clock every ``period_ms`` with ``nvidia-smi -lms`` in the background.

    ``median_between(t0, t1)`` gives the median of the samples taken in a ``time.monotonic()`` window (the
    window of a timing loop), or a fresh single sample when none fell inside it; ``between`` gives them all.
    """

    def __init__(self, period_ms: int = 50) -> None:
        self._samples: list[tuple[float, float]] = []
        self._lock = threading.Lock()
        try:
            self._proc: subprocess.Popen[str] | None = subprocess.Popen(
                [
                    "nvidia-smi",
                    "--query-gpu=clocks.sm",
                    "--format=csv,noheader,nounits",
                    "-i",
                    "0",
                    f"-lms={period_ms}",
                ],
                stdout=subprocess.PIPE,
                stderr=subprocess.DEVNULL,
                text=True,
            )
        except OSError:
            self._proc = None
            return
        self._thread = threading.Thread(target=self._read, daemon=True)
        self._thread.start()

    def _read(self) -> None:
        assert self._proc is not None and self._proc.stdout is not None
        for line in self._proc.stdout:
            try:
                mhz = float(line.strip())
            except ValueError:
                continue
            with self._lock:
                self._samples.append((time.monotonic(), mhz))

    def between(self, t0: float, t1: float) -> list[float]:
        """Every sample (MHz) taken in the ``time.monotonic()`` window [t0, t1], in order."""
        with self._lock:
            return [mhz for t, mhz in self._samples if t0 <= t <= t1]

    def median_between(self, t0: float, t1: float) -> float:
        inside = self.between(t0, t1)
        if inside:
            return float(statistics.median(inside))
        (single,) = nvidia_smi("clocks.sm")
        return float(single) if single else float("nan")

    def close(self) -> None:
        if self._proc is not None:
            self._proc.terminate()
            self._proc.wait(timeout=10)


# --------------------------------------------------------------------------------------------------------
# Timing
# --------------------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class Timing:
    median_ms: float
    p10_ms: float
    p90_ms: float
    runs: int
    t_start: float  # time.monotonic() at the first timed run, for the clock samples
    t_end: float
    probe_clock_mhz: float = float("nan")  # SM cycles per us inside the timed runs (ClockTrace), NaN without one


CLOCK_TRACE_SOURCE = r"""
// One thread samples (%globaltimer ns, clock64) every period_ns until *stop is set or the buffer is full.
extern "C" __global__ void clock_trace(unsigned long long* samples, int capacity, const volatile int* stop,
                                       int* count, unsigned period_ns) {
  if (threadIdx.x != 0) return;
  int i = 0;
  while (i < capacity) {
    unsigned long long t;
    asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(t));
    samples[2 * i] = t;
    samples[2 * i + 1] = (unsigned long long)clock64();
    ++i;
    if (*stop) break;
    __nanosleep(period_ns);
  }
  *count = i;
}

// Writes %globaltimer to *slot (a timed run's start or end, launched on the timed stream); sets *stop if asked.
extern "C" __global__ void clock_stamp(unsigned long long* slot, int* stop, int set_stop) {
  unsigned long long t;
  asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(t));
  *slot = t;
  if (set_stop) *stop = 1;
}
"""


class ClockTrace:
    """The SM clock inside timed runs, counted by a probe warp that runs beside them.

    ``start()`` launches one warp on its own non-blocking stream (so the legacy default stream, where the timed
    kernels run, never waits for it) that records (%globaltimer, clock64) pairs every ``period_ns``. Around each
    timed run, outside its CUDA events, ``mark()`` launches a one-thread kernel on the timed stream that writes
    %globaltimer; ``stop()`` ends the probe and gives SM cycles per microsecond summed over the samples that fell
    inside the marked windows. All SMs share one clock, so the probe's SM speaks for all of them. Why: nvidia-smi
    and a probe launched after a timing loop both read ~1980 MHz while a probe running beside our attention
    kernels counts 1735-1815 (``validation/h200/concurrent_clock_h200.csv``). Cost to the timed kernel: one warp
    with few registers and no shared memory on one SM, asleep between samples
    (``validation/probes/clock_trace_check.py`` measures it). The buffer bounds the probe's life (``capacity``
    samples), so a forgotten ``stop()`` cannot hang.
    """

    def __init__(self, capacity: int = 1 << 20, period_ns: int = 4000, max_windows: int = 1024) -> None:
        module = cp.RawModule(code=CLOCK_TRACE_SOURCE, options=("--maxrregcount=32",))
        self._probe, self._stamp = module.get_function("clock_trace"), module.get_function("clock_stamp")
        self._capacity, self._period_ns = capacity, period_ns
        self._samples = cp.zeros(2 * capacity, dtype=cp.uint64)
        self._stamps = cp.zeros(2 * max_windows, dtype=cp.uint64)
        self._stop_stamp = cp.zeros(1, dtype=cp.uint64)
        self._flag = cp.zeros(2, dtype=cp.int32)  # [stop, sample count]
        self._stream = cp.cuda.Stream(non_blocking=True)
        self._windows = 0

    def start(self) -> None:
        self._flag.fill(0)
        self._windows = 0
        cp.cuda.Stream.null.synchronize()
        with self._stream:
            self._probe(
                (1,),
                (32,),
                (self._samples, cp.int32(self._capacity), self._flag, self._flag[1:], cp.uint32(self._period_ns)),
            )

    def mark(self, end: bool) -> None:
        """Stamp the start (``end=False``) or the end of a timed window on the current stream."""
        if self._windows >= self._stamps.size // 2:
            return  # more windows than slots: the first ones are enough to count the clock
        slot = self._stamps[2 * self._windows + int(end) :]
        self._stamp((1,), (1,), (slot, self._flag, cp.int32(0)))
        self._windows += int(end)

    def stop(self) -> float:
        """End the probe; SM cycles per microsecond (MHz) inside the marked windows (NaN if none held samples)."""
        self._stamp((1,), (1,), (self._stop_stamp, self._flag, cp.int32(1)))
        self._stream.synchronize()
        cp.cuda.Stream.null.synchronize()
        count = int(self._flag[1].get())
        samples = self._samples[: 2 * count].get().reshape(count, 2).astype(np.float64)
        stamps = self._stamps[: 2 * self._windows].get().reshape(self._windows, 2).astype(np.float64)
        return clock_in_windows_mhz(samples, stamps)


def format_mhz(mhz: float) -> str:
    """A clock for a CSV cell: whole MHz, or empty when it was not counted (NaN)."""
    return "" if np.isnan(mhz) else f"{mhz:.0f}"


def clock_in_windows_mhz(samples: np.ndarray, windows: np.ndarray) -> float:
    """Cycles per microsecond over the (ns, cycles) ``samples`` inside each [start, end] ns row of ``windows``:
    per window, the first and last sample inside it; cycles and nanoseconds summed over the windows."""
    times = samples[:, 0]
    cycles_sum = ns_sum = 0.0
    for t0, t1 in windows:
        lo, hi = np.searchsorted(times, t0, side="left"), np.searchsorted(times, t1, side="right") - 1
        if hi > lo:
            cycles_sum += samples[hi, 1] - samples[lo, 1]
            ns_sum += samples[hi, 0] - samples[lo, 0]
    return 1e3 * cycles_sum / ns_sum if ns_sum > 0 else float("nan")


class L2Flusher:
    """Writes a buffer of ``factor`` times the L2 size, evicting whatever the previous run left in L2. The lines it
    leaves are dirty: the next kernel's first misses write them back to HBM. With ``clean`` it reads the buffer
    instead, leaving L2 full of clean lines."""

    def __init__(self, factor: int = 4, clean: bool = False) -> None:
        l2_bytes = int(cp.cuda.runtime.getDeviceProperties(0)["l2CacheSize"])
        self._buf = cp.ones(factor * l2_bytes // 4, dtype=cp.float32)
        self._value = 0
        self._clean = clean
        self._sum = cp.empty((), dtype=cp.float32)

    def __call__(self) -> None:
        if self._clean:
            # Into a device scalar, not back to the host: the flush stays asynchronous like the fill, so the timed
            # run's launch is queued behind it (a host round trip here would put the launch's Python time inside
            # the run's events).
            cp.sum(self._buf, out=self._sum)
            return
        self._value = (self._value + 1) % 251
        self._buf.view(cp.uint8).fill(self._value)


def time_gpu(
    run: Callable[[], object],
    before: Callable[[], object] | None = None,
    flush: Callable[[], object] | None = None,
    warmup: int = 2,
    min_runs: int = 5,
    max_runs: int = 50,
    target_s: float = 0.4,
    clock: ClockTrace | None = None,
) -> Timing:
    """Time ``run`` with CUDA events: ``warmup`` untimed runs, then as many timed runs as fit ``target_s``
    (between ``min_runs`` and ``max_runs``). Before each run (outside the events): ``before()`` (poison the
    outputs), then ``flush()`` (evict L2). With ``clock``, the timed runs' SM clock is counted beside them."""
    start, end = cp.cuda.Event(), cp.cuda.Event()

    def one(marked: bool) -> float:
        if before is not None:
            before()
        if flush is not None:
            flush()
        if marked and clock is not None:
            clock.mark(end=False)
        start.record()
        run()
        end.record()
        if marked and clock is not None:
            clock.mark(end=True)
        end.synchronize()
        return float(cp.cuda.get_elapsed_time(start, end))

    for _ in range(warmup):
        one(marked=False)  # the first run may compile: before the probe starts
    if clock is not None:
        clock.start()
    t_start = time.monotonic()
    times = [one(marked=True)]
    runs = int(min(max_runs, max(min_runs, target_s * 1e3 / max(times[0], 1e-3))))
    times += [one(marked=True) for _ in range(runs - 1)]
    t_end = time.monotonic()
    probe_mhz = clock.stop() if clock is not None else float("nan")
    p10, p90 = np.percentile(times, [10, 90])
    return Timing(float(np.median(times)), float(p10), float(p90), len(times), t_start, t_end, probe_mhz)


def ncu_metrics(stdout: str) -> list[dict[str, float]] | None:
    """The metrics of each launch Nsight Compute profiled, in launch order, from its `--csv --print-units base`
    output; None when the output holds no table (ncu failed)."""
    lines = stdout.splitlines()
    start = next((i for i, line in enumerate(lines) if line.startswith('"ID"')), None)
    if start is None:
        return None
    metrics: dict[int, dict[str, float]] = {}
    for row in csv.DictReader(lines[start:]):
        metrics.setdefault(int(row["ID"]), {})[row["Metric Name"]] = float(row["Metric Value"].replace(",", ""))
    return [metrics[launch] for launch in sorted(metrics)]


def ncu_self_metrics(script: str, kernel_regex: str, metrics: str) -> list[dict[str, float]]:
    """Nsight Compute's `metrics` of each launch matching `kernel_regex` when `script --target` runs (a probe
    profiling its own target mode), in launch order; exits with ncu's error output where it fails."""
    cmd = ["ncu", "--clock-control", "none", "--kernel-name", f"regex:{kernel_regex}", "--metrics", metrics, "--csv",
           "--print-units", "base", sys.executable, script, "--target"]  # fmt: skip
    result = subprocess.run(cmd, capture_output=True, text=True, timeout=600, check=False)
    rows = ncu_metrics(result.stdout)
    if rows is None:
        raise SystemExit(f"ncu failed ({result.returncode}): {result.stderr[-2000:]}")
    return rows


def write_rows(path: Path, rows: list[dict[str, Any]]) -> None:
    """A CSV of `rows` (the first row's keys as header), its folder made if needed: the probes' raw output; gzipped
    where the name ends in .gz."""
    path.parent.mkdir(parents=True, exist_ok=True)
    with gzip.open(path, "wt", newline="") if path.suffix == ".gz" else path.open("w", newline="") as handle:
        writer = csv.DictWriter(handle, fieldnames=list(rows[0]))
        writer.writeheader()
        writer.writerows(rows)


def write_gpu_facts(path: Path) -> dict[str, Any]:
    """Write the GPU's facts (`gpu_facts`) as a one-row CSV beside a probe's raw output; return them."""
    facts = gpu_facts()
    write_rows(path, [facts])
    return facts


TOGETHER_CYCLES = 2000  # CTAs whose entries lie this close to their SM's first start it together


def co_resident_ctas(rows: Iterable[dict[str, Any]]) -> dict[str, float]:
    """Of per-CTA rows (`sm`, and `entry` and `exit` in that SM's cycles), medians over the SMs: how many CTAs start
    the SM together (entries within `TOGETHER_CYCLES` of its first), their exits' spread as a share of that round
    (0: they end together), and the cycles from the first of them to end to the SM's next CTA's entry (the CTA
    probes' and the model's traces alike)."""
    by_sm: dict[object, list[dict[str, Any]]] = {}
    for row in rows:
        by_sm.setdefault(row["sm"], []).append(row)
    together, spread, next_gap = [], [], []
    for ctas in by_sm.values():
        ctas.sort(key=lambda r: r["entry"])
        first = [r for r in ctas if r["entry"] - ctas[0]["entry"] <= TOGETHER_CYCLES]
        together.append(len(first))
        exits = sorted(r["exit"] for r in first)
        if len(first) > 1:
            spread.append((exits[-1] - exits[0]) / (exits[-1] - ctas[0]["entry"]))
        if len(ctas) > len(first):
            next_gap.append(ctas[len(first)]["entry"] - exits[0])
    return {
        "sms": len(by_sm),
        "ctas_started_together": statistics.median(together),
        "exit_spread_of_round": statistics.median(spread) if spread else 0.0,
        "next_entry_after_first_exit": statistics.median(next_gap) if next_gap else float("nan"),
    }


def attention_flops(batch: int, heads: int, seqlen: int, headdim: int, causal: bool, pass_: str) -> float:
    """FLOPs in the papers' convention: forward 4 B H N^2 d, halved when causal; backward 2.5x forward."""
    fwd = 4.0 * batch * heads * seqlen * seqlen * headdim / (2.0 if causal else 1.0)
    return fwd * (2.5 if pass_ == "bwd" else 1.0)
