"""The L2 replay: every memory access of a run, in launch order, through the L2 model without timing.

Fast mode does not simulate every SM, so it learns what L2 does from a replay: the tiles of each kernel are taken in
launch order a wave (all CTA slots of the chip) at a time, and within a wave the tiles' accesses are interleaved one
by one, as CTAs that start together and run the same program issue them; the roles of one tile are interleaved
likewise. A wave's trailing stores (a tile's stores and atomics after its last load) meet the next wave's first
accesses: slot by slot, each just before the first access of the tile that takes its slot next, as a slot's next CTA
starts when its previous one issues its last stores (`_handover`); in a kernel whose tiles load again what they
loaded before (the two-pass softmax, v1), all of them after the next wave's first accesses, as the CTAs that finish
while those wait at the HBM store then (`_wave_parts`). Kernels follow one another and L2 contents carry over, as in
the engine (a replay of part of a run may keep less between kernels: `carry_bytes`); dirty tiles are written back
when evicted, when they exceed the L2's dirty capacity (`l2.max_dirty_fraction` of a kernel's share of L2: the
oldest, which stay resident) and at the end. The result: HBM and L2 bytes, and per kernel, tensor and access kind the
share of bytes that moved to or from HBM (`MissShares`), which the representative SMs use for timing; a tile's first
access to a key and its later ones (`simgpu.fold.mark_retouches`) count apart, and where fast mode labels the records
with their tiles' cost kinds (`KernelAccesses.labelled`), so do the kinds, a wave's first touch of a key shared by the
kinds that the chip runs in a common wave of their heads.

When nothing is evicted the replay's bytes do not depend on the order and equal exact mode's; when L2 overflows
the launch-order interleaving stands in for the order timing would give (the two can differ at wave edges).
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Collection, Hashable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from itertools import chain
from typing import Any, Final, cast

from simgpu.arch import Arch
from simgpu.lru_lines import Line, Lines
from simgpu.ops import HashedKeys, Load, Op, Piece, Repeat, Store
from simgpu.units.fluid_l2 import MissShares, Seen

# Final, so that compiled (mypyc) they are constants: a plain module name is looked up in the module's dict at every
# use, several times per access in the walk.
_LOAD: Final = 0
_STORE: Final = 1
_ATOMIC: Final = 2
_Key = tuple[int, str, int]  # (kernel, tensor, kind)
_AGAIN: Final = 3  # added to the kind of an access to a key its tile accessed before
REREAD: Final = _LOAD + _AGAIN  # the kind of a load of a key its tile accessed before


KIND_MARK: Final = "#"  # joins a tensor's name and its tile's cost kind in a labelled record (`labelled`)


def labelled(tensor: str, kind: int) -> str:
    """`tensor`'s name as the records of a tile of cost kind `kind` carry it, so that the replay counts each kind's
    misses apart (`KernelAccesses.labelled`)."""
    return f"{tensor}{KIND_MARK}{kind}"


def kind_shares(shares: Mapping[str, MissShares], kind: int) -> dict[str, MissShares]:
    """The miss shares that tiles of cost kind `kind` meet: per tensor, its share as labelled for `kind`, or as
    counted for all kinds where the replay did not label them."""
    own: dict[str, MissShares] = {}
    for name, share in shares.items():
        tensor, mark, label = name.partition(KIND_MARK)
        if not mark:
            own.setdefault(tensor, share)
        elif int(label) == kind:
            own[tensor] = share
    return own


def writes(kind: int) -> bool:
    """Whether an access of `kind` (a `Record`'s) writes its key: a store or an atomic, first or later."""
    return (kind if kind < _AGAIN else kind - _AGAIN) != _LOAD


@dataclass(frozen=True)
class ReplayBytes:
    hbm_read_bytes: float
    hbm_write_bytes: float
    # What the HBM server was busy with during the run (not the final write-back), in read bytes: the bytes read plus
    # the bytes written times the arch's write cost (`simgpu.units.hbm`).
    hbm_timed_bytes: float
    l2_read_bytes: float
    l2_write_bytes: float
    shares: tuple[dict[str, MissShares], ...]  # per kernel
    evicted: bool  # whether L2 ran out of room: a line was evicted (or kept from the next kernel) or bypassed it
    counts: MissCounts = field(compare=False, repr=False)  # the bytes that `shares` are ratios of
    # Whether the later heads' bytes (`replay`'s `later_heads`) pushed a replayed head's line out of L2 before a later
    # kernel could hit it, or before the run's end.
    pushed: bool = False
    # The walk's state before the kernels that `replay` was asked to keep it for, by kernel.
    states: Mapping[int, ReplayState] = field(default_factory=dict, compare=False, repr=False)
    # The distinct L2 keys walked (with `replay`'s `start`, also those walked before it).
    keys: Collection[MemoryKey] = field(default=(), compare=False, repr=False)

    def vector(self) -> tuple[float, ...]:
        return (
            self.hbm_read_bytes,
            self.hbm_write_bytes,
            self.hbm_timed_bytes,
            self.l2_read_bytes,
            self.l2_write_bytes,
        )


@dataclass(frozen=True)
class MissCounts:
    """The bytes behind a replay's miss shares: per (kernel, tensor, kind of access) the bytes accessed in L2 and
    read from HBM (the misses), per (kernel, tensor) the dirty bytes its accesses wrote back."""

    accessed: Mapping[_Key, float]
    read: Mapping[_Key, float]
    written: Mapping[tuple[int, str], float]


def extrapolated_shares(
    smaller: ReplayBytes, larger: ReplayBytes, covered: tuple[float, float]
) -> tuple[dict[str, MissShares], ...]:
    """The miss shares of the whole that two prefix replays stand for (`covered`: the share of the whole each
    replayed, the smaller first): every byte count behind the shares extrapolated linearly to share 1, as the
    replays' bytes are (`simgpu.fast_bytes`). The larger prefix's own shares weigh its first touches and its start
    (what the kernel before left it in L2) as much more than the whole does as the whole is larger
    (`docs/results/prefix_46/shares_quarter_h100.txt`: standard attention's forward on the H100 at 16k tokens, a
    quarter of its score tiles replayed, missed 1/32 of K's loads there, the whole head and the extrapolation 1/128).
    Each share is held to its range, a share of bytes missed to 0..1 and the bytes written back per byte accessed
    to 0 or more: counts that are not linear in the prefixes (write-backs that start once a kernel's stores pass
    L2's dirty capacity) can extrapolate past them."""
    small, large = smaller.counts, larger.counts
    step = (1.0 - covered[1]) / (covered[1] - covered[0])

    def line(mapping_small: Mapping[Any, float], mapping_large: Mapping[Any, float]) -> dict[Any, float]:
        return {key: value + step * (value - mapping_small.get(key, 0.0)) for key, value in mapping_large.items()}

    whole = MissCounts(
        line(small.accessed, large.accessed), line(small.read, large.read), line(small.written, large.written)
    )
    shares = _shares(whole, len(larger.shares))
    for by_tensor in shares:
        for tensor, share in by_tensor.items():
            by_tensor[tensor] = MissShares(
                _share(share.load),
                _share(share.store),
                _share(share.atomic),
                _share(share.load_again),
                _share(share.store_again),
                _share(share.atomic_again),
                max(0.0, share.written),
                share.seen,
            )
    return shares


def _share(value: float) -> float:
    """`value` held to 0..1."""
    return min(1.0, max(0.0, value))


# An access's L2 key: (tensor, tile). Typed as any hashable rather than as a pair: compiled (mypyc), a value typed
# as a tuple of known length is unpacked into its items, and a new tuple built (and hashed anew) wherever it is used
# whole, which the walk does at every L2 lookup (`_tile` reads its tile).
MemoryKey = Hashable
# One access as the replay walks it: kind, tensor, L2 key, bytes.
Record = tuple[int, str, MemoryKey, int | float]


def records(ops: Sequence[Load | Store]) -> tuple[Record, ...]:
    """The replay's records of a tile's memory ops (in `simgpu.fold.memory_order`). An access to a key that the
    tile accessed before has its kind raised by `_AGAIN` (its miss share is counted apart)."""
    made = program_records(ops)
    assert made is not None  # (memory ops only: no loop)
    return made


_FEW_KEYS: Final = 8  # the distinct keys of a tile that `program_records` keeps in a list


def program_records(program: Sequence[Op]) -> tuple[Record, ...] | None:
    """`records` of the memory ops of one role's program (its `simgpu.fold.memory_accesses`), found in the same pass
    over its ops; None where it holds a loop. (The L2 replay takes standard attention's 20,480 loop-free tiles of a
    head at 16k tokens so: apart, the pass that finds the memory ops and the one that makes their records cost a
    third of the replay's folds.)"""
    # A tile's first keys are kept in a list, which finds a key as a dict does (the same object, else an equal one:
    # equal keys hash alike); past `_FEW_KEYS` they go to a dict. (Standard attention's score tiles have three keys:
    # making a set and hashing the nested keys into it cost a sixth of their records.) A key accessed again takes the
    # object of its first access: the walk then finds it by identity in its numbers, where an equal new tuple was
    # compared item by item (and the tile's records hold a key object per key, not per access).
    keys: list[MemoryKey] = []
    seen: dict[MemoryKey, MemoryKey] | None = None
    out: list[Record] = []
    access: Any  # a `Load` or a `Store` (typed so: compiled, a union is checked at each assignment)
    for access in program:
        # Each op read as its own class (compiled, a native read of its fields, where read as `Any` each field was
        # looked up by name).
        kind = type(access)
        if kind is Load:
            load = cast(Load, access)
            action = _LOAD
            tensor, tile, nbytes = load.tensor, load.tile, load.nbytes
        elif kind is Store:
            store = cast(Store, access)
            action = _ATOMIC if store.atomic else _STORE
            tensor, tile, nbytes = store.tensor, store.tile, store.nbytes
        elif kind is Repeat:
            return None
        else:
            continue
        # Typed as a `MemoryKey`: compiled, a pair would be built anew for the dict and for the record.
        key: MemoryKey = (tensor, tile)
        if seen is None and len(keys) == _FEW_KEYS:
            seen = {each: each for each in keys}
        if seen is None:
            # Told by `in` (a new key costs no more than before), then found (an access again only).
            if key in keys:
                action += _AGAIN
                key = _first_equal(keys, key)
            else:
                keys.append(key)
        else:
            # Added, then told new by the dict's growth: the nested key is hashed once, not twice.
            before = len(seen)
            first = seen.setdefault(key, key)
            if len(seen) == before:
                action += _AGAIN
                key = first
        out.append((action, tensor, key, nbytes))
    return tuple(out)


def _first_equal(keys: list[MemoryKey], key: MemoryKey) -> MemoryKey:
    """The first of `keys` equal to `key` (as `in` finds it: the same object, else an equal one); one is."""
    for each in keys:
        if each is key or each == key:
            return each
    raise AssertionError("no key equal to the one found")


def rehead(
    tile_records: Sequence[Record], axes: int, source: tuple[object, ...], head: tuple[object, ...]
) -> tuple[Record, ...] | None:
    """A tile's records for the same tile of another head: every tile key, a tuple that begins with the `axes`
    entries `source`, begins with `head` instead (a kernel's `head_axes` select memory only, and every schedule
    keys its tiles so). None when a key does not begin so: the caller folds that tile itself."""
    template = head_template(tile_records, axes, source)
    return None if template is None else reheaded(template, head)


# Records with the keys' head left out.
HeadTemplate = tuple[tuple[int, str, "tuple[object, ...] | _PieceRest", int | float], ...]
# Pieces' wholes with the head left out (`head_template`), by the head and the wholes (None: not all begin with it).
Cuts = dict[tuple[tuple[object, ...], tuple[Hashable, ...]], "tuple[tuple[object, ...], ...] | None"]
# Pieces' wholes with a head put back (`reheaded`), by the identity of their cut tuple (`_PieceRest.wholes`).
Joined = dict[int, HashedKeys]


def head_template(
    tile_records: Sequence[Record],
    axes: int,
    source: tuple[object, ...],
    cuts: Cuts | None = None,
) -> HeadTemplate | None:
    """The records with the head (`source`, the first `axes` entries of every tile key) left out, for `reheaded`;
    None when a key does not begin with `source`. `cuts`: the pieces' wholes cut so far, shared by the templates of
    a kernel (by default, this template's own)."""
    out: list[tuple[int, str, tuple[object, ...] | _PieceRest, int | float]] = []
    # Pieces of one row block share a tuple of wholes (hundreds of keys): each is cut once, found by its identity
    # (the records hold it meanwhile) or else by its keys, and the pieces' rests share the cut tuple.
    if cuts is None:
        cuts = {}
    by_identity: dict[int, tuple[tuple[object, ...], ...] | None] = {}
    for kind, tensor, memory, nbytes in tile_records:
        tile = _tile(memory)
        if type(tile) is tuple:
            if tile[:axes] != source:
                return None
            out.append((kind, tensor, tile[axes:], nbytes))
            continue
        if type(tile) is not Piece:
            return None
        name = tile.name
        if type(name) is not tuple or name[:axes] != source:
            return None
        if id(tile.wholes) not in by_identity:
            if (source, tile.wholes) not in cuts:
                cuts[source, tile.wholes] = _without_head(tile.wholes, axes, source)
            by_identity[id(tile.wholes)] = cuts[source, tile.wholes]
        wholes = by_identity[id(tile.wholes)]
        if wholes is None:
            return None
        out.append((kind, tensor, _PieceRest(name[axes:], wholes), nbytes))
    return tuple(out)


def keys_of_head(
    tile_records: Sequence[Record], axes: int, source: tuple[object, ...], wholes_of_head: dict[int, bool]
) -> bool:
    """Whether `head_template` makes a template of the records (every tile key begins with the head `source`), told
    without making it. `wholes_of_head`: per tuple of pieces' wholes, by identity, whether every one begins so (the
    calls that share it keep the records alive meanwhile, so that an identity stays theirs)."""
    for record in cast(Sequence[tuple[object, ...]], tile_records):  # (a record's key alone read)
        if not _key_of_head(record[2], axes, source, wholes_of_head):
            return False
    return True


def memory_of_head(keys: Iterable[MemoryKey], axes: int, source: tuple[object, ...]) -> bool:
    """Whether every one of the L2 keys `keys` is of the head `source`, as `keys_of_head` tells it of a record's.
    (Fast mode asks it of a replay's distinct keys, `ReplayBytes.keys`: a few per tile, where its records are
    several, each a key to read again.)"""
    wholes_of_head: dict[int, bool] = {}  # (the keys, and so their pieces' wholes, live meanwhile)
    return all(_key_of_head(memory, axes, source, wholes_of_head) for memory in keys)


def _key_of_head(memory: MemoryKey, axes: int, source: tuple[object, ...], wholes_of_head: dict[int, bool]) -> bool:
    """Whether the tile of the L2 key `memory` begins with the head `source` (a piece: its name and every one of its
    wholes; `wholes_of_head` as `keys_of_head` keeps it)."""
    tile = _tile(memory)
    if type(tile) is tuple:
        return _begins_with(tile, axes, source)
    if type(tile) is not Piece:
        return False
    name = tile.name
    if type(name) is not tuple or name[:axes] != source:
        return False
    known = wholes_of_head.get(id(tile.wholes))
    if known is None:
        # As `_without_head` tells it, without cutting the keys (standard attention's softmax at 16k tokens: 128
        # wholes per row block of S).
        known = wholes_of_head[id(tile.wholes)] = all(
            type(whole) is tuple and _begins_with(whole, axes, source) for whole in tile.wholes
        )
    return known


def _begins_with(key: tuple[object, ...], axes: int, source: tuple[object, ...]) -> bool:
    """Whether `key[:axes] == source`, told without slicing `key` (the L2 replay asks it of every access of a head's
    tiles, `simgpu.fast_bytes`)."""
    if min(len(key), axes) != len(source):
        return False
    for number, entry in enumerate(source):
        other = key[number]
        if not (other is entry or other == entry):  # (as a tuple compares its items)
            return False
    return True


def _without_head(
    keys: tuple[Hashable, ...], axes: int, source: tuple[object, ...]
) -> tuple[tuple[object, ...], ...] | None:
    """`keys` with the head `source` (their first `axes` entries) left out; None unless every one begins so."""
    rests = tuple([key[axes:] for key in keys if type(key) is tuple and key[:axes] == source])
    return rests if len(rests) == len(keys) else None


@dataclass(frozen=True, slots=True)
class _PieceRest:
    """A `Piece` in a `HeadTemplate`: its name's and its wholes' keys with the head left out (pieces of one row block
    share `wholes`)."""

    name: tuple[object, ...]
    wholes: tuple[tuple[object, ...], ...]


class EntryTable:
    """The template entries of plain keys of a kernel's heads copied (`HeadCopies`), each numbered once by its value
    (`numbered`), and their keys likewise: the copies of a head then share one record per entry and one key per
    key, as the key blocks of a head read the same Q blocks, and the walk meets a few thousand distinct keys and
    records in memory where it met one per access (the replay reads records, never their identity, and finds keys
    by hash and ==; an equal key found by its identity skips comparing the nested tuples)."""

    __slots__ = ("key_of", "keys", "numbers")

    def __init__(self) -> None:
        # By the size's type and the entry: an int size equals a float one. The numbers are kept boxed (objects):
        # compiled, an int past 256 would be boxed anew at each lookup.
        self.numbers: dict[object, object] = {}
        self.keys: dict[object, object] = {}  # the keys' numbers, by tensor and key without the head
        self.key_of: list[object] = []  # per entry's number, its key's

    def numbered(self, template: HeadTemplate) -> tuple[object, ...]:
        """Per entry of `template`, its number; None for a piece's entry (pieces are copied apart) and a float zero's
        (zeros of either sign are equal). Equal ints are the same value, as are equal floats but zeros."""
        out: list[object] = []
        for kind, tensor, rest, nbytes in template:
            plain = isinstance(rest, tuple) and (type(nbytes) is int or (type(nbytes) is float and nbytes != 0.0))
            if not plain:
                out.append(None)
                continue
            value = (type(nbytes), (kind, tensor, rest, nbytes))
            number = self.numbers.get(value)
            if number is None:
                number = self.numbers[value] = len(self.numbers)
                self.key_of.append(self.keys.setdefault((tensor, rest), len(self.keys)))
            out.append(number)
        return tuple(out)


class HeadCopies:
    """What the copies of one head's tiles share (`reheaded`): the record of each numbered template entry and the
    key of each numbered key (`table`, an `EntryTable`), and the pieces' wholes with the head put back (`Joined`)."""

    __slots__ = ("key_of", "keys", "records", "wholes")

    def __init__(self, table: EntryTable | None = None) -> None:
        self.key_of: list[object] = [] if table is None else table.key_of  # (the table's, as it grows)
        # By number, None where not made yet (a list read by index: a dict by number cost `reheaded` a lookup per
        # record, a third of its time). A record typed as an object: its identity is its own.
        self.records: list[object] = []
        self.keys: dict[object, object] = {}  # by number, likewise
        self.wholes: Joined = {}


def reheaded(
    template: HeadTemplate,
    head: tuple[object, ...],
    made: HeadCopies | None = None,
    numbers: tuple[object, ...] | None = None,
) -> tuple[Record, ...]:
    """A `head_template`'s records with `head` put back in front of every tile key. (A plain key is joined inline,
    a piece in a call: this runs once per record of every head replayed beside the first.) `made`: what the copies
    of this head made so far (as long as the templates, which hold the pieces' rests, live), by default this copy's
    own: the pieces' wholes put back, and with the entries' `numbers` (`EntryTable.numbered`, of `made`'s table)
    the records of the numbered entries and their keys, one per number. (`numbers` a tuple: compiled, an item of a
    `Sequence` was read by a generic lookup, its index boxed anew past 256.)"""
    if made is None:
        made = HeadCopies()
    records = made.records
    if numbers is not None and len(records) < len(made.key_of):
        records.extend([None] * (len(made.key_of) - len(records)))  # (one per number of the table so far)
    out: list[object] = []  # (records typed as objects: compiled, a record kept is not built anew)
    for n in range(len(template)):
        number = None if numbers is None else numbers[n]
        if number is not None:
            record = records[cast(int, number)]
            if record is None:
                record = records[cast(int, number)] = _numbered_record(template[n], head, made, cast(int, number))
            out.append(record)
            continue
        kind, tensor, rest, nbytes = template[n]
        if isinstance(rest, tuple):
            out.append((kind, tensor, (tensor, head + rest), nbytes))
        else:
            out.append((kind, tensor, (tensor, _piece_with_head(rest, head, made.wholes)), nbytes))
    return cast(tuple[Record, ...], tuple(out))


def _numbered_record(
    entry: tuple[int, str, tuple[object, ...] | _PieceRest, int | float],
    head: tuple[object, ...],
    made: HeadCopies,
    number: int,
) -> object:
    """The record of a numbered template entry (a plain key: `EntryTable.numbered`) with `head` put back, its key
    the one the head's copies share for that key's number (`made`)."""
    kind, tensor, rest, nbytes = entry
    key_number = made.key_of[number]
    key = made.keys.get(key_number)
    if key is None:
        # Built as an object, then kept: compiled, a chained assignment would box the tuple twice.
        key = cast(object, (tensor, head + cast(tuple[object, ...], rest)))
        made.keys[key_number] = key
    return cast(object, (kind, tensor, key, nbytes))


def _piece_with_head(rest: _PieceRest, head: tuple[object, ...], joined: Joined) -> Piece:
    wholes = joined.get(id(rest.wholes))
    if wholes is None:
        wholes = joined[id(rest.wholes)] = HashedKeys([head + keys for keys in rest.wholes])
    return Piece(head + rest.name, wholes)


@dataclass(frozen=True, slots=True)
class TileTotals:
    """What the replay sums over a tile's records, known before the walk (`tile_totals`): its bytes per kind and
    tensor in order of first access. A shape's copies for other heads share its totals (`KernelAccesses.totals`)."""

    bytes: tuple[tuple[tuple[int, str], int], ...]  # ((kind, tensor), bytes)


def tile_totals(tile_records: Iterable[Record]) -> TileTotals | None:
    """A tile's `TileTotals`; None unless every size is an int. Summed by tile they leave the replay's totals
    unchanged: sums of ints are exact in any order (well below 2**53)."""
    totals: dict[tuple[int, str], int | float] = {}
    for kind, tensor, _, nbytes in tile_records:
        counted = (kind, tensor)
        totals[counted] = totals.get(counted, 0) + nbytes
    # A size that is not an int leaves a sum that is not one: the replay then sums the records themselves.
    if not all(type(value) is int for value in totals.values()):
        return None
    exact = cast(dict[tuple[int, str], int], totals)  # (every size an int: told just above)
    return TileTotals(tuple(exact.items()))


@dataclass(frozen=True)
class KernelAccesses:
    """One kernel's tiles as the replay sees them: each tile's access records (`records`, in
    `simgpu.fold.memory_order`), how many tiles run at once, and optionally each tile's `TileTotals` (the walk
    then sums from those: a tile has a few kinds and tensors but tens of accesses)."""

    accesses: Sequence[Sequence[Record]]  # per tile
    slots: int
    totals: Sequence[TileTotals] | None = None  # per tile (`tile_totals`); None: summed from the records
    waves: int = 1  # the waves in which the chip runs the kernel (all its tiles, not only those replayed)
    rereads: bool = False  # whether a tile loads a key it loaded before (`_wave_parts`)
    # Whether each record's tensor carries its tile's cost kind (`labelled`), and per kind the first and last wave,
    # after its head's first, in which the chip runs its tiles of a head (`simgpu.fast_plan.KernelPlan.kind_waves`):
    # the walk shares the HBM read of a load that misses with the loads that hit the key in the same wave of the
    # kinds that share a wave with it (`_share_first_touches`).
    labelled: bool = False
    kind_waves: tuple[tuple[int, int], ...] = ()


@dataclass
class ReplayState:
    """A replay's walk between two kernels: L2's contents and what the kernels walked so far moved. A replay can
    start from one (`replay`'s `start`), so that replays that differ only from some kernel on walk the kernels
    before it once (fast mode's fit variants change one kernel's tiles)."""

    lines: Lines = field(default_factory=Lines)  # resident keys, least recently used first, and the dirty ones
    numbers: dict[Hashable, int] = field(default_factory=dict)  # keys are nested tuples: each is numbered once
    owners: list[str] = field(default_factory=list)  # the tensor of each numbered key
    # The tensor of each renamed key (`_rename_oldest`: negative, so not an index of `owners`).
    renamed: dict[int, str] = field(default_factory=dict)
    wholes: dict[int, tuple[int, ...]] = field(default_factory=dict)  # per `Piece` key found whole: its wholes' keys
    # Per kernel walked: its keys (`_Touched`), their bytes.
    touched: list[tuple[_Touched, float]] = field(default_factory=list)
    used: float = 0.0
    hbm_read: float = 0.0
    hbm_write: float = 0.0
    evicted: bool = False
    l2_bytes: defaultdict[_Key, float] = field(default_factory=lambda: defaultdict(float))
    read_bytes: defaultdict[_Key, float] = field(default_factory=lambda: defaultdict(float))  # HBM reads: misses
    written_bytes: defaultdict[tuple[int, str], float] = field(default_factory=lambda: defaultdict(float))
    dirty_used: float = 0.0  # the dirty keys' bytes
    # Keys that stand for the later heads' bytes (`_ballast`): clean, never accessed, negative.
    ballast: set[int] = field(default_factory=set)
    pushed: bool = False  # `ReplayBytes.pushed`

    def copy(self) -> ReplayState:
        """A copy that walks on without changing this one (the keys of `touched` are never changed: shared)."""
        return ReplayState(
            self.lines.copy(),
            dict(self.numbers),
            list(self.owners),
            dict(self.renamed),
            dict(self.wholes),
            list(self.touched),
            self.used,
            self.hbm_read,
            self.hbm_write,
            self.evicted,
            defaultdict(float, self.l2_bytes),
            defaultdict(float, self.read_bytes),
            defaultdict(float, self.written_bytes),
            self.dirty_used,
            set(self.ballast),
            self.pushed,
        )


def replay(
    arch: Arch,
    kernels: Sequence[KernelAccesses],
    capacity_bytes: float | Sequence[float] | None = None,
    carry_bytes: float | None = None,
    later_heads: float | None = None,
    start: tuple[int, ReplayState] | None = None,
    keep: Collection[int] = (),
) -> ReplayBytes:
    """Replay `kernels` in order through an L2 of the arch's capacity (or `capacity_bytes`, one for all kernels or
    one per kernel: a kernel of a smaller one starts with the least recently used lines past it evicted); between two
    kernels at most `carry_bytes` (the most recently used) stay resident. With `later_heads`, the replayed tiles are the
    first heads of a run with that many more heads, launched after them, per replayed head: each kernel's later
    heads touch as many bytes as the replayed ones did, after them, and the arch's L2 keeps the newest; a line
    those would have pushed out stays resident (it stands for theirs: it takes room and is written back when
    evicted) but can no longer be hit, and at the run's end it is written back in the run (`_pushed_out_at_end`);
    at each later kernel's start their bytes take what room the chip's L2 would not have left the replayed heads
    (`_ballast`).
    `start`: (k, the state a replay of the same kernels before k, with the same settings, kept before kernel k): walk
    on from there, kernels k onward. `keep`: the kernels before which to keep the state (`ReplayBytes.states`).

    The L2 is `simgpu.units.l2.L2`'s without its timing, inlined (this walk is fast mode's hottest loop): LRU
    over whole tiles (a `Piece` hitting while its wholes are resident), write-back of dirty tiles on eviction, past
    the dirty capacity (charged to the access that dirtied a tile) and at the end, tiles larger than the capacity
    bypassing it (`tests/core/test_fast_speed.py` holds the two to the same bytes)."""
    if capacity_bytes is None:
        capacity_bytes = arch.l2.capacity_bytes
    capacities = (
        [int(capacity_bytes)] * len(kernels)
        if isinstance(capacity_bytes, (int, float))
        else [int(each) for each in capacity_bytes]
    )
    first, state = (0, ReplayState()) if start is None else (start[0], start[1].copy())
    states: dict[int, ReplayState] = {}
    for number in range(first, len(kernels)):
        if number in keep:
            states[number] = state.copy()
        _walk(arch, state, number, kernels[number], capacities[number], carry_bytes, later_heads)
    if later_heads is not None and first < len(kernels):
        _pushed_out_at_end(arch, state, len(kernels) - 1, later_heads)
    return _totals(state, len(kernels), states, arch.hbm.write_cost_ratio)


def _pushed_out_at_end(arch: Arch, state: ReplayState, number: int, later_heads: float) -> None:
    """The run's end for replayed first heads (`replay`'s `later_heads`): the lines that the later heads' bytes
    of the last kernels would push out of the arch's L2 before the run ends are evicted now, their dirty bytes
    written back during the run. Only the newest, which the chip keeps, are left for the write-back after the run:
    left all, a kernel whose stores overflow L2 on the chip but not in the replayed heads' share (standard
    attention's softmax writing P) had most of its write-backs untimed, times the heads it stands for. The later
    heads' accesses push them out as the replayed heads' accesses pushed lines out in the last kernel: the
    write-backs are shared among its tensors as the ones they made there (as their L2 bytes where they made none),
    so that a store waits for its share and a load does not (not `evicted`: the replayed heads' share of L2 had room
    for them)."""
    lines = state.lines
    state.used -= _drop_ballast(state)
    kept = _newest_kept(lines, state.touched, arch.l2.capacity_bytes, later_heads)
    state.used, state.dirty_used, pushed = _evict_to(lines, state.used, state.dirty_used, kept)
    if not pushed:
        return
    state.pushed = True
    state.hbm_write += pushed
    written = state.written_bytes
    causes = {tensor: nbytes for (n, tensor), nbytes in written.items() if n == number and nbytes}
    if not causes:
        for (n, tensor, _), nbytes in state.l2_bytes.items():
            if n == number:
                causes[tensor] = causes.get(tensor, 0.0) + nbytes
    total = sum(causes.values())
    for tensor, nbytes in causes.items():
        written[number, tensor] += pushed * nbytes / total


def _walk(
    arch: Arch,
    state: ReplayState,
    number: int,
    kernel: KernelAccesses,
    capacity: int,
    carry_bytes: float | None,
    later_heads: float | None,
) -> None:
    """Walk kernel `number` of a replay (`replay`) on from `state`, in place."""
    lines, numbers, owners, wholes = state.lines, state.numbers, state.owners, state.wholes
    touched, l2_bytes, read_bytes, written_bytes = state.touched, state.l2_bytes, state.read_bytes, state.written_bytes
    used, hbm_read, hbm_write, evicted = state.used, state.hbm_read, state.hbm_write, state.evicted
    dirty_used = state.dirty_used
    dirty_capacity = capacity * arch.l2.max_dirty_fraction
    # The capacity as a float, compared with the accesses' sizes as floats (`_as_float`: unboxed, where an int and a
    # float were compared boxed): exact, as sizes and capacities are far below 2**53 bytes, where ints convert to
    # floats exactly.
    room_float = float(capacity)
    named = None
    if later_heads is not None and touched:
        used -= _drop_ballast(state)
        named = _newest_kept(lines, touched, arch.l2.capacity_bytes, later_heads)
    kept = None if carry_bytes is None else max(carry_bytes, named or 0.0)  # a line that the run keeps stays
    kept = capacity if kept is None else min(kept, capacity)
    if number and used > kept:
        # What the run's other tiles would have pushed out while the previous kernel ran, or what this kernel's
        # share of L2 has no room for: its write-backs are that kernel's (on the tensor it accessed; untimed
        # otherwise).
        evicted = True
        previous = {tensor for n, tensor, _ in l2_bytes if n == number - 1}
        while len(lines) and used > kept:
            old, back, dirty_used = _evict_oldest(lines, dirty_used)
            used -= old.nbytes
            hbm_write += back
            owner = _owner(old.key, owners, state.renamed)
            if back and owner in previous:
                written_bytes[number - 1, owner] += back
    if named is not None and used > named:
        evicted = state.pushed = True
        _rename_oldest(lines, used - named, owners, state.renamed)
    if later_heads is not None and touched and arch.l2.capacity_bytes > 0:
        # The chip's L2 holds every head's bytes as the replayed heads' (heads are alike), up to its capacity: the
        # room it has left, in this kernel's share, is the replayed heads' room; the later heads' bytes fill the rest.
        whole = arch.l2.capacity_bytes
        share = capacity / whole
        ballast = capacity - used - share * max(0.0, whole - (1.0 + later_heads) * used)
        # The later heads' bytes of the previous kernel are the newest; the rest, of kernels before, older than the
        # replayed heads' of the previous kernel: taken as the oldest.
        newest = min(ballast, share * later_heads * touched[-1][1])
        used += _ballast(state, newest, newest=True) + _ballast(state, ballast - newest, newest=False)
    _add_l2_bytes(l2_bytes, number, kernel)
    missed = _MissedBytes()
    # For `touched` (with later heads): per key reached, the bytes of its first access; the keys that are pieces
    # (whose wholes a hit touches); and whether a key's accesses differ in size or a size is not an int (then the
    # bytes are summed per access key as they come in the tiles, `_unique_bytes`). Told in the walk, whose keys are
    # numbered: a second pass hashing every access's key cost a quarter of the walk of standard attention's scores.
    track = later_heads is not None
    sizes: dict[int, int | float] = {}
    # The same first sizes by key number (None: not reached yet), read per access: a list read by index, where the
    # dict was looked up.
    first_sizes: list[object] = [None] * len(numbers) if track else []
    pieces: list[MemoryKey] = []
    varied = False
    tiles = kernel.accesses
    rereads = kernel.rereads
    # A re-reading kernel's replayed heads stand for later ones, which the chip runs in steady state: the first
    # wave meets the trailing stores of a wave before it, as later waves do (`_stand_in_stores`).
    stand_in = rereads and later_heads is not None and later_heads > 0 and kernel.waves > 1
    stores: list[object] = []  # a re-reading kernel's trailing stores of the wave walked last (`_wave_parts`)
    ending: list[_Tile] = []  # another kernel's: per slot, its tile's trailing stores (`_handover`)
    labelled = kernel.labelled
    # Per key missed by a first load in the wave walked: [its bytes read, the missing load's tensor, the tensors of
    # the wave's first loads that hit it after] (`labelled` only).
    first_touches: dict[Any, list[Any]] = {}
    # The walk goes one wave past the last, whose first round is empty: the last wave's trailing stores.
    for start in range(0, len(tiles) + kernel.slots, kernel.slots):
        if first_touches:
            _share_first_touches(first_touches, missed, kernel.kind_waves)
            first_touches = {}
        wave = _tuples(tiles[start : start + kernel.slots])
        if rereads:
            first_round, rest, tails = _wave_parts(wave)
            parts: tuple[list[object], ...] = (first_round, stores, rest)
            stores = tails
        else:
            handover, rest, ending = _handover(ending, wave)
            parts = (handover, rest)
        segments = cast(tuple[list[Record], ...], parts)  # (records all)
        for step, segment in enumerate(segments):
            if step == 1 and stand_in and not start and tails:
                used, dirty_used, written = _stand_in_stores(
                    state, cast(list[Record], rest), cast(list[Record], tails), missed, used, dirty_used, capacity
                )
                if written:
                    evicted = True
                    hbm_write += written
            # The access walked last, and whether it left its key the newest line (and, a write, the newest dirty
            # line): then a twin of it (the same key, kind and size object), which the CTAs of a wave that read one
            # key in step issue one after another, hits and changes nothing (moving the newest line to the end
            # keeps the order). Half to nine tenths of v2-v4's replayed accesses are such twins at 16k tokens and
            # longer (`docs/results/twins_58/twins.txt`).
            key: Any = None
            last: Any = None
            last_kind = -1
            last_nbytes: Any = None
            at_end = False
            for kind, tensor, memory, nbytes in segment:
                if at_end and memory is last and kind == last_kind and nbytes is last_nbytes:
                    if labelled and kind == _LOAD:
                        touch = first_touches.get(key)
                        if touch is not None:
                            touch[2].append(tensor)
                    continue
                last, last_kind, last_nbytes, at_end = memory, kind, nbytes, False
                # Keys are nested tuples, slow to hash again and again: each is numbered once. The number stays boxed
                # (`Any`): compiled, an int is unboxed, and boxed anew (allocated, past 256) at each lookup below.
                key = numbers.get(memory)
                if key is None:
                    key = numbers[memory] = len(numbers)
                    owners.append(tensor)
                    first_sizes.append(None)
                if track:
                    size = first_sizes[cast(int, key)]
                    if size is None:
                        first_sizes[cast(int, key)] = nbytes
                        sizes[key] = nbytes
                        if type(_tile(memory)) is Piece:
                            pieces.append(memory)
                    elif not varied and size is not nbytes and size != nbytes:
                        # (Told apart by identity first: a size that is the same object is the same int, or else a
                        # float, which makes `varied` below.)
                        varied = True
                    if type(nbytes) is not int:
                        varied = True
                action = kind if kind < _AGAIN else kind - _AGAIN
                written = 0.0
                line = lines.get(key)
                if line is not None and (action != _STORE or _as_float(nbytes) <= room_float):  # (too large: bypasses)
                    lines.use(line)
                    if action == _LOAD:
                        at_end = True
                        if labelled and kind == _LOAD:
                            touch = first_touches.get(key)
                            if touch is not None:
                                touch[2].append(tensor)
                        continue
                    if line.dirty:
                        lines.use_dirty(line)
                        at_end = True
                        continue
                    dirty_used, written = _dirtied(line, lines, dirty_used, dirty_capacity)
                    if not written:
                        continue
                    read = 0.0
                elif action == _LOAD and type(_tile(memory)) is Piece and _covered(memory, key, lines, numbers, wholes):
                    continue
                else:
                    # A miss: a load or an atomic reads the tile from HBM; a store allocates it without a read. The
                    # size as a float once (what adding it to the float `used` converts it to): compiled, `used +
                    # nbytes` would box `used` and the sum at every step of the eviction loop.
                    added = _as_float(nbytes)
                    read = 0.0 if action == _STORE else added
                    if added > room_float:
                        evicted = True  # bypasses L2: a store or an atomic is written through
                        if action != _LOAD:
                            written = added
                    else:
                        spare: Line | None = None  # the line evicted last, which the new one takes
                        if used + added > room_float:
                            evicted = True
                            while used + added > room_float:
                                spare, back, dirty_used = _evict_oldest(lines, dirty_used)
                                used -= spare.nbytes
                                written += back
                        line = lines.add(key, added, spare)
                        used += added
                        at_end = action == _LOAD
                        if action != _LOAD:
                            dirty_used, cleaned = _dirtied(line, lines, dirty_used, dirty_capacity)
                            written += cleaned
                if read != 0.0 or written != 0.0:  # (compared, not tested for truth: compiled, that boxes them)
                    if labelled and kind == _LOAD:
                        first_touches[key] = [read, tensor, []]
                    counted = missed.of(kind, tensor)
                    counted.read += read
                    counted.written += written
                    hbm_read += read
                    hbm_write += written
    if first_touches:
        _share_first_touches(first_touches, missed, kernel.kind_waves)
    for (kind, tensor), counted in missed.order.items():
        read_bytes[number, tensor, kind] += counted.read
        written_bytes[number, tensor] += counted.written
    if track:
        # Each key's bytes, summed: where every access to a key is of one size, an int, the sum is exact in any order.
        unique_bytes = _unique_bytes(kernel) if varied else sum(sizes.values())
        touched.append((_Touched(sizes, pieces, numbers, wholes), unique_bytes))
    state.used, state.hbm_read, state.hbm_write, state.evicted = used, hbm_read, hbm_write, evicted
    state.dirty_used = dirty_used


def _share_first_touches(
    first_touches: dict[Any, list[Any]], missed: _MissedBytes, kind_waves: Sequence[tuple[int, int]]
) -> None:
    """A wave's first loads of one key by tiles of kinds that the chip runs in a common wave of their heads
    (`kind_waves`), the one that missed and the ones that hit after it, share its HBM read equally (`missed`, per
    tensor as labelled): on the chip the later loads wait for the line that the first one requested (in exact mode
    they queue behind it at the L2), so which of them the replay's interleaving walked first does not decide which
    kind is charged the miss. The loads of a kind the chip starts later hit on their own: the first touch was its
    head's earlier tiles'."""
    for read, tensor, hits in first_touches.values():
        first, last = kind_waves[_label_kind(tensor)]
        sharers = []
        for other in hits:
            other_first, other_last = kind_waves[_label_kind(other)]
            if other_first <= last and first <= other_last:
                sharers.append(other)
        if not sharers:
            continue
        part = read / (1 + len(sharers))
        missed.of(_LOAD, tensor).read -= read - part
        for other in sharers:
            missed.of(_LOAD, other).read += part


def _label_kind(name: str) -> int:
    """The cost kind a labelled tensor name carries (`labelled`)."""
    return int(name.rpartition(KIND_MARK)[2])


class _Missed:
    """The HBM bytes read and written by the misses of one kind of access to one tensor in a kernel's walk. (Compiled,
    a native attribute adds an unboxed float in place, where a list's item was boxed anew at each addition.)"""

    __slots__ = ("read", "written")

    def __init__(self) -> None:
        self.read = 0.0
        self.written = 0.0


class _Sum:
    """A float sum added to in place (compiled, a native attribute: unboxed)."""

    __slots__ = ("value",)

    def __init__(self) -> None:
        self.value = 0.0


class _MissedBytes:
    """A kernel's walk's `_Missed` per kind and tensor, in the order first missed (`order`), found by kind, then by
    tensor (`of`): a string caches its hash, where a (kind, tensor) key was a tuple built and hashed per miss."""

    __slots__ = ("by_kind", "order")

    def __init__(self) -> None:
        self.by_kind: list[dict[str, _Missed]] = [{} for _ in range(2 * _AGAIN)]
        self.order: dict[tuple[int, str], _Missed] = {}

    def of(self, kind: int, tensor: str) -> _Missed:
        """The bytes of `kind`'s misses on `tensor`, zero where new."""
        by_tensor = self.by_kind[kind]
        counted = by_tensor.get(tensor)
        if counted is None:
            counted = by_tensor[tensor] = _Missed()
            self.order[kind, tensor] = counted
        return counted


def _as_float(nbytes: int | float) -> float:
    """`float(nbytes)`. (Compiled, an int is converted unboxed, where `float` of a union was a call of the float
    type that made a float object.)"""
    if isinstance(nbytes, int):
        return float(nbytes)
    return nbytes


def _handover(ending: Sequence[Sequence[object]], wave: _Wave) -> tuple[list[object], list[object], list[_Tile]]:
    """A wave of a kernel that re-reads nothing, in the order the replay walks it: the hand-over from the wave
    before (per slot, its tile's trailing stores, `ending`, then the first access of the tile that takes the slot
    next), the rest of the wave's accesses but its trailing stores, one access from each tile in turn, as CTAs that
    start together and run the same program issue them; and its trailing stores per slot, for the next hand-over.
    On the chip, and in exact mode, a slot's next CTA starts as its previous one issues its last stores, so a
    wave's stores and the next wave's first loads come slot by slot: walked as a block before those loads (in
    lockstep), the stores of one wave evicted the lines the next wave was about to read (our standard softmax over
    an S that about fills L2, whole A100: S and P reads from HBM 19.4 and 12.9 MB where exact mode reads 11.5 and
    6.0; slot by slot the replay's are exact mode's)."""
    cuts = _bodies(wave, True)
    slots = len(wave)
    handover: list[object] = []
    for slot in range(max(len(ending), slots)):
        if slot < len(ending):
            handover.extend(ending[slot])
        if slot < slots and cuts[slot]:
            handover.append(wave[slot][0])
    return handover, _later_rounds(wave, cuts), [wave[slot][cuts[slot] :] for slot in range(slots)]


# A wave's tiles, their records typed as objects in the functions that cut it into the parts the walk takes in turn
# (`_handover`, `_wave_parts`): compiled, a record typed as one is unpacked into its items where it is read, and
# built anew where it is put in a list.
# Typed as tuples in a list (the walk makes them so, `_tuples`), so that compiled, reading a record by index is not a
# call by name.
_Tile = tuple[object, ...]
_Wave = list[_Tile]


def _tuples(tiles: Sequence[Sequence[object]]) -> _Wave:
    """The tiles as tuples (a tuple as itself)."""
    return [tuple(tile) for tile in tiles]


def _bodies(wave: _Wave, atomics: bool) -> list[int]:
    """Per tile of `wave`, how many accesses it has before its trailing stores (and atomics, with `atomics`), first
    or later alike. (A wave's parts are taken by index: slicing each tile into its body and its tail, and zipping the
    bodies, built tuples per tile and per round that the walk then dropped.)"""
    cuts: list[int] = []
    for tile in wave:
        cut = len(tile)
        while cut:
            action = cast(int, cast(tuple[object, ...], tile[cut - 1])[0]) % _AGAIN
            if action == _LOAD or (action == _ATOMIC and not atomics):
                break
            cut -= 1
        cuts.append(cut)
    return cuts


def _later_rounds(wave: _Wave, cuts: list[int]) -> list[object]:
    """The accesses of the wave's tiles' bodies (each tile's first `cuts`) past their first, one access from each tile
    in turn."""
    rest: list[object] = []
    longest = max(cuts) if cuts else 0
    for position in range(1, longest):
        for slot in range(len(wave)):
            if position < cuts[slot]:
                rest.append(wave[slot][position])
    return rest


def _wave_parts(wave: _Wave) -> tuple[list[object], list[object], list[object]]:
    """A re-reading kernel's wave (`KernelAccesses.rereads`) in the order the replay walks it: its first round of
    accesses, the rest, and its trailing stores (those after a tile's last load), which the replay walks with the
    next wave, after that wave's first round. One access from each tile in turn, as CTAs that start together and
    run the same program issue them; but on the chip a slot's next CTA starts as its previous one issues its last
    stores, and a load that waits at a saturated HBM waits while the loads of every in-flight CTA issued before it
    are served: the CTAs that finish meanwhile write their stores into L2 in that time. Walked in lockstep, the
    softmax's second read of a row it waited for came after the wave's other first reads only (the in-flight rows
    once), and its second pass over S went on hitting up to twice the N at which it stops hitting on the H200 with
    16, 8 and 4 CTAs per SM (`validation/h200/softmax_occupancy/`). Kernels that re-read nothing hand each slot over
    as its tile ends (`_handover`)."""
    cuts = _bodies(wave, False)
    slots = len(wave)
    first_round = [wave[slot][0] for slot in range(slots) if cuts[slot]]
    tails: list[object] = []
    longest = max([len(wave[slot]) - cuts[slot] for slot in range(slots)]) if wave else 0
    for position in range(longest):
        for slot in range(slots):
            if cuts[slot] + position < len(wave[slot]):
                tails.append(wave[slot][cuts[slot] + position])
    return first_round, _later_rounds(wave, cuts), tails


def _stand_in_stores(
    state: ReplayState,
    rest: Sequence[Record],
    tails: Sequence[Record],
    missed: _MissedBytes,
    used: float,
    dirty_used: float,
    capacity: float,
) -> tuple[float, float, float]:
    """The trailing stores of the wave before a re-reading kernel's first (`_wave_parts`), where the replayed heads
    stand for later ones: clean lines of the bytes of the first wave's own trailing stores `tails`, at the newest
    end of L2 (`_ballast`, dropped at the next kernel's start), after the wave's first round. The oldest lines past
    `capacity` are evicted; their write-backs are charged (in `missed`, by kind and tensor) to the wave's accesses
    that would otherwise have evicted them, its `rest` and `tails`, by their bytes: charged to the stores alone,
    standard attention's P V on the A100 at 16k tokens waited for the softmax's dirty P at its O stores and took
    25% longer than in exact mode. Returns the bytes used, the dirty bytes used and the bytes written back."""
    used += _ballast(state, sum([record[3] for record in tails]), newest=True)
    used, dirty_used, written = _evict_to(state.lines, used, dirty_used, capacity)
    if written:
        weights: dict[tuple[int, str], float] = {}
        for kind, tensor, _, nbytes in chain(rest, tails):
            weights[kind, tensor] = weights.get((kind, tensor), 0.0) + nbytes
        whole = sum(weights.values())
        for (kind, tensor), nbytes in weights.items():
            missed.of(kind, tensor).written += written * nbytes / whole
    return used, dirty_used, written


def _evict_to(lines: Lines, used: float, dirty_used: float, limit: float) -> tuple[float, float, float]:
    """Evict the least recently used keys until at most `limit` bytes are used: the bytes used, the dirty bytes used
    and the bytes written back."""
    written = 0.0
    while len(lines) and used > limit:
        old, back, dirty_used = _evict_oldest(lines, dirty_used)
        used -= old.nbytes
        written += back
    return used, dirty_used, written


def _dirtied(line: Line, lines: Lines, dirty_used: float, capacity: float) -> tuple[float, float]:
    """The L2 model's dirty-capacity rule (`simgpu.units.l2.L2._dirty`; over ordered dictionaries as
    `tests/core/l2_reference.dirtied` states it) for resident `line`, which a write dirties (a line already dirty
    keeps its place), its tiles to write back summed as `sum(cleaned, 0.0)` sums them (from 0.0, oldest first): the
    dirty bytes left and the bytes written back. (Built as a list and summed, they cost the walk of v1's forward an
    eighth of its time.)"""
    if not line.dirty:
        lines.mark_dirty(line)
    dirty_used += line.nbytes
    cleaned = 0.0
    while dirty_used > capacity:
        old_bytes = lines.clean_oldest().nbytes
        dirty_used -= old_bytes
        cleaned += old_bytes
    return dirty_used, cleaned


def _evict_oldest(lines: Lines, dirty_used: float) -> tuple[Line, float, float]:
    """Evict the least recently used line: it (out of `lines`: the insertion that made room takes it for its own,
    `Lines.add`), the bytes written back (its own where it was dirty) and the dirty bytes left."""
    line = lines.pop_oldest()
    if not line.dirty:
        return line, 0.0, dirty_used
    return line, line.nbytes, dirty_used - line.nbytes


def _add_l2_bytes(l2_bytes: defaultdict[_Key, float], number: int, kernel: KernelAccesses) -> None:
    """Add kernel `number`'s L2 bytes per tensor and kind (they do not depend on what hits), in order of first
    access, from the tiles' `TileTotals` where the kernel has them."""
    if kernel.totals is None:
        # Summed per kind in a dict by tensor (a string, its hash cached) rather than by a new tuple per access: each
        # sum takes its accesses in the same order, from the same zero, so the floats are the same. Each sum is a
        # `_Sum`, added to unboxed (a float kept in the dict was boxed anew at each addition), and each size taken
        # as a float as adding it to a float does (`_as_float`).
        by_kind: list[dict[str, _Sum]] = [{} for _ in range(2 * _AGAIN)]
        first_seen: list[tuple[int, str]] = []
        for tile in kernel.accesses:
            for kind, tensor, _, nbytes in tile:
                sums = by_kind[kind]
                so_far = sums.get(tensor)
                if so_far is None:
                    so_far = sums[tensor] = _Sum()
                    first_seen.append((kind, tensor))
                so_far.value += _as_float(nbytes)
        for kind, tensor in first_seen:
            l2_bytes[number, tensor, kind] += by_kind[kind][tensor].value
        return
    # Copies of a tile share its totals object (`simgpu.tile_copies`, head copies): each is summed once, times its
    # tiles, in the order first met (a key then comes first where it came first tile by tile), rather than the
    # dictionary by (kind, tensor) updated per tile and key (v2's forward at 128k tokens: 1,024 tiles of 5 keys, 10
    # totals objects).
    tiles_of: dict[int, int] = {}
    distinct: list[TileTotals] = []
    for totals in kernel.totals:
        seen = tiles_of.get(id(totals))
        if seen is None:
            tiles_of[id(totals)] = 1
            distinct.append(totals)
        else:
            tiles_of[id(totals)] = seen + 1
    summed: dict[tuple[int, str], int] = {}
    for totals in distinct:
        count = tiles_of[id(totals)]
        for key, nbytes in totals.bytes:
            summed[key] = summed.get(key, 0) + count * nbytes
    for (kind, tensor), nbytes in summed.items():
        l2_bytes[number, tensor, kind] += nbytes


def _unique_bytes(kernel: KernelAccesses) -> int | float:
    """The bytes of the kernel's distinct access keys, each as its last access in the tiles' order has them, summed
    in the order the keys first come."""
    unique = {memory: nbytes for tile in kernel.accesses for _, _, memory, nbytes in tile}
    return sum(unique.values())


def _totals(state: ReplayState, kernels: int, states: Mapping[int, ReplayState], write_cost: float) -> ReplayBytes:
    """The bytes and miss shares of a replay of `kernels` kernels walked to `state` (`write_cost`: of a written HBM
    byte, in read bytes)."""
    l2_bytes, read_bytes, written_bytes, lines = state.l2_bytes, state.read_bytes, state.written_bytes, state.lines
    l2_read = l2_write = 0.0
    for (_, _, kind), accessed in l2_bytes.items():
        action = kind if kind < _AGAIN else kind - _AGAIN
        if action != _STORE:
            l2_read += accessed
        if action != _LOAD:
            l2_write += accessed
    timed = state.hbm_read + write_cost * state.hbm_write
    # The final write-back: after the run, untimed.
    hbm_write = state.hbm_write + sum([line.nbytes for line in lines.dirty_lines()])
    counts = MissCounts(l2_bytes, read_bytes, written_bytes)
    return ReplayBytes(
        state.hbm_read,
        hbm_write,
        timed,
        l2_read,
        l2_write,
        _shares(counts, kernels),
        state.evicted,
        counts,
        state.pushed,
        states,
        state.numbers,
    )


def _shares(counts: MissCounts, kernels: int) -> tuple[dict[str, MissShares], ...]:
    """Per kernel of `kernels`, the miss shares of each tensor it accessed, from the bytes behind them, and which
    kinds of access the replay saw the tensor make (`MissShares.seen`)."""
    l2_bytes, read_bytes, written_bytes = counts.accessed, counts.read, counts.written
    shares: tuple[dict[str, MissShares], ...] = tuple({} for _ in range(kernels))
    for number, tensor, _ in l2_bytes:
        if tensor not in shares[number]:
            by_kind = [l2_bytes.get((number, tensor, kind), 0.0) for kind in range(6)]
            load, store, atomic, load_again, store_again, atomic_again = (
                read_bytes.get((number, tensor, kind), 0.0) / nbytes if nbytes else 0.0
                for kind, nbytes in enumerate(by_kind)
            )
            accessed = sum(by_kind)
            written = written_bytes.get((number, tensor), 0.0) / accessed if accessed else 0.0
            seen = cast(Seen, tuple(nbytes > 0 for nbytes in by_kind))
            shares[number][tensor] = MissShares(
                load, store, atomic, load_again, store_again, atomic_again, written, seen
            )
    return shares


class _Touched:
    """The keys a kernel's walk touched: those it `reached` (a dict by key, with their first sizes) and the keys of
    the wholes of the `pieces` among them (a hit on a piece touches them), told by `has`. The wholes' keys are looked
    up only once a key is asked that the walk did not reach (`_keys_touched`): `_newest_kept` mostly stops at the
    newest line, which the last kernel reached (standard attention's softmax at 16k tokens: 16,384 whole keys, each a
    nested tuple looked up cold, a sixth of its walk). Looked up late, among the keys numbered by then: only those
    numbered by the kernel's end (`count`: numbers count up) are its, as they would be when looked up at its end. A
    state's copies share it (`ReplayState.copy`): its keys, once looked up, are the same in every copy."""

    __slots__ = ("count", "numbers", "pieces", "reached", "wholes")

    def __init__(
        self,
        reached: dict[int, int | float],
        pieces: list[MemoryKey],
        numbers: dict[Hashable, int],
        wholes: dict[int, tuple[int, ...]],
    ) -> None:
        self.reached = reached
        self.pieces = pieces  # (emptied once their wholes' keys are in `reached`)
        self.numbers = numbers
        self.wholes = wholes
        self.count = len(numbers)

    def has(self, key: int) -> bool:
        """Whether the kernel touched `key`."""
        if key in self.reached:
            return True
        if not self.pieces:
            return False
        _keys_touched(self.reached, self.pieces, self.numbers, self.wholes, self.count)
        self.pieces = []
        return key in self.reached


def _keys_touched(
    reached: dict[int, int | float],
    pieces: Iterable[MemoryKey],
    numbers: dict[Hashable, int],
    wholes: dict[int, tuple[int, ...]],
    count: int,
) -> None:
    """Add to the keys `reached` (a dict by key, to which this adds, in place and with a size of 0, the others: made
    anew as a set, its 65,000 keys cost standard attention's walk at 16k tokens more than all its pieces) the keys,
    under `count`, of the wholes of the `pieces` (a hit on a piece touches them); `wholes`: the keys of the wholes of
    pieces found whole (`_covered`). (Typed as dicts: compiled, a `Mapping`'s `get` is a method call by name, which
    cost the walk of standard attention's softmax at 16k tokens a sixth of its time.)"""
    # Pieces of one row block share their wholes (standard attention's softmax: a piece per 4 rows, a whole per
    # key block of the row block): each tuple of wholes is looked up once, and its keys added once. A tuple is
    # found by its identity first (pieces of a tile share one; hashing hundreds of keys per piece cost more than
    # the lookups; the tuples live as long as `memories`, so an identity stays theirs), then by its keys. The keys
    # a piece found whole adds are its wholes' numbers (`wholes`), which are those of any piece of the same wholes
    # (numbers never change): added once too.
    seen: dict[tuple[str, int], None] = {}
    looked_up: set[tuple[str, tuple[Hashable, ...]]] = set()
    for memory in pieces:
        tensor, tile = _tensor(memory), _tile(memory)
        assert isinstance(tile, Piece)
        if (tensor, id(tile.wholes)) in seen:
            continue
        seen[tensor, id(tile.wholes)] = None
        known = wholes.get(numbers[memory])
        if known is not None:
            for key in known:
                if key < count:
                    reached.setdefault(key, 0)
            continue
        if (tensor, tile.wholes) not in looked_up:
            looked_up.add((tensor, tile.wholes))
            for whole in tile.wholes:
                number: Any = numbers.get((tensor, whole))  # (kept boxed, as the walk keeps its keys)
                if number is not None and number < count:  # else never accessed by the kernel's end
                    reached.setdefault(number, 0)


def _newest_kept(lines: Lines, touched: Sequence[tuple[_Touched, float]], capacity_bytes: float, later: float) -> float:
    """How many of the newest resident bytes the run keeps (`replay`'s `later_heads`): a line last accessed in
    kernel k is older than the later heads' bytes of kernels k to the last, `later` times what the replay touched."""
    kernel = len(touched) - 1
    others = later * touched[kernel][1]
    newer = 0.0
    line = lines.last
    while line is not None:
        while kernel > 0 and not touched[kernel][0].has(line.key):
            kernel -= 1
            others += later * touched[kernel][1]
        if newer + line.nbytes + others > capacity_bytes:
            break
        newer += line.nbytes
        line = line.prev
    return newer


BALLAST_PIECES = 64  # lines the later heads' bytes are cut into (`_ballast`), so that they age in steps


def _ballast(state: ReplayState, nbytes: float, newest: bool) -> float:
    """Put `nbytes` standing for the later heads' bytes (`replay`'s `later_heads`) at the `newest` end of L2 (else
    the oldest), in `BALLAST_PIECES` clean lines that no access has; return the bytes put. At a kernel's start the
    heads launched after the replayed ones hold the newest lines (their bytes of the previous kernel): they take room
    from the replayed heads, which evict their own older lines first. Without them, standard attention's softmax on
    an A100 cut to 33 SMs (3 x 2 heads, N = 2048 queries, 1475 keys, d = 96: S is 36 MB of the 40 MB L2) found its
    replayed heads' S in an L2 of its own and read none of it from HBM, where exact mode, with every head's S
    resident and P written beside it, reads 27 MB of it (fast mode's cycles 11.7% under exact mode's, now 2.0%)."""
    if nbytes <= 0:
        return 0.0
    lines = state.lines
    fresh = min(0, *lines.by_key) - 1 if len(lines) else -1
    piece = nbytes / BALLAST_PIECES
    for number in range(BALLAST_PIECES):
        key = fresh - number
        if newest:
            lines.add(key, piece)
        else:
            lines.add_oldest(key, piece)
        state.ballast.add(key)
    return nbytes


def _drop_ballast(state: ReplayState) -> float:
    """Take the lines of `_ballast` out of L2 (the next kernel's start puts its own); return their bytes."""
    dropped = 0.0
    for key in state.ballast:
        line = state.lines.remove(key)
        if line is not None:
            dropped += line.nbytes
    state.ballast.clear()
    return dropped


def _rename_oldest(lines: Lines, nbytes: float, owners: Sequence[str], owner_of_renamed: dict[int, str]) -> None:
    """Give the least recently used lines, at least `nbytes` of them, keys no access has (negative), in place (in
    both orders); each new key's tensor goes to `owner_of_renamed` (a renamed key's own entry moves to its new
    key)."""
    renamed: list[Line] = []
    total = 0.0
    line = lines.first
    while line is not None and total < nbytes:
        renamed.append(line)
        total += line.nbytes
        line = line.next
    fresh = min(0, *lines.by_key) - 1
    for line in reversed(renamed):
        key = line.key
        lines.rename(line, fresh)
        owner_of_renamed[fresh] = _owner(key, owners, owner_of_renamed)
        fresh -= 1


def _owner(key: int, owners: Sequence[str], owner_of_renamed: dict[int, str]) -> str:
    """The tensor of a numbered key, or of a renamed one (negative), whose entry it takes out of `owner_of_renamed`
    (the key is evicted, or renamed again)."""
    return owners[key] if key >= 0 else owner_of_renamed.pop(key)


def _covered(
    memory: MemoryKey,
    key: Any,
    lines: Lines,
    numbers: dict[Hashable, int],
    wholes: dict[int, tuple[int, ...]],
) -> bool:
    """`simgpu.units.l2.L2`'s rule for a load of a `Piece` (numbered `key`): a hit while all its wholes are resident
    (then used). The first whole not resident decides (a piece holds many, and nested keys are slow to hash); the
    keys of a piece found whole are kept in `wholes` (they keep their numbers). The key stays boxed (`Any`), as in
    the walk."""
    known = wholes.get(key)
    if known is None:
        tensor, piece = _tensor(memory), _tile(memory)
        assert isinstance(piece, Piece)
        found = []
        for whole in piece.wholes:
            number = numbers.get((tensor, whole))
            if number is None or lines.get(number) is None:
                return False
            found.append(number)
        known = wholes[key] = tuple(found)
    elif not all(lines.get(whole) is not None for whole in known):
        return False
    for whole in known:
        lines.use(lines.by_key[whole])
    return True


def _tensor(memory: MemoryKey) -> str:
    """The tensor of an L2 key (`MemoryKey`)."""
    return cast(str, cast(tuple[object, ...], memory)[0])


def _tile(memory: MemoryKey) -> object:
    """The tile of an L2 key (`MemoryKey`): a tuple of indices or a `Piece`."""
    return cast(tuple[object, ...], memory)[1]
