"""Sweeps: a YAML grid of configurations, expanded into points, simulated in parallel, cached, written as a table.

A spec lists archs, algorithms, problem fields, algorithm options and arch overrides (`set`); the points are the
product of every list, in the order arch, set, algo, problem, options (the last list written varies fastest within
`options` and `set`; problem fields vary in the order batch, heads, seqlen, seqlen_k, headdim, causal, dtype, pass,
then m, n, k). The whole spec is checked before any point runs: the YAML against a strict pydantic model, then
every algorithm, arch and override combination by loading it. An option applies to the algorithms that declare it
in their `OPTIONS` (the others get no such axis, so no duplicate points); an option that no listed algorithm
declares is a spec error. Problem fields apply likewise to the algorithms of their problem kind (attention or GEMM).

A point's outcome (every `Result.to_dict()` field except the config ones, `busy` flattened to `busy_<unit>`, or
the `SimgpuError` it raised) is cached as one JSON file named by the point's config hash: the arch's hash (after
`inherit:` and `set`), the algorithm, problem, options, mode and the hash of the simulator's and the algorithms'
source files, so a changed model never serves stale results. Entries are written atomically and checked on read
(valid JSON, the expected hash, the outcome's checksum and shape); a bad one is reported and recomputed, never
trusted; an entry that is not a file stops the sweep before any point runs.
Points run in this process (-j 1), a local process pool, or on Dask (optional dependency, imported lazily); rows
are sorted by point order, so the table does not depend on the executor or on which points came from the cache.

Ignored: `sim_wall_s` (wall clock; it would make tables differ between runs), per-tile unit cycles and traces;
cache entries of configurations not in the spec; temporary files left behind by a killed write.
"""

from __future__ import annotations

import contextlib
import csv
import hashlib
import importlib
import io
import itertools
import json
import math
import os
import signal
import sys
import tempfile
import time
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from concurrent.futures import FIRST_COMPLETED, Executor, Future, ProcessPoolExecutor, wait
from dataclasses import dataclass
from pathlib import Path
from types import ModuleType
from typing import Annotated, Any, ParamSpec, TypeVar

import yaml
from pydantic import (
    AfterValidator,
    BaseModel,
    ConfigDict,
    Field,
    StrictBool,
    StrictInt,
    StrictStr,
    ValidationError,
    field_validator,
)

from simgpu.api import MODES, simulate
from simgpu.arch import Arch, load_arch, parse_scalar, resolve_arch_path
from simgpu.errors import SimgpuError
from simgpu.problem import INPUT_DTYPES, PASSES, AnyProblem, GemmProblem, Problem
from simgpu.registry import load_algorithm

CACHE_SUFFIX = ".cache"  # the cache of `out/x.csv` is the directory `out/x.csv.cache/`
# Points are grouped into tasks on a pool: a tiny point costs about 10 ms, a Dask task a few ms of overhead.
TASK_SECONDS = 0.2  # aim of one task's compute time: hides that overhead, keeps the bar moving and Ctrl-C prompt
MAX_CHUNK = 16
CHUNKS_PER_WORKER = 4  # the last chunks are small enough that the workers finish together

T = TypeVar("T")
P = ParamSpec("P")
Axis = Annotated[list[T], Field(min_length=1)]
PositiveInt = Annotated[StrictInt, Field(gt=0)]


class SweepError(SimgpuError):
    """A sweep cannot run: bad executor, unwritable output or cache, missing optional dependency."""


class SweepSpecError(SweepError):
    """A sweep spec is invalid; the message names the spec file, the key path and the reason."""


def _one_of(choices: Sequence[str]) -> AfterValidator:
    def check(value: str) -> str:
        if value not in choices:
            raise ValueError(f"must be one of {', '.join(choices)}")
        return value

    return AfterValidator(check)


def _scalar(value: Any) -> Any:
    # One validator rather than a union of strict types: a union reports every branch's failure, which names the
    # branch ("set.clock_hz[0].bool: Input should be a valid boolean") instead of what is wrong with the value.
    if isinstance(value, float) and not math.isfinite(value):
        raise ValueError("must be a finite number")
    if value is not None and not isinstance(value, bool | int | float | str):
        raise ValueError(f"must be a number, string, boolean or null, not a {type(value).__name__}")
    return value


