"""Shared memory of one SM: capacity (checked at CTA placement) and one port at a fixed bytes-per-cycle rate.

MMA operands read from smem and thread-issued ld/st.shared use the port. Whether copy-engine writes (TMA,
cp.async) also use it is the arch parameter `smem.copy_engine_writes_use_port` (the FA4 roofline counts operand
reads only). Beside busy tensor cores the thread-issued traffic runs slower (`simgpu.units.contention`). Ignored:
bank conflicts (a schedule that has them should ask for more bytes).
"""

from __future__ import annotations

from simgpu.units.contention import Contention
from simgpu.units.server import Server, SpanRecorder


class SharedMemory:
    __slots__ = ("contention", "copy_writes_use_port", "read_bytes", "server", "write_bytes")

    def __init__(
        self,
        bytes_per_cycle: float,
        copy_writes_use_port: bool,
        recorder: SpanRecorder | None,
        contention: Contention | None = None,
    ) -> None:
        self.server = Server("smem", bytes_per_cycle, recorder)
        self.copy_writes_use_port = copy_writes_use_port
        self.read_bytes = 0.0
        self.write_bytes = 0.0
        self.contention = contention
        if contention is not None:
            contention.pipes["smem"] = self.server

    def access(self, now: float, read_bytes: float, write_bytes: float) -> float:
        """Bytes through the port: MMA operands read from smem and thread-issued loads and stores."""
        self.read_bytes += read_bytes
        self.write_bytes += write_bytes
        if self.contention is None:
            return self.server.reserve(now, read_bytes + write_bytes)
        return self.contention.reserve_pipe("smem", now, read_bytes + write_bytes)

    def copy_in(self, now: float, nbytes: float) -> float:
        """Bytes written by a copy engine (TMA or cp.async) landing in smem."""
        self.write_bytes += nbytes
        return self.server.reserve(now, nbytes) if self.copy_writes_use_port else now
