"""The `simgpu` command line. The only module that prints.

User errors (a bad flag, a bad YAML file, an unknown arch or algorithm, a problem the arch cannot run) print one
line `simgpu: error: ...` on stderr and exit with status 2; a failed model invariant exits with status 3.
"""

from __future__ import annotations

import json
import os
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import click

from simgpu.api import simulate
from simgpu.arch import available_archs, load_arch, parse_override, parse_scalar
from simgpu.errors import InternalError, OptionError, SimgpuError
from simgpu.problem import INPUT_DTYPES, PASSES, AnyProblem, GemmProblem, Problem
from simgpu.registry import load_algorithm
from simgpu.result import Result
from simgpu.sweep_cli import sweep_command
from simgpu.trace import Trace

USAGE_ERROR = 2
INTERNAL_ERROR = 3


@click.group(context_settings={"help_option_names": ["-h", "--help"]})
def cli() -> None:
    """simgpu: a discrete-event simulator and cost model of GPUs at the level of their units."""


@cli.command("archs")
@click.option("--json", "as_json", is_flag=True, help="Print a JSON list instead of a table.")
def archs_command(as_json: bool) -> None:
    """List the architectures that ship with simgpu."""
    archs = [(name, load_arch(name)) for name in available_archs()]
    if as_json:
        rows = [
            {
                "name": name,
                "model": arch.name,
                "sms": arch.sms,
                "clock_hz": arch.clock_hz,
                "bf16_tflops": arch.peak_flops_per_s("bf16") / 1e12,
                "hbm_bytes_per_s": arch.hbm.bandwidth_bytes_per_s,
                "l2_bytes": arch.l2.capacity_bytes,
                "tensor_instruction": arch.tensor_core.instruction,
                "dtypes": list(arch.dtypes),
            }
            for name, arch in archs
        ]
        click.echo(json.dumps(rows, indent=2))
        return
    wide = max(len(name) for name, _ in archs)  # columns as wide as the longest name and model
    model = max(len(arch.name) for _, arch in archs)
    click.echo(
        f"{'name':<{wide}} {'model':<{model}} {'SMs':>4} {'clock MHz':>9} {'bf16 TF/s':>9} {'HBM TB/s':>8} "
        f"{'L2 MiB':>6}  tensor"
    )
    for name, arch in archs:
        click.echo(
            f"{name:<{wide}} {arch.name:<{model}} {arch.sms:>4} {arch.clock_hz / 1e6:>9.0f} "
            f"{arch.peak_flops_per_s('bf16') / 1e12:>9.0f} {arch.hbm.bandwidth_bytes_per_s / 1e12:>8.2f} "
            f"{arch.l2.capacity_bytes / 2**20:>6.0f}  {arch.tensor_core.instruction}"
        )


def _key_values(items: Sequence[str], flag: str) -> dict[str, Any]:
    parsed: dict[str, Any] = {}
    for item in items:
        if flag == "--set":
            key, value = parse_override(item)
        else:
            key, sep, raw = item.partition("=")
            if not sep or not key.strip():
                raise OptionError(f"{flag} {item!r}: expected NAME=VALUE")
            key, value = key.strip(), parse_scalar(raw.strip())
        parsed[key] = value
    return parsed


def _lengths(text: str) -> list[int]:
    try:
        return [int(item) for item in text.split(",")]
    except ValueError:
        raise OptionError(f"--seqlens {text!r}: expected comma-separated integers, e.g. 512,2048,1024") from None


