"""Predicted against measured: re-run the simulator on every configuration a GPU measured, and score it.

Input: the CSV written by `cupy_kernels.selfcheck` (one row per kernel, pass and shape, with the tile configuration
and the SM clock nvidia-smi sampled during the timing), or by `cupy_kernels.v3.selfcheck` (the same columns plus the
v3 kernel's `pingpong` and `intra_wg_overlap` switches and `probe_clock_mhz`). Each configuration is simulated in
exact mode (in fast mode where exact mode's event budget would be exceeded, or throughout when asked: `simgpu
validate --fast`; its row's `mode` says which) with the
arch file of that GPU and the measured kernel's tile options and switches (plus
`KERNEL_OPTIONS`, where our kernel differs from the schedule's defaults), so prediction and measurement describe the
same program. The sampled
clock is the ceiling (`clock_hz`); the arch's power model still lowers it with tensor activity, because nvidia-smi
overstates the clock kernels run at under tensor load (validation/h200/README.md: 1800 MHz sampled while wgmma ran
at 1598 by the SM cycle counter). Where the CSV has `probe_clock_mhz` (the cycle-counted clock right after the
timing), that clock is used as it is.
Output rows carry the options simulated, both figures and the relative error; `mape` summarises them per kernel
and pass.

Ignored: measurement noise (the CSV holds medians with p10/p90 beside them).
"""

from __future__ import annotations

import csv
from collections.abc import Callable, Iterable, Mapping, Sequence
from concurrent.futures import ProcessPoolExecutor
from dataclasses import asdict, dataclass
from functools import partial
from pathlib import Path

from simgpu.api import simulate
from simgpu.arch import Arch, load_arch
from simgpu.engine import DEFAULT_EVENT_BUDGET
from simgpu.errors import EventBudgetError, SimgpuError
from simgpu.problem import Problem
from simgpu.registry import load_algorithm

# Kernel names in the measurement CSV that are whole algorithms the simulator schedules.
ALGORITHM_KERNELS: Mapping[str, str] = {"standard": "standard", "v1": "v1", "v2": "v2", "v3": "v3"}
# Where our measured CUDA kernel differs from the algorithm's default schedule (see the kernels' README sections).
# Our v3 kernel is not persistent: one CTA per tile, each head's Q blocks in reverse when causal (v3's `lpt`
# default for a grid); it writes O from registers in 4-byte stores, not through shared memory and TMA. Our v1 kernel
# is Algorithm 1 as written (split-Q warps, Q and the fp32 O, l, m re-read every step), not FA1's released kernel.
KERNEL_OPTIONS: Mapping[str, Mapping[str, object]] = {
    "standard": {"softmax_passes": 2},
    "v1": {"variant": "algorithm1"},
    "v2": {"bwd_layout": "ring"},
    "v3": {"persistent": False, "epilogue": "registers"},
}
# Options read from the CSV when the algorithm accepts them: tile sizes, then switches written True/False.
TILE_OPTIONS = ("block_m", "block_n", "warps", "stages")
SWITCH_OPTIONS = ("pingpong", "intra_wg_overlap")


@dataclass(frozen=True)
class Comparison:
    algo: str
    pass_: str
    batch: int
    heads: int
    seqlen: int
    headdim: int
    causal: bool
    options: str  # the schedule options simulated, `name=value` separated by spaces (tiles, switches)
    clock_mhz: float
    measured_ms: float
    predicted_ms: float
    rel_error: float
    measured_tflops: float
    predicted_tflops: float
    predicted_hbm_bytes: float
    bottleneck: str
    mode: str = "exact"  # the simulation's mode: "fast" where exact mode's event budget would be exceeded, or asked

    def as_row(self) -> dict[str, object]:
        row = asdict(self)
        row["pass"] = row.pop("pass_")
        return row


