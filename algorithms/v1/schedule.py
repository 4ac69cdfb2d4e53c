"""FlashAttention-1 as its released kernel runs Algorithm 1 and 4 (Dao et al. 2022): one CTA per (batch, head),
K/V outer loop, Q inner loop, split-K warps.

Source of the structure: FA-repo `csrc/flash_attn/src/fmha_fprop_kernel_1xN.h` (`device_1xN_loop` calls
`device_1xN_<Is_first, Is_last>` once per key block; each call walks every 16-row query step), the launch files
`fmha_fwd_hdim{32,64,128}.cu` (`FMHA_kernel_traits<S, D, 16, 1, 4, 0x08u>`: S = 256 keys at d <= 64 when
seqlen_k > 128, else 128; 1 x 4 warps that split the keys; K and V kept in registers for the whole key block) and
`fmha_bwd_hdim*.cu` with `fmha_dgrad_kernel_1xN_loop.h` (`FMHA_kernel_traits<S, D, 16, 1, 8, 0x100u>` on sm80: the
same S, 8 warps splitting the keys, K and V in separate smem buffers). The first release (May 2022, the one FA1's
paper measured) has the same tiles and loops. Grid (batch, heads), one CTA per head, by default. Option `splits`:
the v0.2-v1.0 releases' forward grid (batch, heads, splits) (`fmha_fwd_launch_template.h`): CTA z of a head takes
query steps z, z + splits, ... of every key block and loads K_j, V_j itself (none where it has no step);
`release_splits` is those releases' choice (`num_splits_heuristic_fwd`). Their backward's sequence-parallel variant
(one CTA per key block, dQ by fp32 atomics, chosen when it fills the waves better) is not modeled. Option
`variant="algorithm1"`: instead Algorithm 1 as written, our CUDA kernel's forward loop (`algorithms.v1.algorithm1`).

Every global load is an LDG into registers (`Gmem_tile_*::load`), later committed to smem with STS where smem
holds it (`commit`); the wait for a load sits where its registers are first used (one exception, at the end).
Forward, per key block j: K_j, V_j (and the first step's Q_i, and lse_i from the second key block on) loaded and
committed, then each warp's slices of K_j and V_j into its registers for the whole key block. Per 16-row query step
i that sees j (causal: blocks wholly above the diagonal are skipped), the kernel
  S = Q_i K_j^T        mma.sync, Q fragments read from smem with ldmatrix, K from registers,
  loads                from the second key block on the fp32 `o_tmp` O_i (used after the reduction below, but
                       waited for before the softmax: see below); the next step's Q; lse_i+1 (one fp32 per row,
                       the only statistic in HBM: m and l are recovered from it on chip) after lse_i, loaded one
                       step ahead, has seeded the row max,
  softmax              per score: 1 FFMA (scale, subtract max), 1 MUFU.EX2, 1 FMNMX (max), 1 FADD (sum), half a
                       pack to 16 bits, and a compare and a select (the kernel masks every tile, `apply_mask`,
                       whatever its place: its SASS has one FSEL per score); each warp's partial row max is
                       combined through smem before the exps,
  P~ V_j               mma.sync, P~ and V from registers,
  merge                the warps' partial P~ V_j (r x d fp32) and row sums combined through smem ((warps - 1)
                       FADD per element); per row 2 ex2, 1 lg2, 1 rcp, 4 FMA; per O element 1 FMUL + 1 FFMA
                       (1 FMUL on the first key block), with o_tmp_i,
and writes lse_i and O_i (fp32 `o_tmp`, or the output dtype on the last key block the step sees). Beside these,
each step issues, with the merge, the address arithmetic, loop control and uniform instructions its SASS has
(`algorithms.v1.sass_counts`, per warp and step: 87 in the first key block and 123 after it at d = 64, 145 and 214
at d = 128). The backward's are not counted (its SASS was not profiled).
There is no initialization pass and no epilogue: the first key block starts from nothing and the last one
writes the outputs.

Backward, per key block j: K_j, V_j, and the first step's Q_i, dO_i (O_i in the first key block), lse_i loaded and
committed; in the first key block D_i = rowsum(dO_i * O_i) computed and written; D_i loaded. dK_j, dV_j accumulate
in registers. Per 16-row query step i that sees j: S = Q_i K_j^T; P = exp(S - lse_i) (every tile masked, as in the
forward), staged in smem; the next Q loaded; dP = dO_i V_j^T from -D_i; dS = P * (dP - D_i); the next dO (and O)
loaded; dS staged in smem; dQ_i = dS K_j, the warps' split-K partials to smem; dV_j += P^T dO_i; the next Q
committed (its load waited for); from the second key block on the fp32 `dq_tmp` dQ_i loaded; the next dO committed
(its load waited for; in the first key block the next D computed and written); the next lse loaded; dK_j += dS^T
Q_i; the next D loaded; the partials summed with dq_tmp (its load waited for) and written back until the last key
block, which writes dQ_i in the output dtype. dK_j, dV_j are written once per key block, through smem.

Block sizes: the released kernel's by default (`algorithms.v1.tiles.kernel_tiles`: block_m = 16 query rows,
block_n = 256 or 128 keys); with the option `sram_bytes` (on-chip memory M) Algorithm 1's B_c = ceil(M / 4d),
B_r = min(B_c, d) (`algorithms.v1.tiles.block_sizes`); `block_m`, `block_n`, `warps` override them. The MMAs
run on whole instruction tiles: rows rounded up to 16, each warp's key slice to 16 keys. Bytes follow the real rows
and columns.
Ignored: dropout (the kernel regenerates its mask from the RNG, no HBM bytes), the __syncthreads (the warps run in
lockstep, so only the serialization shows: one that the warps reach together costs 14 cycles at 4 warps and 21 at 8,
`validation/h200/cta_sync_on_h100/`, under 1% of a step; the chip's barrier phases are its warps arriving apart),
register pressure. Query rows that see no key at all (causal with seqlen_k < seqlen_q; the released kernel is
top-left aligned and never has them) get their zero O, dQ and -inf lse written once, before the key loop.
The o_tmp load is waited for where lse_i seeds the row max: in v1.0.9's kernel built for sm_90 (nvcc 13), the
instruction that scales lse_i waits on the scoreboard the four o_tmp loads just issued share, so a step waits for
their whole latency there; Nsight Compute on an H100 puts 30-33% of the main loop's stall samples on it
(`validation/h200/fa1_release/README.md`, forty-first session). Not as the kernel: the forward commits the next Q to
smem before P~ V_j, so that load's latency hides behind the softmax only (on the H100 the commit's wait holds 10% of
the d = 128 main loop's samples); here it is waited for (and committed) at the next step's start. Committing it
before P~ V_j takes exact mode on FA2's A100 sweep at N = 512 from 42.2% to 39.9% of peak, but fast mode's per-SM
HBM share serializes each SM's bursts of loads (fast over exact cycles 0.957 -> 0.883 on the full A100 there;
`docs/results/fa1_release_not_kept/`) and its nested-loop fold misses the causal diagonal's longer latency (+1-2%):
left for fast mode to follow. A split grid launches a head's CTAs `batch x heads` CTAs apart: where that is a wave
of the chip's slots or more and the run's data exceeds L2, a head's later split finds nothing of its K_j and V_j
that an earlier one read (the CTAs between read more than L2 holds), and the kernel says so
(`Kernel.launched_apart_axis`), so that fast mode's L2 replay takes each split as a head of its own (it replayed a
head's splits close together, finding K_j and V_j in L2: on the A100 at FA2's N = 512-2k, 0.15-0.33x exact mode's
HBM reads, now 1.00-1.14x, `docs/results/splits_apart_48/`). Below a wave apart the splits of a head run side by
side, as the replay walks them. Either way it is a bound, not the reuse distance: near it exact mode's later splits
find part of K and V (the replay's HBM reads up to 1.7x exact mode's where taken apart, down to 0.3x where not, on
chips cut to 4-16 SMs and 2-16 MiB of L2, `docs/results/splits_apart_48/random_after.txt`).
"""

