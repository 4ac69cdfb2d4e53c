"""Fast mode's HBM and L2 bytes and L2 miss shares: the memory accesses of the first heads (or of the first tiles)
replayed through the L2 model (`simgpu.replay`) at the base fold and at each fit variant, the removed iterations
added back and the heads scaled up: by their number where heads share no memory, else extrapolated linearly from
half the replayed heads (PyTorch's causal mask, which every head reads, costs HBM bytes once while it stays in L2).

Exact (equal to exact mode's bytes) while the whole run fits in L2. Ignored: for runs that overflow L2, that the
replay sees the pressure of fewer heads, in their share of L2, than run side by side; that a folded top-level loop
touches fewer distinct bytes than the whole one, so where a wave's sweep of the whole loop overflows its share of
L2 the replay, and the removed iterations fitted from it, hit where the run misses: only in kernels of unequal tiles
(causal), as the replay samples the loops of a kernel of equal tiles (`KernelPlan.replay_spec`; FlashAttention's
backward, causal, on an H100 cut to 8 SMs and 2 MB of L2 at 8k tokens: HBM reads 13% under exact mode's); and that
the replay walks a wave's CTAs in step, where the run's drift apart and reach further back, so near L2's capacity
exact mode misses more (v2's backward at 16k tokens on the A100 and 32k on the H100: HBM reads 11% and 42% under
exact mode's; `docs/results/bwd_bytes_full_chip.txt`). A head too large to replay
whole (long sequences) replays two prefixes of its tiles, extrapolated linearly (`_wave_prefixes`: a forward's
kernel or FlashAttention's backward, whole waves of its one looped kernel beside its loop-free kernels whole, where
the smaller prefix turns L2 over; `_resident_prefixes`: a forward whose K and V stay in L2 from wave to wave, half a
wave and a wave; `_overflow_prefixes`: standard attention, a share of every kernel's tiles past L2's capacity); what
each ignores is said there, and `docs/results/prefix_46/` checks them against whole heads and exact mode. Heads
that run in one wave, each on its own memory, replay the first head alone in its share of L2 (`_heads_alike`);
ignored there: where lines fall at the edge of a share, which the heads side by side share out otherwise.

Where the later heads' bytes push the replayed first heads' lines out (`simgpu.replay.ReplayBytes.pushed`) and every
head replays within `ALL_HEADS_ACCESSES`, the miss shares (what times the representatives) and the bytes come from
every head replayed (`_all_heads`).

The replay folds the shapes that the plan left unfolded (it folds a few of each outline's group) without building
the loop iterations of the roles that touch no memory in them: it takes from the plan's fold of the group that
those roles' iterations hold no memory op and no loop (the plan assumes a group's shapes fold to programs equal up
to memory keys), and counts their iterations only (`_bodiless`; v4's forward builds 1 role of 5, v3's 1 of 3). A
shape whose programs hold no loop has nothing to fold: the replay makes its records only (`_FlatShape`). A head's
tiles of a looped kernel that fold like one planned shape, 16 or more, are made from a template of their records that
four of them folded give (`simgpu.tile_copies`, `_tile_groups`).
"""

from __future__ import annotations

import math
from collections import Counter
from collections.abc import Collection, Hashable, Mapping, Sequence
from dataclasses import dataclass
from typing import Final, cast

import numpy as np

from simgpu.arch import Arch
from simgpu.fast_plan import KernelPlan, grid_prefix, solve_removed
from simgpu.fold import NESTED, NESTED_SIDES, FoldedTile, FoldSpec, fold_tile, loop_free_accesses
from simgpu.kernel import Kernel, TileGrid
from simgpu.ops import Load, Op, Repeat, Store
from simgpu.replay import (
    Cuts,
    EntryTable,
    HeadCopies,
    HeadTemplate,
    KernelAccesses,
    Record,
    ReplayBytes,
    ReplayState,
    TileTotals,
    extrapolated_shares,
    head_template,
    keys_of_head,
    labelled,
    memory_of_head,
    program_records,
    records,
    reheaded,
    replay,
    tile_totals,
    writes,
)
from simgpu.tile_copies import TileCopy, TileGroup, learn
from simgpu.units.fluid_l2 import MissShares

REPLAY_TILES = 4096  # tiles a replay folds at most (more only when one head has more)
REPLAY_ACCESSES = 40_000  # memory accesses a replay walks at most (more only when one head has more)
# Memory accesses of every head up to which the miss shares come from every head replayed, where the first heads stand
# badly for the later ones (`_all_heads`).
ALL_HEADS_ACCESSES = 100_000
# Accesses of a head's largest size that its share of L2 holds at least where the first head stands for heads alike
# (`_heads_alike`).
ALIKE_LINES = 32
HEAD_PREFIX_TILES = 64  # tiles of one head replayed at least when the head is too large to replay whole
# A prefix replay applies while its larger prefix is at most this share of the head: the two prefixes then walk at
# most three quarters of it. (Less than half until the forty-seventh session: the B200's standard attention at 16k
# tokens, whose 126 MB L2 a quarter of a head turns over, replayed whole heads: a prediction took about 1.5 times as
# long, `docs/results/prefix_47/`.)
HEAD_PREFIX_SHARE = 0.5
COMMON_SAMPLE_TILES = 8  # a head's first tiles of a kernel, on which `_overflow_prefixes` tells if tiles share keys
# A head's unfolded tiles that fold like one planned shape, from which on the replay makes them from a template of
# their records (`simgpu.tile_copies`): four are folded to learn and check it, the rest made from it.
GROUP_COPY_TILES = 16
Shares = Sequence[Mapping[str, MissShares]]  # per kernel: the replay's miss shares by tensor


