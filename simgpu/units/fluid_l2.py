"""L2 as fast mode's representative SMs see it: the chip-wide hit and miss shares, not residency.

A representative SM runs only its own tiles, so it cannot know whether another SM already brought a K/V tile into L2.
Fast mode first replays every access of the run in launch order through the real L2 model (`simgpu.units.l2`) and
learns, per kernel, tensor and access kind, the share of bytes that went to HBM. Here the accesses of each tensor and
kind miss in that proportion, spread evenly (error diffusion: a miss whenever the misses owed reach one half): a miss
waits for its bytes from HBM and the HBM latency, as in the L2 model, a hit costs the L2 rate and a hit's latency. A
blended latency would push a pipeline that hides a hit but not a miss over an edge that no real access crosses; a
rounded share (all hits or all misses) would drop every miss of a tensor that mostly hits, such as a K/V tile missed by
only the first of the CTAs that read it. A tile's first access to a key and its later accesses to the same key
(`Retouch`: v1 re-reading its Q_i and O_i for every key block) keep separate shares: the first read of Q_i misses where
the re-reads hit (a kind that the replay never saw counts as the other, `MissShares.counted_again`). The later
accesses keep their count of misses owed per CTA slot of the SM: the CTAs of a class that start together re-read their
own data as it ages alike, so they miss at the same points of their programs and stay in step, as in exact mode. With
one count for the SM the misses alternated between them and pulled them apart (v1 as our kernel loops on the H200 at
32 x 32 x 512, d = 64, two CTAs an SM: 6,500 cycles apart after their first tiles, their stores meeting less on the
SM's store path, 867 cycles each against exact mode's 1,082, a further round 272k cycles against exact mode's tiles'
326k; `docs/results/slot_misses_54/representative_phases*.txt`). A tile's first accesses keep one count for the SM,
their misses spread over its slots in turn: where several CTAs read a key first, one of them misses (in exact mode the
first to come), and which slot that is goes with where they run. A store
is absorbed by L2, done once the write-backs it causes (charged to HBM) have been served, as in the L2 model; a load
does not wait for the write-backs it causes. With the representative SMs' share of the chip's bandwidth (see
`simgpu.fast`), the HBM and L2 servers then see the chip's average load. The HBM time a representative's run reports
(its bound: `simgpu.fast_costs.Cost`) is that of its misses at their shares, not of the whole misses it waited for: a
few rounds hold one more or one fewer of a tensor's rare misses than their share (`owed_miss_bytes`).
With a `burst_share`, the SM's requests made before any of its data came back are served at that share of the rate
(and of HBM's): at a kernel's start every busy SM queues its first copies at once, so each is served behind the others'
(`simgpu.fast_costs`); later requests, which that queue has staggered, at the full rate of the SM's share.
Ignored: which particular accesses miss (the first CTA to touch a tile, in exact mode; in step or not across the SMs).
"""

from __future__ import annotations

import math
from collections.abc import Hashable, Mapping
from dataclasses import dataclass
from typing import Final

from simgpu.ops import TileKey
from simgpu.units.hbm import Hbm
from simgpu.units.l2 import Access
from simgpu.units.server import Server, SpanRecorder

# `Final`: compiled in, not looked up in the module's dictionary once per access.
_LOAD: Final = 0
_STORE: Final = 1
_ATOMIC: Final = 2
_AGAIN: Final = 3  # a later access's kind in `MissShares.seen` is its first access's plus this


# Per kind of access, in `MissShares`' order (loads, stores, atomics, then the same again): whether the replay saw it.
Seen = tuple[bool, bool, bool, bool, bool, bool]


@dataclass(frozen=True)
class MissShares:
    """Per tensor: the share of bytes that missed (read from HBM) for loads, stores and atomics, at a tile's first
    access to a key and (`*_again`) at its later accesses to that key; the bytes its accesses wrote back to HBM (the
    dirty tiles they evicted) per byte accessed; and which of the six kinds of access the replay saw
    (`counted_again`)."""

    load: float = 0.0
    store: float = 0.0
    atomic: float = 0.0
    load_again: float = 0.0
    store_again: float = 0.0
    atomic_again: float = 0.0
    written: float = 0.0
    seen: Seen = (True, True, True, True, True, True)

    def kinds(self, again: bool) -> tuple[float, float, float]:
        """The load, store and atomic shares of first accesses, or of later ones."""
        if again:
            return self.load_again, self.store_again, self.atomic_again
        return self.load, self.store, self.atomic

    def counted_again(self, kind: int, again: bool) -> bool:
        """Whether an access of `kind` (load, store, atomic), a tile's later one to its key or its first (`again`),
        counts as a later one: as it is, unless the replay never saw that kind of access and saw the other. A folded
        tile makes accesses first that the whole program makes later, where the fold removed the iteration that made
        them first (v1's causal forward: a later key block's kept steps read rows whose first key block's step was
        removed; the whole program stores O_i and the LSE there before it ever loads them). Taken as first accesses
        of a share of no bytes, 0, they all hit; the fit's variants, which turn some of them back into re-reads,
        then priced a removed first-block step on the H200 at 16 x 16 x 1k, d = 128, at 4,757 cycles against exact
        mode's 2,172-2,233, and fast mode came out 16.9% slow (`docs/results/spread_load_55/causal_*.txt`). Counted as
        later accesses they take the re-reads' share and their count per CTA slot (`FluidL2`). With the share alone
        and one count for the SM, their misses fell to the SM's CTAs in turn and pulled them apart (`FluidL2`'s
        docstring): FA1's split forward on the H100 at 1 x 32 x 16k, d = 64, causal, folded, cost 1.40 times the
        same fast mode with nothing folded, and came out 1.32 times exact mode's cycles
        (`docs/results/spread_load_55/fold_faithfulness_at_7c986dd.txt`, `fa1_release_check_at_7c986dd.txt`)."""
        first, later = self.seen[kind], self.seen[kind + _AGAIN]
        return (later or not first) if again else (later and not first)