@cli.command("run")
@click.option("--arch", "arch_name", required=True, help="Arch name (see `simgpu archs`) or path to a YAML file.")
@click.option("--algo", required=True, help="Algorithm: gemm, standard, v1, v2, v3, v4.")
@click.option("--batch", type=int, default=1, show_default=True)
@click.option("--heads", type=int, default=16, show_default=True)
@click.option("--seqlen", type=int, default=4096, show_default=True, help="Query sequence length.")
@click.option("--seqlen-k", type=int, default=None, help="Key/value sequence length (default: --seqlen).")
@click.option(
    "--seqlens",
    default=None,
    metavar="N,N,...",
    help="A varlen batch: each sequence's length (queries = keys), comma-separated; replaces --batch and --seqlen.",
)
@click.option("--headdim", type=int, default=128, show_default=True)
@click.option("--causal", is_flag=True)
@click.option("--dtype", type=click.Choice(INPUT_DTYPES), default="bf16", show_default=True)
@click.option("--pass", "pass_", type=click.Choice(PASSES), default="fwd", show_default=True)
@click.option("--m", type=int, default=4096, show_default=True, help="GEMM rows of A and C.")
@click.option("--n", type=int, default=4096, show_default=True, help="GEMM columns of B and C.")
@click.option("--k", type=int, default=4096, show_default=True, help="GEMM inner dimension.")
@click.option("--set", "sets", multiple=True, metavar="KEY.PATH=VALUE", help="Override an arch value (what-if).")
@click.option("--option", "opts", multiple=True, metavar="NAME=VALUE", help="Algorithm option, e.g. block_n=64.")
@click.option("--json", "as_json", is_flag=True, help="Print one JSON object.")
@click.option(
    "--per-tile",
    is_flag=True,
    help="Run each kernel's first work item alone on one SM and report each unit's busy cycles in one steady-state "
    "main-loop tile (unit_cycles) and in the whole work item (work_item_unit_cycles).",
)
@click.option(
    "--exact",
    is_flag=True,
    help="Simulate every CTA and loop iteration (the ground truth; slow for long sequences). Default: fast mode.",
)
@click.option(
    "--trace",
    "trace_path",
    type=click.Path(dir_okay=False),
    default=None,
    help="Write a Chrome trace (open in Perfetto) of SM 0 and the chip-wide units (runs in exact mode).",
)
def run_command(
    arch_name: str,
    algo: str,
    batch: int,
    heads: int,
    seqlen: int,
    seqlen_k: int | None,
    seqlens: str | None,
    headdim: int,
    causal: bool,
    dtype: str,
    pass_: str,
    m: int,
    n: int,
    k: int,
    sets: Sequence[str],
    opts: Sequence[str],
    as_json: bool,
    per_tile: bool,
    exact: bool,
    trace_path: str | None,
) -> None:
    """Simulate one algorithm on one arch and print the prediction."""
    if trace_path is not None:
        check_writable(trace_path, "--trace", "trace")
    arch = load_arch(arch_name, _key_values(sets, "--set"))
    module = load_algorithm(algo)
    problem: AnyProblem
    if module.PROBLEM == "gemm":
        problem = GemmProblem(m, n, k, dtype)
    elif seqlens is not None:
        if seqlen_k is not None:
            raise OptionError("--seqlens gives each sequence's key length too: leave out --seqlen-k")
        problem = Problem.varlen(heads, _lengths(seqlens), headdim, causal, dtype, pass_)
    else:
        problem = Problem(batch, heads, seqlen, headdim, seqlen_k, causal, dtype, pass_)
    trace = Trace() if trace_path is not None else None
    mode = "exact" if exact or trace is not None else "fast"
    result = simulate(arch, algo, problem, _key_values(opts, "--option"), mode, trace=trace, per_tile=per_tile)
    if trace_path is not None:
        result.write_trace(trace_path)
    if as_json:
        click.echo(json.dumps(result.to_dict(per_tile=per_tile)))
    else:
        click.echo(format_result(result))
        if per_tile and result.work_item_unit_cycles is not None:
            for label, unit_cycles in (("tile", result.unit_cycles), ("work item", result.work_item_unit_cycles)):
                cycles = "  ".join(f"{unit} {value:,.0f}" for unit, value in unit_cycles.items() if value)
                click.echo(f"  {label} unit cycles  {cycles}")


