"""Architecture description: a frozen, validated tree loaded from a YAML file in `archs/` (or a user's own file).

What is described: SM count and clock (with an optional power-limited clock), per-SM compute pipes (tensor core by
dtype and instruction kind, MUFU ex2, FP32 FMA, ALU, warp schedulers), per-SM memories (shared memory, TMEM, TMA),
the chip-wide L2 and HBM, and feature flags. Every number lives in the YAML file with its source; this module holds
no hardware constant, only the schema and its consistency rules.

Loading rejects unknown keys, missing keys, keys given twice in one mapping, wrong types (strict: no
string-to-number coercion), non-finite and out-of-range values, and inconsistent combinations, with one line naming
the file, the key path and the reason. YAML is only loaded safely (plain data, no tags that build objects).
A file may `inherit:` another (by name or relative path) and override any keys; an error is blamed on the file of
the chain that introduced it (a bad value set in a parent names the parent and the file that inherited it).
`overrides` apply `key.path=value` what-ifs on top, validated the same way.
"""

from __future__ import annotations

import copy
import functools
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Annotated, Any, Literal

import yaml
from pydantic import AfterValidator, BaseModel, ConfigDict, Field, ValidationError, model_validator

from simgpu.errors import ArchError

TensorInstruction = Literal["mma_sync", "wgmma", "tcgen05"]
DType = Literal["fp32", "tf32", "bf16", "fp16", "fp8"]

# Size in bytes of one element of each dtype the tensor cores take (fp32 is the accumulator type).
DTYPE_BYTES: Mapping[str, int] = {"fp32": 4, "tf32": 4, "bf16": 2, "fp16": 2, "fp8": 1}

PositiveInt = Annotated[int, Field(gt=0)]
# The engine builds every SM: more than this is outside what the model is made for (B200 has 148).
SmCount = Annotated[int, Field(gt=0, le=1024)]
NonNegativeInt = Annotated[int, Field(ge=0)]
# A rate, clock or latency below this cannot be simulated: counts divided by it overflow a float (or, multiplied
# with a clock, underflow to 0) and come out as inf or NaN. Nothing physical is that small; zero stays an error of
# its own ("greater than 0").
SMALLEST_POSITIVE = 1e-9


def _not_tiny(value: float) -> float:
    if value < SMALLEST_POSITIVE:
        raise ValueError(f"too small to simulate (below {SMALLEST_POSITIVE:g})")
    return value


PositiveFloat = Annotated[float, Field(gt=0), AfterValidator(_not_tiny)]
NonNegativeFloat = Annotated[float, Field(ge=0)]
Fraction = Annotated[float, Field(gt=0, le=1)]
UnitInterval = Annotated[float, Field(ge=0, le=1)]


class _Node(BaseModel):
    model_config = ConfigDict(strict=True, extra="forbid", frozen=True, allow_inf_nan=False)


class SmSpec(_Node):
    """Per-SM limits that decide how many CTAs fit (occupancy) and how fast warps issue."""

    max_threads: PositiveInt
    max_ctas: PositiveInt
    registers: PositiveInt
    max_registers_per_thread: PositiveInt
    warp_schedulers: PositiveInt
    cta_launch_cycles: NonNegativeInt
    # A role with at most one warp per scheduler issues its elementwise ops in order from that warp, so its pipes
    # overlap only in part: the op takes at least its longest pipe's time plus this fraction of the others' times
    # (None: the pipes overlap fully, whatever the warps).
    single_warp_serial_fraction: Fraction | None = None
    # Bytes per cycle that cp.async copies (16 bytes per thread, through the SM's load path) bring into one SM from L2
    # or HBM, however many are in flight (None: only the L2 and HBM bandwidths limit them).
    cp_async_bytes_per_cycle: PositiveFloat | None = None
    # Cycles a warp spends on each cp.async instruction it issues (16 bytes per thread) before it can go on: the
    # load path takes a warp's copies at this pace, and the warp waits for it (None: one issue slot per copy).
    cp_async_issue_cycles: NonNegativeFloat | None = None
    # Cycles the SM's store path spends on each warp-level 4- or 8-byte store or fp32 reduction (RED) issued from an
    # MMA accumulator's register fragments (8 rows of 16-32 contiguous bytes: 8 sectors per instruction); the issuing
    # warps wait until the path has taken their instructions (None: such stores cost issue slots only). An
    # instruction over fewer rows costs its share of rows, and at least `fragment_store_min_cycles`.
    fragment_store_cycles: PositiveFloat | None = None
    fragment_store_min_cycles: NonNegativeFloat = 0.0