from __future__ import annotations

import bisect
import dataclasses
import functools
import math
from collections.abc import Callable, Hashable, Sequence
from dataclasses import dataclass
from typing import Any, NamedTuple, cast

from algorithms._schedule.memory import check_footprint
from algorithms._schedule.tiling import HEAD_AXES, MEMORY_AXES, ceil_div, key_blocks, round_up, rows_in_block
from algorithms.v1 import algorithm1
from algorithms.v1.sass_counts import MASK_PER_SCORE, step_instructions
from algorithms.v1.tiles import tile_sizes
from simgpu.arch import Arch
from simgpu.engine import ctas_per_sm
from simgpu.errors import OptionError, ProblemError
from simgpu.kernel import BarrierSpec, CtaResources, Kernel, Role
from simgpu.ops import Chain, Load, Mma, Op, Repeat, Smem, Store, Vector, Wait
from simgpu.problem import Problem

PROBLEM = "attention"
OPTIONS: dict[str, Any] = {
    "block_m": None,
    "block_n": None,
    "warps": None,
    "sram_bytes": None,
    "splits": None,
    "variant": "release",
}
VARIANTS = ("release", "algorithm1")  # FA1's released kernel; Algorithm 1 as written (`algorithms.v1.algorithm1`)

FORWARD_WARPS = 4  # FMHA_kernel_traits<..., WARPS_M = 1, WARPS_N = 4, ...> in fmha_fwd_hdim*.cu
BACKWARD_WARPS = 8  # FMHA_kernel_traits<..., 1, 8, ...> in fmha_bwd_hdim*.cu
SMEM_PAD_ELEMENTS = 8  # 16 bytes added to every smem row against bank conflicts
REGISTERS_PER_THREAD = 255  # K and V slices live in registers: the kernel takes all a thread may have
ACC_BYTES = 4  # o_tmp, dq_tmp, lse, D and the split-K partials are fp32
Q_BUFFERS = 2  # Q_i (and dO_i) double-buffered in smem: the next step's tile is loaded during this one
MMA_ROWS = 16  # rows of one mma.sync m16 group; also the k of m16n8k16 for 16-bit inputs
QUAD = 4  # lanes that share one accumulator row of mma.sync
REDUCTION_ROWS = 16  # split-K partials are combined 16 rows at a time through one smem buffer (one kernel step)


@dataclass(frozen=True)
class Config:
    block_m: int
    block_n: int
    forward_warps: int
    backward_warps: int
    splits: int = 1  # forward CTAs per (batch, head), each taking every `splits`-th query step
    variant: str = "release"  # or "algorithm1": our CUDA kernel's loop (`algorithms.v1.algorithm1`)

    @property
    def rows_pad(self) -> int:
        """Query rows the MMAs run on."""
        return round_up(self.block_m, MMA_ROWS)

    def cols_pad(self, warps: int) -> int:
        """Keys the MMAs run on: each warp's slice rounded up to whole k16 steps."""
        return warps * round_up(ceil_div(self.block_n, warps), MMA_ROWS)


def _block_copies(b: int, h: int) -> tuple[Callable[[str, int, int, str], Load], Callable[[str, int, int], Store]]:
    """A tile's query-block loads and stores, alike in every key block: each built once per (tensor, block)."""

    @functools.cache
    def load(name: str, i: int, nbytes: int, arrive: str) -> Load:
        return Load(name, (b, h, i), nbytes, engine="ldg", arrive=arrive)

    @functools.cache
    def store(name: str, i: int, nbytes: int) -> Store:
        return Store(name, (b, h, i), nbytes)

    return load, store


