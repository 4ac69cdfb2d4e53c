"""Fast mode's L2 replay: the records of a head's tiles made from a template, where they follow one another's.

Nothing here is modelled: it is a shortcut of `simgpu.fast_bytes._head_copies`, checked to give the records a fold
gives. A long head's replay folds each of its tiles from the programs the schedule builds for it (a forward's 1,024
query blocks at 128k tokens), then makes its records. Tiles that fold like one planned shape (`KernelPlan.like`:
programs equal up to their memory keys) make records equal but for their keys, and in a kernel of alike tiles a key
either names the same bytes in every tile (the key blocks a query block reads) or moves with the tile (its own
blocks, at an index that grows with its own). A `RecordTemplate` holds that: learnt from two tiles that differ in one
entry of their grid index, each record's kind, tensor and bytes are the two's, each key is the first tile's where the
two have the same one, and otherwise a (tensor, index) pair whose entries that differ change by a whole multiple of
the tile entry's change (an affine index: block 2t and 2t + 1 of tile t), or a (tensor, piece) pair whose `Piece`
has such a name and either one wholes object in both (standard attention's dV and dK: each k step's piece of the rows
a row-wise kernel wrote) or wholes that move so too, one object per tile (dQ and O = P V: the row groups of the
tile's own query block). A template is used only once it gives the records of further tiles folded as usual
(`RecordTemplate.reproduces`); the caller folds every tile of a group whose template does not. Kernels with loops
to fold are copied (FlashAttention's main kernels, standard attention's long-k GEMMs), and kernels without loops whose
tiles touch only their own keys, none a piece (`RecordTemplate.own_keys`: FlashAttention's backward's row kernels,
whose programs the schedule builds in Python; v2's backward at 128k tokens: -19.0% of a prediction's instructions,
`docs/results/copies_63/steps.txt`). Other tiles without loops are folded: a fold of their few records costs little
more than a copy (copied, standard attention's backward at 16k tokens took +25.8%; its score tiles copied row by row
saved about 1%, `docs/results/session_64/`). Every prediction is bit for bit the same
(`docs/results/tile_copies_50/`); v2's forward at 128k tokens takes 0.46x the CPU time, the FlashAttention passes at
16k-128k 0.46-0.91x; the pieces copied too (fifty-ninth session), standard attention's replay -5.0% of its
instructions over its 16 benchmark cases at 4k-16k tokens (`docs/results/queue_59/`).
"""

from __future__ import annotations

from collections.abc import Hashable, Sequence
from typing import Final, Protocol, cast

from simgpu.keys import HashedKeys
from simgpu.ops import Piece
from simgpu.replay import MemoryKey, Record, TileTotals

_FIXED: Final = -1  # a record whose key is the first tile's in every tile (`RecordTemplate.keys`)


class _Affine:
    """An index tuple whose entry c is `base[c] + slopes[c] * step` (`step`: how far the tile's varying entry lies
    from the first tile's). Kept: `moves`, the (c, slopes[c]) whose slope is not 0, the entries `at` changes."""

    __slots__ = ("base", "moves")

    def __init__(self, base: tuple[object, ...], slopes: tuple[int, ...]) -> None:
        self.base = base
        self.moves = tuple((c, slope) for c, slope in enumerate(slopes) if slope)

    def at(self, step: int) -> tuple[object, ...]:
        entries = list(self.base)
        for c, slope in self.moves:
            entries[c] = cast(int, entries[c]) + slope * step
        return tuple(entries)


class _MovingWholes:
    """The wholes of a tile's pieces where they move with the tile (the row groups of its own query block: standard
    attention's dQ and O = P V), each whole an affine index; made once per copied tile, so that its pieces share one
    object, as a fold's do."""

    __slots__ = ("wholes",)

    def __init__(self, wholes: tuple[_Affine, ...]) -> None:
        self.wholes = wholes

    def at(self, step: int) -> HashedKeys:
        return HashedKeys([whole.at(step) for whole in self.wholes])