class TensorCoreSpec(_Node):
    """Matrix units of one SM: dense rate per input dtype and the instruction that drives them."""

    instruction: TensorInstruction
    flops_per_cycle: dict[DType, PositiveInt]
    # Rate of the legacy mma.sync path on chips whose native instruction is wgmma or tcgen05 (FA2 uses it there).
    mma_sync_flops_per_cycle: dict[DType, PositiveInt] | None
    instruction_m: PositiveInt
    instruction_n_max: PositiveInt
    instruction_k_bytes: PositiveInt
    subpartitions: PositiveInt
    # Async MMA instructions (wgmma) the tensor cores take ahead of the one executing. The issuing warps cannot
    # go past an instruction the tensor cores have no room for, so a role that issues an async MMA goes on only
    # once all but this many + 1 of its instructions have started. None: the issue never waits (a deep queue).
    issue_queue_instructions: NonNegativeInt | None = None


class MufuSpec(_Node):
    """Multi-function unit: transcendental throughput (ex2) per SM."""

    ex2_per_cycle: PositiveFloat


class FmaSpec(_Node):
    """FP32 FMA lanes per SM: one FMUL/FADD/FFMA per lane per cycle."""

    fp32_per_cycle: PositiveFloat


class AluSpec(_Node):
    """Integer/compare/min/max/conversion lanes per SM."""

    ops_per_cycle: PositiveFloat


class SmemSpec(_Node):
    """Shared memory of one SM: capacity, the opt-in limit per CTA, and the read/write port bandwidth.

    `cp_async_write_port_fraction`, `tma_write_port_fraction`: the share of the port's bandwidth that a byte landing
    from that copy engine takes from the reads beside it (0: none, the FA4 roofline's convention; 1: a full byte)."""

    capacity_bytes: PositiveInt
    per_cta_bytes: PositiveInt
    bandwidth_bytes_per_cycle: PositiveFloat
    cp_async_write_port_fraction: UnitInterval
    tma_write_port_fraction: UnitInterval


class TmemSpec(_Node):
    """Tensor Memory (Blackwell): accumulator storage of 128 lanes x columns x 32 bit, allocated in granules."""

    lanes: PositiveInt
    columns: PositiveInt
    column_granule: PositiveInt
    bandwidth_bytes_per_cycle: PositiveFloat


class TmaSpec(_Node):
    """Bulk tensor copy engine of one SM: a fixed issue cost per copy instruction, the rate at which the SM takes in
    the bytes of its copies (None: only L2/HBM bandwidth and latency limit them), and how much later than the
    HBM's latency (a single line's) and its bytes a copy that misses L2 lands, its box's lines spread over the
    HBM's channels (`hbm_box_extra_cycles`; None: not measured, none)."""

    issue_cycles: NonNegativeInt
    bytes_per_cycle: PositiveFloat | None = None
    hbm_box_extra_cycles: NonNegativeFloat | None = None


class DsmemSpec(_Node):
    """Distributed shared memory: the SM-to-SM network between the CTAs of a cluster (Hopper and later).

    A bulk copy from this SM's smem into a peer CTA's smem passes this SM's link to the network at
    `bandwidth_bytes_per_cycle` and lands `latency_cycles` after its last byte left; an mbarrier arrival sent to a
    peer CTA takes `latency_cycles` too (`simgpu.kernel.BarrierSpec.cluster`)."""

    latency_cycles: NonNegativeFloat
    bandwidth_bytes_per_cycle: PositiveFloat