@cli.command("validate")
@click.option(
    "--measured",
    type=click.Path(exists=True, dir_okay=False),
    default=None,
    help="A CSV written by `python -m cupy_kernels.selfcheck` (e.g. validation/h200/kernels_h200.csv). "
    "Without it, the kernels are measured on this machine's GPU first.",
)
@click.option(
    "--ncu",
    "ncu_csv",
    type=click.Path(exists=True, dir_okay=False),
    default=None,
    help="Nsight Compute DRAM bytes (e.g. validation/h200/ncu_bytes.csv) to compare with predicted HBM bytes.",
)
@click.option("--arch", "arch_name", default="h200", show_default=True, help="Arch file of the measured GPU.")
@click.option("--algos", multiple=True, type=click.Choice(["standard", "v1", "v2", "v3"]), help="Default: all.")
@click.option("--quick", is_flag=True, help="Only sequence lengths up to 2048.")
@click.option(
    "--fast",
    is_flag=True,
    help="Predict in fast mode, `simgpu run`'s default, to see its error against the chip (default: exact mode).",
)
@click.option("--out", "out_dir", type=click.Path(file_okay=False), default="out/validation", show_default=True)
@click.option("-j", "--jobs", type=click.IntRange(min=1), default=1, show_default=True, help="Worker processes.")
def validate_command(
    measured: str | None,
    ncu_csv: str | None,
    arch_name: str,
    algos: Sequence[str],
    quick: bool,
    fast: bool,
    out_dir: str,
    jobs: int,
) -> None:
    """Predict every measured kernel configuration and report the errors (CSV, scatter PNG, MAPE)."""
    from tqdm import tqdm

    from simgpu.validation import compare, compare_bytes, mape, read_cases, write_report, write_rows

    load_arch(arch_name)
    check_writable(out_dir, "--out", "the report", makes_folders=True, is_folder=True)
    if measured is None:
        measured = _measure_on_this_gpu(out_dir, quick)
    cases = read_cases(measured, arch_name, algos or None, max_seqlen=2048 if quick else None)
    if not cases:
        raise OptionError(f"{measured}: no configuration of {', '.join(algos) or 'any algorithm'} to compare")
    with tqdm(total=len(cases), desc="predicting", unit="config") as bar:
        comparisons = compare(cases, workers=jobs, progress=lambda _: bar.update(), fast=fast)
    csv_path, png_path = write_report(comparisons, out_dir, gpu=arch_name)
    for (algo, pass_), error in mape(comparisons).items():
        count = sum(1 for c in comparisons if (c.algo, c.pass_) == (algo, pass_))
        click.echo(f"{algo:<9} {pass_:<4} MAPE {100 * error:6.1f}%  over {count} configurations")
    click.echo(f"wrote {csv_path} and {png_path}")
    if ncu_csv is not None:
        byte_rows = compare_bytes(ncu_csv, arch_name, algos or None)
        path = write_rows([b.as_row() for b in byte_rows], Path(out_dir) / "bytes.csv")
        for algo in sorted({b.algo for b in byte_rows}):
            errors = [abs(b.rel_error) for b in byte_rows if b.algo == algo]
            click.echo(f"{algo:<9} DRAM bytes: mean |error| {100 * sum(errors) / len(errors):5.1f}%, "
                       f"max {100 * max(errors):5.1f}% over {len(errors)} configurations")  # fmt: skip
        click.echo(f"wrote {path}")


def _measure_on_this_gpu(out_dir: str, quick: bool) -> str:
    _require_gpu()
    from cupy_kernels import selfcheck

    args = ["--out", out_dir, *(["--quick"] if quick else [])]
    if selfcheck.main(args) != 0:
        raise OptionError(f"kernel self-check failed; see {out_dir}")
    return str(Path(out_dir) / "kernels_h200.csv")