Scalar = Annotated[Any, AfterValidator(_scalar)]


class _Strict(BaseModel):
    model_config = ConfigDict(strict=True, extra="forbid", frozen=True, allow_inf_nan=False)


class ProblemGrid(_Strict):
    """Lists of problem fields. Attention: seqlen and headdim required, the rest default as in `simgpu run`."""

    batch: Axis[PositiveInt] | None = None
    heads: Axis[PositiveInt] | None = None
    seqlen: Axis[PositiveInt] | None = None
    seqlen_k: Axis[PositiveInt | None] | None = None
    headdim: Axis[PositiveInt] | None = None
    causal: Axis[StrictBool] | None = None
    dtype: Axis[Annotated[StrictStr, _one_of(INPUT_DTYPES)]] | None = None
    pass_: Axis[Annotated[StrictStr, _one_of(PASSES)]] | None = Field(default=None, alias="pass")
    m: Axis[PositiveInt] | None = None
    n: Axis[PositiveInt] | None = None
    k: Axis[PositiveInt] | None = None


class SweepSpec(_Strict):
    """The YAML spec. Strings in `options` and `set` are typed as on the command line (`"1.5e9"` is a number)."""

    archs: Axis[StrictStr]
    algos: Axis[StrictStr]
    problem: ProblemGrid
    options: dict[StrictStr, Axis[Scalar]] = Field(default_factory=dict)
    overrides: dict[StrictStr, Axis[Scalar]] = Field(default_factory=dict, alias="set")
    mode: Annotated[StrictStr, _one_of(MODES)] = "fast"  # the simulation mode of every point

    @field_validator("options", "overrides")
    @classmethod
    def _typed(cls, grid: dict[str, list[Any]]) -> dict[str, list[Any]]:
        return {key: [parse_scalar(v) if isinstance(v, str) else v for v in values] for key, values in grid.items()}


# Problem fields per kind, in product order (spec key, default when omitted; None = required).
ATTENTION_FIELDS: tuple[tuple[str, list[Any] | None], ...] = (
    ("batch", [1]),
    ("heads", [16]),
    ("seqlen", None),
    ("seqlen_k", [None]),
    ("headdim", None),
    ("causal", [False]),
    ("dtype", ["bf16"]),
    ("pass", ["fwd"]),
)
GEMM_FIELDS: tuple[tuple[str, list[Any] | None], ...] = (("m", None), ("n", None), ("k", None), ("dtype", ["bf16"]))
FIELDS_BY_KIND = {"attention": ATTENTION_FIELDS, "gemm": GEMM_FIELDS}


@dataclass(frozen=True)
class Point:
    """One configuration of the grid, ready to simulate; `index` is its place in spec order."""

    index: int
    arch_label: str  # as written in the spec
    overrides: tuple[tuple[str, Any], ...]
    arch: Arch
    arch_sha256: str
    algo: str
    problem: AnyProblem
    options: tuple[tuple[str, Any], ...]
    mode: str
    config_hash: str


@dataclass(frozen=True)
class CorruptEntry:
    path: Path
    reason: str


@dataclass(frozen=True)
class SweepPlan:
    """Points of a sweep and what the cache already holds for them (outcomes by point index)."""

    points: tuple[Point, ...]
    cache_dir: Path
    cached: Mapping[int, Mapping[str, Any]]
    corrupt: tuple[CorruptEntry, ...]

    @property
    def todo(self) -> tuple[Point, ...]:
        return tuple(p for p in self.points if p.index not in self.cached)


@dataclass(frozen=True)
class SweepTable:
    """One row per point, in point order; `columns` is the union of the rows' keys in a fixed order."""

    columns: tuple[str, ...]
    rows: tuple[Mapping[str, Any], ...]


@dataclass(frozen=True)
class SweepPaths:
    csv: Path
    jsonl: Path
    cache_dir: Path


# ---------------------------------------------------------------------------------------------------------------------
# Spec: load, validate, expand


