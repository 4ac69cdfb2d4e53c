"""HBM: one chip-wide server at the sustained bandwidth (datasheet x achievable fraction), plus a miss latency.

Reads and writes share the bandwidth and are counted separately. Ignored: bank/channel conflicts, read/write
turnaround, refresh: they are inside the measured achievable fraction.
"""

from __future__ import annotations

from simgpu.units.server import Server, SpanRecorder


class Hbm:
    __slots__ = ("latency_cycles", "read_bytes", "server", "write_bytes")

    def __init__(self, bytes_per_cycle: float, latency_cycles: float, recorder: SpanRecorder | None = None) -> None:
        self.server = Server("hbm", bytes_per_cycle, recorder)
        self.latency_cycles = latency_cycles
        self.read_bytes = 0.0
        self.write_bytes = 0.0

    def read(self, now: float, nbytes: float) -> float:
        self.read_bytes += nbytes
        return self.server.reserve(now, nbytes)

    def write(self, now: float, nbytes: float) -> float:
        self.write_bytes += nbytes
        return self.server.reserve(now, nbytes)

    def write_untimed(self, nbytes: float) -> None:
        """Bytes that reach HBM after the simulated interval (the final write-back of dirty L2 lines)."""
        self.write_bytes += nbytes