@dataclass(frozen=True)
class Case:
    """One measured configuration to predict."""

    arch: str
    algo: str
    problem: Problem
    options: Mapping[str, object]
    clock_mhz: float
    measured_ms: float
    clock_is_effective: bool  # cycle-counted by a probe kernel (else nvidia-smi's sample, an upper bound)


def read_cases(
    path: str | Path, arch: str, algos: Iterable[str] | None = None, max_seqlen: int | None = None
) -> list[Case]:
    """The configurations of `path` that the simulator can predict, in file order."""
    wanted = set(algos) if algos is not None else set(ALGORITHM_KERNELS.values())
    try:
        return _read_cases(path, arch, wanted, max_seqlen)
    except (OSError, UnicodeDecodeError) as err:
        raise SimgpuError(f"cannot read measurements {path}: {getattr(err, 'strerror', None) or err}") from None
    except (KeyError, ValueError) as err:
        raise SimgpuError(
            f"{path}: not a measurement CSV of cupy_kernels.selfcheck ({type(err).__name__}: {err})"
        ) from None


def _read_cases(path: str | Path, arch: str, wanted: set[str], max_seqlen: int | None) -> list[Case]:
    cases = []
    with Path(path).open(newline="", encoding="utf-8") as handle:
        rows = list(csv.DictReader(handle))
    for row in rows:
        algo = ALGORITHM_KERNELS.get(row.get("kernel", ""))
        if algo is None or algo not in wanted:
            continue
        seqlen = int(row["seqlen"])
        if max_seqlen is not None and seqlen > max_seqlen:
            continue
        accepted = load_algorithm(algo).OPTIONS
        options: dict[str, object] = {
            name: int(row[name]) for name in TILE_OPTIONS if name in accepted and row.get(name)
        }
        options.update({name: row[name] == "True" for name in SWITCH_OPTIONS if name in accepted and row.get(name)})
        options.update(KERNEL_OPTIONS.get(algo, {}))
        problem = Problem(
            int(row["batch"]),
            int(row["heads"]),
            seqlen,
            int(row["headdim"]),
            causal=row["causal"] == "True",
            dtype=row["dtype"],
            pass_=row["pass"],
        )
        probe = row.get("probe_clock_mhz")
        clock = float(probe) if probe else float(row["sm_clock_mhz"])
        cases.append(Case(arch, algo, problem, options, clock, float(row["time_ms_median"]), bool(probe)))
    return cases


def case_arch(case: Case, overrides: Mapping[str, object] | None = None) -> Arch:
    """The arch file of the measured GPU at the case's clock (then `overrides`, for what-ifs): the measured clock
    is the ceiling, and the power model is dropped where the clock is known or already below its saturated one."""
    base = load_arch(case.arch)
    ceiling = case.clock_mhz * 1e6
    settings: dict[str, object] = {"clock_hz": ceiling}
    if case.clock_is_effective or (base.power is not None and base.power.tensor_saturated_clock_hz > ceiling):
        settings["power"] = None  # the clock is known, or already below the saturated clock: nothing to lower
    return base.with_overrides({**settings, **(overrides or {})})


def predict(case: Case, event_budget: int = DEFAULT_EVENT_BUDGET, fast: bool = False) -> Comparison:
    """The case predicted at its measured clock. Exact mode by default: a comparison with silicon should not carry
    fast mode's own error (`experiments.fast_vs_exact`). A configuration over exact mode's event budget (our v1
    kernel's longest sequences) is predicted in fast mode, and its row says so. With `fast`, fast mode throughout:
    the error of the mode `simgpu run` answers in by default."""
    arch = case_arch(case)
    mode = "fast" if fast else "exact"
    try:
        result = simulate(arch, case.algo, case.problem, case.options, mode=mode, event_budget=event_budget)
    except EventBudgetError:
        mode = "fast"
        result = simulate(arch, case.algo, case.problem, case.options, mode=mode)
    predicted_ms = result.time_s * 1e3
    p = case.problem
    return Comparison(
        algo=case.algo,
        pass_=p.pass_,
        batch=p.batch,
        heads=p.heads,
        seqlen=p.seqlen_q,
        headdim=p.headdim,
        causal=p.causal,
        options=" ".join(f"{name}={value}" for name, value in case.options.items()),
        clock_mhz=case.clock_mhz,
        measured_ms=case.measured_ms,
        predicted_ms=predicted_ms,
        rel_error=(predicted_ms - case.measured_ms) / case.measured_ms,
        measured_tflops=p.flops / (case.measured_ms * 1e-3) / 1e12,
        predicted_tflops=result.tflops,
        predicted_hbm_bytes=result.hbm_bytes,
        bottleneck=result.bottleneck,
        mode=mode,
    )