def load_points(path: str | Path) -> tuple[Point, ...]:
    """Read, validate and expand a spec file. Raises SweepSpecError before anything runs."""
    path = Path(path)
    return expand(load_spec(path), str(path), path.parent)


def load_spec(path: Path) -> SweepSpec:
    try:
        data = yaml.safe_load(path.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError) as err:
        raise SweepSpecError(f"{path}: cannot read sweep spec: {getattr(err, 'strerror', None) or err}") from None
    except yaml.YAMLError as err:
        mark = getattr(err, "problem_mark", None)
        where = f" line {mark.line + 1}:" if mark is not None else ""
        raise SweepSpecError(f"{path}:{where} YAML syntax error: {getattr(err, 'problem', None) or err}") from None
    if not isinstance(data, dict):
        raise SweepSpecError(f"{path}: a sweep spec must be a YAML mapping, got {type(data).__name__}")
    try:
        return SweepSpec.model_validate(data)
    except ValidationError as err:
        # An unknown key first: a misspelt key is also reported missing, and the misspelling is the cause.
        first = next((e for e in err.errors() if e["type"] == "extra_forbidden"), err.errors()[0])
        location = _key_path(first["loc"])
        message = {"extra_forbidden": "unknown key", "missing": "missing key"}.get(
            first["type"],
            first["msg"].removeprefix("Value error, "),  # pydantic's prefix to a validator's message
        )
        value = first.get("input")
        shown = (
            "" if first["type"] in ("missing", "extra_forbidden") or isinstance(value, dict) else f" (got {value!r})"
        )
        more = f" (+{err.error_count() - 1} more)" if err.error_count() > 1 else ""
        raise SweepSpecError(f"{path}: {location}: {message}{shown}{more}") from None


def _key_path(loc: Sequence[int | str]) -> str:
    text = ""
    for part in loc:
        text += f"[{part}]" if isinstance(part, int) else (f".{part}" if text else str(part))
    return text or "<root>"


def expand(spec: SweepSpec, source: str, base_dir: Path) -> tuple[Point, ...]:
    """Every point of `spec`, in spec order; archs given as relative paths are relative to `base_dir`."""
    _check_unique(spec, source)
    modules: dict[str, ModuleType] = {}
    for i, algo in enumerate(spec.algos):
        try:
            modules[algo] = load_algorithm(algo)
        except SimgpuError as err:
            raise SweepSpecError(f"{source}: algos[{i}]: {err}") from None
        if modules[algo].PROBLEM not in FIELDS_BY_KIND:
            raise SweepSpecError(
                f"{source}: algos[{i}]: {algo} takes an unknown problem kind {modules[algo].PROBLEM!r}"
            )
    for name in spec.options:
        if not any(name in module.OPTIONS for module in modules.values()):
            accepted = "; ".join(f"{a}: {', '.join(sorted(m.OPTIONS)) or 'none'}" for a, m in modules.items())
            raise SweepSpecError(f"{source}: options.{name}: no listed algorithm accepts it ({accepted})")
    kinds = {module.PROBLEM for module in modules.values()}
    problems = {kind: _problems(spec.problem, kind, source) for kind in sorted(kinds)}
    used = {key for kind in kinds for key, _ in FIELDS_BY_KIND[kind]}
    for key in spec.problem.model_dump(by_alias=True, exclude_none=True):
        if key not in used:
            raise SweepSpecError(f"{source}: problem.{key}: no listed algorithm takes it (algorithms: {sorted(kinds)})")
    archs = [(label, _load_arch(label, i, source, base_dir)) for i, label in enumerate(spec.archs)]
    code = code_sha256(modules.values())
    override_axes = [[(key, value) for value in values] for key, values in spec.overrides.items()]
    points: list[Point] = []
    for label, base in archs:
        for overrides in itertools.product(*override_axes):
            try:
                arch = base.with_overrides(dict(overrides), source=f"{source}: set (arch {label})")
            except SimgpuError as err:
                raise SweepSpecError(str(err)) from None
            arch_sha256 = hashlib.sha256(arch.model_dump_json().encode()).hexdigest()
            for algo, module in modules.items():
                option_axes = [[(k, v) for v in values] for k, values in spec.options.items() if k in module.OPTIONS]
                for problem in problems[module.PROBLEM]:
                    for options in itertools.product(*option_axes):
                        config = {
                            "algo": algo,
                            "arch_sha256": arch_sha256,
                            "code_sha256": code,
                            "mode": spec.mode,
                            "options": dict(options),
                            "problem": problem.describe(),
                        }
                        points.append(
                            Point(
                                index=len(points),
                                arch_label=label,
                                overrides=overrides,
                                arch=arch,
                                arch_sha256=arch_sha256,
                                algo=algo,
                                problem=problem,
                                options=options,
                                mode=spec.mode,
                                config_hash=_sha256_json(config),
                            )
                        )
    return tuple(points)