class _MovingKey:
    """A key that moves with the tile: `(tensor, index)` with an affine index, or `(tensor, piece)` with a `Piece`
    whose name is the affine index and whose wholes are the first tile's (`wholes`: a k step's part of the rows that
    a row-wise kernel wrote, the same rows for every tile: standard attention's dV and dK) or move with it too (number
    `moving_wholes` of the template's `_MovingWholes`)."""

    __slots__ = ("index", "moving_wholes", "tensor", "wholes")

    def __init__(
        self, tensor: object, index: _Affine, wholes: tuple[Hashable, ...] | None = None, moving_wholes: int = -1
    ) -> None:
        self.tensor = tensor
        self.index = index
        self.wholes = wholes
        self.moving_wholes = moving_wholes

    def at(self, step: int, made_wholes: list[HashedKeys]) -> MemoryKey:
        """The key in the tile `step` entries from the first, whose moving wholes are `made_wholes`."""
        wholes = self.wholes
        if wholes is not None:
            return (self.tensor, Piece(self.index.at(step), wholes))
        if self.moving_wholes >= 0:
            return (self.tensor, Piece(self.index.at(step), made_wholes[self.moving_wholes]))
        return (self.tensor, self.index.at(step))


class RecordTemplate:
    """The records of the tiles of a group (tiles that equal `first` but in entry `axis` of their grid index), made
    for any of them by `records_for`. `records`: the first tile's; `moving[k]` the k-th of its keys that move;
    `keys[r]`: which moving key record r accesses (`_FIXED`: the first tile's own key); `moving_wholes`: the wholes
    of its pieces that move; `own_keys`: whether every key moves and none is a piece."""

    __slots__ = ("axis", "first", "keys", "moved", "moving", "moving_wholes", "own_keys", "records")

    def __init__(
        self,
        first: tuple[object, ...],
        axis: int,
        records: tuple[Record, ...],
        keys: tuple[int, ...],
        moving: tuple[_MovingKey, ...],
        moving_wholes: tuple[_MovingWholes, ...] = (),
    ) -> None:
        self.first = first
        self.axis = axis
        self.records = records
        self.keys = keys
        self.moving = moving
        self.moving_wholes = moving_wholes
        # (record position, moving key number) of the records whose key moves.
        self.moved = tuple((position, number) for position, number in enumerate(keys) if number != _FIXED)
        # Whether every record's key moves with the tile, none of them a piece: the tiles touch no key in common.
        self.own_keys = len(self.moved) == len(keys) and all(
            key.wholes is None and key.moving_wholes < 0 for key in moving
        )

    def step(self, source: Hashable) -> int | None:
        """How far `source` lies from the first tile along the template's axis; None where it differs elsewhere (or
        is not a grid index of the first tile's form)."""
        first = self.first
        if type(source) is not tuple or len(source) != len(first):
            return None
        other = cast(tuple[object, ...], source)
        for number, entry in enumerate(first):
            if number != self.axis and not (entry is other[number] or entry == other[number]):
                return None
        moved, origin = other[self.axis], first[self.axis]
        if type(moved) is not int or type(origin) is not int:
            return None
        return moved - origin

    def records_for(self, step: int) -> tuple[Record, ...]:
        """The records of the tile `step` entries from the first along the axis. A tile's accesses of one key share
        one key object, as a fold's records do; a record whose key is the first tile's is the first tile's record
        (the key blocks a query block reads: most of a forward's records)."""
        made_wholes = [wholes.at(step) for wholes in self.moving_wholes]
        made = [moving.at(step, made_wholes) for moving in self.moving]
        records = self.records
        out = list(records)
        for position, number in self.moved:
            kind, tensor, _, nbytes = records[position]
            out[position] = (kind, tensor, made[number], nbytes)
        return tuple(out)

    def reproduces(self, source: Hashable, tile_records: Sequence[Record]) -> bool:
        """Whether the template gives `tile_records`, the records of the tile `source` folded as usual."""
        step = self.step(source)
        return step is not None and self.records_for(step) == tuple(tile_records)


