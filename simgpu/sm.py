"""One SM: its units, and how each op turns into reservations on them.

An op's completion time is the latest completion among the units it uses; the units work on it concurrently
(cut-through), each in FIFO order. Memory ops add the latency of the level that served them. Every op also costs
warp-instruction issue slots. Ignored: register-dependency latencies inside a role (use `Delay`), and instruction
caches.
"""

from __future__ import annotations

from collections.abc import Callable

from simgpu.arch import DTYPE_BYTES, Arch
from simgpu.errors import ScheduleError
from simgpu.ops import Alu, Exp, Fma, Load, Mma, Smem, Store, Tmem, UnitOp
from simgpu.units.fma import LanePipe
from simgpu.units.issue import IssueSlots
from simgpu.units.l2 import L2
from simgpu.units.mufu import Mufu
from simgpu.units.server import Server, SpanRecorder
from simgpu.units.smem import SharedMemory
from simgpu.units.tensor_core import TensorCore
from simgpu.units.tma import CopyEngine
from simgpu.units.tmem import TensorMemory

WARP_LANES = 32
VECTOR_BYTES_PER_LANE = 16  # 128-bit ld/st.shared, cp.async and ld.global per thread
TMEM_BYTES_PER_INSTRUCTION = 4096  # tcgen05.ld/st 32x32b.x32: 32 lanes x 32 columns x 4 B per warp instruction

# Which operand placements each instruction kind accepts (PTX ISA): (A, B, accumulator).
_OPERANDS: dict[str, tuple[frozenset[str], frozenset[str], frozenset[str]]] = {
    "mma_sync": (frozenset({"reg"}), frozenset({"reg"}), frozenset({"reg"})),
    "wgmma": (frozenset({"reg", "smem"}), frozenset({"smem"}), frozenset({"reg"})),
    "tcgen05": (frozenset({"smem", "tmem"}), frozenset({"smem"}), frozenset({"tmem"})),
}