def _check_unique(spec: SweepSpec, source: str) -> None:
    axes: list[tuple[str, list[Any]]] = [("archs", spec.archs), ("algos", spec.algos)]
    axes += [(f"problem.{k}", v) for k, v in spec.problem.model_dump(by_alias=True, exclude_none=True).items()]
    axes += [(f"options.{k}", v) for k, v in spec.options.items()]
    axes += [(f"set.{k}", v) for k, v in spec.overrides.items()]
    for key, values in axes:
        seen: set[str] = set()
        for i, value in enumerate(values):
            token = json.dumps(value)
            if token in seen:
                raise SweepSpecError(f"{source}: {key}[{i}]: duplicate value {value!r}")
            seen.add(token)


def _problems(grid: ProblemGrid, kind: str, source: str) -> list[AnyProblem]:
    given = grid.model_dump(by_alias=True, exclude_none=True)
    axes = []
    for key, default in FIELDS_BY_KIND[kind]:
        values = given.get(key, default)
        if values is None:
            raise SweepSpecError(f"{source}: problem.{key}: missing key (required by the {kind} algorithms)")
        axes.append(values)
    problems: list[AnyProblem] = []
    for values in itertools.product(*axes):
        try:
            if kind == "gemm":
                problems.append(GemmProblem(*values))
            else:
                batch, heads, seqlen, seqlen_k, headdim, causal, dtype, pass_ = values
                problems.append(Problem(batch, heads, seqlen, headdim, seqlen_k, causal, dtype, pass_))
        except SimgpuError as err:
            raise SweepSpecError(f"{source}: problem: {err}") from None
    return problems


def _load_arch(label: str, i: int, source: str, base_dir: Path) -> Arch:
    try:
        return load_arch(resolve_arch_path(label, relative_to=base_dir))
    except SimgpuError as err:
        raise SweepSpecError(f"{source}: archs[{i}]: {err}") from None


def code_sha256(modules: Iterable[ModuleType]) -> str:
    """Hash of the Python sources of simgpu and of the top-level packages the algorithms live in."""
    roots = {Path(__file__).resolve().parent}
    for module in modules:
        top = sys.modules[module.__name__.partition(".")[0]]
        if getattr(top, "__file__", None):
            file = Path(str(top.__file__)).resolve()
            roots.add(file.parent if file.name == "__init__.py" else file)
    digest = hashlib.sha256()
    for root in sorted(roots):
        for file in sorted(root.rglob("*.py")) if root.is_dir() else [root]:
            digest.update(file.relative_to(root.parent).as_posix().encode() + b"\0")
            digest.update(hashlib.sha256(file.read_bytes()).digest())
    return digest.hexdigest()


def _sha256_json(value: Any) -> str:
    return hashlib.sha256(json.dumps(value, sort_keys=True, separators=(",", ":")).encode()).hexdigest()


# ---------------------------------------------------------------------------------------------------------------------
# One point


def run_point(point: Point) -> dict[str, Any]:
    """Simulate one point: its result fields (busy flattened), or `{"error": ...}` for a SimgpuError."""
    try:
        result = simulate(point.arch, point.algo, point.problem, dict(point.options), mode=point.mode)
    except SimgpuError as err:
        return {"error": f"{type(err).__name__}: {' '.join(str(err).split())}"}
    data = result.to_dict()
    for key in ("algo", "problem", "options", "sim_wall_s"):
        del data[key]
    busy = data.pop("busy")
    outcome = {"arch_name": data.pop("arch"), **data}
    outcome.update({f"busy_{unit}": busy[unit] for unit in sorted(busy)})
    return outcome


