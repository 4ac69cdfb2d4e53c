"""L2: chip-wide capacity with LRU replacement at the granularity of named tiles, write-back, shared bandwidth.

Every load and store passes through L2 (counted as L2 read/write bytes and served at the L2 bandwidth; a store
that writes parts of sectors is served as the sector accesses it makes, `Sm._partial_sector_bytes`). A load of a
tile that is resident is a hit and costs no HBM bytes; a miss reads HBM and inserts the tile. A load of a `Piece`
(a kernel reading, with a grid of its own, part of tiles another kernel wrote) also hits while all the tiles it is
part of are resident. Stores and atomics make the tile resident and dirty; a dirty tile costs HBM write bytes when
it is evicted or when the run ends, or, where the dirty tiles exceed `dirty_capacity_bytes`, when a store makes
them do so: the tiles dirtied longest ago are then written back at once and stay resident, clean. (Measured on the
H200: a kernel that stores 134 MB leaves 28 MB dirty, one that stores 17 MB leaves all of it, and stores that keep
re-dirtying 34 MB that stay resident write back the excess over about 27 MB as they go:
`validation/h200/l2_writeback/`.)
With capacity 0 every access goes to HBM. Ignored: sets/ways and partial hits (a tile is wholly resident or not),
the two-partition structure of Hopper's L2, the per-SM L2 port limit, and that a hit on a tile still being filled
from HBM waits for the fill (0-0.8% of exact mode's cycles where measured: `docs/results/fill_wait_not_kept_29/`).
Tiles larger than the capacity bypass.
"""

from __future__ import annotations

from collections.abc import Hashable

from simgpu.lru_lines import Line, Lines
from simgpu.ops import Piece, TileKey
from simgpu.units.hbm import Hbm
from simgpu.units.server import Server, SpanRecorder


class Access:
    """Outcome of one access: when the data is available and whether it hit. (A plain class with slots, which mypyc
    compiles to a native one: one is built per load and its fields are read once or twice, and a named tuple's fields
    are descriptors looked up by name, its `__new__` a Python function; not a frozen dataclass, whose `__init__`
    costs several times a tuple's.)"""

    __slots__ = ("hit", "ready")

    def __init__(self, ready: float, hit: bool) -> None:
        self.ready = ready
        self.hit = hit


