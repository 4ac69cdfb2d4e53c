"""The L2 model's linked lines (`simgpu.units.l2.L2`) against the ordered dictionaries it kept before: the same
results, bytes and orders for every access, and no reference cycles left for the collector."""

from __future__ import annotations

import gc
import random
from collections import OrderedDict
from collections.abc import Hashable

from simgpu.ops import Piece
from simgpu.units.hbm import Hbm
from simgpu.units.l2 import L2
from simgpu.units.server import Server
from tests.core.l2_reference import dirtied


class _OrderedL2:
    """The L2 model as it was written over `OrderedDict`s (LRU order, dirty order), before its linked lines."""

    def __init__(self, capacity: int, rate: float, hit_latency: float, hbm: Hbm, dirty_capacity: float) -> None:
        self.server = Server("l2", rate)
        self.capacity = capacity
        self.dirty_capacity = dirty_capacity
        self.hit_latency = hit_latency
        self.hbm = hbm
        self.lines: OrderedDict[Hashable, float] = OrderedDict()
        self.dirty: OrderedDict[Hashable, None] = OrderedDict()
        self.dirty_bytes = 0.0
        self.used_bytes = 0.0

    def load(self, now: float, key: Hashable, nbytes: float) -> tuple[float, bool]:
        l2_done = self.server.reserve(now, nbytes)
        if key in self.lines:
            self.lines.move_to_end(key)
            return l2_done + self.hit_latency, True
        if type(key) is tuple and type(key[1]) is Piece:
            wholes = [(key[0], whole) for whole in key[1].wholes]
            if all(whole in self.lines for whole in wholes):
                for whole in wholes:
                    self.lines.move_to_end(whole)
                return l2_done + self.hit_latency, True
        hbm_done = self.hbm.read(now, nbytes)
        self._insert(now, key, nbytes, dirty=False)
        return max(l2_done, hbm_done) + self.hbm.latency(now), False

    def store(self, now: float, key: Hashable, nbytes: float) -> float:
        l2_done = self.server.reserve(now, nbytes)
        written = self._insert(now, key, nbytes, dirty=True)
        if written is None:
            return max(l2_done, self.hbm.write(now, nbytes)) + self.hbm.latency(now)
        return max(l2_done + self.hit_latency, written)

    def atomic(self, now: float, key: Hashable, nbytes: float) -> float:
        l2_done = self.server.reserve(now, 2 * nbytes)
        if key in self.lines:
            self.lines.move_to_end(key)
            return max(l2_done + self.hit_latency, self._dirty(now, key))
        hbm_done = self.hbm.read(now, nbytes)
        written = self._insert(now, key, nbytes, dirty=True)
        if written is None:
            hbm_done = self.hbm.write(now, nbytes)
            written = 0.0
        return max(max(l2_done, hbm_done) + self.hbm.latency(now), written)

    def _insert(self, now: float, key: Hashable, nbytes: float, dirty: bool) -> float | None:
        if nbytes > self.capacity:
            return None
        written = 0.0
        if key in self.lines:
            self.lines.move_to_end(key)
        else:
            while self.used_bytes + nbytes > self.capacity:
                old_key, old_bytes = self.lines.popitem(last=False)
                self.used_bytes -= old_bytes
                if old_key in self.dirty:
                    del self.dirty[old_key]
                    self.dirty_bytes -= old_bytes
                    written = max(written, self.hbm.write(now, old_bytes))
            self.lines[key] = nbytes
            self.used_bytes += nbytes
        if dirty:
            written = max(written, self._dirty(now, key))
        return written

    def _dirty(self, now: float, key: Hashable) -> float:
        if key in self.dirty:
            self.dirty.move_to_end(key)
            return 0.0
        self.dirty_bytes, cleaned = dirtied(key, self.lines, self.dirty, self.dirty_bytes, self.dirty_capacity)
        written = 0.0
        for old_bytes in cleaned:
            written = self.hbm.write(now, old_bytes)
        return written


def _accesses(seed: int, count: int) -> list[tuple[str, float, Hashable, float]]:
    """Loads, stores and atomics of a few tensors' tiles of several sizes, some of them pieces of resident tiles."""
    rng = random.Random(seed)
    made = []
    for step in range(count):
        tensor = rng.choice("QKVO")
        tile: Hashable = (rng.randrange(2), rng.randrange(12))
        if rng.random() < 0.1:
            tile = Piece(("row", step % 5), tuple((0, rng.randrange(12)) for _ in range(rng.randrange(1, 4))))
        nbytes = rng.choice((256, 512, 768.5, 1024, 5000))  # 5000: larger than the capacity, it bypasses
        made.append((rng.choice(("load", "load", "store", "atomic")), float(step), (tensor, tile), nbytes))
    return made


def test_the_lines_give_every_result_the_ordered_dictionaries_gave() -> None:
    for seed in range(20):
        hbm, reference_hbm = Hbm(8.0, 300.0), Hbm(8.0, 300.0)
        l2 = L2(4096, 16.0, 200.0, hbm, dirty_capacity_bytes=1700.0)
        reference = _OrderedL2(4096, 16.0, 200.0, reference_hbm, 1700.0)
        for kind, now, key, nbytes in _accesses(seed, 400):
            if kind == "load":
                access = l2.load(now, key, nbytes)
                assert (access.ready, access.hit) == reference.load(now, key, nbytes)
            else:
                assert getattr(l2, kind)(now, key, nbytes) == getattr(reference, kind)(now, key, nbytes)
            assert l2.lines == reference.lines and list(l2.lines) == list(reference.lines)
            assert l2.dirty == list(reference.dirty)
            assert (l2.used_bytes, l2.dirty_bytes) == (reference.used_bytes, reference.dirty_bytes)
            assert (hbm.read_bytes, hbm.write_bytes) == (reference_hbm.read_bytes, reference_hbm.write_bytes)


def test_the_final_write_back_goes_oldest_dirty_first() -> None:
    hbm = Hbm(1.0, 0.0)
    l2 = L2(4096, 1.0, 0.0, hbm)
    for j, nbytes in enumerate((0.1, 3.0, 0.2)):
        l2.store(0.0, ("S", j), nbytes)
    l2.store(0.0, ("S", 0), 0.1)  # dirty again: now the newest
    written = hbm.write_bytes
    l2.flush()
    assert hbm.write_bytes == ((written + 3.0) + 0.2) + 0.1
    assert l2.dirty == [] and l2.dirty_bytes == 0.0 and list(l2.lines) == [("S", 1), ("S", 2), ("S", 0)]


def test_lines_leave_no_cycles_for_the_collector() -> None:
    # Evicted lines go as they leave (their links dropped); the resident ones once the L2 is untied; an empty L2 is no
    # cycle at all (an engine built only for its SMs' units never runs, and never unties its L2).
    collecting = gc.isenabled()
    gc.disable()
    try:
        gc.collect()
        l2 = L2(2048, 1.0, 0.0, Hbm(1.0, 0.0))
        for kind, now, key, nbytes in _accesses(7, 300):
            getattr(l2, kind)(now, key, nbytes)
        l2.flush()
        l2.untie()
        assert l2.lines == {} and l2.dirty == []
        del l2
        L2(2048, 1.0, 0.0, Hbm(1.0, 0.0))
        assert gc.collect() == 0
    finally:
        if collecting:
            gc.enable()
