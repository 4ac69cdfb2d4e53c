"""The common core of every unit: a FIFO reservation server with a fixed service rate.

A request arriving at `now` starts when the unit is free (`busy_until`) and holds it for `amount / rate` cycles.
Requests are served in the order they are made, which in a discrete-event run is time order, so this is a FIFO
queue whose completion times are known at request time: one scheduled event per op instead of a request, a grant
and a release. When contention later slows the work already queued (`simgpu.units.contention`), the unit moves the
completions it was asked to watch (`watch`, `stretch`), so an op in flight ends when its own work does. Ignored:
preemption and interleaving of two requests (the second waits for the first to finish; the last finish time equals
that of fair sharing).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Final

SpanRecorder = Callable[[str, float, float], None]
WATCH_PRUNE: Final = 64  # watched completions kept before those already past are dropped


class PendingEnd:
    """An op's completion on one unit; `Server.stretch` moves it later while it lies in the stretched work."""

    __slots__ = ("end",)

    def __init__(self, end: float) -> None:
        self.end = end


class Server:
    """One unit instance. Counts busy cycles and the amount served (bytes, FLOPs or ops)."""

    __slots__ = ("amount", "busy_cycles", "busy_until", "name", "rate_per_cycle", "recorder", "watchers")

    def __init__(self, name: str, rate_per_cycle: float, recorder: SpanRecorder | None = None) -> None:
        if rate_per_cycle <= 0:
            raise ValueError(f"{name}: rate must be positive, got {rate_per_cycle}")
        self.name = name
        self.rate_per_cycle = rate_per_cycle
        self.busy_until = 0.0
        self.busy_cycles = 0.0
        self.amount = 0.0
        self.recorder = recorder
        self.watchers: list[PendingEnd] = []

    def reserve(self, now: float, amount: float, share: float = 1.0) -> float:
        """Serve `amount` at `share` of the full rate; return the completion time in cycles."""
        if amount <= 0:
            return now
        service = amount / (self.rate_per_cycle * share)
        start = now if now > self.busy_until else self.busy_until
        end = start + service
        self.busy_until = end
        self.busy_cycles += service
        self.amount += amount
        if self.recorder is not None:
            self.recorder(self.name, start, end)
        return end

    def watch(self, end: float, now: float) -> PendingEnd:
        """Follow the completion `end` of work just reserved, as later stretches move it."""
        pending = PendingEnd(end)
        if len(self.watchers) >= WATCH_PRUNE:  # a stretch starts at `now` or later: ends before it are final
            self.watchers = [w for w in self.watchers if w.end > now]
        self.watchers.append(pending)
        return pending

    def stretch(self, start: float, overlap: float, fraction: float) -> None:
        """The work reserved after `start` runs at `fraction` of the rate for `overlap` cycles, the rest at the full
        rate: move the unit's end and every watched completion inside that work accordingly."""
        busy = self.busy_until
        if fraction >= 1.0 or busy <= start:
            return
        slowed = fraction * overlap  # full-rate cycles of work done during the overlap
        watchers = self.watchers
        if watchers:  # (most stretches find none or one)
            kept = []
            for pending in watchers:
                work = pending.end - start
                if work > 0:
                    pending.end = start + work / fraction if work <= slowed else pending.end + overlap - slowed
                    kept.append(pending)
            self.watchers = kept
        # The unit's end moves later by the cycles the slowing cost: work queued behind it starts later. (Written
        # here, not in a method of its own: a stretch runs about two times per op on a chip with contention.)
        end = busy + overlap - slowed
        if end <= busy:
            return
        if self.recorder is not None:
            self.recorder(self.name, busy, end)
        self.busy_cycles += end - busy
        self.busy_until = end