def fast_error(case: Case, overrides: Mapping[str, object] | None = None) -> float:
    """Relative error (predicted / measured - 1) of a fast-mode prediction of `case` on its arch with `overrides`:
    the quick check of a what-if against the committed measurements (`predict` is exact mode's by default)."""
    result = simulate(case_arch(case, overrides), case.algo, case.problem, case.options, mode="fast")
    return (result.time_s * 1e3 - case.measured_ms) / case.measured_ms


def what_if_table(cases: Sequence[Case], what_ifs: Mapping[str, Mapping[str, object]], workers: int = 1) -> str:
    """Per what-if (a name and its arch overrides): the fast-mode MAPE and mean signed error of `cases` per
    (algorithm, pass), as text lines (`docs/results/checks_*.py` print them)."""
    lines: list[str] = []
    with ProcessPoolExecutor(max_workers=workers) as pool:
        for name, overrides in what_ifs.items():
            errors = list(pool.map(partial(fast_error, overrides=overrides), cases, chunksize=4))
            groups: dict[tuple[str, str], list[float]] = {}
            for case, error in zip(cases, errors, strict=True):
                groups.setdefault((case.algo, case.problem.pass_), []).append(error)
            lines.append(name)
            for (algo, pass_), es in sorted(groups.items()):
                mape_percent = 100 * sum(abs(e) for e in es) / len(es)
                mean_percent = 100 * sum(es) / len(es)
                lines.append(f"  {algo:8s} {pass_:4s} MAPE {mape_percent:5.1f}%, mean {mean_percent:+5.1f}%")
    return "\n".join(lines)


def compare(
    cases: Sequence[Case],
    workers: int = 1,
    progress: Callable[[Comparison], object] | None = None,
    fast: bool = False,
) -> list[Comparison]:
    """Predict every case (`predict`, in fast mode with `fast`) in `workers` processes; results in the order of
    `cases`."""
    if workers <= 1:
        results = []
        for case in cases:
            results.append(predict(case, fast=fast))
            if progress is not None:
                progress(results[-1])
        return results
    with ProcessPoolExecutor(max_workers=workers) as pool:
        results = []
        for comparison in pool.map(partial(predict, fast=fast), cases):
            results.append(comparison)
            if progress is not None:
                progress(comparison)
        return results


@dataclass(frozen=True)
class BytesComparison:
    """DRAM bytes Nsight Compute counted for one forward configuration (all its kernels) against HBM bytes."""

    algo: str
    batch: int
    heads: int
    seqlen: int
    headdim: int
    causal: bool
    measured_read_bytes: float
    measured_write_bytes: float
    predicted_read_bytes: float
    predicted_write_bytes: float

    @property
    def rel_error(self) -> float:
        measured = self.measured_read_bytes + self.measured_write_bytes
        return (self.predicted_read_bytes + self.predicted_write_bytes - measured) / measured

    def as_row(self) -> dict[str, object]:
        return {**asdict(self), "rel_error": self.rel_error}


