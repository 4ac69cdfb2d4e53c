"""L2: chip-wide capacity with LRU replacement at the granularity of named tiles, write-back, shared bandwidth.

Every load and store passes through L2 (counted as L2 read/write bytes and served at the L2 bandwidth). A load of a
tile that is resident is a hit and costs no HBM bytes; a miss reads HBM and inserts the tile. A load of a `Piece`
(a kernel reading, with a grid of its own, part of tiles another kernel wrote) also hits while all the tiles it is
part of are resident. Stores and atomics make the tile resident and dirty; a dirty tile costs HBM write bytes when
it is evicted or when the run ends.
With capacity 0 every access goes to HBM. Ignored: sets/ways and partial hits (a tile is wholly resident or not),
the two-partition structure of Hopper's L2, and the per-SM L2 port limit. Tiles larger than the capacity bypass.
"""

from __future__ import annotations

from collections import OrderedDict
from collections.abc import Hashable
from typing import NamedTuple

from simgpu.ops import Piece
from simgpu.units.hbm import Hbm
from simgpu.units.server import Server, SpanRecorder


class Access(NamedTuple):
    """Outcome of one access: when the data is available and whether it hit. (A named tuple, not a frozen
    dataclass: one is built per load, and a frozen dataclass's `__init__` costs several times a tuple's. `L2.load`
    builds it with `tuple.__new__`, skipping the named tuple's own `__new__`, a Python function.)"""

    ready: float
    hit: bool


class L2:
    __slots__ = (
        "capacity_bytes",
        "dirty",
        "hbm",
        "hit_latency",
        "lines",
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
    ) -> None:
        self.server = Server("l2", bytes_per_cycle, recorder)
        self.capacity_bytes = capacity_bytes
        self.hit_latency = hit_latency_cycles
        self.hbm = hbm
        self.lines: OrderedDict[Hashable, float] = OrderedDict()
        self.dirty: set[Hashable] = set()
        self.used_bytes = 0.0
        self.read_bytes = 0.0
        self.write_bytes = 0.0

    def load(self, now: float, key: Hashable, nbytes: float) -> Access:
        self.read_bytes += nbytes
        l2_done = self.server.reserve(now, nbytes)
        if key in self.lines:
            self.lines.move_to_end(key)
            return tuple.__new__(Access, (l2_done + self.hit_latency, True))
        if self._covered(key):
            return tuple.__new__(Access, (l2_done + self.hit_latency, True))
        hbm_done = self.hbm.read(now, nbytes)
        self._insert(now, key, nbytes, dirty=False)
        return tuple.__new__(Access, (max(l2_done, hbm_done) + self.hbm.latency(now), False))

    def store(self, now: float, key: Hashable, nbytes: float) -> float:
        self.write_bytes += nbytes
        l2_done = self.server.reserve(now, nbytes)
        if not self._insert(now, key, nbytes, dirty=True):
            return max(l2_done, self.hbm.write(now, nbytes)) + self.hbm.latency(now)
        return l2_done + self.hit_latency

    def atomic(self, now: float, key: Hashable, nbytes: float) -> float:
        """Read-modify-write in L2: a miss first reads the old value from HBM."""
        self.read_bytes += nbytes
        self.write_bytes += nbytes
        l2_done = self.server.reserve(now, 2 * nbytes)
        if key in self.lines:
            self.lines.move_to_end(key)
            self.dirty.add(key)
            return l2_done + self.hit_latency
        hbm_done = self.hbm.read(now, nbytes)
        if not self._insert(now, key, nbytes, dirty=True):
            hbm_done = self.hbm.write(now, nbytes)
        return max(l2_done, hbm_done) + self.hbm.latency(now)

    def _covered(self, key: Hashable) -> bool:
        """Whether `key` is (tensor, `Piece`) with every one of the piece's wholes resident; if so they are used."""
        if type(key) is not tuple or len(key) != 2 or type(key[1]) is not Piece:
            return False
        tensor, piece = key
        wholes = [(tensor, whole) for whole in piece.wholes]
        if not all(whole in self.lines for whole in wholes):
            return False
        for whole in wholes:
            self.lines.move_to_end(whole)
        return True

    def shrink(self, now: float, keep_bytes: float) -> None:
        """Evict least recently used tiles (writing dirty ones back) until at most `keep_bytes` stay resident."""
        while self.lines and self.used_bytes > keep_bytes:
            old_key, old_bytes = self.lines.popitem(last=False)
            self.used_bytes -= old_bytes
            if old_key in self.dirty:
                self.dirty.discard(old_key)
                self.hbm.write(now, old_bytes)

    def flush(self) -> None:
        """Write back every dirty tile (after the simulated interval: bytes counted, no time charged)."""
        for key in self.dirty:
            self.hbm.write_untimed(self.lines[key])
        self.dirty.clear()

    def _insert(self, now: float, key: Hashable, nbytes: float, dirty: bool) -> bool:
        """Make `key` resident (evicting LRU tiles); False when it cannot be cached and bypasses L2."""
        if nbytes > self.capacity_bytes:
            return False
        if key in self.lines:
            self.lines.move_to_end(key)
        else:
            while self.used_bytes + nbytes > self.capacity_bytes:
                old_key, old_bytes = self.lines.popitem(last=False)
                self.used_bytes -= old_bytes
                if old_key in self.dirty:
                    self.dirty.discard(old_key)
                    self.hbm.write(now, old_bytes)
            self.lines[key] = nbytes
            self.used_bytes += nbytes
        if dirty:
            self.dirty.add(key)
        return True