def config(problem: Problem, options: dict[str, Any]) -> Config:
    variant = options.get("variant")
    variant = "release" if variant is None else variant
    if variant not in VARIANTS:
        raise OptionError(f"v1 option variant must be one of {', '.join(VARIANTS)}, got {variant!r}")
    given = {name: options.get(name) for name in OPTIONS if name != "variant"}
    for name, value in given.items():
        if value is not None and (isinstance(value, bool) or not isinstance(value, int) or value <= 0):
            raise OptionError(f"v1 option {name} must be a positive integer, got {value!r}")
    if problem.headdim % 16:
        raise ProblemError(f"v1: headdim must be a multiple of 16 for mma.sync, got {problem.headdim}")
    if problem.dtype not in ("bf16", "fp16"):
        raise ProblemError(f"v1: the kernel takes 16-bit inputs (bf16, fp16), got {problem.dtype}")
    if variant == "algorithm1":
        return _algorithm1_config(problem, given)
    block_m, block_n = tile_sizes(
        problem.headdim, problem.nk, problem.element_bytes, given["sram_bytes"], given["block_m"], given["block_n"]
    )
    warps = given["warps"]
    return Config(block_m, block_n, warps or FORWARD_WARPS, warps or BACKWARD_WARPS, given["splits"] or 1)


def _algorithm1_config(problem: Problem, given: dict[str, Any]) -> Config:
    """Our kernel's tiles (its defaults unless given), checked as its launcher checks them; forward only."""
    for name in ("sram_bytes", "splits"):
        if given[name] is not None:
            raise OptionError(f"v1 option {name} does not apply to variant algorithm1 (give block_m, block_n, warps)")
    if problem.pass_ != "fwd":
        raise OptionError(f"v1 variant algorithm1 is a forward kernel only, got pass {problem.pass_}")
    if problem.nk != problem.seqlen_q:
        raise ProblemError(f"v1 variant algorithm1 takes seqlen_k = seqlen_q (as our kernel), got {problem.nk}")
    block_m, block_n, warps = (
        given[n] or default
        for n, default in zip(("block_m", "block_n", "warps"), algorithm1.DEFAULT_TILES, strict=True)
    )
    if block_m % (MMA_ROWS * warps) or block_n % MMA_ROWS:
        raise OptionError(
            f"v1 variant algorithm1: block_m must be a multiple of 16 x warps and block_n of 16, "
            f"got block_m={block_m}, block_n={block_n}, warps={warps}"
        )
    return Config(block_m, block_n, warps, warps, variant="algorithm1")


# The v0.2-v1.0 releases' forward `num_splits` (FA-repo `fmha_fwd_launch_template.h`, `num_splits_heuristic_fwd`):
# the fewest splits whose waves are at least this full relative to the best of 1..RELEASE_MAX_SPLITS splits.
RELEASE_SPLIT_EFFICIENCY = 0.95
RELEASE_MAX_SPLITS = 30


def release_splits(arch: Arch, problem: Problem) -> int:
    """The forward `splits` the v0.2-v1.0 releases launch for `problem` on `arch` (what FA2's benchmark ran as FA1).

    Waves are the CTAs (batch x heads x splits) over the chip's resident slots (SMs x forward CTAs per SM, as
    `cudaOccupancyMaxActiveBlocksPerMultiprocessor` gives); a split count's efficiency is its waves over their
    ceiling. The source bounds the count by `min(30, (seqlen_q + M - 1 / M))`, where the division binds first: in
    effect min(30, seqlen_q + 15) with M = 16 query rows per step."""
    cfg = config(problem, {})
    slots = arch.sms * ctas_per_sm(arch, forward_kernel(problem, cfg))
    heads = problem.batch * problem.heads
    largest = min(RELEASE_MAX_SPLITS, problem.seqlen_q + cfg.block_m - 1)
    efficiency = [heads * n / slots / math.ceil(heads * n / slots) for n in range(1, largest + 1)]
    best = max(efficiency)
    return next(n for n, e in enumerate(efficiency, start=1) if e > RELEASE_SPLIT_EFFICIENCY * best)


def _splits_apart(arch: Arch, problem: Problem, cfg: Config, forward: Kernel) -> bool:
    """Whether the `forward` kernel's splits of one head never meet in L2 (module docstring): the grid launches them
    `batch x heads` CTAs apart, a wave of the chip's slots or more, and the run's data exceeds L2."""
    if cfg.splits == 1:
        return False
    slots = arch.sms * ctas_per_sm(arch, forward)
    data = sum(footprint_bytes(problem).values())
    return problem.batch * problem.heads >= slots and data > arch.l2.capacity_bytes


def footprint_bytes(problem: Problem) -> dict[str, int]:
    """Buffers live in HBM: the inputs and outputs plus the fp32 o_tmp and lse (and dq_tmp, D): O(N d), never
    O(N^2)."""
    q, kv = problem.tensor_bytes(problem.seqlen_q), problem.tensor_bytes(problem.nk)
    acc = q * ACC_BYTES // problem.element_bytes
    buffers = {"Q": q, "K": kv, "V": kv, "O": q, "LSE": problem.lse_bytes, "O_acc": acc}
    if problem.pass_ == "fwd":
        return buffers
    rows = problem.batch * problem.heads * problem.seqlen_q * ACC_BYTES
    return buffers | {"dO": q, "Delta": rows, "dQ_acc": acc, "dQ": q, "dK": kv, "dV": kv}


