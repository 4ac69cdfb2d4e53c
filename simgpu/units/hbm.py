"""HBM: one chip-wide server at the sustained read bandwidth (datasheet x achievable fraction), on which a written
byte takes `write_cost_ratio` times a read byte's time, plus a miss latency that grows with the HBM's load.

Reads and writes share the server and are counted separately. The write cost is the H200's measured mix law
(`validation/h200/hbm_mix/`, `docs/results/hbm_mix_fit.txt`): SM-issued streams of every read/write mix from 5% to
95% writes take (1 - w) / 4.42 + w / 3.63 ns per KB (w: the written share; within 2.4%, mean 0.7%), the
controller turning the bus around between reads and writes; in a FIFO server that is each byte at its own
direction's cost. A miss returns the idle latency after its bytes were served, plus, with a `LoadedLatencySpec`, an
extra that rises linearly with the HBM's recent utilization up to a knee and stays flat beyond it: measured on the
H200 by one SM's copies while the others stream from HBM (`validation/h200/loaded_latency_h200.csv`: +120 cycles at
7% of the sustained rate, ~+450 from 30% to 65%). The utilization is an exponential moving average of the server
time booked, so a burst (every CTA loading its first tiles) raises the latency of the loads inside it; a run of a few
SMs that stand for the chip (fast mode's representatives) counts the other SMs' load at its own average, not in step
with its own bursts (`Hbm.latency`). Queueing once demand exceeds the rate is the server's own wait, not part of the
extra. Ignored: streams of writes alone, which reach the read rate on the H200 (4.3 TB/s: with no reads to turn around
to, writes cost what reads do; every attention kernel reads), bank/channel conflicts and refresh (inside the measured
rates and the extra), the further rise of the latency measured at 67-90% utilization (+600..+950, queueing of bursts
that a fluid server does not have), any difference between reads and writes in the extra, and whether the chip's SMs
run in step or apart, which goes with the kernel (a representative takes them apart but at a kernel's start).
"""

from __future__ import annotations

import math

from simgpu.arch import LoadedLatencySpec
from simgpu.units.server import Server, SpanRecorder


class Hbm:
    __slots__ = (
        "_booked_at",
        "_booked_rate",
        "_booked_total",
        "_extra_cycles",
        "_first_booked_at",
        "_knee_rate",
        "_own_share",
        "_window_cycles",
        "latency_cycles",
        "read_bytes",
        "server",
        "write_bytes",
        "write_cost",
    )

    def __init__(
        self,
        bytes_per_cycle: float,
        latency_cycles: float,
        recorder: SpanRecorder | None = None,
        loaded: LoadedLatencySpec | None = None,
        full_load_bytes_per_cycle: float | None = None,
        write_cost: float = 1.0,
        own_share: float = 1.0,
    ) -> None:
        """`bytes_per_cycle`: the read rate; a written byte books `write_cost` bytes of it. `full_load_bytes_per_cycle`:
        the booking rate at which the chip's HBM is fully used (default: the server's rate). A run of a few SMs that
        stand for more (fast mode's representative SMs, each as loaded as the others) books its own SMs' bytes only,
        so its full load is their share of the chip's rate. `own_share`: that share of the chip's traffic (1: the
        bookings are all the chip's). Below 1, the load the extra latency follows counts these bookings as they come
        and the other SMs' at the average rate of these since the first (`latency`)."""
        self.server = Server("hbm", bytes_per_cycle, recorder)
        self.write_cost = write_cost
        self.latency_cycles = latency_cycles
        self.read_bytes = 0.0
        self.write_bytes = 0.0
        self._extra_cycles = loaded.extra_cycles if loaded is not None else 0.0
        full_load = bytes_per_cycle if full_load_bytes_per_cycle is None else full_load_bytes_per_cycle
        self._knee_rate = loaded.knee_utilization * full_load if loaded is not None else 1.0
        self._window_cycles = loaded.window_cycles if loaded is not None else 1.0
        self._booked_rate = 0.0  # bytes per cycle booked, averaged over about the last window, as of `_booked_at`
        self._booked_at = 0.0
        self._own_share = own_share
        self._booked_total = 0.0
        self._first_booked_at = math.inf

    def book(self, now: float, nbytes: float, share: float = 1.0) -> float:
        """Serve `nbytes` of read-byte cost (a read, or a write's bytes times `write_cost`) at `share` of the rate and
        count them in the recent load; return the end."""
        if self._extra_cycles:
            self._booked_rate = self._rate_at(now) + nbytes / self._window_cycles
            if now > self._booked_at:
                self._booked_at = now
            if now < self._first_booked_at:
                self._first_booked_at = now
            self._booked_total += nbytes
        return self.server.reserve(now, nbytes, share)

    def read(self, now: float, nbytes: float) -> float:
        self.read_bytes += nbytes
        return self.book(now, nbytes)

    def write(self, now: float, nbytes: float) -> float:
        self.write_bytes += nbytes
        return self.book(now, nbytes * self.write_cost)

    def write_untimed(self, nbytes: float) -> None:
        """Bytes that reach HBM after the simulated interval (the final write-back of dirty L2 lines)."""
        self.write_bytes += nbytes

    def latency(self, now: float) -> float:
        """Cycles from a miss's last byte served to its data at the SM, for a miss booked at `now`: the idle
        latency plus the extra of the load then. For bookings that are `own_share` of the chip's traffic, the load
        is their recent rate at that share and their average since the first at the rest: the other SMs book as
        much, but not in step with these (their tiles started and stalled at other times), so their bursts do not
        meet these bookings' own. Counted all in step, a representative's misses waited out the extra of a chip
        whose every SM loads at once: v1's forward on the H200 at 2 x 16 x 4k, d = 128 (one CTA on each of 32 SMs,
        the HBM 12% busy), +298 cycles a miss in the mean where exact mode's misses wait +185, and fast mode came
        out 3.2% slower than exact mode (now +237, and 0.2%; `docs/results/spread_load_55/miss_latency*.txt`). At a
        kernel's start, where every SM does load at once, the average is the burst itself."""
        if not self._extra_cycles:
            return self.latency_cycles
        rate = self._rate_at(now)
        own = self._own_share
        if own < 1.0:
            average = self._booked_total / max(self._window_cycles, now - self._first_booked_at)
            rate = own * rate + (1.0 - own) * average
        return self.latency_cycles + self._extra_cycles * min(1.0, rate / self._knee_rate)

    def _rate_at(self, now: float) -> float:
        # Bookings arrive nearly in time order (some SMs book at the end of an issue they have already begun):
        # one that is earlier than the last counts as made at the same time.
        if now <= self._booked_at:
            return self._booked_rate
        return self._booked_rate * math.exp((self._booked_at - now) / self._window_cycles)