def learn(
    first: Hashable, first_records: Sequence[Record], second: Hashable, second_records: Sequence[Record]
) -> RecordTemplate | None:
    """The template of the group of two tiles (grid indices `first` and `second`, which differ in one integer entry)
    from their records; None where their records are not alike in kind, tensor and bytes or a key that differs is
    not a moving key (`_moving`: a (tensor, index) or (tensor, piece) pair whose differing entries move by whole
    multiples of the tiles' difference)."""
    if type(first) is not tuple or type(second) is not tuple or len(first_records) != len(second_records):
        return None
    one, two = cast(tuple[object, ...], first), cast(tuple[object, ...], second)
    if len(one) != len(two):
        return None
    differing = [number for number, (a, b) in enumerate(zip(one, two, strict=True)) if a != b]
    if len(differing) != 1:
        return None
    axis = differing[0]
    if type(one[axis]) is not int or type(two[axis]) is not int:
        return None
    apart = cast(int, two[axis]) - cast(int, one[axis])
    keys: list[int] = []
    moving: list[_MovingKey] = []
    numbers: dict[MemoryKey, int] = {}  # the first tile's moving keys, numbered as met
    wholes = _WholesTable(apart)
    for (kind, tensor, key, nbytes), (other_kind, other_tensor, other_key, other_nbytes) in zip(
        first_records, second_records, strict=True
    ):
        if kind != other_kind or tensor != other_tensor or not (nbytes is other_nbytes or nbytes == other_nbytes):
            return None
        if key is other_key or key == other_key:
            keys.append(_FIXED)
            continue
        number = numbers.get(key)
        if number is None:
            made = _moving(key, other_key, apart, wholes)
            if made is None:
                return None
            number = numbers[key] = len(moving)
            moving.append(made)
        keys.append(number)
    return RecordTemplate(one, axis, tuple(first_records), tuple(keys), tuple(moving), tuple(wholes.moving))


class _WholesTable:
    """The moving wholes of a template being learnt (`learn`), each numbered once per pair of wholes objects of the
    two tiles (a tile's pieces share one)."""

    __slots__ = ("apart", "moving", "numbers")

    def __init__(self, apart: int) -> None:
        self.apart = apart
        self.moving: list[_MovingWholes] = []
        self.numbers: dict[tuple[int, int], int] = {}  # by the ids of the two tiles' wholes objects (both kept alive)

    def number(self, first: tuple[Hashable, ...], other: tuple[Hashable, ...]) -> int | None:
        """The number of the moving wholes that are `first` in the first tile and `other` in the second; None where
        they are not alike index tuples whose entries move by whole multiples of the tiles' difference."""
        pair = (id(first), id(other))
        known = self.numbers.get(pair)
        if known is not None:
            return known
        if len(first) != len(other):
            return None
        wholes: list[_Affine] = []
        for whole, other_whole in zip(first, other, strict=True):
            index = _affine(whole, other_whole, self.apart)
            if index is None:
                return None
            wholes.append(index)
        number = self.numbers[pair] = len(self.moving)
        self.moving.append(_MovingWholes(tuple(wholes)))
        return number


def _moving(key: MemoryKey, other: MemoryKey, apart: int, wholes: _WholesTable) -> _MovingKey | None:
    """The moving key of `key` (the first tile's) and `other` (the second tile's, `apart` along the axis); None where
    they are not (tensor, index) pairs of one tensor, where the index is a grid index or a `Piece` with an affine
    name, of the same wholes (the very object: the copies then share it, as the folds do) or of wholes that move
    (`wholes`: made once per copy, shared by its pieces, as a fold's are; made anew for every piece, with loop-free
    tiles copied too, they took standard attention at 4k-16k tokens to 1.13-1.60x the CPU time,
    `docs/results/tile_copies_50/not_kept_piece_copies_fast_ab.txt`)."""
    if type(key) is not tuple or type(other) is not tuple:
        return None
    pair, other_pair = cast(tuple[object, ...], key), cast(tuple[object, ...], other)
    if len(pair) != 2 or len(other_pair) != 2 or pair[0] != other_pair[0]:
        return None
    piece, other_piece = pair[1], other_pair[1]
    if type(piece) is Piece and type(other_piece) is Piece:
        name = _affine(piece.name, other_piece.name, apart)
        if name is None:
            return None
        if piece.wholes is other_piece.wholes:
            return _MovingKey(pair[0], name, piece.wholes)
        number = wholes.number(piece.wholes, other_piece.wholes)
        return None if number is None else _MovingKey(pair[0], name, None, number)
    index = _affine(pair[1], other_pair[1], apart)
    return None if index is None else _MovingKey(pair[0], index)