class Sm:
    """The per-SM units and the rules that charge ops to them."""

    def __init__(self, index: int, arch: Arch, l2: L2, recorder: Callable[[int], SpanRecorder | None]) -> None:
        rec = recorder(index)
        parts = arch.tensor_core.subpartitions
        self.index = index
        self.arch = arch
        self.l2 = l2
        self.issue = IssueSlots(arch.sm.warp_schedulers, rec)
        rates = {str(dtype): rate for dtype, rate in arch.tensor_core.flops_per_cycle.items()}
        self.tensor = TensorCore(arch.tensor_core.instruction, rates, parts, rec)
        self.mufu = Mufu(arch.mufu.ex2_per_cycle, parts, rec)
        self.fma = LanePipe("fma", arch.fma.fp32_per_cycle, parts, rec)
        self.alu = LanePipe("alu", arch.alu.ops_per_cycle, parts, rec)
        self.smem = SharedMemory(arch.smem.bandwidth_bytes_per_cycle, arch.smem.copy_engine_writes_use_port, rec)
        self.tmem = TensorMemory(arch.tmem.bandwidth_bytes_per_cycle, rec) if arch.tmem is not None else None
        self.tma = CopyEngine(arch.tma.issue_cycles, rec) if arch.tma is not None else None
        self._dispatch: dict[type, Callable[[UnitOp, float, int], float]] = {
            Load: self._load,  # type: ignore[dict-item]
            Store: self._store,  # type: ignore[dict-item]
            Mma: self._mma,  # type: ignore[dict-item]
            Exp: self._exp,  # type: ignore[dict-item]
            Fma: self._fma,  # type: ignore[dict-item]
            Alu: self._alu,  # type: ignore[dict-item]
            Smem: self._smem,  # type: ignore[dict-item]
            Tmem: self._tmem,  # type: ignore[dict-item]
        }

    def servers(self) -> dict[str, Server]:
        units = {
            "issue": self.issue.server,
            "tensor": self.tensor.server,
            "mufu": self.mufu.server,
            "fma": self.fma.server,
            "alu": self.alu.server,
            "smem": self.smem.server,
        }
        if self.tmem is not None:
            units["tmem"] = self.tmem.server
        if self.tma is not None:
            units["tma"] = self.tma.server
        return units

    def execute(self, op: UnitOp, now: float, warps: int) -> float:
        """Reserve the units `op` needs; return its completion time in cycles."""
        return self._dispatch[type(op)](op, now, warps)

    def _lanes(self, now: float, lane_ops: float, warps: int) -> float:
        return self.issue.issue(now, lane_ops / WARP_LANES, warps)

    def _fma(self, op: Fma, now: float, warps: int) -> float:
        return max(self.fma.run(now, op.count, warps), self._lanes(now, op.count, warps))

    def _alu(self, op: Alu, now: float, warps: int) -> float:
        return max(self.alu.run(now, op.count, warps), self._lanes(now, op.count, warps))

    def _exp(self, op: Exp, now: float, warps: int) -> float:
        if not 0.0 <= op.emulated_fraction <= 1.0:
            raise ScheduleError(f"Exp.emulated_fraction must be in [0, 1], got {op.emulated_fraction}")
        hardware = op.count * (1.0 - op.emulated_fraction)
        software_fma = op.count * op.emulated_fraction * op.fma_per_emulated
        done = self._lanes(now, hardware + software_fma, warps)
        done = max(done, self.mufu.ex2(now, hardware, warps))
        return max(done, self.fma.run(now, software_fma, warps))

    def _smem(self, op: Smem, now: float, warps: int) -> float:
        issued = self._lanes(now, (op.read_bytes + op.write_bytes) / VECTOR_BYTES_PER_LANE, warps)
        return max(issued, self.smem.access(now, op.read_bytes, op.write_bytes))

    def _tmem(self, op: Tmem, now: float, warps: int) -> float:
        if self.tmem is None:
            raise ScheduleError(f"{self.arch.name} has no Tensor Memory (features.tmem is false)")
        issued = self.issue.issue(now, (op.read_bytes + op.write_bytes) / TMEM_BYTES_PER_INSTRUCTION, warps)
        return max(issued, self.tmem.access(now, op.read_bytes, op.write_bytes))

    def _copy_issue(self, now: float, engine: str, nbytes: float, warps: int) -> float:
        if engine == "tma":
            if self.tma is None:
                raise ScheduleError(f"{self.arch.name} has no TMA (features.tma is false)")
            return max(self.issue.issue(now, 1.0, 1), self.tma.issue(now))
        return self._lanes(now, nbytes / VECTOR_BYTES_PER_LANE, warps)

    def _load(self, op: Load, now: float, warps: int) -> float:
        issued = self._copy_issue(now, op.engine, op.nbytes, warps)
        access = self.l2.load(issued, (op.tensor, op.tile), op.nbytes)
        if op.engine == "ldg":
            return access.ready
        return max(access.ready, self.smem.copy_in(issued, op.nbytes))

    def _store(self, op: Store, now: float, warps: int) -> float:
        issued = self._copy_issue(now, op.engine, op.nbytes, warps)
        key = (op.tensor, op.tile)
        if op.atomic:
            return self.l2.atomic(issued, key, op.nbytes)
        return self.l2.store(issued, key, op.nbytes)

    def _mma(self, op: Mma, now: float, warps: int) -> float:
        tc = self.arch.tensor_core
        allowed_a, allowed_b, allowed_acc = _OPERANDS[tc.instruction]
        if op.a not in allowed_a or op.b not in allowed_b or op.acc not in allowed_acc:
            raise ScheduleError(
                f"{tc.instruction} takes A from {sorted(allowed_a)}, B from {sorted(allowed_b)}, accumulator in "
                f"{sorted(allowed_acc)}; got A={op.a}, B={op.b}, acc={op.acc}"
            )
        element = DTYPE_BYTES.get(op.dtype)
        if element is None:
            raise ScheduleError(f"unknown MMA dtype {op.dtype!r}")
        if op.m % tc.instruction_m or (op.k * element) % tc.instruction_k_bytes or op.n % 8:
            raise ScheduleError(
                f"{tc.instruction} needs M a multiple of {tc.instruction_m}, N of 8 and K of "
                f"{tc.instruction_k_bytes // element}; got {op.m}x{op.n}x{op.k}"
            )
        instructions = (
            (op.m / tc.instruction_m) * -(-op.n // tc.instruction_n_max) * (op.k * element / tc.instruction_k_bytes)
        )
        done = self.tensor.mma(now, op.flops, op.dtype, warps)
        done = max(done, self.issue.issue(now, instructions, warps))
        a_bytes = op.m * op.k * element
        b_bytes = op.n * op.k * element
        smem_read = (a_bytes if op.a == "smem" else 0) + (b_bytes if op.b == "smem" else 0)
        if smem_read:
            done = max(done, self.smem.access(now, smem_read, 0.0))
        if op.a == "tmem":
            assert self.tmem is not None  # tcgen05 implies TMEM (arch validation)
            done = max(done, self.tmem.access(now, a_bytes, 0.0))
        return done
