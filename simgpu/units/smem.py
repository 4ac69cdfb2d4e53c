"""Shared memory of one SM: capacity (checked at CTA placement) and one port at a fixed bytes-per-cycle rate.

MMA operands read from smem and thread-issued ld/st.shared use the port. A copy landing in smem (cp.async, TMA)
takes the share `smem.cp_async_write_port_fraction` or `smem.tma_write_port_fraction` of a byte per byte written
(measured on the H200: reads lose 0.69 B/clk per B/clk of cp.async writes beside them and 0.31 per B/clk of bulk
copies; the FA4 roofline counts operand reads only, a fraction of 0). Beside busy tensor cores the thread-issued
traffic runs slower (`simgpu.units.contention`). Ignored: bank conflicts (a schedule that has them should ask for
more bytes).
"""

from __future__ import annotations

from simgpu.units.contention import Contention, Lane
from simgpu.units.server import Server, SpanRecorder


class SharedMemory:
    __slots__ = ("contention", "copy_write_shares", "lane", "read_bytes", "server", "write_bytes")

    def __init__(
        self,
        bytes_per_cycle: float,
        copy_write_shares: dict[str, float],
        recorder: SpanRecorder | None,
        contention: Contention | None = None,
    ) -> None:
        self.server = Server("smem", bytes_per_cycle, recorder)
        self.copy_write_shares = copy_write_shares  # copy engine -> port share per byte written
        self.read_bytes = 0.0
        self.write_bytes = 0.0
        self.contention = contention
        self.lane: Lane | None = contention.register("smem", self.server) if contention is not None else None

    def access(self, now: float, read_bytes: float, write_bytes: float) -> float:
        """Bytes through the port: MMA operands read from smem and thread-issued loads and stores."""
        self.read_bytes += read_bytes
        self.write_bytes += write_bytes
        contention, lane = self.contention, self.lane
        if contention is None or lane is None:
            return self.server.reserve(now, read_bytes + write_bytes)
        return contention.reserve_pipe(lane, now, read_bytes + write_bytes)

    def copy_in(self, now: float, nbytes: float, engine: str) -> float:
        """Bytes written by a copy engine (`engine`: "tma" or "cp_async") landing in smem."""
        self.write_bytes += nbytes
        share = self.copy_write_shares[engine]
        return self.server.reserve(now, share * nbytes) if share else now
