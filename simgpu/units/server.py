"""The common core of every unit: a FIFO reservation server with a fixed service rate.

A request arriving at `now` starts when the unit is free (`busy_until`) and holds it for `amount / rate` cycles.
Requests are served in the order they are made, which in a discrete-event run is time order, so this is a FIFO
queue whose completion times are known at request time: one scheduled event per op instead of a request, a grant
and a release. Ignored: preemption and interleaving of two requests (the second waits for the first to finish;
the last finish time equals that of fair sharing).
"""

from __future__ import annotations

from collections.abc import Callable

SpanRecorder = Callable[[str, float, float], None]


class Server:
    """One unit instance. Counts busy cycles and the amount served (bytes, FLOPs or ops)."""

    __slots__ = ("amount", "busy_cycles", "busy_until", "name", "rate_per_cycle", "recorder")

    def __init__(self, name: str, rate_per_cycle: float, recorder: SpanRecorder | None = None) -> None:
        if rate_per_cycle <= 0:
            raise ValueError(f"{name}: rate must be positive, got {rate_per_cycle}")
        self.name = name
        self.rate_per_cycle = rate_per_cycle
        self.busy_until = 0.0
        self.busy_cycles = 0.0
        self.amount = 0.0
        self.recorder = recorder

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

    def extend_to(self, end: float) -> None:
        """Move the end of the work reserved on this unit to `end` (later only): another unit competing for the
        same issue and register-file bandwidth slowed it (`simgpu.units.contention`). Completion times already
        handed out stay; the work queued behind them starts later."""
        if end <= self.busy_until:
            return
        if self.recorder is not None:
            self.recorder(self.name, self.busy_until, end)
        self.busy_cycles += end - self.busy_until
        self.busy_until = end