# ---------------------------------------------------------------------------------------------------------------------
# Output paths and the cache


def prepare_output(out: str | Path) -> SweepPaths:
    """Create the output and cache directories and check they are writable, before any point runs."""
    csv_path = Path(out)
    paths = SweepPaths(csv_path, csv_path.with_suffix(".jsonl"), Path(f"{csv_path}{CACHE_SUFFIX}"))
    if paths.jsonl == csv_path:
        raise SweepError(f"--out {csv_path}: give the CSV path; the JSON lines are written next to it")
    if csv_path.is_dir():
        raise SweepError(f"cannot write {csv_path}: it is a directory")
    for directory in (csv_path.parent, paths.cache_dir):
        try:
            directory.mkdir(parents=True, exist_ok=True)
            fd, probe = tempfile.mkstemp(dir=directory, prefix=".probe-")
            os.close(fd)
            os.unlink(probe)
        except OSError as err:
            raise SweepError(f"cannot write to {directory}: {err.strerror or err}") from None
    return paths


def plan_sweep(points: Sequence[Point], cache_dir: Path) -> SweepPlan:
    """Look every point up in the cache; a corrupt entry is listed once and its point computed again."""
    cached: dict[int, Mapping[str, Any]] = {}
    corrupt: dict[Path, CorruptEntry] = {}
    for point in points:
        path = cache_dir / f"{point.config_hash}.json"
        if path in corrupt or not path.exists():
            continue
        if not path.is_file():  # it could not be replaced by the point's result either
            raise SweepError(f"{path}: a cache entry that is not a file; remove it")
        outcome, reason = _read_entry(path, point.config_hash)
        if outcome is not None:
            cached[point.index] = outcome
        else:
            corrupt[path] = CorruptEntry(path, reason)
    return SweepPlan(tuple(points), cache_dir, cached, tuple(corrupt.values()))


def _outcome_text(outcome: Mapping[str, Any]) -> str:
    # Key order kept (it orders the table's columns); floats written as repr, so they read back bit-identical.
    return json.dumps(outcome, separators=(",", ":"))


def _read_entry(path: Path, config_hash: str) -> tuple[Mapping[str, Any] | None, str]:
    try:
        entry = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError) as err:
        return None, f"unreadable ({err})"
    except ValueError:
        return None, "invalid JSON"
    if not isinstance(entry, dict) or set(entry) != {"config_hash", "outcome", "outcome_sha256"}:
        return None, "not a sweep cache entry"
    if entry["config_hash"] != config_hash:
        return None, f"holds config hash {str(entry['config_hash'])[:12]}..., expected {config_hash[:12]}..."
    outcome = entry["outcome"]
    if not isinstance(outcome, dict) or hashlib.sha256(_outcome_text(outcome).encode()).hexdigest() != entry.get(
        "outcome_sha256"
    ):
        return None, "checksum mismatch"
    if not _is_outcome(outcome):
        return None, "not a point's outcome"
    return outcome, ""


def _is_outcome(outcome: Mapping[str, Any]) -> bool:
    """What `run_point` returns: an error message, or result fields with finite cycles (a checksum recomputed
    over something else must not pass for a result)."""
    if "error" in outcome:
        return set(outcome) == {"error"} and isinstance(outcome["error"], str)
    cycles = outcome.get("cycles")
    return {"arch_name", "mode", "cycles"} <= set(outcome) and isinstance(cycles, float) and math.isfinite(cycles)


def _store(cache_dir: Path, config_hash: str, outcome: Mapping[str, Any]) -> Mapping[str, Any]:
    """Write the entry atomically; return the outcome as it reads back, so fresh and cached rows are identical."""
    text = _outcome_text(outcome)
    entry = {
        "config_hash": config_hash,
        "outcome_sha256": hashlib.sha256(text.encode()).hexdigest(),
        "outcome": outcome,
    }
    _write_atomic(cache_dir / f"{config_hash}.json", json.dumps(entry, separators=(",", ":")))
    loaded: Mapping[str, Any] = json.loads(text)
    return loaded