@cli.command("calibrate")
@click.option(
    "--out",
    "out_path",
    type=click.Path(dir_okay=False),
    default=None,
    help="Arch file to write (default: archs/local-<chip>.yaml); when measuring, the raw measurements go beside "
    "it as <name>.json.",
)
@click.option("--quick", is_flag=True, help="Shorter timing loops.")
@click.option(
    "--from-json",
    "from_json",
    type=click.Path(exists=True, dir_okay=False),
    default=None,
    help="Write the arch file from a calibration.json measured elsewhere instead of measuring here.",
)
@click.option(
    "--ceilings",
    "ceilings_path",
    type=click.Path(exists=True, dir_okay=False),
    default=None,
    help="A ceilings JSON (e.g. validation/h200/ceilings.json) to compare the measurements with: writes "
    "ceilings_check.csv beside the measurements' JSON and prints the comparison.",
)
def calibrate_command(out_path: str | None, quick: bool, from_json: str | None, ceilings_path: str | None) -> None:
    """Measure this GPU's unit ceilings and write an arch file that inherits the chip and overrides them."""
    from simgpu.calibration import base_arch_for, write_calibrated_arch
    from simgpu.ceilings import compare_ceilings, write_ceilings_csv

    if out_path is not None:
        check_writable(out_path, "--out", "the arch file", makes_folders=True)
    ceilings = None
    if ceilings_path is not None:
        ceilings = _read_json(ceilings_path)
        if not isinstance(ceilings, dict):
            raise OptionError(f"{ceilings_path}: a ceilings file must hold a JSON object")
        try:  # before measuring: a bad file must not cost a calibration run
            compare_ceilings({"benchmarks": {}}, ceilings)
        except ValueError as err:
            raise OptionError(f"{ceilings_path}: {err}") from None
    if from_json is not None:
        measured = _read_json(from_json)
        json_path = Path(from_json)
    else:
        _require_gpu()
        from cupy_kernels.calibrate.runner import format_row, measure

        measured = measure(quick, progress=lambda name, result: click.echo(format_row(name, result)))
    if not isinstance(measured, dict) or not isinstance(measured.get("gpu"), dict) or "benchmarks" not in measured:
        raise OptionError("calibration data must hold 'gpu' (a mapping) and 'benchmarks'")
    base = base_arch_for(measured["gpu"].get("gpu_name", ""))
    path = Path(out_path) if out_path is not None else Path("archs") / f"local-{base}.yaml"
    if from_json is None:  # keep what was measured: the arch file holds only the keys the schema has
        json_path = path.with_suffix(".json")
        try:
            json_path.parent.mkdir(parents=True, exist_ok=True)
            json_path.write_text(json.dumps(measured, indent=1), encoding="utf-8")
        except OSError as err:
            raise OptionError(f"cannot write {json_path}: {err.strerror or err}") from None
        click.echo(f"wrote {json_path}")
    try:
        written = write_calibrated_arch(measured, base, path)
    except OSError as err:
        raise OptionError(f"cannot write {path}: {err.strerror or err}") from None
    load_arch(written)
    click.echo(f"wrote {written} (inherits {base})")
    if ceilings is not None:
        try:
            rows = compare_ceilings(measured, ceilings)
        except ValueError as err:
            raise OptionError(f"{ceilings_path}: {err}") from None
        csv_path = json_path.parent / "ceilings_check.csv"
        try:
            write_ceilings_csv(rows, csv_path)
        except OSError as err:
            raise OptionError(f"cannot write {csv_path}: {err.strerror or err}") from None
        click.echo(f"{'ceiling':38s} {'reference':>12s} {'measured':>12s} {'ratio':>7s}  within 10%")
        for row in rows:
            measured_text = "not measured" if row.measured is None else f"{row.measured:.4g}"
            ratio = "" if row.ratio is None else f"{row.ratio:.3f}"
            within = row.within()
            verdict = "not measured" if within is None else ("yes" if within else "no")
            click.echo(f"{row.key:38s} {row.reference:12.4g} {measured_text:>12s} {ratio:>7s}  {verdict}")
        click.echo(f"wrote {csv_path}")