@dataclass(frozen=True)
class Retouch:
    """The tile key of an access to bytes that its tile accessed before (`simgpu.replay.mark_retouches`)."""

    key: Hashable


class FluidL2:
    __slots__ = (
        "_counted_other",
        "_counters",
        "burst_share",
        "burst_until",
        "hbm",
        "hit_latency",
        "owed_miss_bytes",
        "read_bytes",
        "server",
        "shares",
        "slot",
        "write_bytes",
    )

    def __init__(
        self,
        bytes_per_cycle: float,
        hit_latency_cycles: float,
        hbm: Hbm,
        shares: Mapping[str, MissShares],
        recorder: SpanRecorder | None = None,
        burst_share: float = 1.0,
    ) -> None:
        self.server = Server("l2", bytes_per_cycle, recorder)
        self.burst_share = burst_share
        self.burst_until = math.inf if burst_share < 1.0 else -math.inf  # when the SM's first data came back
        self.hit_latency = hit_latency_cycles
        self.hbm = hbm
        self.shares = shares
        # Per (tensor, kind, again, CTA slot for a later access, else 0): [misses owed, miss share, write-back bytes
        # per byte]. The shares are looked up once per counter: every access of a run passes here.
        self._counters: dict[tuple[str, int, bool, int], list[float]] = {}
        # (tensor, kind, again) of the accesses that count as the other of first and later (`MissShares.counted_again`).
        self._counted_other = {
            (tensor, kind, again)
            for tensor, share in shares.items()
            for kind in (_LOAD, _STORE, _ATOMIC)
            for again in (False, True)
            if share.counted_again(kind, again) != again
        }
        self.slot = 0  # the CTA slot of the SM whose access comes next (set by `simgpu.sm.Sm`)
        self.read_bytes = 0.0
        self.write_bytes = 0.0
        # The HBM cost of the misses owed (their shares of the accesses so far) less that of the whole misses
        # booked: what the misses spread over the accesses fall short of (or exceed) their average by.
        self.owed_miss_bytes = 0.0

    def _access(
        self, now: float, l2_done: float, key: Hashable, nbytes: float, kind: int, share: float = 1.0
    ) -> Access:
        """When the access is served: at a hit's latency after L2, or, for a miss, after its bytes came from HBM
        and the HBM latency; a store or an atomic no sooner than the write-backs it causes have been served (a load's
        load HBM but are not waited for), as in the L2 model. Only the time is charged here: the bytes a run reports
        come from the replay."""
        if type(key) is TileKey:
            tensor, tile = key.tensor, key.tile
        else:
            tensor, tile = key if isinstance(key, tuple) else (key, None)
        name = str(tensor)
        again = isinstance(tile, Retouch)
        if self._counted_other and (name, kind, again) in self._counted_other:
            again = not again
        counter = (name, kind, again, self.slot if again else 0)
        state = self._counters.get(counter)
        if state is None:
            shares = self.shares.get(name, _ALL_MISS)
            state = self._counters[counter] = [0.0, shares.kinds(again)[kind], shares.written]
        owed = state[0] + state[1]
        miss = owed >= 0.5
        state[0] = owed - 1.0 if miss else owed
        hbm = self.hbm
        # A store's miss is written through; a load's or an atomic's reads HBM.
        cost = nbytes * hbm.write_cost if kind == _STORE else nbytes
        self.owed_miss_bytes += cost * (state[1] - miss)
        hbm_done = hbm.book(now, cost, share) if miss else now
        # A store or an atomic is done once the write-backs it makes have reached HBM, as in the L2 model.
        written = 0.0
        if state[2]:  # most tensors write nothing back: skip the empty reservation (once per access)
            written = hbm.book(now, nbytes * state[2] * hbm.write_cost)
            if kind == _LOAD:
                written = 0.0
        if miss:
            return Access(max(max(l2_done, hbm_done) + hbm.latency(now), written), False)
        return Access(max(l2_done + self.hit_latency, written), True)

    def _share(self, now: float) -> float:
        """The share of the rate a request made at `now` is served at: `burst_share` before the SM's first data."""
        return self.burst_share if now < self.burst_until else 1.0

    def load(self, now: float, key: Hashable, nbytes: float) -> Access:
        self.read_bytes += nbytes
        share = self._share(now)
        access = self._access(now, self.server.reserve(now, nbytes, share), key, nbytes, _LOAD, share)
        if access.ready < self.burst_until:  # the SM's first data back: its later requests meet the others' staggered
            self.burst_until = access.ready
        return access

    def store(self, now: float, key: Hashable, nbytes: float, service_bytes: float = 0.0) -> float:
        self.write_bytes += nbytes
        share = self._share(now)
        l2_done = self.server.reserve(now, service_bytes or nbytes, share)
        return self._access(now, l2_done, key, nbytes, _STORE, share).ready

    def atomic(self, now: float, key: Hashable, nbytes: float) -> float:
        self.read_bytes += nbytes
        self.write_bytes += nbytes
        share = self._share(now)
        return self._access(now, self.server.reserve(now, 2 * nbytes, share), key, nbytes, _ATOMIC, share).ready

    def flush(self) -> None:
        """Nothing is resident here: the write-back bytes are the replay's."""


_ALL_MISS: Final = MissShares(load=1.0, atomic=1.0, load_again=1.0, atomic_again=1.0)