def compare_bytes(path: str | Path, arch: str, algos: Iterable[str] | None = None) -> list[BytesComparison]:
    """Sum Nsight Compute's DRAM bytes over the kernels of each forward configuration (standard's three kernels
    are rows `standard_qk`, `standard_softmax`, `standard_pv`) and simulate the same configuration."""
    wanted = set(algos) if algos is not None else set(ALGORITHM_KERNELS.values())
    try:
        with Path(path).open(newline="", encoding="utf-8") as handle:
            rows = list(csv.DictReader(handle))
    except OSError as err:
        raise SimgpuError(f"cannot read Nsight Compute bytes {path}: {err.strerror or err}") from None
    totals: dict[tuple[str, int, int, int, int, bool], list[float]] = {}
    for row in rows:
        algo = ALGORITHM_KERNELS.get(row["kernel"].split("_")[0])
        if algo is None or algo not in wanted:
            continue
        key = (algo, int(row["batch"]), int(row["heads"]), int(row["seqlen"]), int(row["headdim"]),
               row["causal"] == "True")  # fmt: skip
        total = totals.setdefault(key, [0.0, 0.0])
        total[0] += float(row["dram__bytes_read.sum"])
        total[1] += float(row["dram__bytes_write.sum"])
    results = []
    for (algo, batch, heads, seqlen, headdim, causal), (read, write) in totals.items():
        problem = Problem(batch, heads, seqlen, headdim, causal=causal)
        result = simulate(arch, algo, problem, KERNEL_OPTIONS.get(algo), mode="exact")
        results.append(BytesComparison(algo, batch, heads, seqlen, headdim, causal, read, write,
                                       result.hbm_read_bytes, result.hbm_write_bytes))  # fmt: skip
    return results


def write_rows(rows: Sequence[Mapping[str, object]], path: Path) -> Path:
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        with path.open("w", newline="", encoding="utf-8") as handle:
            writer = csv.DictWriter(handle, fieldnames=list(rows[0]))
            writer.writeheader()
            writer.writerows(rows)
    except OSError as err:
        raise SimgpuError(f"cannot write {path}: {err.strerror or err}") from None
    return path


def mape(comparisons: Iterable[Comparison]) -> dict[tuple[str, str], float]:
    """Mean absolute relative error of the time, per (algorithm, pass)."""
    groups: dict[tuple[str, str], list[float]] = {}
    for c in comparisons:
        groups.setdefault((c.algo, c.pass_), []).append(abs(c.rel_error))
    return {key: sum(errors) / len(errors) for key, errors in sorted(groups.items())}


def write_report(comparisons: Sequence[Comparison], out_dir: str | Path, gpu: str) -> tuple[Path, Path]:
    """CSV of every comparison and a predicted-vs-measured scatter (log-log) with MAPE per algorithm and pass."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    out = Path(out_dir)
    csv_path = write_rows([c.as_row() for c in comparisons], out / "validation.csv")
    errors = mape(comparisons)
    figure, axes = plt.subplots(figsize=(6.5, 6))
    for (algo, pass_), error in errors.items():
        points = [c for c in comparisons if (c.algo, c.pass_) == (algo, pass_)]
        axes.scatter(
            [c.measured_ms for c in points],
            [c.predicted_ms for c in points],
            label=f"{algo} {pass_}: MAPE {100 * error:.1f}% (n={len(points)})",
            s=18,
        )
    low = min(min(c.measured_ms, c.predicted_ms) for c in comparisons) / 1.5
    high = max(max(c.measured_ms, c.predicted_ms) for c in comparisons) * 1.5
    axes.plot([low, high], [low, high], color="gray", linewidth=1, label="predicted = measured")
    axes.set_xscale("log")
    axes.set_yscale("log")
    axes.set_xlabel("measured time (ms)")
    axes.set_ylabel("predicted time (ms)")
    axes.set_title(f"simgpu vs {gpu}: kernel time at the measured SM clock")
    axes.legend(fontsize=8)
    figure.tight_layout()
    png_path = out / "validation.png"
    figure.savefig(png_path, dpi=120)
    plt.close(figure)
    return csv_path, png_path