def _read_json(path: str) -> Any:
    try:
        return json.loads(Path(path).read_text(encoding="utf-8"))
    except (OSError, ValueError) as err:
        raise OptionError(f"cannot read {path}: {err}") from None


def _require_gpu() -> None:
    try:
        import cupy

        cupy.cuda.runtime.getDeviceCount()
    except Exception as err:  # no CuPy, no driver or no device: each means the same to the user
        raise OptionError(
            f"no GPU to measure on ({type(err).__name__}); give measurements from a GPU instead"
        ) from None


cli.add_command(sweep_command, "sweep")


def check_writable(path: str, flag: str, what: str, makes_folders: bool = False, is_folder: bool = False) -> None:
    """Fail before any work is done when `path` (a file, or with `is_folder` a folder to write files into) cannot
    be written, rather than after a long simulation.

    With `makes_folders` the writer creates missing folders, so the nearest existing ancestor must be a writable
    folder; otherwise the file's own folder must exist."""
    target = Path(path)
    where = f"cannot write {what} to {path} ({flag})"
    if not is_folder and target.is_dir():
        raise OptionError(f"{where}: it is a folder")
    folder = target if is_folder else target.parent
    while makes_folders and not folder.exists() and folder != folder.parent:
        folder = folder.parent
    if not folder.is_dir():
        reason = "is not a folder" if folder.exists() else "does not exist"
        raise OptionError(f"{where}: {folder} {reason}")
    if not os.access(folder, os.W_OK) or (not is_folder and target.exists() and not os.access(target, os.W_OK)):
        raise OptionError(f"{where}: permission denied")


def format_result(result: Result) -> str:
    problem = " ".join(f"{key}={value}" for key, value in result.problem.items())
    busy = "  ".join(f"{unit} {fraction:.0%}" for unit, fraction in sorted(result.busy.items(), key=lambda i: -i[1]))
    lines = [
        f"{result.algo} on {result.arch} ({result.mode} mode, clock {result.clock_hz / 1e6:.0f} MHz)",
        f"  problem      {problem}",
        f"  time         {result.time_s * 1e3:.4f} ms  ({result.cycles:,.0f} cycles)",
        f"  throughput   {result.tflops:.1f} TFLOP/s  ({result.flops:.3e} FLOP)",
        f"  HBM          read {result.hbm_read_bytes / 1e6:,.1f} MB  write {result.hbm_write_bytes / 1e6:,.1f} MB",
        f"  L2           read {result.l2_read_bytes / 1e6:,.1f} MB  write {result.l2_write_bytes / 1e6:,.1f} MB",
        f"  smem         read {result.smem_read_bytes / 1e6:,.1f} MB  write {result.smem_write_bytes / 1e6:,.1f} MB",
        f"  busy         {busy}",
        f"  bottleneck   {result.bottleneck}",
    ]
    return "\n".join(lines)


def main(argv: Sequence[str] | None = None) -> None:
    """Console entry point: runs the click group and turns every user error into one line and exit status 2."""
    try:
        cli.main(args=list(argv) if argv is not None else None, prog_name="simgpu", standalone_mode=False)
    except click.exceptions.Exit as done:
        sys.exit(done.exit_code)
    except click.Abort:
        sys.exit(USAGE_ERROR)
    except click.ClickException as err:
        _fail(err.format_message(), USAGE_ERROR)
    except InternalError as err:
        _fail(f"internal error: {err}", INTERNAL_ERROR)
    except SimgpuError as err:
        _fail(str(err), USAGE_ERROR)


def _fail(message: str, status: int) -> None:
    one_line = " ".join(message.split())
    click.echo(f"simgpu: error: {one_line}", err=True)
    sys.exit(status)