def _affine(index: object, other: object, apart: int) -> _Affine | None:
    """The affine index of `index` (the first tile's) and `other` (the second's, `apart` along the axis): entries
    that differ are integers that change by a whole multiple of `apart`; None where they are not."""
    if type(index) is not tuple or type(other) is not tuple:
        return None
    entries, other_entries = cast(tuple[object, ...], index), cast(tuple[object, ...], other)
    if len(entries) != len(other_entries):
        return None
    slopes: list[int] = []
    for entry, other_entry in zip(entries, other_entries, strict=True):
        if entry is other_entry or entry == other_entry:
            slopes.append(0)
            continue
        if type(entry) is not int or type(other_entry) is not int:
            return None
        change = other_entry - entry
        if change % apart:
            return None
        slopes.append(change // apart)
    return _Affine(entries, tuple(slopes))


class Folded(Protocol):
    """A tile as the replay takes it: a `FoldedTile`, or a tile without loops (`simgpu.fast_bytes`)."""

    @property
    def records(self) -> tuple[Record, ...]: ...

    @property
    def removed(self) -> tuple[int, ...]: ...

    @property
    def executed(self) -> tuple[int, ...]: ...

    @property
    def totals(self) -> TileTotals | None: ...


class TileGroup:
    """Tiles of one group that a replay folds (`KernelPlan.like`): the grid indices `sources` of four of them and
    their folds (`folded`, folded as usual), and the template learnt from the first two and checked on the last three
    (None where it does not give their records, or where they do not fold alike). Where the replay widens a tile (its
    fit variants: loops it folds, v1's and causal kernels', whose tiles are no copies) it folds a copy anew."""

    __slots__ = ("folded", "sources", "template")

    def __init__(self, sources: Sequence[Hashable], folded: Sequence[Folded]) -> None:
        self.sources = tuple(sources)
        self.folded = tuple(folded)
        self.template = _checked(self.sources, self.folded)

    def copy(self, source: Hashable) -> TileCopy | None:
        """The tile `source` of the group made from the template; None where there is none or `source` is not of the
        group's form (the caller folds it)."""
        template = self.template
        step = None if template is None else template.step(source)
        if template is None or step is None:
            return None
        return TileCopy(step, template, self.folded[0])


def _checked(sources: tuple[Hashable, ...], tiles: Sequence[Folded]) -> RecordTemplate | None:
    """The template learnt from the first two tiles and giving every tile's records but the first's (the second's
    too: a key the first tile accesses twice is learnt at its first access), where all fold alike (the same
    iterations kept and removed); else None."""
    if len(tiles) != len(sources) or len(sources) < 3:
        return None
    first = tiles[0]
    if any(tile.executed != first.executed or tile.removed != first.removed for tile in tiles):
        return None
    template = learn(sources[0], first.records, sources[1], tiles[1].records)
    if template is None:
        return None
    if not all(template.reproduces(source, tile.records) for source, tile in zip(sources[1:], tiles[1:], strict=True)):
        return None
    return template


class TileCopy:
    """A tile of a group made from its template (`TileGroup`), as the replay takes a folded tile: its records, the
    iterations its fold keeps and removes, and its records' totals (`simgpu.replay.TileTotals`), those of the group's
    folds."""

    __slots__ = ("executed", "records", "removed", "totals")

    def __init__(self, step: int, template: RecordTemplate, like: Folded) -> None:
        self.records = template.records_for(step)
        self.removed = like.removed
        self.executed = like.executed
        self.totals = like.totals