class L2Spec(_Node):
    """Chip-wide L2: capacity decides hits; bandwidth is shared by all SMs. At most `max_dirty_fraction` of the
    capacity stays dirty: a store beyond it writes the tiles dirtied longest ago back (`simgpu.units.l2`)."""

    capacity_bytes: NonNegativeInt
    bandwidth_bytes_per_s: PositiveFloat
    hit_latency_cycles: NonNegativeInt
    max_dirty_fraction: Fraction = 1.0
    # L2 service of a store that writes part of a 32-byte sector (a warp's stores from MMA fragments: 16 bytes per
    # row), in full-sector accesses: a read and a write of the sector at 2. None: a store costs its bytes.
    partial_sector_write_accesses: PositiveFloat | None = None

    @property
    def dirty_capacity_bytes(self) -> float:
        return self.capacity_bytes * self.max_dirty_fraction


class LoadedLatencySpec(_Node):
    """How much later a miss returns while the HBM is busy (`simgpu.units.hbm`): `extra_cycles` x min(1,
    utilization / `knee_utilization`), where utilization is the bytes booked over about the last `window_cycles`
    (an exponential moving average) over the sustained rate."""

    extra_cycles: NonNegativeFloat
    knee_utilization: Fraction
    window_cycles: PositiveFloat


class HbmSpec(_Node):
    """Device memory: capacity, datasheet bandwidth, the share of it that reads sustain (`achievable_fraction`), the
    HBM time of a written byte over a read byte's (`write_cost_ratio`, 1: reads and writes alike, at the one rate),
    idle miss latency, and the latency added under load (None: every miss takes the idle latency)."""

    capacity_bytes: PositiveInt
    bandwidth_bytes_per_s: PositiveFloat
    achievable_fraction: Fraction
    latency_cycles: NonNegativeInt
    loaded_latency: LoadedLatencySpec | None = None
    write_cost_ratio: PositiveFloat = 1.0

    @property
    def sustained_bytes_per_s(self) -> float:
        return self.bandwidth_bytes_per_s * self.achievable_fraction


class ContentionRates(_Node):
    """Rates of the SM's pipes while another one runs, as fractions of each pipe's own rate (Hopper: the register
    file and the dispatch are shared). While the tensor cores and a lane pipe (or the smem port, for thread-issued
    traffic such as ldmatrix) are both busy, the pipe runs at its `*_rate_while_tensor_busy` and the tensor cores at
    `tensor_rate_while_*_busy`. 1 means perfect overlap."""

    mufu_rate_while_tensor_busy: Fraction
    fma_rate_while_tensor_busy: Fraction
    alu_rate_while_tensor_busy: Fraction
    smem_rate_while_tensor_busy: Fraction
    tensor_rate_while_mufu_busy: Fraction
    tensor_rate_while_fma_busy: Fraction
    tensor_rate_while_alu_busy: Fraction
    tensor_rate_while_smem_busy: Fraction


class ContentionSpec(ContentionRates):
    """The native tensor instruction's rates, and the legacy mma.sync path's where it differs (it reads all its
    operands from the register file on every instruction). `mma_sync: null`: the native rates apply to it too."""

    mma_sync: ContentionRates | None


class LatencySpec(_Node):
    """Dependent-issue latencies of one SM in cycles: from an instruction's issue until one that uses its result
    can issue. They bound a warp role's op from below (`simgpu.sm`), delay the role and occupy no unit.

    `mma_async_cycles` is what an async MMA (wgmma, tcgen05) adds after its tensor-core work before its result can
    be used (fence, commit, wait). `wait_cycles` is the round trip of a wait on a barrier phase (mbarrier try_wait,
    wgmma.wait_group) that has already completed: a `Wait` returns no sooner than this after its role reaches it
    (None: waits on completed phases are free). `mbarrier_handoff_cycles` and `named_handoff_cycles`: from a role's
    `Arrive` to a waiter seeing the phase it completes, on an mbarrier and on a named barrier (None: at once). The
    prologue of a warp-specialized CTA (`algorithms._schedule.prologue`): `barrier_init_cycles` for one thread to
    initialise the kernel's mbarriers and fence them, `cta_sync_cycles` for the `__syncthreads` after it,
    `setmaxnreg_cycles` for a warpgroup's register resize, `tensormap_fence_cycles` per tensor map acquired (None:
    free). An arch without this section has no latency floors."""

    fma_cycles: PositiveFloat  # FFMA, FADD, FMUL
    alu_cycles: PositiveFloat  # FMNMX, F2FP, compare, select
    mufu_cycles: PositiveFloat  # MUFU.EX2
    shuffle_cycles: PositiveFloat  # SHFL.BFLY
    smem_cycles: PositiveFloat  # LDS.128, ldmatrix.x4
    mma_sync_cycles: PositiveFloat  # mma.sync m16n8k16, accumulator to accumulator
    mma_async_cycles: NonNegativeFloat
    wait_cycles: NonNegativeFloat | None = None
    mbarrier_handoff_cycles: NonNegativeFloat | None = None
    named_handoff_cycles: NonNegativeFloat | None = None
    barrier_init_cycles: NonNegativeFloat | None = None
    cta_sync_cycles: NonNegativeFloat | None = None
    setmaxnreg_cycles: NonNegativeFloat | None = None
    tensormap_fence_cycles: NonNegativeFloat | None = None