def schedule(arch: Arch, problem: Problem, **options: Any) -> tuple[Kernel, ...]:
    cfg = config(problem, options)
    buffers = footprint_bytes(problem)
    if cfg.variant == "algorithm1":  # l and m in HBM beside the working O, both fp32
        rows = problem.batch * problem.heads * problem.seqlen_q * ACC_BYTES
        check_footprint(arch, "v1", buffers | {"M": rows, "L": rows})
        steps = _QueryBlocks(problem, cfg).steps
        return (algorithm1.forward_kernel(problem, cfg.block_m, cfg.block_n, cfg.forward_warps, steps),)
    check_footprint(arch, "v1", buffers)
    kernels: list[Kernel] = []
    if problem.pass_ != "bwd":
        forward = forward_kernel(problem, cfg)
        if _splits_apart(arch, problem, cfg, forward):
            forward = dataclasses.replace(forward, launched_apart_axis=SPLIT_AXIS)
        kernels.append(forward)
    if problem.pass_ != "fwd":
        kernels.append(backward_kernel(problem, cfg))
    return tuple(kernels)


class _Step(NamedTuple):
    """One inner step: query block i against key block j. (A named tuple: a long sequence's folds make hundreds of
    thousands, and a frozen dataclass is several times slower to build.)"""

    i: int
    rows: int
    masked: bool
    last: bool  # j is the last key block query block i sees


_NEW_TUPLE = tuple.__new__  # `_Step`'s fields in order, without its constructor's call
# One wait per barrier name (ops are immutable): a step's waits were made anew in every step built, which exact mode
# does for every step of every tile.
_wait = functools.cache(Wait)


class _QueryBlocks:
    """Per query block, its real rows and key range; `steps` gives the query blocks that see a key block. Built in
    O(query blocks): a long sequence's key blocks x query blocks steps are made only where a program asks for one."""

    __slots__ = ("rows", "unmasked", "visited")

    def __init__(self, p: Problem, cfg: Config) -> None:
        count = ceil_div(p.seqlen_q, cfg.block_m)
        self.rows = [cfg.block_m] * (count - 1) + [rows_in_block(p.seqlen_q, cfg.block_m, count - 1)]
        if not p.causal:  # every block sees every key block: one answer for all (8,192 blocks at 128k tokens)
            keys = [key_blocks(p, 0, cfg.block_m, cfg.block_n)] * count
        else:
            keys = [key_blocks(p, i * cfg.block_m, rows, cfg.block_n) for i, rows in enumerate(self.rows)]
        # Nondecreasing in i (a causal mask aligned bottom-right shows a later query block at least the keys an
        # earlier one sees): the blocks that see key block j are those from the first with visited > j on.
        self.visited = [k.visited for k in keys]
        self.unmasked = [k.unmasked for k in keys]

    def unseen(self) -> list[int]:
        """Query blocks that see no key at all (causal with seqlen_k < seqlen_q): their outputs are written once, as
        zeros (and lse = -inf), before the key loop."""
        return [i for i, visited in enumerate(self.visited) if visited == 0]

    def steps(self, j: int, splits: int = 1, z: int = 0) -> _Steps:
        """The query blocks that see key block j, in order, of those with index z modulo `splits`."""
        start = self._start(j, splits, z)
        return _Steps(self, j, start, splits, self._count_from(start, splits))

    def count(self, j: int, splits: int = 1, z: int = 0) -> int:
        """How many query blocks `steps` gives, told without making them: a key block's loop's `Repeat.held`."""
        return self._count_from(self._start(j, splits, z), splits)

    def _start(self, j: int, splits: int, z: int) -> int:
        start = bisect.bisect_right(self.visited, j)
        return start + (z - start) % splits

    def _count_from(self, start: int, splits: int) -> int:
        return max(0, ceil_div(len(self.rows) - start, splits))


class _Steps:
    """The inner steps of key block j: query blocks start, start + stride, ... (`count` of them)."""

    __slots__ = ("blocks", "count", "j", "start", "stride")

    def __init__(self, blocks: _QueryBlocks, j: int, start: int, stride: int, count: int) -> None:
        self.blocks, self.j, self.start, self.stride, self.count = blocks, j, start, stride, count

    def __len__(self) -> int:
        return self.count

    def __getitem__(self, k: int) -> _Step:
        if not 0 <= k < self.count:
            raise IndexError(k)
        i, blocks, j = self.start + k * self.stride, self.blocks, self.j
        # The tuple made directly: the named tuple's own constructor is a Python function.
        return _NEW_TUPLE(_Step, (i, blocks.rows[i], j >= blocks.unmasked[i], j == blocks.visited[i] - 1))

    def place(self, k: int) -> tuple[int, bool, bool, int]:
        """What step k's ops depend on in this key block (`_built_once`): its query block, its mask, whether the key
        block is the last the query block sees, and the next step's query block (-1: none); a block's rows follow
        from its index. Told without building the steps (`__getitem__`: a named tuple each)."""
        i, blocks, j = self.start + k * self.stride, self.blocks, self.j
        return i, j >= blocks.unmasked[i], j == blocks.visited[i] - 1, i + self.stride if k + 1 < self.count else -1

    def signature(self) -> tuple[int, int, int, int, int, int]:
        """What tells every step's place (`place`) in this key block: its query blocks (start, stride, count), how
        many of the first steps are masked, and the steps whose query block sees no later key block (from, to). Key
        blocks with one signature run the same steps. (The query blocks' key ranges do not decrease with their index
        (`_QueryBlocks`): the masked steps are the first ones, the last-ness a run of them.)"""
        blocks, j = self.blocks, self.j
        masked = bisect.bisect_right(blocks.unmasked, j)  # query blocks below it are masked in key block j
        last_from = bisect.bisect_left(blocks.visited, j + 1)  # query blocks in [from, to) see key block j last
        last_to = bisect.bisect_right(blocks.visited, j + 1)
        return self.start, self.stride, self.count, self._steps_below(masked), *self._steps_within(last_from, last_to)

    def _steps_below(self, i: int) -> int:
        """How many of the steps have a query block below `i`."""
        return min(self.count, max(0, ceil_div(i - self.start, self.stride)))

    def _steps_within(self, low: int, high: int) -> tuple[int, int]:
        """The steps whose query block lies in [low, high), as (first, end)."""
        return self._steps_below(low), self._steps_below(high)