def replayed_bytes(
    arch: Arch, plans: Sequence[KernelPlan], prefix_tiles: int | None = None
) -> tuple[Shares, np.ndarray]:
    """The replay's miss shares and its bytes with every removed iteration added back.

    When every kernel's tiles are indexed by the same heads (`Kernel.head_axes`), the first heads replay, as many as
    fill the chip's CTA slots once in every kernel (so reuse inside a kernel sees the L2 pressure of the heads running
    beside it) as far as `REPLAY_TILES` and `REPLAY_ACCESSES` allow, and their bytes scale by the number of heads; the
    first head alone, in its share of L2, where the heads are alike (`_heads_alike`: one wave of heads each keeping to
    its own memory). Where the heads share memory (keys that name no head), the bytes extrapolate linearly in heads from
    half the replayed heads to all of them, at least two replayed (two where the budgets allow one), so that what one
    head leaves in L2 for the next counts once; ignored: that more heads could push the shared data out where two do
    not. In a kernel that runs more heads side by side than are replayed, the replayed heads see their share of L2; in
    one that runs no more (FlashAttention's backward: a head's key blocks fill a few SMs' slots, where its row-wise
    kernels fill 16 slots of each SM) they see all of it, as on the chip each head runs beside the few that fill the
    slots with it (with one share for all kernels, the H200's v2 causal backward at 16k tokens, 32 heads, N = 1k
    replayed its main kernel in 0.39 of L2 and read 1.72x exact mode's HBM bytes). Between kernels their share of L2
    stays resident, as from one kernel to the next the whole run's data competes for it, but only what of theirs
    outlasts the later heads' data can be hit (kernels take heads in order; L2 keeps the newest). Both are exact while
    the whole run fits in L2. One head too large to replay whole replays two prefixes of its tiles where that applies
    (`_head_prefixes`; the larger holds `prefix_tiles` tiles at least, `HEAD_PREFIX_TILES` by default: the tests raise
    it to replay heads whole). Otherwise runs of up to `REPLAY_TILES` tiles replay whole, and larger ones replay the
    first f and 2f of every kernel's tiles through that share of L2 and extrapolate linearly."""
    known = [_replay_folded(plan) for plan in plans]  # shapes folded for the replay so far, by position
    heads = _first_heads(arch, plans, known)
    if heads is not None:
        total, concurrent, replayed, tiles = heads
        least = HEAD_PREFIX_TILES if prefix_tiles is None else prefix_tiles
        head_share = tuple(1 / each for each in concurrent)  # one head's share of L2 in each kernel
        long_head = _LongHead(arch, plans, tiles, least, known, head_share, total)
        prefixes = _head_prefixes(long_head) if replayed == 1 else None
        if prefixes is not None:
            return _head_prefix_bytes(arch, plans, tiles, prefixes, head_share, total, known)
        # Fewer heads than run side by side see that share of L2, so that reuse inside a kernel meets the same
        # pressure; between kernels the whole run's heads compete. The bytes of a removed iteration are fitted on
        # the first head alone, in its share of L2 (heads are alike).
        head = _head(tiles[0][0], plans[0].kernel.head_axes)
        unit = _unit(tiles[0][0], plans[0].kernel)
        # One head replayed: its tiles are the first head's (standard attention at 16k tokens: 20,608 tiles).
        firsts = (
            [list(ts) for ts in tiles]
            if replayed == 1
            else [
                [tile for tile, each in zip(ts, _units(ts, plan.kernel), strict=True) if each == unit]
                for plan, ts in zip(plans, tiles, strict=True)
            ]
        )
        fitted = _Replayed(
            firsts,
            [_head_copies(plan, ts, k) for plan, ts, k in zip(plans, firsts, known, strict=True)],
            head_share,
            1 / total,
        )
        # The first head's replay at the base fold, which each way on walks (the fit's base replay): walked first,
        # its distinct keys tell whether the head keeps to its own memory (a few per tile, where its records are
        # several).
        accesses = fitted.accesses(arch, plans)
        alone = fitted.replay(arch, accesses, keep=_varied(plans))
        own = _own_memory(fitted, plans, head, alone.keys)
        if own and (replayed == 1 or _heads_alike(arch, accesses, alone, concurrent, total)):
            shares, some = _fold_replay(arch, plans, fitted, fit_done=(accesses, alone))
            return shares, some * total
        if replayed == 1:
            # Heads that share memory replay two heads however large, to see what the second reads again.
            replayed, tiles = 2, _heads_tiles(plans, 2)
        if not alone.evicted and own:
            # Nothing left L2 for want of room in the first head's share, nor would it with more heads beside it
            # (each holds as much): the heads' bytes add up, and they share nothing. The first head stands for all.
            shares, some = _fold_replay(arch, plans, fitted, fit_done=(accesses, alone))
            return shares, some * total
        if alone.pushed and replayed < total and total * _accesses_of(accesses) <= ALL_HEADS_ACCESSES:
            return _all_heads(arch, plans, total, known, fitted, (accesses, alone))
        folded = [_head_copies(plan, ts, k) for plan, ts, k in zip(plans, tiles, known, strict=True)]
        replays = _HeadsReplays(arch, plans, tiles, folded, concurrent, total, fitted, (accesses, alone))
        shares, some = replays.first(replayed)
        if own or replayed == total:
            return shares, some * total / replayed
        # The heads share memory (PyTorch's causal mask, which every head reads): what stays in L2 from one head to
        # the next is read once, not once per head. The bytes extrapolate linearly in heads from the first half of
        # the replayed heads to all of them: each further head adds what the later half's did.
        fewer = replayed // 2
        _, less = replays.first(fewer)
        return shares, some + (total - replayed) * (some - less) / (replayed - fewer)
    total_tiles = sum(len(plan.kernel.tiles) for plan in plans)
    if total_tiles <= REPLAY_TILES:
        return _prefix_bytes(arch, plans, [len(plan.kernel.tiles) for plan in plans], 1.0)
    fraction = REPLAY_TILES / (2 * total_tiles)
    counts = [[max(1, round(share * fraction * len(plan.kernel.tiles))) for plan in plans] for share in (1, 2)]
    covered = [sum(c) / total_tiles for c in counts]
    _, small = _prefix_bytes(arch, plans, counts[0], covered[0])
    shares, large = _prefix_bytes(arch, plans, counts[1], covered[1])
    return shares, _to_whole(small, large, (covered[0], covered[1]))


def _heads_alike(
    arch: Arch, accesses: Sequence[KernelAccesses], alone: ReplayBytes, concurrent: Sequence[int], total: int
) -> bool:
    """Whether the first head's replay in its share of L2 (`accesses`, walked as `alone`) stands for every head's, also
    where L2 ran out of room in that share: every kernel runs all `total` heads side by side (`concurrent`: one wave, so
    they start together and meet the same L2), no later kernel looks for what an earlier one left (one kernel, or no
    line of the first head's pushed out by the later heads' bytes: what a kernel finds then depends on the head's place
    in launch order, `_all_heads`), and in every kernel the head's share holds at least `ALIKE_LINES` of its largest
    access. The replay of k heads side by side then walks k interleaved copies of one head's accesses through k shares:
    the same least recently used order per head, but for where lines fall at the edge of a share, which moves
    write-backs between the tensors whose accesses make them (their bytes stay). Against exact mode
    (`docs/results/alike_heads_61/`): with 4 lines a v3 forward on a 1 MiB L2 moved a byte count by 14% (seed 0's random
    problems); with 16, v1's backward on the H100 at 4 x 16 heads, N = 4096, d = 128, went from 0.55% to 1.06% over
    exact mode's cycles; with 32 no case moved by more than 0.13 points over FA2's shapes, the whole chips and the
    random problems."""
    if min(concurrent) < total or (len(accesses) > 1 and alone.pushed):
        return False
    room = arch.l2.capacity_bytes / total
    for kernel in accesses:
        largest = max((record[3] for tile in kernel.accesses for record in tile), default=0)
        if room < ALIKE_LINES * largest:
            return False
    return True


def _to_whole(small: np.ndarray, large: np.ndarray, covered: tuple[float, float]) -> np.ndarray:
    """The bytes of two replays that stand for `covered` shares of a whole (the smaller first), extrapolated
    linearly to the whole (share 1)."""
    whole: np.ndarray = large + (1.0 - covered[1]) * (large - small) / (covered[1] - covered[0])
    return whole


@dataclass(frozen=True)
class _HeadsReplays:
    """The replays of the first heads of `tiles`, whose folded shapes are `folded`, beside the first head's fit
    (`fitted`, `fit_done`). A class, not a function nested in `replayed_bytes`: compiled, a nested function and the
    environment holding its variables refer to each other, a cycle that kept every prediction's plans, replays and
    programs alive until a full collection of the oldest generation, which the engine's runs, moving their
    survivors there (`simgpu.engine`), made rare: some 12 MiB a prediction at 128k tokens (v1's backward) until the
    forty-fifth session, a process's memory growing without bound."""

    arch: Arch
    plans: Sequence[KernelPlan]
    tiles: Sequence[Sequence[Hashable]]
    folded: Sequence[Sequence[Shape | _HeadCopy]]
    concurrent: Sequence[int]
    total: int
    fitted: _Replayed
    fit_done: tuple[list[KernelAccesses], ReplayBytes]

    def first(self, count: int) -> tuple[Shares, np.ndarray]:
        """The bytes of the first `count` replayed heads, in their share of L2."""
        plans, tiles = self.plans, self.tiles
        chosen = [_first_tiles(plan, ts, count) for plan, ts in zip(plans, tiles, strict=True)]
        subset = [[copies[n] for n in numbers] for copies, numbers in zip(self.folded, chosen, strict=True)]
        kept = [[ts[n] for n in numbers] for ts, numbers in zip(tiles, chosen, strict=True)]
        share = tuple(min(1.0, count / each) for each in self.concurrent)
        replayed = _Replayed(kept, subset, share, count / self.total)
        return _fold_replay(self.arch, plans, replayed, self.fitted, self.fit_done)