class PowerSpec(_Node):
    """Power-limited clock: with the tensor cores saturated the chip runs at `tensor_saturated_clock_hz`.

    Below saturation the clock rises as activity^(-1/3) up to `clock_hz`, and while a run uses the tensor cores at
    all, up to `tensor_active_clock_hz` where given (see `simgpu.clock`).
    """

    tensor_saturated_clock_hz: PositiveFloat
    tensor_active_clock_hz: PositiveFloat | None = None


class Features(_Node):
    """What the chip can do; schedules refuse archs that lack what they need."""

    tma: bool
    wgmma: bool
    tcgen05: bool
    tmem: bool
    clusters: bool


class Arch(_Node):
    """One GPU. Frozen; a what-if is a new Arch made with `with_overrides` or `load_arch(..., overrides=...)`."""

    name: str
    compute_capability: str
    sms: SmCount
    clock_hz: PositiveFloat
    power: PowerSpec | None
    kernel_launch_s: NonNegativeFloat
    sm: SmSpec
    tensor_core: TensorCoreSpec
    mufu: MufuSpec
    fma: FmaSpec
    alu: AluSpec
    contention: ContentionSpec | None
    smem: SmemSpec
    tmem: TmemSpec | None
    tma: TmaSpec | None
    l2: L2Spec
    hbm: HbmSpec
    features: Features
    latency: LatencySpec | None = None  # optional: a file without it models no dependency latencies
    dsmem: DsmemSpec | None = None  # optional: a file without it cannot run schedules that exchange data over DSMEM

    @model_validator(mode="after")
    def _consistent(self) -> Arch:
        if self.smem.per_cta_bytes > self.smem.capacity_bytes:
            raise ValueError(
                f"smem.per_cta_bytes ({self.smem.per_cta_bytes}) exceeds smem.capacity_bytes "
                f"({self.smem.capacity_bytes})"
            )
        if self.features.tmem != (self.tmem is not None):
            raise ValueError("features.tmem must be true exactly when a tmem section is given")
        if self.dsmem is not None and not self.features.clusters:
            raise ValueError("a dsmem section needs features.clusters")
        if self.features.tma != (self.tma is not None):
            raise ValueError("features.tma must be true exactly when a tma section is given")
        instruction = self.tensor_core.instruction
        if instruction == "wgmma" and not self.features.wgmma:
            raise ValueError("tensor_core.instruction is wgmma but features.wgmma is false")
        if instruction == "tcgen05" and not (self.features.tcgen05 and self.features.tmem):
            raise ValueError("tensor_core.instruction is tcgen05 but features.tcgen05 or features.tmem is false")
        if (self.tensor_core.mma_sync_flops_per_cycle is None) != (instruction == "mma_sync"):
            raise ValueError(
                "tensor_core.mma_sync_flops_per_cycle must be given exactly when the native instruction is not mma_sync"
            )
        if self.power is not None and self.power.tensor_saturated_clock_hz > self.clock_hz:
            raise ValueError("power.tensor_saturated_clock_hz exceeds clock_hz")
        active = self.power.tensor_active_clock_hz if self.power is not None else None
        if self.power is not None and active is not None and active < self.power.tensor_saturated_clock_hz:
            raise ValueError("power.tensor_active_clock_hz is below power.tensor_saturated_clock_hz")
        if self.sm.max_threads % 32:
            raise ValueError("sm.max_threads must be a multiple of the warp size (32)")
        return self

    @property
    def dtypes(self) -> tuple[str, ...]:
        """Input dtypes the tensor cores take, in the file's order."""
        return tuple(self.tensor_core.flops_per_cycle)

    def hbm_bytes_per_cycle(self, clock_hz: float) -> float:
        return self.hbm.sustained_bytes_per_s / clock_hz

    def l2_bytes_per_cycle(self, clock_hz: float) -> float:
        return self.l2.bandwidth_bytes_per_s / clock_hz

    def peak_flops_per_s(self, dtype: str) -> float:
        return self.tensor_core.flops_per_cycle[dtype] * self.sms * self.clock_hz  # type: ignore[index]

    def with_overrides(self, overrides: Mapping[str, Any], source: str = "<overrides>") -> Arch:
        """A new Arch with `key.path -> value` overrides applied and the whole tree validated again."""
        tree = self.model_dump()
        for path, value in overrides.items():
            _set_path(tree, path, value, source)
        return _validate(tree, source)