class _StepBody(dict[int, tuple[Op, ...]]):
    """The steps of the key blocks of a tile that run the same steps (`_Steps.signature`), by their index, each
    asked of `alike` once: the loop's body is this dictionary's own `__getitem__`, so a step asked again (every
    step of every alike key block in exact mode: 262,144 at issue 4's backward) costs no Python call."""

    __slots__ = ("alike",)

    def __init__(self, alike: Callable[[int], tuple[Op, ...]]) -> None:
        super().__init__()
        self.alike = alike

    def __missing__(self, k: int) -> tuple[Op, ...]:
        ops = self[k] = self.alike(k)
        return ops


def _built_once(
    step: Callable[[int], Sequence[Op]],
    inner: _Steps,
    block: Hashable,
    made: dict[Hashable, tuple[Op, ...]],
    bodies: dict[Hashable, _StepBody],
) -> Callable[[int], Sequence[Op]]:
    """`step` (the query steps `inner` of a key block of a tile) with each step built once for all the tile's key
    blocks where it is alike, in `made` (the tile's): found by whether it is the first, its place (`_Steps.place`:
    its query block, mask, whether the key block is the last the block sees, and the next query block) and `block`,
    what else of the key block the step depends on (its columns, whether it is the first key block). Fast mode's L2
    replay of a long sequence builds some 130 sampled steps in each of a tile's kept key blocks, and the key blocks
    between the first and the last run the same steps. Key blocks whose steps are all alike (the same `block` and
    `_Steps.signature`: without a causal mask, every one but the first and the last) share one body, in `bodies`
    (the tile's). Each key block's body keeps the steps it was asked for: every fold of a tile asks for the first and
    last of every key block, the removed ones too, to tell whether they hold a loop (`simgpu.fold`), and a tile's key
    block bodies outlive its folds (`forward_kernel`)."""
    signature = (block, inner.signature())
    body = bodies.get(signature)
    if body is None:

        def alike(k: int) -> tuple[Op, ...]:
            key = (block, k == 0, inner.place(k))
            ops = made.get(key)
            if ops is None:
                ops = made[key] = tuple(step(k))
            return ops

        body = bodies[signature] = _StepBody(alike)
    return body.__getitem__


def _tiles(p: Problem) -> tuple[tuple[int, int], ...]:
    """One CTA per (batch, head): the May-2022 release's grid (heads, batch), heads fastest."""
    return tuple((b, h) for b in range(p.batch) for h in range(p.heads))


SPLIT_AXIS = 2  # a split grid's tile index: (batch, head, split)


def _split_tiles(p: Problem, splits: int) -> tuple[tuple[int, int, int], ...]:
    """`splits` CTAs per (batch, head): the v0.2-v1.0 releases' grid (batch, heads, splits), batch fastest."""
    return tuple((b, h, z) for z in range(splits) for h in range(p.heads) for b in range(p.batch))