class _HeadCopy:
    """A folded tile of one head taken for the same tile of another: its records with the head's keys (and the
    folded tile's `totals`, which do not depend on the head). A plain class, never changed: made by the thousand
    (standard attention's score tiles), and compiled a frozen dataclass cost some 0.5 us to make."""

    __slots__ = ("executed", "records", "removed", "totals")

    def __init__(
        self,
        tile_records: tuple[Record, ...],
        removed: tuple[int, ...],
        executed: tuple[int, ...],
        totals: TileTotals | None,
    ) -> None:
        self.records = tile_records
        self.removed = removed
        self.executed = executed
        self.totals = totals


# The iteration counts of a fold of programs without loops (Final: compiled, read without a lookup per tile).
_NOTHING_FOLDED: Final = (0,) * (NESTED + len(NESTED_SIDES))


class _FlatShape:
    """A shape whose programs hold no loop, as the replay takes it: its records alone (it has nothing to fold, and
    a `FoldedTile` costs more to make than its records: standard attention's score tiles, 16,384 of a head at 16k
    tokens, are built for the replay one by one, `Kernel.alike_but_edges`). A plain class: made by the thousand."""

    __slots__ = ("_totals", "records")

    def __init__(self, tile_records: tuple[Record, ...]) -> None:
        self.records = tile_records
        self._totals: tuple[TileTotals | None] | None = None  # (the totals,) once made: the totals may be None

    @property
    def removed(self) -> tuple[int, ...]:
        return _NOTHING_FOLDED

    @property
    def executed(self) -> tuple[int, ...]:
        return _NOTHING_FOLDED

    @property
    def totals(self) -> TileTotals | None:
        """Its records' `TileTotals`, for its head copies: made once."""
        if self._totals is None:
            self._totals = (tile_totals(self.records),)
        return self._totals[0]


# A shape as the replay folds it.
Shape = FoldedTile | _FlatShape | TileCopy


def _replay_shape(
    plan: KernelPlan,
    n: int,
    programs: Sequence[Sequence[Op]],
    spec: FoldSpec,
    folded: Mapping[int, Shape],
    bodiless: dict[int, tuple[int, ...]],
) -> Shape:
    """Shape `n` of the plan, which it did not fold, folded for the replay by `spec` from its role `programs` (as its
    outline built them, `KernelPlan.programs`, or else built for it): a `_FlatShape` where they hold no loop. A
    shape that folds like a planned one (`KernelPlan.like`, folded in `folded`) is folded without the loop
    iterations of the roles whose iterations in that one hold no memory op (`_bodiless`, found once per planned shape
    in `bodiless`)."""
    if len(programs) == 1:
        flat = program_records(programs[0])
    else:
        accesses = loop_free_accesses(programs)
        flat = None if accesses is None else records(accesses)
    if flat is not None:
        return _FlatShape(flat)
    kernel, source = plan.kernel, plan.sources[n]
    like = plan.like.get(n)
    if like is None:
        return fold_tile(kernel, source, spec, (), programs, plan.fold_memo)
    if like not in bodiless:
        planned = folded[like]
        bodiless[like] = _bodiless(kernel, planned) if isinstance(planned, FoldedTile) else ()
    return fold_tile(kernel, source, spec, bodiless[like], programs, plan.fold_memo)


def _head_copies(
    plan: KernelPlan, tiles: Sequence[Hashable], folded: dict[int, Shape] | None = None
) -> list[Shape | _HeadCopy]:
    """`tiles` folded at the base: a tile of a planned shape's head is that shape; one of another head is the
    shape's records with that head's keys (`simgpu.replay.rehead`), or, where those do not carry over, folded.
    `folded`: the shapes folded so far by position (the plan's by default), to which this adds the ones it folds.
    A shape the plan left unfolded folds like a planned one (`KernelPlan.like`), from the programs its outline built
    (`KernelPlan.programs`): the loop iterations of the roles whose iterations in that one hold no memory op are not
    built (`_bodiless`; v4's forward builds 1 role of 5)."""
    axes = plan.kernel.head_axes
    positions: dict[tuple[object, ...], int] | None = None  # the shapes' positions by index past the head, once asked
    if folded is None:
        folded = _replay_folded(plan)
    spec = plan.replay_spec
    out: list[Shape | _HeadCopy] = []
    # Per shape: its records without their head, and its entries' numbers in `table`.
    templates: dict[int, tuple[HeadTemplate, tuple[object, ...]] | None] = {}
    cuts: Cuts = {}  # the templates' pieces' wholes, shared: so are the copies' (`made`, per head)
    table = EntryTable()  # the templates' entries numbered: a head's copies share a record per number (`made`)
    made: dict[tuple[object, ...], HeadCopies] = {}
    sources = plan.sources
    folder = _Folder(plan, folded)
    shapes_at: list[int] = []  # the position of each tile's shape
    for number, tile in enumerate(tiles):
        # Tiles in launch order are mostly their shapes' in order, a head after another: the guess is checked.
        n = number % len(sources)
        if not _same_shape(sources[n], tile, axes):
            if positions is None:
                positions = {tuple(source[axes:]): n for n, source in enumerate(sources)}  # type: ignore[index]
            n = positions[tuple(tile[axes:])]  # type: ignore[index]
        shapes_at.append(n)
    groups = _tile_groups(plan, tiles, shapes_at, folder)
    for tile, n in zip(tiles, shapes_at, strict=True):
        source, shape = sources[n], folded.get(n)
        if shape is None:
            group = groups.get(n)
            copied = None if group is None else group.copy(source)
            shape = folded[n] = folder.fold(n) if copied is None else copied
        if source == tile:
            out.append(shape)
            continue
        if n not in templates:
            template = head_template(shape.records, axes, _head(source, axes), cuts)
            templates[n] = None if template is None else (template, table.numbered(template))
        numbered = templates[n]
        if numbered is None:
            out.append(fold_tile(plan.kernel, tile, spec, memo=plan.fold_memo))
        else:
            head = _head(tile, axes)
            copies = made.get(head)
            if copies is None:
                copies = made[head] = HeadCopies(table)
            copy = reheaded(numbered[0], head, copies, numbered[1])
            out.append(_HeadCopy(copy, shape.removed, shape.executed, shape.totals))
    return out


class _Folder:
    """Folds the plan's shapes that it left unfolded, for the replay (`_replay_shape`), into `folded`. A class, not a
    function nested in `_head_copies` (compiled, that would hold its environment in a reference cycle). What a shape
    is made from is read off the plan once (standard attention's 20,480 shapes of a head at 16k tokens: per shape,
    reading the plan's and the roles' attributes by name cost a tenth of the making)."""

    __slots__ = ("bodiless", "builders", "folded", "outlined", "plan", "sources", "spec")

    def __init__(self, plan: KernelPlan, folded: dict[int, Shape]) -> None:
        self.plan = plan
        self.folded = folded
        self.spec = plan.replay_spec
        self.sources = plan.sources
        self.outlined = plan.programs
        self.builders = [role.program for role in plan.kernel.roles]
        self.bodiless: dict[int, tuple[int, ...]] = {}  # per planned shape: the roles shapes like it need not build

    def fold(self, n: int) -> Shape:
        """Shape `n` folded (and kept in `folded`)."""
        programs: Sequence[Sequence[Op]] | None = self.outlined.get(n)
        if programs is None:
            source = self.sources[n]
            programs = [build(source) for build in self.builders]
        shape = self.folded[n] = _replay_shape(self.plan, n, programs, self.spec, self.folded, self.bodiless)
        return shape