def _write_atomic(path: Path, text: str) -> None:
    try:
        fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.", suffix=".tmp")
        try:
            with os.fdopen(fd, "w", encoding="utf-8", newline="") as handle:
                handle.write(text)
            os.replace(tmp, path)
        except BaseException:
            with contextlib.suppress(OSError):
                os.unlink(tmp)
            raise
    except OSError as err:
        raise SweepError(f"cannot write {path}: {err.strerror or err}") from None


# ---------------------------------------------------------------------------------------------------------------------
# Executors


def parse_executor(text: str) -> str | None:
    """`local` -> None; `dask` -> "" (a LocalCluster); `dask://ADDRESS` -> the scheduler address (tcp:// if bare)."""
    if text == "local":
        return None
    if text == "dask":
        return ""
    if text.startswith("dask://") and len(text) > len("dask://"):
        address = text[len("dask://") :]
        return address if "://" in address else f"tcp://{address}"
    raise SweepError(f"--executor {text!r}: expected local, dask or dask://ADDRESS")


class _InlineExecutor(Executor):
    """Runs each call when it is submitted, in this process: -j 1 needs no pool and stops exactly where it is told."""

    def submit(self, fn: Callable[P, T], /, *args: P.args, **kwargs: P.kwargs) -> Future[T]:
        future: Future[T] = Future()
        try:
            future.set_result(fn(*args, **kwargs))
        except Exception as err:
            future.set_exception(err)
        return future


def _ignore_sigint() -> None:
    # Ctrl-C reaches the whole process group: the parent stops the sweep, the workers finish their point quietly.
    signal.signal(signal.SIGINT, signal.SIG_IGN)


@contextlib.contextmanager
def open_executor(executor: str, jobs: int) -> Iterator[tuple[Executor, int]]:
    """An executor for `executor` (see parse_executor) and the number of processes it computes on."""
    address = parse_executor(executor)
    if address is None:
        if jobs <= 1:
            yield _InlineExecutor(), 1
            return
        with ProcessPoolExecutor(max_workers=jobs, initializer=_ignore_sigint) as pool:
            yield pool, jobs
        return
    try:
        distributed = importlib.import_module("dask.distributed")
    except ImportError:
        raise SweepError("the dask executor needs dask.distributed: pip install 'simgpu[dask]'") from None
    if address:
        try:
            client = distributed.Client(address)
        except (OSError, TimeoutError) as err:
            raise SweepError(f"cannot reach the dask scheduler at {address}: {err}") from None
        with client:
            yield client.get_executor(pure=False), max(sum(client.nthreads().values()), 1)
        return
    cluster = distributed.LocalCluster(n_workers=jobs, threads_per_worker=1, processes=True, dashboard_address=None)
    with cluster, distributed.Client(cluster) as client:
        yield client.get_executor(pure=False), jobs


def run_points(points: Sequence[Point]) -> tuple[list[dict[str, Any]], float]:
    """`run_point` over a chunk, and the seconds it took (used only to size the next chunks)."""
    started = time.perf_counter()
    outcomes = [run_point(point) for point in points]
    return outcomes, time.perf_counter() - started