def forward_kernel(p: Problem, cfg: Config) -> Kernel:
    d, eb, w = p.headdim, p.element_bytes, cfg.forward_warps
    rp, kp = cfg.rows_pad, cfg.cols_pad(w)
    n_k = ceil_div(p.nk, cfg.block_n)
    blocks = _QueryBlocks(p, cfg)
    qk_frag = w * rp * d * eb  # ldmatrix: every warp reads all of Q_i; K and V come from registers
    unseen = blocks.unseen()

    # A step's ops that name no tile depend on its rows, key columns, mask and key block only: built once each (a
    # long sequence's tile folds build hundreds of thousands of steps).
    qk = Mma(rp, kp, d, p.dtype, "reg", "reg", instruction="mma_sync", operand_smem_bytes=qk_frag)

    @functools.cache
    def commit_q(r: int) -> Smem:
        return Smem(write_bytes=r * d * eb)

    @functools.cache
    def softmax_pv(r: int, cols: int) -> tuple[Op, ...]:
        scores = r * cols
        # Two passes, as the kernel's reduce_max then scale_apply_exp / reduce_sum. Row max, per score: FMNMX
        # and the mask's compare and select (the kernel masks every tile, `apply_mask`); per row and warp quad
        # shuffles (8). Exps, per score: FFMA scale-subtract, MUFU.EX2, FADD row sum, half an F2FP; per row the
        # warps' partial maxes combined (w - 1 FMNMX after an smem round trip). Chains (per warp,
        # `simgpu.ops.Chain`): a row's scores of the warp's key slice sit in a quad of lanes, `per_thread` per lane.
        per_thread = cols / w / QUAD
        row_max = Vector(
            alu=scores + 8 * w * r + MASK_PER_SCORE * scores,
            chain=Chain(alu=per_thread / 2 + 2 + MASK_PER_SCORE, shuffle=2),
        )
        exps = Vector(
            fma=2 * scores,
            alu=0.5 * scores + (w - 1) * r,
            ex2=scores,
            chain=Chain(smem=2, alu=w - 1, fma=3 + per_thread, mufu=1),
        )
        # Partial P~ V_j and row sums of every warp through smem, each warp reading its share of all.
        partials = w * r * (d + 1) * ACC_BYTES
        return (
            row_max,
            Smem(read_bytes=w * w * r * ACC_BYTES, write_bytes=w * r * ACC_BYTES),  # partial row maxes
            exps,
            Mma(rp, d, kp, p.dtype, "reg", "reg", instruction="mma_sync"),
            Smem(read_bytes=partials, write_bytes=partials),
        )

    @functools.cache
    def rescale(r: int, first: bool) -> Vector:
        # Split-K adds; per row 2 ex2 + lg2 + rcp, 4 FMA; per O element FMUL (+ FFMA with an old O). Chain:
        # the partials' smem round trip, w - 1 adds, the rescale factor's ex2, the reciprocal, the scaling. With
        # them the step's address, loop-control and uniform instructions, counted from the kernel's SASS.
        per_element = 1 if first else 2
        extra = step_instructions(d, first)
        lanes = w * 32  # the CTA's threads
        return Vector(
            fma=(w - 1) * r * d + 4 * r + per_element * r * d + lanes * extra.imad,
            alu=r + lanes * extra.integer,
            ex2=4 * r,
            chain=Chain(smem=2, fma=w - 1 + 2, mufu=2),
            issue=lanes * extra.issue_only,
        )

    # A tile's program, and each key block's body in it, built once: fast mode folds a tile some five times (the
    # plan, the L2 replay and their fit variants), each building the key blocks it keeps (it counts the query steps
    # of those it removes by the loop's `held`, without building them). Only values are reused (ops are immutable);
    # exact mode builds each once anyway.
    @functools.cache
    def program(tile: Hashable) -> Sequence[Op]:
        b, h, z = cast(tuple[int, ...], tile) if cfg.splits > 1 else (*cast(tuple[int, int], tile), 0)
        unseen_mine = [i for i in unseen if i % cfg.splits == z]

        load, store = _block_copies(b, h)
        made: dict[Hashable, tuple[Op, ...]] = {}  # the query steps alike in the tile's key blocks (`_built_once`)
        bodies: dict[Hashable, _StepBody] = {}  # the tile's key blocks that run the same steps (`_built_once`)

        @functools.cache
        def outer(j: int) -> Sequence[Op]:
            cols = rows_in_block(p.nk, cfg.block_n, j)
            # this CTA's query steps: every `splits`-th, by their index (the later releases' `blockIdx.z` stride)
            inner = blocks.steps(j, cfg.splits, z)
            if not inner:  # no step of this CTA sees key block j: the kernel returns before loading K_j, V_j
                return ()
            first = j == 0  # every query block that sees any key sees key block 0

            def step(k: int) -> Sequence[Op]:
                s = inner[k]
                r, i = s.rows, s.i
                # Q_i committed to smem once its load (issued by the previous step) lands; the block's head commits
                # the first. The kernel commits it before the previous step's P~ V_j (module docstring).
                ops: list[Op] = [_wait("q"), commit_q(r), qk] if k else [qk]
                if not first:  # HBM: o_tmp_i (r x d fp32) into registers, used after P~ V_j and the reduction
                    ops.append(load("O_acc", i, r * d * ACC_BYTES, "o_tmp"))
                nxt = inner[k + 1] if k + 1 < len(inner) else None
                if nxt is not None:  # HBM: the next step's Q (r x d) into registers
                    ops.append(load("Q", nxt.i, nxt.rows * d * eb, "q"))
                if not first:  # lse_i (loaded one step ahead) seeds the row max; HBM: lse_i+1 (r fp32)
                    ops.append(_wait("o_tmp"))  # the scoreboard lse_i's use shares with o_tmp_i (docstring)
                    ops.append(_wait("lse"))
                    if nxt is not None:
                        ops.append(load("LSE", nxt.i, nxt.rows * ACC_BYTES, "lse"))
                ops += softmax_pv(r, cols)
                ops += [
                    rescale(r, first),
                    store("LSE", i, r * ACC_BYTES),  # HBM: lse_i, every step
                    # HBM: O_i in the output dtype on its last key block, else the fp32 o_tmp_i
                    store("O", i, r * d * eb) if s.last else store("O_acc", i, r * d * ACC_BYTES),
                ]
                return ops

            # HBM: K_j and V_j (cols x d each), once per key block, then the rest of the block's head (`head`).
            return (
                Load("K", (b, h, j), cols * d * eb, engine="ldg", arrive="kv"),
                Load("V", (b, h, j), cols * d * eb, engine="ldg", arrive="kv"),
                *head(first, cols, inner[0]),
                Repeat(len(inner), _built_once(step, inner, (first, cols), made, bodies)),
            )

        @functools.cache
        def head(first: bool, cols: int, s0: _Step) -> tuple[Op, ...]:
            """A key block's ops between its K_j and V_j loads and its loop, which name no key block: built once per
            (first key block or not, columns, first step) for the tile's key blocks (exact mode builds every one:
            1,024 at 128k tokens). HBM: the first step's Q (and lse) into registers; committed to smem
            with K and V (which share one buffer: K goes on into each warp's registers before V is written), then
            each warp's slices of K and V into its registers for the whole key block."""
            ops: list[Op] = [Load("Q", (b, h, s0.i), s0.rows * d * eb, engine="ldg", arrive="q")]
            if not first:
                ops.append(Load("LSE", (b, h, s0.i), s0.rows * ACC_BYTES, engine="ldg", arrive="lse"))
            commits = 2 * cols * d * eb + s0.rows * d * eb
            return (*ops, Wait("q"), Wait("kv"), Smem(write_bytes=commits), Smem(read_bytes=2 * kp * d * eb))

        def empty(k: int) -> Sequence[Op]:
            i = unseen_mine[k]
            rows = rows_in_block(p.seqlen_q, cfg.block_m, i)
            # HBM: O_i = 0 (output dtype) and lse_i = -inf for rows that see no key
            return (Store("O", (b, h, i), rows * d * eb), Store("LSE", (b, h, i), rows * ACC_BYTES))

        # A key block holds one loop, of its query steps, which hold none (`Repeat.held`).
        loop = Repeat(n_k, outer, functools.partial(blocks.count, splits=cfg.splits, z=z))
        return (Repeat(len(unseen_mine), empty), loop) if unseen_mine else (loop,)

    # Q double-buffered, K and V sharing one buffer (flag 0x08: K is moved to registers before V lands), the
    # split-K partials of P~ V_j and the row statistics.
    smem = Q_BUFFERS * cfg.block_m * (d + SMEM_PAD_ELEMENTS) * eb + cfg.block_n * (d + SMEM_PAD_ELEMENTS) * eb
    smem += w * min(rp, REDUCTION_ROWS) * (d + 2) * ACC_BYTES
    return Kernel(
        name="v1_fwd",
        tiles=_split_tiles(p, cfg.splits) if cfg.splits > 1 else _tiles(p),
        head_axes=HEAD_AXES,
        memory_axes=MEMORY_AXES,
        cta=CtaResources(w * 32, REGISTERS_PER_THREAD, smem),
        roles=(Role("warps", w, program),),
        barriers=(BarrierSpec("kv", arrivals=2), BarrierSpec("q"), BarrierSpec("lse"), BarrierSpec("o_tmp")),
    )