def _tile_groups(
    plan: KernelPlan, tiles: Sequence[Hashable], shapes_at: Sequence[int], folder: _Folder
) -> dict[int, TileGroup]:
    """Per unfolded shape of a tile of the planned head among `tiles` (at positions `shapes_at`), the group of the
    shapes that fold like the same planned one (`KernelPlan.like`), where it holds `GROUP_COPY_TILES` such tiles at
    least: four of them folded, the others made from the template they give (`simgpu.tile_copies`). A kernel without
    loops is copied only where its tiles touch no key in common and none is a piece (`RecordTemplate.own_keys`, told
    on the first two shapes of the plan's first group, `_own_keys`): FlashAttention's backward's row kernels, each
    tile on its own query block's rows, whose folds built their programs in the schedule's Python (v2's backward at
    128k tokens on the H100: -19.0% of a prediction's instructions). Other loop-free tiles are folded: copied as
    this copies them, standard attention's backward at 16k tokens took +25.8% (`docs/results/copies_63/steps.txt`),
    and its score tiles copied row by row, nearly all of them, saved about 1% (`docs/results/session_64/`): a fold
    of a few records costs little more than a copy."""
    if not plan.looped and not _own_keys(plan, folder):
        return {}
    members: dict[int, list[int]] = {}
    # (Read once: the plan is a Python object, and this walks every tile of the head's share.)
    likes, sources, folded = plan.like, plan.sources, folder.folded
    for tile, n in zip(tiles, shapes_at, strict=True):
        like = likes.get(n)
        if like is not None and n not in folded and sources[n] == tile:
            group = members.setdefault(like, [])
            if not group or group[-1] != n:
                group.append(n)
    groups: dict[int, TileGroup] = {}
    for group in members.values():
        if len(group) < GROUP_COPY_TILES:
            continue
        taken = (group[0], group[1], group[len(group) // 2], group[-1])
        made = TileGroup([plan.sources[n] for n in taken], [folder.fold(n) for n in taken])
        if made.template is not None:
            groups.update((n, made) for n in group)
    return groups


def _own_keys(plan: KernelPlan, folder: _Folder) -> bool:
    """Whether the template of the first two shapes that fold like one planned shape (`KernelPlan.like`), folded
    (and kept in `folder`), has every key move and none a piece (`simgpu.tile_copies.RecordTemplate.own_keys`)."""
    first: dict[int, int] = {}  # per planned shape, the first shape like it
    for n, like in plan.like.items():
        seen = first.setdefault(like, n)
        if seen != n:
            one, two = (folder.folded.get(each) for each in (seen, n))
            one = folder.fold(seen) if one is None else one
            two = folder.fold(n) if two is None else two
            template = learn(plan.sources[seen], one.records, plan.sources[n], two.records)
            return template is not None and template.own_keys
    return False


def _same_shape(source: Hashable, tile: Hashable, axes: int) -> bool:
    """Whether `tile` is of the shape of `source`: `source[axes:] == tile[axes:]`, told without slicing them."""
    first, other = cast(tuple[object, ...], source), cast(tuple[object, ...], tile)
    if len(first) != len(other):
        return False
    for number in range(axes, len(first)):
        mine, theirs = first[number], other[number]
        if not (mine is theirs or mine == theirs):  # (as a tuple compares its items)
            return False
    return True


def _all_heads(
    arch: Arch,
    plans: Sequence[KernelPlan],
    heads: int,
    known: Sequence[dict[int, Shape]],
    fitted: _Replayed,
    fit_done: tuple[list[KernelAccesses], ReplayBytes],
) -> tuple[Shares, np.ndarray]:
    """The miss shares and bytes of a replay of all `heads` heads through the whole L2 (at the base fold, the
    removed iterations fitted on the first head, `fitted`), for a run whose first heads' lines the later heads'
    bytes push out (`simgpu.replay.ReplayBytes.pushed`): the first heads stand badly for the later ones there. A
    kernel finds what the one before left in L2 for the heads it takes first, and has pushed out the rest; and where
    the chip's dirty bytes pass L2's dirty capacity, the first heads' dirty lines are written back in the kernel that
    dirtied them, the later heads' in the next one or after the run. Replayed alone, the first heads hit all of what
    the kernel before left them and had their write-backs timed in the last kernel: standard attention's forward on
    the H200 at 4 x 16 heads, N = 512, d = 64 wrote 35 MB back in its P V kernel and 4 MB in its softmax, exact mode
    4 MB and 34 MB, every head replayed 4 MB and 34 MB (`docs/results/head_position_writebacks_32/`). The bytes are
    every head's too: the first heads' scaled up missed what the later ones find gone (standard attention's forward
    on the whole A100 at 16 heads, N = 1k, d = 64: HBM reads 0.79x exact mode's, every head's equal to them)."""
    tiles = _heads_tiles(plans, heads)
    folded = [_head_copies(plan, ts, k) for plan, ts, k in zip(plans, tiles, known, strict=True)]
    return _fold_replay(arch, plans, _Replayed(tiles, folded, (1.0,) * len(plans)), fitted, fit_done)


def _accesses_of(kernels: Sequence[KernelAccesses]) -> int:
    """The memory accesses of the kernels' tiles."""
    return sum(len(tile) for kernel in kernels for tile in kernel.accesses)


def _bodiless(kernel: Kernel, shape: FoldedTile) -> tuple[int, ...]:
    """The roles of a kernel of several roles whose kept loop iterations in the folded `shape` hold no memory op
    (its program has the memory ops of its top level only) and no loop (none of the shape's roles' do): the L2
    replay needs their iteration counts only. Shapes that fold like it (`KernelPlan.like`: their programs are equal
    up to memory keys, as the plan assumes of an outline's group) need not build them."""
    if len(kernel.roles) < 2 or any(shape.executed[NESTED:]) or shape.source is None:
        return ()
    tile = shape.source[1]
    roles = []
    for number, (role, program) in enumerate(zip(kernel.roles, shape.programs, strict=True)):
        top = role.program(tile)
        if any(type(op) is Repeat for op in top) and _memory_ops(top) == _memory_ops(program):
            roles.append(number)
    return tuple(roles)


def _memory_ops(ops: Sequence[Op]) -> int:
    return sum(type(op) is Load or type(op) is Store for op in ops)


def _first_heads(
    arch: Arch, plans: Sequence[KernelPlan], known: Sequence[Mapping[int, Shape]]
) -> tuple[int, tuple[int, ...], int, list[list[Hashable]]] | None:
    """The number of heads, per kernel how many run side by side (as many as fill the chip's CTA slots), how many
    to replay, and per kernel the replayed heads' tiles in launch order; None unless every kernel has `head_axes`
    and the same heads, each with as many tiles."""
    counts = set()
    firsts = set()
    per_head = []
    for plan in plans:
        kernel = plan.kernel
        axes = kernel.head_axes
        if not axes:
            return None
        firsts.add(_unit(kernel.tiles[0], kernel))
        if isinstance(kernel.tiles, TileGrid) and kernel.launched_apart_axis is None:
            counts.add(math.prod(kernel.tiles.shape[:axes]))
            per_head.append(math.prod(kernel.tiles.shape[axes:]))
            continue
        sizes = Counter(_units(kernel.tiles, kernel))
        if len(set(sizes.values())) != 1:
            return None
        counts.add(len(sizes))
        per_head.append(len(kernel.tiles) // len(sizes))
    if len(counts) != 1 or len(firsts) != 1:
        return None
    total = counts.pop()
    if total == 1:
        return None
    # Enough heads to fill the chip's slots in every kernel, within budgets of replayed tiles and accesses.
    side_by_side = tuple(min(total, -(-arch.sms * plan.fit // n)) for plan, n in zip(plans, per_head, strict=True))
    needed = max(side_by_side)
    accesses = sum(_planned_accesses(plan, folded) for plan, folded in zip(plans, known, strict=True))
    replayed = max(1, min(total, needed, REPLAY_TILES // sum(per_head), REPLAY_ACCESSES // max(1, accesses)))
    return total, side_by_side, replayed, _heads_tiles(plans, replayed)


def _heads_tiles(plans: Sequence[KernelPlan], count: int) -> list[list[Hashable]]:
    """Per kernel, the tiles of its first `count` heads, in launch order."""
    tiles: list[list[Hashable]] = []
    for plan in plans:
        kernel, axes = plan.kernel, plan.kernel.head_axes
        if isinstance(kernel.tiles, TileGrid) and kernel.launched_apart_axis is None:
            tiles.append(grid_prefix(kernel.tiles, count * math.prod(kernel.tiles.shape[axes:])))
            continue
        units = _units(kernel.tiles, kernel)
        chosen = _leading_heads(units, count)
        tiles.append([tile for tile, unit in zip(kernel.tiles, units, strict=True) if unit in chosen])
    return tiles


def _leading_heads(units: Sequence[tuple[object, ...]], count: int) -> set[tuple[object, ...]]:
    """The first `count` heads that tiles in launch order name (`units`: theirs, `_units`)."""
    heads: dict[tuple[object, ...], None] = {}
    for unit in units:
        heads.setdefault(unit)
        if len(heads) == count:
            break
    return set(heads)


def _replay_folded(plan: KernelPlan) -> dict[int, Shape]:
    """The plan's folded shapes by position, folded as the replay folds them (`KernelPlan.replay_spec`), without
    the loop iterations of the roles that touch no memory in them (`_bodiless`: v4's forward samples 1 role of 5)."""
    if not plan.nested and not plan.sampled_top and not plan.replay_unfolded:
        return dict(plan.folded)
    spec = plan.replay_spec
    return {
        n: fold_tile(plan.kernel, plan.sources[n], spec, _bodiless(plan.kernel, shape), memo=plan.fold_memo)
        for n, shape in plan.folded.items()
    }


def _planned_accesses(plan: KernelPlan, folded: Mapping[int, Shape]) -> int:
    """The memory accesses of a tile of each shape (`folded`: the plan's shapes folded for the replay), a shape left
    unfolded counted as its kind's representative."""
    representatives = {}
    for kind in dict.fromkeys(plan.kinds):
        best = max((n for n in folded if plan.kinds[n] == kind), key=lambda n: (sum(plan.removed[n]), -n))
        representatives[kind] = len(folded[best].records)
    return sum(len(folded[n].records) if n in folded else representatives[kind] for n, kind in enumerate(plan.kinds))


@dataclass(frozen=True)
class _Prefixes:
    """Two prefix replays of one head (`_head_prefix_bytes`): per replay (the smaller first), the tiles of the
    head that each kernel replays (its first ones), and the share of the head's work that the replay stands for,
    in which the bytes extrapolate linearly to the whole head (share 1)."""

    counts: tuple[tuple[int, ...], tuple[int, ...]]
    covered: tuple[float, float]


@dataclass(frozen=True)
class _LongHead:
    """A head too large to replay whole, as the prefix rules (`_head_prefixes`) read it: per kernel its plan, the
    head's tiles in launch order, the shapes folded so far by position (`known`, to which the rules add) and one
    head's share of L2; the tiles a larger prefix holds at least (`prefix_tiles`); the run's heads."""

    arch: Arch
    plans: Sequence[KernelPlan]
    tiles: Sequence[Sequence[Hashable]]
    prefix_tiles: int
    known: Sequence[dict[int, Shape]]
    head_share: Sequence[float]
    heads: int


def _head_prefixes(head: _LongHead) -> _Prefixes | None:
    """The prefix replays of a head too large to replay whole (`_wave_prefixes`, `_resident_prefixes`,
    `_overflow_prefixes`); None where none applies."""
    return _wave_prefixes(head) or _resident_prefixes(head) or _overflow_prefixes(head)


def _wave_prefixes(head: _LongHead) -> _Prefixes | None:
    """Where one kernel of uniform tiles folds loops and the others, if any, fold none (a forward's one kernel;
    FlashAttention's backward: the main kernel between the loop-free preprocessing and dQ conversion): the looped
    kernel replays its first
    r + m W and r + 2 m W tiles of the head (W: the chip's CTA slots for it; r: the head's tiles past its last
    whole wave; m: the fewest waves that make the larger prefix `prefix_tiles` tiles), the others replay whole in
    both, and the bytes extrapolate linearly in the looped kernel's tiles, which is by whole waves.

    Why this is sound: the replay walks a kernel's tiles a wave at a time (`simgpu.replay`); both prefixes, like
    the whole head, are whole waves then a last wave of r tiles, and they differ by m whole waves past the first
    (which brings the head's data into L2). Waves of uniform tiles that meet L2 in the same state move the same
    bytes, also in the fitted cost of the removed iterations (`_fold_replay`: a wave's tiles re-read a removed
    iteration's data once per wave where it does not stay in L2), so each further wave adds what the last m did.
    The loop-free kernels, replayed whole, add the same bytes to both prefixes where what they exchange with the
    looped kernel through L2 does not depend on how many of its tiles ran: in the backward every key block reads
    all of the head's Delta and LSE and adds into all of its dQacc, and the looped kernel ends on a wave of r
    tiles in both. Extrapolating a share of their tiles would not do: at the run's end what stays dirty in L2
    (written back untimed) depends on how much the last kernel walked. Nor would prefixes of less than a wave past
    the first: until the forty-sixth session a forward replayed a wave and half a wave, which never showed K and V
    read again by the next wave where a head's K and V overflow L2 (v2's forward at 128k tokens on the H100: HBM
    reads a third of the whole head's replay; v3's 0.18x, v2's on the A100 0.14x).

    That needs the waves past the smaller prefix to meet L2 in one state: it applies only where the smaller
    prefix's tiles of the looped kernel, at the base fold, touch more distinct bytes than the head's share of L2
    in it (`head_share`, per kernel) holds, so that L2 holds nothing from before them. Below that, the replay
    crosses from a transient to its steady state late or from fitting in L2 to overflowing it (v2's backward at 8k
    tokens on an H100 cut to 3 SMs and a 2 MB L2, its loops folded: HBM reads 77% under the whole head's replay):
    the head replays whole. Ignored: that the condition is one of the base fold (the fitted removed iterations
    touch more), and that a removed iteration's data re-read by later waves makes waves differ in ways the two
    prefixes do not show. Miss shares extrapolate too (`_head_prefix_bytes`). None also unless the
    larger prefix is at most `HEAD_PREFIX_SHARE` of the looped kernel's tiles; causal tiles are not uniform."""
    arch, plans, tiles, known = head.arch, head.plans, head.tiles, head.known
    looped = [k for k, plan in enumerate(plans) if plan.looped]
    if len(looped) != 1 or not plans[looped[0]].uniform:
        return None
    number = looped[0]
    per_head, slots = len(tiles[number]), arch.sms * plans[number].fit
    rest = per_head % slots
    waves = max(1, -(-(head.prefix_tiles - rest) // (2 * slots)))
    sizes = (rest + waves * slots, rest + 2 * waves * slots)
    if sizes[1] > HEAD_PREFIX_SHARE * per_head:
        return None
    firsts = _head_copies(plans[number], tiles[number][: sizes[0]], known[number])
    if not _touch_more_than(firsts, arch.l2.capacity_bytes * head.head_share[number]):
        return None
    small, large = ([size if k == number else len(ts) for k, ts in enumerate(tiles)] for size in sizes)
    return _Prefixes((tuple(small), tuple(large)), (sizes[0] / per_head, sizes[1] / per_head))


def _resident_prefixes(head: _LongHead) -> _Prefixes | None:
    """Where the run is one kernel of uniform tiles whose data read by several tiles stays in L2 from one wave to
    the next (a forward whose head's K and V fit beside two waves' Q and O: v4's on the B200 at 128k tokens): the
    first W and W / 2 tiles of the head (W: the chip's CTA slots for it, or `prefix_tiles` if more), the bytes
    extrapolated linearly in tiles.

    Why this is sound: L2 drops its least recently used lines first, and between two touches of a key that several
    tiles read (a block of K) in consecutive waves the walk touches at most every such key and the own keys (Q and
    O blocks) of two waves: where those fit the head's share of L2, the shared keys miss once, at their first
    touch, in any prefix as in the whole head, and each further tile adds the bytes of its own keys. Told on the
    larger prefix: the bytes of the keys two of its tiles touch, and its tiles' own keys per tile. What is written
    back during the run (timed), not after it, must not change with the prefix either. So the dirty bytes meet L2's
    dirty capacity alike (past it each store writes an older line back in the run, below it the lines wait for the
    run's end): the smaller prefix passes it or the whole head stays below it. And the later heads' bytes, which push
    the replayed head's lines out by the run's end (`simgpu.replay`'s `later_heads`), pass L2 beside even the
    smaller prefix's footprint, or there are none (v2's forward on the B200 cut to 8 SMs and a 16 MiB L2, 3 heads,
    N = 8k: prefixes of 8 and 16 tiles timed 18.9 MB of HBM traffic, the whole head 25.3,
    `docs/results/prefix_46/resident_timed.txt`). None unless the larger prefix is at most
    `HEAD_PREFIX_SHARE` of the head's tiles."""
    if len(head.plans) != 1 or not head.plans[0].uniform:
        return None
    plan, tiles, arch = head.plans[0], head.tiles[0], head.arch
    slots = arch.sms * plan.fit
    large = max(head.prefix_tiles, slots)
    if large > HEAD_PREFIX_SHARE * len(tiles):
        return None
    share = head.head_share[0]
    copies = _head_copies(plan, tiles[:large], head.known[0])
    # Two waves touch at least the larger prefix's distinct bytes (`footprint` below, 2 x slots >= large): told
    # first, at the first record past L2's share, where it rules the prefixes out (a forward whose head's K and V
    # overflow L2: v2's and v3's at 128k tokens on the H100 and H200), without counting every key's readers.
    if 2 * slots >= large and _touch_more_than(copies, arch.l2.capacity_bytes * share):
        return None
    readers: dict[Hashable, int] = {}
    sizes: dict[Hashable, int | float] = {}  # each key at the most bytes an access of it moves (`_touch_more_than`)
    written: set[Hashable] = set()
    for tile in copies:
        for key in {key for _, _, key, _ in tile.records}:
            readers[key] = readers.get(key, 0) + 1
        for kind, _, key, nbytes in tile.records:
            known = sizes.get(key)
            if known is None or nbytes > known:
                sizes[key] = nbytes
            if writes(kind):
                written.add(key)

    def footprint(keys: Collection[Hashable], tile_count: int) -> float:
        """The bytes of `keys` that `tile_count` tiles touch: those several tiles touch, the others per tile."""
        shared = sum(sizes[key] for key in keys if readers[key] > 1)
        return shared + tile_count * sum(sizes[key] for key in keys if readers[key] == 1) / large

    if footprint(sizes, 2 * slots) > arch.l2.capacity_bytes * share:
        return None
    dirty = arch.l2.dirty_capacity_bytes * share
    if footprint(written, large // 2) <= dirty < footprint(written, len(tiles)):
        return None
    if head.heads > 1 and (head.heads - 1) * footprint(sizes, large // 2) < arch.l2.capacity_bytes:
        return None
    return _Prefixes(((large // 2,), (large,)), (large // 2 / len(tiles), large / len(tiles)))


def _overflow_prefixes(head: _LongHead) -> _Prefixes | None:
    """Where every kernel is of uniform tiles (standard attention, whose score and softmax kernels loop over
    nothing): a share of each kernel's tiles and half that share, the least (doubling from half `prefix_tiles`
    tiles) at which the smaller prefix's tiles of each kernel touch more distinct bytes than the head's share of L2
    in it holds, and show what a later wave reads again (`_turns_over`); but a kernel whose tiles of a head take
    more than one wave and at most two, and touch keys in common (standard attention's products on the A100: 128
    tiles of a head at 16k tokens, the second wave reading V again), replays whole in both, as the loop-free kernels
    of `_wave_prefixes` do. The bytes extrapolate in the share of the head's tiles replayed.

    Why this is sound: with the smaller prefix already turning each kernel's share of L2 over, L2 holds, as each
    kernel starts and as it walks, the newest bytes of the prefix in both replays and in the whole head alike, and
    a re-read (the two-pass softmax) that misses in the smaller prefix's wave misses in the larger's and in the
    head's wider ones: each further tile adds the bytes of its own accesses, and what a kernel finds left by the one
    before is the same newest slice in all three. A kernel replayed whole reads of the others' data the newest
    slice that they left in L2 in both prefixes and misses the rest (what the prefixes never wrote, the whole head
    wrote and L2 let go): its bytes are the same in both, as in the whole head. Ignored: that a wave narrower than
    the chip's (the smaller prefix's softmax rows are a third of a wave at 16k tokens) interleaves fewer tiles,
    which moves bytes only through the reuse distance this condition bounds; and that the newest slice a kernel
    finds can hold the tensors in other proportions in the two prefixes, by up to the share of L2 (random problems,
    `docs/results/prefix_46/random_prefixes_*.txt`: HBM reads within 2.7e-4 of the whole head's, on 33 SMs with a
    1 MiB L2). None unless the larger prefix is at most `HEAD_PREFIX_SHARE` of the head's tiles of the kernels it
    takes a share of."""
    arch, plans, tiles, known = head.arch, head.plans, head.tiles, head.known
    if not all(plan.uniform for plan in plans):
        return None
    per_head = [len(ts) for ts in tiles]
    # (Told on a head's first few tiles: a product's tiles share K or V, a row of score tiles its Q block.)
    whole = [
        arch.sms * plan.fit < len(ts) <= 2 * arch.sms * plan.fit
        and _touch_in_common(_head_copies(plan, ts[:COMMON_SAMPLE_TILES], k))
        for plan, ts, k in zip(plans, tiles, known, strict=True)
    ]
    if all(whole):
        return None
    # Prefixes of whole parts of each kernel's tiles (of a common divisor's): the shares are the same in each.
    parts = math.gcd(*(n for n, replayed in zip(per_head, whole, strict=True) if not replayed))
    shared = sum(n for n, replayed in zip(per_head, whole, strict=True) if not replayed)
    smaller = max(1, math.ceil(head.prefix_tiles * parts / (2 * shared)))
    while 2 * smaller <= HEAD_PREFIX_SHARE * parts:
        small, large = (
            [n if replayed else n * share // parts for n, replayed in zip(per_head, whole, strict=True)]
            for share in (smaller, 2 * smaller)
        )
        if all(
            replayed or _turns_over(arch, plan, ts, count, known_shapes, part)
            for plan, ts, count, known_shapes, part, replayed in zip(
                plans, tiles, small, known, head.head_share, whole, strict=True
            )
        ):
            return _Prefixes((tuple(small), tuple(large)), (smaller / parts, 2 * smaller / parts))
        smaller *= 2
    return None


def _turns_over(
    arch: Arch, plan: KernelPlan, tiles: Sequence[Hashable], count: int, known: dict[int, Shape], share: float
) -> bool:
    """Whether the first `count` of a head's `tiles` (of `plan`'s kernel) touch more distinct bytes than `share`
    of L2 holds, and what a later wave of the head's tiles reads again of an earlier's shows in them: the head's
    tiles fit one wave, or the first `count` span two waves (the second meets L2 as the first left it), or no two
    of the head's tiles touch the same key (standard attention's softmax rows; told on its first tiles, at least
    `COMMON_SAMPLE_TILES`: a prefix of one tile shares nothing, `docs/results/prefix_46/one_tile_prefix.txt`)."""
    prefix = _head_copies(plan, tiles[: max(count, COMMON_SAMPLE_TILES)], known)
    if not _touch_more_than(prefix[:count], arch.l2.capacity_bytes * share):
        return False
    slots = arch.sms * plan.fit
    return len(tiles) <= slots or count >= 2 * slots or not _touch_in_common(prefix)


def _touch_in_common(shapes: Sequence[Shape | _HeadCopy]) -> bool:
    """Whether two of the tiles access the same key: told at the first tile that touches a key an earlier one did."""
    earlier: set[Hashable] = set()
    for tile in shapes:
        keys = {key for _, _, key, _ in tile.records}
        if not earlier.isdisjoint(keys):
            return True
        earlier |= keys
    return False


def _touch_more_than(shapes: Sequence[Shape | _HeadCopy], limit: float) -> bool:
    """Whether the distinct keys that the tiles' records access hold more than `limit` bytes, each key at the most
    bytes an access of it moves (in every benchmark and random case a key's accesses are of one size). Told at the
    first record past `limit`, as those bytes only grow record by record: the prefixes' checks read a few of a long
    head's tiles where they read all of them (v2's and v3's backward at 128k tokens: 5-6% of a prediction)."""
    sizes: dict[Hashable, int | float] = {}
    total = 0.0
    for tile in shapes:
        for _, _, key, nbytes in tile.records:
            known = sizes.get(key)
            if known is not None and nbytes <= known:
                continue
            sizes[key] = nbytes
            total += nbytes if known is None else nbytes - known
            if total > limit:
                return True
    return False


def _head_prefix_bytes(
    arch: Arch,
    plans: Sequence[KernelPlan],
    tiles: Sequence[Sequence[Hashable]],
    prefixes: _Prefixes,
    head_share: Sequence[float],
    total: int,
    known: Sequence[dict[int, Shape]],
) -> tuple[Shares, np.ndarray]:
    """The bytes of a run whose one head has too many tiles to replay whole (long sequences): the head's
    `prefixes` replay, each with its removed iterations added back (`_fold_replay`); the bytes extrapolate
    linearly in the share of the head that they stand for (`_Prefixes.covered`) and scale by the number of heads.
    The miss shares extrapolate likewise (`simgpu.replay.extrapolated_shares`): the larger prefix's own weigh its
    first wave more than the whole head does.

    The smaller prefix's tiles are the larger's first ones: they are folded once (`known`: the shapes folded so
    far), and the kernels before the first whose prefixes differ (FlashAttention's backward: the preprocessing,
    replayed whole in both) are walked once, the larger prefix's replay walking on from the smaller's state there
    (`simgpu.replay.replay`'s `start`), as the fit variants do."""
    counts = prefixes.counts
    larger = [ts[:c] for ts, c in zip(tiles, counts[1], strict=True)]
    folded = [_head_copies(plan, ts, k) for plan, ts, k in zip(plans, larger, known, strict=True)]
    smaller = _Replayed(
        [ts[:c] for ts, c in zip(tiles, counts[0], strict=True)],
        [copies[:c] for copies, c in zip(folded, counts[0], strict=True)],
        head_share,
        1 / total,
    )
    largest = _Replayed(larger, folded, head_share, 1 / total)
    varied = _varied(plans)
    # The kernels before `shared` walk alike in both replays; a fit variant walks on from a kernel's state in its
    # own prefix's replay, so none is shared past the first varied kernel.
    shared = min([next((k for k, (a, b) in enumerate(zip(*counts, strict=True)) if a != b), 0), *varied])
    small_accesses = smaller.accesses(arch, plans)
    small_replay = smaller.replay(arch, small_accesses, keep=[*varied, shared] if shared else varied)
    large_accesses = [
        small_accesses[k] if counts[0][k] == counts[1][k] else _accesses(arch, plan, folded[k], larger[k])
        for k, plan in enumerate(plans)
    ]
    start = (shared, small_replay.states[shared]) if shared else None
    large_replay = largest.replay(arch, large_accesses, start=start, keep=varied)
    _, small = _fold_replay(arch, plans, smaller, fit_done=(small_accesses, small_replay))
    _, large = _fold_replay(arch, plans, largest, fit_done=(large_accesses, large_replay))
    covered = prefixes.covered
    shares = extrapolated_shares(small_replay, large_replay, covered)
    return shares, _to_whole(small, large, covered) * total


def _head(tile: Hashable, axes: int) -> tuple[object, ...]:
    """The head of `tile`, its first `axes` entries: what its memory keys begin with."""
    return tuple(tile[:axes])  # type: ignore[index]


def _unit(tile: Hashable, kernel: Kernel) -> tuple[object, ...]:
    """The head the replay takes `tile` for: its head, and the entry its grid launches apart where there is one
    (`Kernel.launched_apart_axis`: v1's split grid, whose splits of a head never meet in L2, replays each split as a
    head of its own)."""
    return _units((tile,), kernel)[0]


def _units(tiles: Sequence[Hashable], kernel: Kernel) -> list[tuple[object, ...]]:
    """`_unit` of each of `tiles`, the kernel's attributes read once: read by name from the kernel (not a native
    class) per tile, with the tile sliced as a generic sequence, they cost some 900 instructions a tile (standard
    attention's forward at 1k tokens: some 11,500 tiles a prediction, 5% of its instructions,
    `docs/results/copies_63/callgrind_excerpts.txt`)."""
    axes, apart = kernel.head_axes, kernel.launched_apart_axis
    units: list[tuple[object, ...]] = []
    for tile in tiles:
        # (A tile that is another sequence is taken as the tuple of its entries, as `_head` takes it.)
        entries = cast(tuple[object, ...], tile if type(tile) is tuple else tuple(tile))  # type: ignore[arg-type]
        head = entries[:axes]
        units.append(head if apart is None else (*head, entries[apart]))
    return units


def _first_tiles(plan: KernelPlan, tiles: Sequence[Hashable], count: int) -> list[int]:
    """The positions in `tiles` (a kernel's replayed tiles, in launch order) of those of its first `count` heads."""
    units = _units(tiles, plan.kernel)
    chosen = _leading_heads(units, count)
    return [n for n, unit in enumerate(units) if unit in chosen]


def _prefix_bytes(
    arch: Arch, plans: Sequence[KernelPlan], counts: Sequence[int], capacity_share: float
) -> tuple[Shares, np.ndarray]:
    """Replay the first `counts[k]` tiles of kernel k (all kernels in order, sharing L2)."""
    tiles = [list(plan.kernel.tiles[:count]) for plan, count in zip(plans, counts, strict=True)]
    folded = [
        [fold_tile(plan.kernel, tile, plan.replay_spec, memo=plan.fold_memo) for tile in ts]
        for plan, ts in zip(plans, tiles, strict=True)
    ]
    return _fold_replay(arch, plans, _Replayed(tiles, folded, (capacity_share,) * len(plans)))


@dataclass(frozen=True)
class _Replayed:
    """Tiles to replay: per kernel, the tiles in launch order and folded at the base and the share of L2 they see
    (as many heads as fill the chip's CTA slots in a kernel see it all); the share of the run's heads they are, which
    is the share of L2 kept from one kernel to the next (None: all)."""

    tiles: Sequence[Sequence[Hashable]]
    folded: Sequence[Sequence[Shape | _HeadCopy]]
    capacity_share: Sequence[float]
    carry_share: float | None = None

    def accesses(self, arch: Arch, plans: Sequence[KernelPlan]) -> list[KernelAccesses]:
        return [
            _accesses(arch, plan, folded, tiles)
            for plan, folded, tiles in zip(plans, self.folded, self.tiles, strict=True)
        ]

    def replay(
        self,
        arch: Arch,
        accesses: Sequence[KernelAccesses],
        start: tuple[int, ReplayState] | None = None,
        keep: Collection[int] = (),
    ) -> ReplayBytes:
        """`simgpu.replay.replay` of `accesses` through these tiles' share of L2 (`start`, `keep`: as there)."""
        capacity = [arch.l2.capacity_bytes * share for share in self.capacity_share]
        if self.carry_share is None:
            return replay(arch, accesses, capacity, start=start, keep=keep)
        # The replayed heads are the run's first: the others, launched after them, are newer in L2.
        later = 1 / self.carry_share - 1
        carry = arch.l2.capacity_bytes * self.carry_share
        return replay(arch, accesses, capacity, carry, later, start=start, keep=keep)


def _fold_replay(
    arch: Arch,
    plans: Sequence[KernelPlan],
    replayed: _Replayed,
    fitted: _Replayed | None = None,
    fit_done: tuple[list[KernelAccesses], ReplayBytes] | None = None,
) -> tuple[Shares, np.ndarray]:
    """Replay `replayed` at the base fold; fit the bytes of one removed iteration per kernel from replays of
    `fitted` (by default the same tiles) at the base and with one more period per fit variant; return the base's
    miss shares and its bytes with the removed iterations added back. `fit_done`: the fit set's accesses and base
    replay, when already made."""
    fit = replayed if fitted is None else fitted
    if fit_done is None:
        fit_accesses = fit.accesses(arch, plans)
        fit_done = fit_accesses, fit.replay(arch, fit_accesses, keep=_varied(plans))
    fit_accesses, fit_replay = fit_done
    base = fit_replay if fitted is None else replayed.replay(arch, replayed.accesses(arch, plans))
    full = np.array(base.vector())
    costs = _removed_cost(arch, plans, fit, fit_accesses, fit_replay)
    for tiles, per_iteration in zip(replayed.folded, costs, strict=True):
        if per_iteration is not None:
            removed = np.sum([tile.removed for tile in tiles], axis=0)
            full += np.asarray(removed, dtype=float) @ per_iteration
    return base.shares, full


def _own_memory(
    replayed: _Replayed, plans: Sequence[KernelPlan], head: tuple[object, ...], keys: Collection[Hashable]
) -> bool:
    """Whether every access of the replayed tiles (of `head`) is to memory of that head: its tile key begins with it.
    `keys`: the distinct keys of their accesses (those of their replay, `simgpu.replay.ReplayBytes.keys`), checked
    instead of every access where every kernel has the same `head_axes`."""
    axes = {plan.kernel.head_axes for plan in plans}
    if len(axes) == 1:
        return memory_of_head(keys, axes.pop(), head)
    # The pieces' wholes checked once for all the tiles, per head_axes; the tiles' records live until the check is
    # done.
    checked: dict[int, dict[int, bool]] = {}
    for plan, tiles in zip(plans, replayed.folded, strict=True):
        axes_of_plan = plan.kernel.head_axes
        wholes_of_head = checked.setdefault(axes_of_plan, {})
        if not all(keys_of_head(tile.records, axes_of_plan, head, wholes_of_head) for tile in tiles):
            return False
    return True


def _removed_cost(
    arch: Arch,
    plans: Sequence[KernelPlan],
    fit: _Replayed,
    fit_accesses: Sequence[KernelAccesses],
    fit_replay: ReplayBytes,
) -> list[np.ndarray | None]:
    """Per kernel, the bytes of one removed top-level and nested iteration (rows), from replays of `fit` with one
    more period kept per fit variant against its base replay (`fit_replay`, which kept its state before each
    kernel of `_varied`: a variant walks on from there); None for kernels that remove none."""
    fit_base = np.array(fit_replay.vector())
    costs: list[np.ndarray | None] = []
    for k, plan in enumerate(plans):
        if not plan.replay_sides:
            costs.append(None)
            continue
        added, deltas = [], []
        for side in plan.replay_sides:
            more = [
                base.widened(side, plan.spec.period)
                if isinstance(base, FoldedTile)
                else fold_tile(plan.kernel, tile, plan.replay_spec.variant(side), memo=plan.fold_memo)
                for tile, base in zip(fit.tiles[k], fit.folded[k], strict=True)
            ]
            variant = list(fit_accesses)
            variant[k] = _accesses(arch, plan, more, fit.tiles[k])
            added.append(
                list(np.sum([t.executed for t in more], axis=0) - np.sum([b.executed for b in fit.folded[k]], axis=0))
            )
            varied = fit.replay(arch, variant, start=(k, fit_replay.states[k]))
            deltas.append(np.array(varied.vector()) - fit_base)
        costs.append(solve_removed(added, deltas))
    return costs


def _varied(plans: Sequence[KernelPlan]) -> list[int]:
    """The kernels whose tiles the fit variants of the replay change (`_removed_cost`)."""
    return [k for k, plan in enumerate(plans) if plan.replay_sides]


def _accesses(
    arch: Arch, plan: KernelPlan, tiles: Sequence[Shape | _HeadCopy], keys: Sequence[Hashable]
) -> KernelAccesses:
    """The replay's view of a kernel's tiles (`keys`: the tiles they fold, in the same order); where some are head
    copies or tile copies (`simgpu.tile_copies`), with the tiles' totals, which a shape and its copies share (a
    tile's own would cost what summing its records in the walk does; v2's forward at 128k tokens on the H100 summed
    the records of its 1,014 tile copies and 10 folds, 35,840, at some 320 instructions each,
    `docs/results/copies_63/callgrind_excerpts.txt`, `counts.txt`). In a kernel of several cost kinds that is not
    run whole, and whose kinds of a head the chip starts in different waves (`KernelPlan.kind_waves`), each record's
    tensor carries its tile's kind (`_labelled_records`), so that each kind's representative meets its own misses."""
    slots = arch.sms * plan.fit
    kind_waves = plan.kind_waves(slots) if plan.several_kinds and not plan.whole else None
    if kind_waves is not None:
        tile_records: Sequence[Sequence[Record]] = _labelled_records(plan, tiles, keys)
        totals = None  # (the totals count by tensor, unlabelled)
    else:
        tile_records = [tile.records for tile in tiles]
        copied = any(type(tile) is _HeadCopy or type(tile) is TileCopy for tile in tiles)
        totals = [tile.totals for tile in tiles] if copied else None
        if totals is not None and any(each is None for each in totals):
            totals = None
    return KernelAccesses(
        tile_records,
        slots,
        totals,  # type: ignore[arg-type]
        waves=-(-len(plan.kernel.tiles) // slots),
        rereads=plan.rereads,
        labelled=kind_waves is not None,
        kind_waves=kind_waves or (),
    )


def _labelled_records(
    plan: KernelPlan, tiles: Sequence[Shape | _HeadCopy], keys: Sequence[Hashable]
) -> list[list[Record]]:
    """Each tile's records with its tensors named for its cost kind (`simgpu.replay.labelled`). Which tiles of a
    causal kernel meet a tensor's first touches depends on their order: FA3's LPT order starts a group of heads'
    longest query blocks together, and those read all of the heads' K and V from HBM, where the shorter blocks that
    follow hit in L2 (v3's persistent causal forward on the whole H100 at N = 512: with one share for all kinds,
    fast mode spread those misses over every kind and came out 19.4% faster than exact mode,
    `docs/results/first_touch_57/`)."""
    names: dict[tuple[int, str], str] = {}
    out: list[list[Record]] = []
    for tile, key in zip(tiles, keys, strict=True):
        kind = plan.kind_of(key)
        own: list[Record] = []
        for access, tensor, memory, nbytes in tile.records:
            name = names.get((kind, tensor))
            if name is None:
                name = names[kind, tensor] = labelled(tensor, kind)
            own.append((access, name, memory, nbytes))
        out.append(own)
    return out