def arch_dirs() -> tuple[Path, ...]:
    """Where named archs live: `simgpu/archs` inside an installed wheel, else the repository's `archs/`."""
    here = Path(__file__).resolve().parent
    candidates = (here / "archs", here.parent / "archs")
    return tuple(d for d in candidates if d.is_dir())


def available_archs() -> tuple[str, ...]:
    names: set[str] = set()
    for directory in arch_dirs():
        names.update(p.stem for p in directory.glob("*.yaml"))
    return tuple(sorted(names))


def resolve_arch_path(name_or_path: str | Path, relative_to: Path | None = None) -> Path:
    """A file path as given (absolute or relative to the inheriting file), else a named arch."""
    text = str(name_or_path)
    if text.endswith((".yaml", ".yml")) or "/" in text or Path(text).is_file():
        path = Path(text)
        if not path.is_absolute() and relative_to is not None:
            path = relative_to / path
        if path.is_dir():
            raise ArchError(f"{text}: is a folder, not an arch file")
        if not path.is_file():
            raise ArchError(f"{text}: {'is not a regular file' if path.exists() else 'no such arch file'}")
        return path
    for directory in arch_dirs():
        candidate = directory / f"{text}.yaml"
        if candidate.is_file():
            return candidate
    known = ", ".join(available_archs()) or "none found"
    raise ArchError(f"unknown arch {text!r} (known: {known}; or give a path to a YAML file)")


def load_arch(name_or_path: str | Path, overrides: Mapping[str, Any] | None = None) -> Arch:
    """Load, merge `inherit:` parents, apply overrides, validate. Raises ArchError with file and key path."""
    path = resolve_arch_path(name_or_path)
    arch = _validate_chain(_load_chain(path, heirs=()))
    if overrides:
        arch = arch.with_overrides(overrides, source=f"{path} (--set)")
    return arch


def parse_override(text: str) -> tuple[str, Any]:
    """Parse `key.path=value` as given to `--set`. Numbers, booleans and `null` are typed; the rest is a string."""
    key, sep, raw = text.partition("=")
    if not sep or not key.strip():
        raise ArchError(f"--set {text!r}: expected KEY.PATH=VALUE")
    return key.strip(), parse_scalar(raw.strip())


def parse_scalar(raw: str) -> Any:
    for cast in (int, float):
        try:
            return cast(raw)
        except ValueError:
            pass
    lowered = raw.lower()
    if lowered in ("true", "false"):
        return lowered == "true"
    if lowered in ("null", "none", "~"):
        return None
    return raw


@dataclass(frozen=True)
class _Level:
    """One file of an `inherit:` chain and the tree merged from its ancestors and itself."""

    path: Path  # as reached: given by the user, or resolved from the `inherit:` of the file that names it
    heirs: tuple[Path, ...]  # the files that inherit it, the loaded file first and its direct child last
    tree: dict[str, Any]


def _in_file(path: Path, heirs: tuple[Path, ...], reason: str) -> ArchError:
    """One line blaming `path`; a parent reached through `inherit:` also names the files that inherited it."""
    inherited = ""
    if heirs:
        inherited = f" (inherited by {heirs[-1]}" + "".join(f", in turn by {h}" for h in reversed(heirs[:-1])) + ")"
    return ArchError(f"{path}: {reason}{inherited}")