def backward_kernel(p: Problem, cfg: Config) -> Kernel:
    d, eb, w = p.headdim, p.element_bytes, cfg.backward_warps
    rp, kp = cfg.rows_pad, cfg.cols_pad(w)
    n_k = ceil_div(p.nk, cfg.block_n)
    blocks = _QueryBlocks(p, cfg)
    # ldmatrix per inner step (r = all query rows, c = the warps' key slices together):
    #   S = Q K^T and dP = dO V^T: every warp reads all of Q_i / dO_i and its slice of K_j / V_j (from smem),
    #   dV += P^T dO and dK += dS^T Q: P^T, dS^T (staged in smem, r x c) and all of dO_i / Q_i per warp,
    #   dQ += dS K: its slice of K_j.
    nt_frag = w * rp * d * eb + kp * d * eb
    tn_frag = rp * kp * eb + w * rp * d * eb
    dq_frag = kp * d * eb
    unseen = blocks.unseen()

    # A step's ops that name no tile depend on its rows, key columns and mask only: built once each (a long
    # sequence's tile folds build hundreds of thousands of steps).
    nt = Mma(rp, kp, d, p.dtype, "reg", "reg", instruction="mma_sync", operand_smem_bytes=nt_frag)
    dk = Mma(kp, d, rp, p.dtype, "reg", "reg", instruction="mma_sync", operand_smem_bytes=tn_frag)

    @functools.cache
    def probabilities(r: int, cols: int) -> tuple[Op, ...]:
        scores = r * cols
        return (
            nt,
            Wait("lse"),
            # P = exp(S * scale - lse) per score: FFMA, ex2, half an F2FP, and the mask's compare and select (the
            # kernel masks every tile, `apply_mask`).
            Vector(
                fma=scores,
                alu=0.5 * scores + MASK_PER_SCORE * scores,
                ex2=scores,
                chain=Chain(fma=1, mufu=1, alu=MASK_PER_SCORE),
            ),
            Smem(write_bytes=scores * eb),  # P staged for the transposed product
        )

    @functools.cache
    def score_gradients(r: int, cols: int) -> tuple[Op, ...]:
        scores = r * cols
        return (
            Wait("delta"),  # dP's accumulators start at -D_i
            nt,
            # dS = P * (dP - D): FADD, FMUL, half an F2FP per score.
            Vector(fma=2 * scores, alu=0.5 * scores, chain=Chain(fma=2)),
        )

    @functools.cache
    def dq_dv(r: int, cols: int) -> tuple[Op, ...]:
        return (
            Smem(write_bytes=r * cols * eb),  # dS staged for the transposed product
            Mma(rp, d, kp, p.dtype, "reg", "reg", instruction="mma_sync", operand_smem_bytes=dq_frag),
            Smem(write_bytes=w * r * d * ACC_BYTES),  # the warps' partial dQ_i (r x d fp32), after a sync
            Mma(kp, d, rp, p.dtype, "reg", "reg", instruction="mma_sync", operand_smem_bytes=tn_frag),  # dV
        )

    @functools.cache
    def commit(rows: int) -> Smem:
        return Smem(write_bytes=rows * d * eb)

    @functools.cache
    def delta(rows: int) -> Vector:
        return Vector(fma=rows * d, alu=rows * d)

    @functools.cache
    def dq_read(r: int) -> Smem:
        return Smem(read_bytes=w * r * d * ACC_BYTES)

    @functools.cache
    def dq_add(r: int) -> Vector:
        # split-K adds, + dq_tmp, * scale on the last write: about one FFMA per element and partial; chain:
        # the partials' smem round trip, then the adds
        return Vector(fma=w * r * d, chain=Chain(smem=2, fma=w))

    @functools.cache  # built once per tile, as the forward's (`forward_kernel`)
    def program(tile: Hashable) -> Sequence[Op]:
        b, h = cast(tuple[int, int], tile)

        load, store = _block_copies(b, h)
        made: dict[Hashable, tuple[Op, ...]] = {}  # the query steps alike in the tile's key blocks (`_built_once`)
        bodies: dict[Hashable, _StepBody] = {}  # the tile's key blocks that run the same steps (`_built_once`)

        def q_load(s: _Step) -> Load:
            """HBM: Q_i (r x d) into registers, to be committed to smem."""
            return load("Q", s.i, s.rows * d * eb, "q")

        def do_loads(first: bool, s: _Step) -> list[Op]:
            """HBM: dO_i (r x d; O_i too in the first key block) into registers, to be committed to smem."""
            if not first:
                return [load("dO", s.i, s.rows * d * eb, "do")]
            return [load(name, s.i, s.rows * d * eb, "do0") for name in ("dO", "O")]

        def lse_load(s: _Step) -> Load:
            """HBM: lse_i (r fp32) into registers, one step ahead of P = exp(S - lse_i)."""
            return load("LSE", s.i, s.rows * ACC_BYTES, "lse")

        def delta_step(first: bool, s: _Step) -> list[Op]:
            """D_i: computed from dO_i and O_i and written (HBM, fp32) in the first key block; then (every key block)
            read back into registers (HBM) for dP's accumulators."""
            key, r = (b, h, s.i), s.rows
            ops: list[Op] = [Vector(fma=r * d, alu=r * d), Store("Delta", key, r * ACC_BYTES)] if first else []
            return [*ops, Load("Delta", key, r * ACC_BYTES, engine="ldg", arrive="delta")]

        @functools.cache
        def outer(j: int) -> Sequence[Op]:
            cols = rows_in_block(p.nk, cfg.block_n, j)
            inner = blocks.steps(j)
            first = j == 0

            def step(k: int) -> Sequence[Op]:
                s = inner[k]
                r, i = s.rows, s.i
                nxt = inner[k + 1] if k + 1 < len(inner) else None
                # Q_i, dO_i are in smem (committed by the previous step or the block's head); lse_i, D_i load into
                # registers one step ahead.
                ops: list[Op] = [*probabilities(r, cols)]
                if nxt is not None:  # HBM: the next Q, into registers
                    ops.append(q_load(nxt))
                ops += score_gradients(r, cols)
                if nxt is not None:  # HBM: the next dO (and O in the first key block), into registers
                    ops += do_loads(first, nxt)
                ops += dq_dv(r, cols)
                if nxt is not None:  # the next Q committed to smem: its load must have landed
                    ops += [_wait("q"), commit(nxt.rows)]
                if not first:  # HBM: dq_tmp_i (fp32) into registers, needed after dK's product
                    ops.append(load("dQ_acc", i, r * d * ACC_BYTES, "dq"))
                if nxt is not None:  # the next dO committed (and D_i+1 computed in the first key block); lse_i+1
                    ops += [_wait("do0" if first else "do"), commit(nxt.rows)]
                    if first:
                        ops += [delta(nxt.rows), store("Delta", nxt.i, nxt.rows * ACC_BYTES)]
                    ops.append(lse_load(nxt))
                ops.append(dk)
                if nxt is not None:  # after a sync: HBM: D_i+1 (fp32) into registers
                    ops.append(load("Delta", nxt.i, nxt.rows * ACC_BYTES, "delta"))
                ops.append(dq_read(r))  # the warps' partial dQ_i read back
                if not first:
                    ops.append(_wait("dq"))
                ops.append(dq_add(r))
                # HBM: dQ_i in the output dtype on its last key block, else dq_tmp_i (fp32)
                ops.append(store("dQ", i, r * d * eb) if s.last else store("dQ_acc", i, r * d * ACC_BYTES))
                return ops

            head, tail = around(first, cols, inner[0] if inner else None)
            # HBM: K_j and V_j (cols x d each) into registers, once per key block, then the rest of its head; after
            # its loop, dK_j and dV_j in the output dtype, once per key block.
            return (
                Load("K", (b, h, j), cols * d * eb, engine="ldg", arrive="kv"),
                Load("V", (b, h, j), cols * d * eb, engine="ldg", arrive="kv"),
                *head,
                Repeat(len(inner), _built_once(step, inner, (first, cols), made, bodies)),
                *tail,
                Store("dK", (b, h, j), cols * d * eb),
                Store("dV", (b, h, j), cols * d * eb),
            )

        @functools.cache
        def around(first: bool, cols: int, s0: _Step | None) -> tuple[tuple[Op, ...], tuple[Op, ...]]:
            """A key block's ops between its K_j and V_j loads and its loop, and between its loop and its dK_j and
            dV_j stores, which name no key block: built once per (first key block or not, columns, first step) for
            the tile's key blocks (exact mode builds every one: 1,024 at 128k tokens). Before: HBM:
            the first step's rows into registers, committed to smem with K and V. After: dK_j scaled (FMUL); dK_j,
            dV_j packed to 16 bits and written through smem."""
            head: list[Op] = []
            commits = 2 * cols * d * eb
            if s0 is not None:
                head += [q_load(s0), *do_loads(first, s0), lse_load(s0), Wait("q"), Wait("do0" if first else "do")]
                commits += 2 * s0.rows * d * eb
            head += [Wait("kv"), Smem(write_bytes=commits)]
            if s0 is not None:
                head += delta_step(first, s0)
            tail = (
                Vector(fma=cols * d, alu=cols * d),
                Smem(read_bytes=2 * cols * d * eb, write_bytes=2 * cols * d * eb),
            )
            return tuple(head), tail

        def empty(k: int) -> Sequence[Op]:
            i = unseen[k]  # HBM: dQ_i = 0 (output dtype) for rows that see no key
            return (Store("dQ", (b, h, i), rows_in_block(p.seqlen_q, cfg.block_m, i) * d * eb),)

        loop = Repeat(n_k, outer, blocks.count)  # a key block holds one loop, of its query steps (`Repeat.held`)
        return (Repeat(len(unseen), empty), loop) if unseen else (loop,)

    # Q_i and dO_i double-buffered, K_j and V_j in separate buffers (flag 0x100), P and dP staged, the split-K
    # partials of dQ_i.
    smem = 2 * Q_BUFFERS * cfg.block_m * (d + SMEM_PAD_ELEMENTS) * eb
    smem += 2 * cfg.block_n * (d + SMEM_PAD_ELEMENTS) * eb
    smem += 2 * rp * (kp + SMEM_PAD_ELEMENTS) * eb
    smem += w * min(rp, REDUCTION_ROWS) * d * ACC_BYTES
    return Kernel(
        name="v1_bwd",
        tiles=_tiles(p),
        head_axes=HEAD_AXES,
        memory_axes=MEMORY_AXES,
        cta=CtaResources(w * 32, REGISTERS_PER_THREAD, smem),
        roles=(Role("warps", w, program),),
        barriers=(
            BarrierSpec("kv", arrivals=2),
            BarrierSpec("q"),
            BarrierSpec("do0", arrivals=2),
            BarrierSpec("do"),
            BarrierSpec("lse"),
            BarrierSpec("delta"),
            BarrierSpec("dq"),
        ),
    )