class L2:
    __slots__ = (
        "_by_key",
        "_lines",
        "_spare",
        "capacity_bytes",
        "dirty_bytes",
        "dirty_capacity_bytes",
        "hbm",
        "hit_latency",
        "read_bytes",
        "server",
        "used_bytes",
        "write_bytes",
    )

    def __init__(
        self,
        capacity_bytes: int,
        bytes_per_cycle: float,
        hit_latency_cycles: float,
        hbm: Hbm,
        recorder: SpanRecorder | None = None,
        dirty_capacity_bytes: float | None = None,
    ) -> None:
        """`dirty_capacity_bytes`: the dirty tiles' bytes beyond which a store writes the oldest back (None: all
        of the capacity may be dirty)."""
        self.server = Server("l2", bytes_per_cycle, recorder)
        self.capacity_bytes = capacity_bytes
        self.dirty_capacity_bytes = float(capacity_bytes) if dirty_capacity_bytes is None else dirty_capacity_bytes
        self.hit_latency = hit_latency_cycles
        self.hbm = hbm
        # The resident tiles, least recently used first, and the dirty ones, those dirtied longest ago first (a store
        # to a dirty tile moves it to the end); `_by_key` is their dictionary, read without a call.
        self._lines = Lines()
        self._by_key = self._lines.by_key
        # The line the latest eviction freed, which the insertion that made room takes (a native object's allocation
        # and its collector bookkeeping spared per miss).
        self._spare: Line | None = None
        self.dirty_bytes = 0.0
        self.used_bytes = 0.0
        self.read_bytes = 0.0
        self.write_bytes = 0.0

    @property
    def lines(self) -> dict[Hashable, float]:
        """The resident tiles' bytes by key, least recently used first (a copy, for inspection)."""
        return {line.key: line.nbytes for line in self._lines.lru_lines()}

    @property
    def dirty(self) -> list[Hashable]:
        """The dirty tiles' keys, dirtied longest ago first (a copy, for inspection)."""
        return [line.key for line in self._lines.dirty_lines()]

    def load(self, now: float, key: Hashable, nbytes: float) -> Access:
        self.read_bytes += nbytes
        l2_done = self.server.reserve(now, nbytes)
        if nbytes > self.capacity_bytes:  # cannot be cached: only looked up
            return self._bypass(now, key, nbytes, l2_done)
        line, fresh = self._claim(key)
        if not fresh:
            return Access(l2_done + self.hit_latency, True)
        if self._covered(key):
            self._release(key, line)
            return Access(l2_done + self.hit_latency, True)
        hbm_done = self.hbm.read(now, nbytes)
        self._place(now, line, nbytes)
        return Access(max(l2_done, hbm_done) + self.hbm.latency(now), False)

    def store(self, now: float, key: Hashable, nbytes: float, service_bytes: float = 0.0) -> float:
        """When the store is done: in L2, and once the write-backs it makes (the dirty tiles it evicts or pushes
        over the dirty capacity) have reached HBM; written through where the tile cannot be cached. The L2 serves
        it as `service_bytes` where given (writes to parts of sectors), else as its bytes."""
        self.write_bytes += nbytes
        l2_done = self.server.reserve(now, service_bytes or nbytes)
        written = self._insert(now, key, nbytes, dirty=True)
        if written is None:
            return max(l2_done, self.hbm.write(now, nbytes)) + self.hbm.latency(now)
        return max(l2_done + self.hit_latency, written)

    def atomic(self, now: float, key: Hashable, nbytes: float) -> float:
        """Read-modify-write in L2: a miss first reads the old value from HBM. Done, as a store, once the
        write-backs it makes have reached HBM."""
        self.read_bytes += nbytes
        self.write_bytes += nbytes
        l2_done = self.server.reserve(now, 2 * nbytes)
        line = self._by_key.get(key)
        if line is not None:
            self._lines.use(line)
            return max(l2_done + self.hit_latency, self._dirty(now, line))
        hbm_done = self.hbm.read(now, nbytes)
        written = self._insert(now, key, nbytes, dirty=True)
        if written is None:
            hbm_done = self.hbm.write(now, nbytes)
            written = 0.0
        return max(max(l2_done, hbm_done) + self.hbm.latency(now), written)

    def _bypass(self, now: float, key: Hashable, nbytes: float, l2_done: float) -> Access:
        """A load of a tile larger than the L2: a hit where resident (it was cached with fewer bytes) or covered,
        else read from HBM and not cached."""
        line = self._by_key.get(key)
        if line is not None:
            self._lines.use(line)
            return Access(l2_done + self.hit_latency, True)
        if self._covered(key):
            return Access(l2_done + self.hit_latency, True)
        return Access(max(l2_done, self.hbm.read(now, nbytes)) + self.hbm.latency(now), False)

    def _covered(self, key: Hashable) -> bool:
        """Whether `key` is (tensor, `Piece`) (a `TileKey` or a tuple) with every one of the piece's wholes resident;
        if so they are used."""
        if type(key) is TileKey:
            tensor, piece = key.tensor, key.tile
        elif type(key) is tuple and len(key) == 2:
            tensor, piece = key
        else:
            return False
        if type(piece) is not Piece:
            return False
        wholes = []
        for whole in piece.wholes:
            line = self._by_key.get((tensor, whole))
            if line is None:
                return False
            wholes.append(line)
        for line in wholes:
            self._lines.use(line)
        return True

    def shrink(self, now: float, keep_bytes: float) -> None:
        """Evict least recently used tiles (writing dirty ones back) until at most `keep_bytes` stay resident."""
        while self._by_key and self.used_bytes > keep_bytes:
            self._evict(now)

    def flush(self) -> None:
        """Write back every dirty tile (after the simulated interval: bytes counted, no time charged)."""
        lines = self._lines
        while lines.dirty_first is not None:
            self.hbm.write_untimed(lines.clean_oldest().nbytes)
        self.dirty_bytes = 0.0

    def untie(self) -> None:
        """Forget the resident tiles once the run is over (neighbours in a list link to each other: cycles, which
        reference counting cannot free), so that the L2 goes with its engine (`Engine._untie`): new, empty lines
        (the old ones unlink theirs as they go, `Lines.__del__`)."""
        self._lines = Lines()
        self._by_key = self._lines.by_key
        self._spare = None
        self.used_bytes = 0.0
        self.dirty_bytes = 0.0

    def _evict(self, now: float) -> float:
        """Evict the least recently used tile, writing it back if dirty; return when that write-back ends (0: none)."""
        old = self._lines.pop_oldest()
        self._spare = old
        self.used_bytes -= old.nbytes
        if not old.dirty:
            return 0.0
        old.dirty = False
        self.dirty_bytes -= old.nbytes
        return self.hbm.write(now, old.nbytes)

    def _dirty(self, now: float, line: Line) -> float:
        """Mark resident `line` dirty (now its newest dirty tile), then write back the oldest dirty tiles, which
        stay resident, while the dirty bytes exceed their capacity; return when those write-backs end (0: none).
        (The rule as it was kept over ordered dictionaries: `tests/core/l2_reference.py`.)"""
        lines = self._lines
        if line.dirty:
            lines.use_dirty(line)
            return 0.0
        lines.mark_dirty(line)
        self.dirty_bytes += line.nbytes
        written = 0.0
        while self.dirty_bytes > self.dirty_capacity_bytes:
            old = lines.clean_oldest()
            self.dirty_bytes -= old.nbytes
            written = self.hbm.write(now, old.nbytes)
        return written

    def _claim(self, key: Hashable) -> tuple[Line, bool]:
        """`key`'s line and whether it is fresh: where `key` is not resident, it is entered with a fresh line, not yet
        in the LRU order (`_place` puts it there, `_release` takes it out again), in one lookup of the key's hash for
        both (a tile key's hash is a nested tuple's, worked out anew at each lookup); a resident line is made the most
        recently used."""
        line = self._spare
        if line is None:
            line = Line(key, 0.0)
        resident = self._by_key.setdefault(key, line)
        if resident is not line:
            self._spare = line
            self._lines.use(resident)
            return resident, False
        self._spare = None
        line.key = key
        return line, True

    def _release(self, key: Hashable, line: Line) -> None:
        """Take back the line `_claim` entered for `key`."""
        del self._by_key[key]
        self._spare = line

    def _place(self, now: float, line: Line, nbytes: float) -> float:
        """Make the line `_claim` entered resident with `nbytes`, the most recently used, evicting LRU tiles (never
        it: it is not in the LRU order yet); return when the write-backs that made room end (0: none)."""
        written = 0.0
        while self.used_bytes + nbytes > self.capacity_bytes:
            written = max(written, self._evict(now))
        line.nbytes = nbytes
        self._lines.append(line)
        self.used_bytes += nbytes
        return written

    def _insert(self, now: float, key: Hashable, nbytes: float, dirty: bool) -> float | None:
        """Make `key` resident (evicting LRU tiles); return when the write-backs that made room (and, for a dirty
        tile, kept the dirty bytes within their capacity) end, 0 if none; None when it cannot be cached and bypasses
        L2."""
        if nbytes > self.capacity_bytes:
            return None
        line, fresh = self._claim(key)
        written = self._place(now, line, nbytes) if fresh else 0.0
        if dirty:
            written = max(written, self._dirty(now, line))
        return written