def _load_chain(path: Path, heirs: tuple[Path, ...]) -> tuple[_Level, ...]:
    """`path` and its `inherit:` ancestors, the farthest ancestor first; each level merges its parent's tree."""
    resolved = path.resolve()
    if any(heir.resolve() == resolved for heir in heirs):
        cycle = " -> ".join(str(p.resolve()) for p in (*heirs, path))
        raise ArchError(f"{path}: inherit cycle: {cycle}")
    data = _read_yaml(path, heirs)
    parent_name = data.pop("inherit", None)
    if parent_name is None:
        return (_Level(path, heirs, data),)
    if not isinstance(parent_name, str):
        raise _in_file(path, heirs, f"inherit: expected an arch name or path, got {parent_name!r}")
    try:
        parent_path = resolve_arch_path(parent_name, relative_to=path.parent)
    except ArchError as err:
        raise _in_file(path, heirs, f"inherit: {err}") from None
    ancestors = _load_chain(parent_path, (*heirs, path))
    return (*ancestors, _Level(path, heirs, _merge(ancestors[-1].tree, data)))


def _read_yaml(path: Path, heirs: tuple[Path, ...]) -> dict[str, Any]:
    """The mapping in one arch file, loaded safely; syntax errors and duplicate keys name their line."""
    try:
        text = path.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as err:
        raise _in_file(path, heirs, f"cannot read arch file: {err}") from None
    try:
        data = copy.deepcopy(_parsed(text))  # a copy: the chain's merge takes `inherit:` out of it
    except _DuplicateKeyError as err:
        raise _in_file(path, heirs, str(err)) from None
    except yaml.YAMLError as err:
        mark = getattr(err, "problem_mark", None)
        where = f"line {mark.line + 1}: " if mark is not None else ""
        # A scanner/parser error has `problem`; a reader error (a control or NUL byte) only its own first line.
        problem = getattr(err, "problem", None) or (str(err).splitlines() or ["invalid YAML"])[0]
        raise _in_file(path, heirs, f"{where}YAML syntax error: {problem}") from None
    if not isinstance(data, dict):
        raise _in_file(path, heirs, f"an arch file must be a YAML mapping, got {type(data).__name__}")
    return data


@functools.lru_cache(maxsize=32)
def _parsed(text: str) -> Any:
    """An arch file's text parsed, by its text: `simulate("h200", ...)` loads its arch on every call, and parsing
    took 9 ms of it where a fast-mode prediction takes 5-50 ms. Keyed by the text itself, so an edited file is
    parsed again; a file that fails to parse is not kept and fails again."""
    return yaml.load(text, Loader=_StrictLoader)  # a SafeLoader: plain data only


class _DuplicateKeyError(yaml.YAMLError):
    """A key given twice in one mapping; the message is `line N: key.path: duplicate key (first on line M)`."""


class _StrictLoader(yaml.SafeLoader):
    """PyYAML's safe loader, refusing a key given twice in one mapping (the plain one keeps the last silently)."""

    def construct_document(self, node: yaml.Node) -> Any:
        self._check_unique_keys(node, "", set())
        return super().construct_document(node)

    def _check_unique_keys(self, node: yaml.Node, where: str, seen: set[int]) -> None:
        if id(node) in seen:  # an alias of a node already checked (anchors may even make cycles)
            return
        seen.add(id(node))
        if isinstance(node, yaml.SequenceNode):
            for index, item in enumerate(node.value):
                self._check_unique_keys(item, f"{where}[{index}]", seen)
        if not isinstance(node, yaml.MappingNode):
            return
        first_lines: dict[Any, int] = {}
        for key_node, value_node in node.value:
            if key_node.tag == "tag:yaml.org,2002:merge":  # `<<: *anchor` merges may be overridden on purpose
                self._check_unique_keys(value_node, where, seen)
                continue
            key = self.construct_object(key_node) if isinstance(key_node, yaml.ScalarNode) else key_node.value
            key_path = f"{where}.{key}" if where else str(key)
            line = key_node.start_mark.line + 1
            if isinstance(key_node, yaml.ScalarNode):  # a sequence or mapping as a key is refused when constructed
                first = first_lines.get(key)
                if first is not None:
                    raise _DuplicateKeyError(f"line {line}: {key_path}: duplicate key (first on line {first})")
                first_lines[key] = line
            self._check_unique_keys(value_node, key_path, seen)