def _chunk_size(workers: int, remaining: int, seconds_per_point: float | None) -> int:
    """Points per task: one in this process (a sweep stops exactly where told) and until a point has been timed;
    then enough for TASK_SECONDS, at most MAX_CHUNK, and small enough to leave CHUNKS_PER_WORKER for the tail."""
    if workers == 1 or seconds_per_point is None:
        return 1
    by_time = round(TASK_SECONDS / max(seconds_per_point, 1e-9))
    return max(1, min(MAX_CHUNK, by_time, remaining // (CHUNKS_PER_WORKER * workers)))


def _run(
    pool: Executor, workers: int, todo: Sequence[Point], on_outcome: Callable[[Point, dict[str, Any]], None]
) -> None:
    """Run `todo` in chunks, two per worker in flight; on any exception, cancel the chunks not started."""
    pending: dict[Future[tuple[list[dict[str, Any]], float]], Sequence[Point]] = {}
    position = 0
    timed_points, timed_seconds = 0, 0.0
    try:
        while True:
            while len(pending) < 2 * workers and position < len(todo):
                mean = timed_seconds / timed_points if timed_points else None
                chunk = todo[position : position + _chunk_size(workers, len(todo) - position, mean)]
                position += len(chunk)
                pending[pool.submit(run_points, chunk)] = chunk
            if not pending:
                return
            done, _ = wait(pending, return_when=FIRST_COMPLETED)
            for future in sorted(done, key=lambda f: pending[f][0].index):
                outcomes, seconds = future.result()
                chunk = pending.pop(future)
                timed_points, timed_seconds = timed_points + len(chunk), timed_seconds + seconds
                for point, outcome in zip(chunk, outcomes, strict=True):
                    on_outcome(point, outcome)
    finally:
        for future in pending:
            future.cancel()


def execute(
    plan: SweepPlan, executor: str = "local", jobs: int = 1, progress: Callable[[Point], object] | None = None
) -> SweepTable:
    """Compute the points the cache lacks, caching each as it finishes; `progress` is called after each one."""
    outcomes: dict[int, Mapping[str, Any]] = dict(plan.cached)

    def finished(point: Point, outcome: dict[str, Any]) -> None:
        outcomes[point.index] = _store(plan.cache_dir, point.config_hash, outcome)
        if progress is not None:
            progress(point)

    todo = plan.todo
    if todo:
        with open_executor(executor, jobs) as (pool, workers):
            _run(pool, workers, todo, finished)
    return make_table(plan.points, outcomes)


# ---------------------------------------------------------------------------------------------------------------------
# The table


def make_table(points: Sequence[Point], outcomes: Mapping[int, Mapping[str, Any]]) -> SweepTable:
    """Rows of config columns, then `error`, then result columns (`busy_*` last, sorted)."""
    # Ordered sets of column names, in order of first appearance: rows of different kinds add their own columns.
    problem_columns: dict[str, None] = {}
    option_columns: dict[str, None] = {}
    set_columns: dict[str, None] = {}
    result_columns: dict[str, None] = {}
    rows = []
    for point in points:
        outcome = outcomes[point.index]
        problem = point.problem.describe()
        options = {f"option_{k}": v for k, v in point.options}
        overrides = {f"set_{k}": v for k, v in point.overrides}
        results = {k: v for k, v in outcome.items() if k != "error"}
        problem_columns.update(dict.fromkeys(problem))
        option_columns.update(dict.fromkeys(options))
        set_columns.update(dict.fromkeys(overrides))
        result_columns.update(dict.fromkeys(results))
        config = {
            "point": point.index,
            "config_hash": point.config_hash,
            "arch": point.arch_label,
            "arch_sha256": point.arch_sha256,
            "algo": point.algo,
        }
        rows.append({**config, **problem, **options, **overrides, "error": outcome.get("error"), **results})
    busy = sorted(c for c in result_columns if c.startswith("busy_"))
    columns = (
        *("point", "config_hash", "arch", "arch_sha256", "algo"),
        *problem_columns,
        *option_columns,
        *set_columns,
        "error",
        *(c for c in result_columns if not c.startswith("busy_")),
        *busy,
    )
    return SweepTable(columns, tuple({column: row.get(column) for column in columns} for row in rows))


def _csv_value(value: Any) -> Any:
    if value is None:
        return ""
    if isinstance(value, list | dict):
        return json.dumps(value, separators=(",", ":"))
    return value


def write_table(table: SweepTable, paths: SweepPaths) -> None:
    """Write the CSV and the JSON lines, each atomically."""
    text = io.StringIO()
    writer = csv.writer(text, lineterminator="\n")
    writer.writerow(table.columns)
    writer.writerows([_csv_value(row[c]) for c in table.columns] for row in table.rows)
    _write_atomic(paths.csv, text.getvalue())
    _write_atomic(paths.jsonl, "".join(json.dumps(row) + "\n" for row in table.rows))
