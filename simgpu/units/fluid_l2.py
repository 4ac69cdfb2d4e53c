"""L2 as fast mode's representative SMs see it: the chip-wide hit and miss shares, not residency.

A representative SM runs only its own tiles, so it cannot know whether another SM already brought a K/V tile into
L2. Fast mode first replays every access of the kernel in launch order through the real L2 model (`simgpu.units.l2`)
and learns, per tensor and access kind, the share of bytes that went to HBM. Here each access costs its L2 bytes at
the L2 rate and that share of them at the HBM rate; it waits as a miss (for HBM, then its latency) when most of
the tensor's bytes miss, and as a hit otherwise.
With the representative SMs' share of the chip's bandwidth (see `simgpu.fast`), the HBM and L2 servers then see the
chip's average load. Ignored: which particular access hit (a fluid share, not a sequence of hits and misses).
"""

from __future__ import annotations

from collections.abc import Hashable, Mapping
from dataclasses import dataclass

from simgpu.units.hbm import Hbm
from simgpu.units.l2 import Access
from simgpu.units.server import Server, SpanRecorder


@dataclass(frozen=True)
class MissShares:
    """Per tensor: HBM bytes moved per L2 byte, for loads, stores and atomics (reads and write-backs together)."""

    load: float = 0.0
    store: float = 0.0
    atomic: float = 0.0


class FluidL2:
    __slots__ = ("hbm", "hit_latency", "read_bytes", "server", "shares", "write_bytes")

    def __init__(
        self,
        bytes_per_cycle: float,
        hit_latency_cycles: float,
        hbm: Hbm,
        shares: Mapping[str, MissShares],
        recorder: SpanRecorder | None = None,
    ) -> None:
        self.server = Server("l2", bytes_per_cycle, recorder)
        self.hit_latency = hit_latency_cycles
        self.hbm = hbm
        self.shares = shares
        self.read_bytes = 0.0
        self.write_bytes = 0.0

    def _share(self, key: Hashable) -> MissShares:
        tensor = key[0] if isinstance(key, tuple) else key
        return self.shares.get(str(tensor), _ALL_MISS)

    def _ready(self, l2_done: float, now: float, hbm_bytes: float, miss: float) -> float:
        """When the typical access of this kind is served. Its HBM share is always charged to the HBM server (the
        chip's traffic), but only a typical miss waits for it: a typical hit is served from L2, as the accesses
        that hit are, at the latency of a hit. A blended latency would push a pipeline that hides a hit but not a
        miss over an edge that no real access crosses."""
        # Only the time is charged: the bytes a run reports come from the replay.
        hbm_done = self.hbm.server.reserve(now, hbm_bytes)
        if miss >= 0.5:
            return max(l2_done, hbm_done) + self.hbm.latency_cycles
        return l2_done + self.hit_latency

    def load(self, now: float, key: Hashable, nbytes: float) -> Access:
        self.read_bytes += nbytes
        share = self._share(key).load
        return Access(self._ready(self.server.reserve(now, nbytes), now, nbytes * share, share), share < 0.5)

    def store(self, now: float, key: Hashable, nbytes: float) -> float:
        self.write_bytes += nbytes
        share = self._share(key).store
        return self._ready(self.server.reserve(now, nbytes), now, nbytes * share, share)

    def atomic(self, now: float, key: Hashable, nbytes: float) -> float:
        self.read_bytes += nbytes
        self.write_bytes += nbytes
        share = self._share(key).atomic
        return self._ready(self.server.reserve(now, 2 * nbytes), now, nbytes * share, share)

    def flush(self) -> None:
        """Nothing is resident here: the write-back bytes are the replay's."""


_ALL_MISS = MissShares(1.0, 1.0, 1.0)