def _merge(base: dict[str, Any], override: Mapping[str, Any]) -> dict[str, Any]:
    merged = dict(base)
    for key, value in override.items():
        if isinstance(value, Mapping) and isinstance(merged.get(key), Mapping):
            merged[key] = _merge(dict(merged[key]), value)
        else:
            merged[key] = value
    return merged


def _set_path(tree: dict[str, Any], path: str, value: Any, source: str) -> None:
    keys = path.split(".")
    node: Any = tree
    for depth, key in enumerate(keys[:-1]):
        child = node.get(key) if isinstance(node, dict) else None
        if not isinstance(child, dict):
            where = ".".join(keys[: depth + 1])
            if isinstance(node, dict) and key in node and node[key] is None:
                raise ArchError(f"{source}: {path}: section {where} is absent on this arch; set the section first")
            raise ArchError(f"{source}: {path}: no such key ({where} is not a section)")
        node = child
    if not isinstance(node, dict) or keys[-1] not in node:
        raise ArchError(f"{source}: {path}: no such key")
    if isinstance(node[keys[-1]], float) and isinstance(value, int) and not isinstance(value, bool):
        value = float(value)
    node[keys[-1]] = value


def _validate(tree: Mapping[str, Any], source: str) -> Arch:
    try:
        return Arch.model_validate(dict(tree))
    except ValidationError as err:
        raise ArchError(f"{source}: {_describe(err)}") from None


def _validate_chain(levels: tuple[_Level, ...]) -> Arch:
    """Validate the loaded file's merged tree. Its first error is blamed on the first file of the chain whose own
    merged tree already has that error: a bad value a parent sets names the parent, an override the child."""
    top = levels[-1]
    try:
        return Arch.model_validate(top.tree)
    except ValidationError as err:
        first = _error_key(_first_error(err))
        culprit = next((level for level in levels[:-1] if first in _error_keys(level.tree)), top)
        raise _in_file(culprit.path, culprit.heirs, _describe(err)) from None


def _error_keys(tree: dict[str, Any]) -> set[tuple[object, ...]]:
    try:
        Arch.model_validate(tree)
    except ValidationError as err:
        return {_error_key(error) for error in err.errors()}
    return set()


def _error_key(error: Any) -> tuple[object, ...]:
    """What identifies an error across the levels of a chain: not a whole section given as input (a missing key's,
    or the whole tree's for a consistency rule), whose other keys may differ from level to level."""
    value = error.get("input")
    return (error["type"], tuple(error["loc"]), error["msg"], None if isinstance(value, dict) else repr(value))


def _first_error(err: ValidationError) -> Any:
    """The error to report: an unknown key if there is one (a misspelt key is also reported missing, and the
    misspelling is the cause), else the first."""
    errors = err.errors()
    return next((e for e in errors if e["type"] == "extra_forbidden"), errors[0])


def _describe(err: ValidationError) -> str:
    """The first error (`_first_error`) as `key.path: reason (got value)`, with the count of the others."""
    first = _first_error(err)
    more = f" (+{err.error_count() - 1} more)" if err.error_count() > 1 else ""
    if first["type"] == "value_error" and not first["loc"]:
        # A consistency rule of the whole tree (Arch._consistent): its message names the keys itself.
        return f"{first['ctx']['error']}{more}"
    location = ".".join(str(part) for part in first["loc"]) or "<root>"
    message = first["msg"].removeprefix("Value error, ")  # pydantic's prefix to a validator's own message
    if first["type"] == "extra_forbidden":
        message = "unknown key"
    elif first["type"] == "missing":
        message = "missing key"
    value = first.get("input")
    shown = "" if first["type"] in ("missing", "extra_forbidden") or isinstance(value, dict) else f" (got {value!r})"
    return f"{location}: {message}{shown}{more}"
