"""One SM: its units, and how each op turns into reservations on them.

An op's completion time is the latest completion among the units it uses; the units work on it concurrently
(cut-through), each in FIFO order. Memory ops add the latency of the level that served them; a thread-issued load
made in dependent rounds (`Load.rounds`: each thread loads, uses and stores a part of its elements before it loads
the next) takes at least that latency once per round, so that a CTA moves at most its bytes per round per latency
(PyTorch's non-vectorized elementwise kernels: validation/h200/elementwise_rounds/). Every op also costs
warp-instruction issue slots. On an arch with a `latency:` section an op also cannot finish before its warps'
dependency chain (`simgpu.latency`): a delay of the role that occupies no unit. On an arch with a `contention:`
section the tensor cores and the lane pipes slow each other down while both are busy (`simgpu.units.contention`).
An MMA whose operands come from shared memory (wgmma's SS, tcgen05) reads them per instruction: its A tile once per
instruction column of N (past `tensor_core.instruction_n_max`) and its B tile once per instruction row of M (past
`tensor_core.instruction_m`), as no instruction shares another's operands (the v3 backward's dQ^T at d = 256, M = 256
on one consumer, reads dS^T four times).
An async MMA (wgmma) holds the role that issues it until the tensor cores have taken all but
`tensor_core.issue_queue_instructions` + 1 of its instructions (`async_release`): measured on the H200, a warpgroup
issuing S = QK^T and PV back to back is held for about their whole tensor-core time. A role with at most one warp
per scheduler issues in order, so its elementwise op lasts at least its longest pipe's span plus
`sm.single_warp_serial_fraction` of its other pipes' spans (spans from the op's start, so they include waiting behind
other roles' work on a pipe); like a latency floor, that wait occupies no unit.
A cp.async copy also passes the SM's load path at `sm.cp_async_bytes_per_cycle`, and a TMA copy the copy engine's
at `tma.bytes_per_cycle` (where the arch gives them): its data is ready one memory latency after its last bytes
pass. Its role waits while its warps issue it (`copy_issued`):
each warp goes through its copies one after the other, per copy its `Load.address_instructions` at the ALU latency
and `sm.cp_async_issue_cycles` on the load path (our FA2 kernel's executed SASS and a probe, both on the H200).
Stores and fp32 reductions issued straight from registers (`Store.fragment_lane_bytes`) pass the SM's store path
at `sm.fragment_store_cycles` per warp instruction over 8 rows (an MMA accumulator's fragments), in proportion to the
rows it covers (`Store.fragment_rows`) but at least `sm.fragment_store_min_cycles`, and their role waits until the
path has taken them (`copy_issued`): on the H200 an instruction over 8 rows of 16-32 bytes costs the SM 16 cycles,
plain store or RED alike, over 4 rows of 32 bytes 8, over one row of 128 bytes 5 (validation/h200/dq_atomics_h200.csv,
dq_atomics_rows_h200.csv). Where an instruction writes less than a 32-byte sector per row (4-byte lanes over 8 rows:
16 bytes), the L2 serves each row's write as `l2.partial_sector_write_accesses` sector accesses (a read and a write
of the sector), whatever bytes it counts: our standard QK^T kernel's S (validation/h200/std_kernels/).
Bytes an `Smem` op copies to a peer CTA of the cluster (`dsmem_bytes`) pass the SM's link to the SM-to-SM network at
`dsmem.bandwidth_bytes_per_cycle` and land `dsmem.latency_cycles` after the last one (a unit of its own, "dsmem").
On an arch with contention an op's completion is provisional: work that other roles reserve on the tensor cores
while it runs slows its pipes further, and the op's `Revision` gives the completion those stretched units imply
(the engine waits for it). Copies (`Load`, `Store`) are not revised. Async MMAs from two roles are served first come,
first served like any op: on the chip FA3's two consumers at d = 128 take turns from every start delay, and the
consumer toy that runs their SASS has the leader's S done 641 cycles before the other's from a common start
(`docs/results/basins_36/`). (Until the sixty-seventh session the two roles' MMAs interleaved instruction by
instruction, which kept the consumers' softmaxes meeting while the lane pipes served each softmax as one op; with the
exp pass in parts, `algorithms._schedule.softmax`, the softmaxes meet by themselves, and beside the parts the
interleave would keep d = 128 in step: 3,656 cycles per key tile against the chip's 2,584 when the twenty-fifth
session shared the pipes fluidly, `docs/results/lockstep_rules_not_kept_2026-12-04.txt`.)
Ignored: instruction caches, and otherwise the warp schedulers' interleaving of co-resident roles on one unit (each
unit serves whole ops in FIFO order; mma.sync from two roles included); of the chip-wide limit that slows fragment
stores to 31-36 cycles per instruction when every SM issues them at once, all but the L2's partial-sector cost
(about 15 of them): stores in bursts from every SM lose L2 throughput (a chip-wide server for the limit was tried
and not kept: `docs/results/experiments_not_kept_2026-12-02.txt`).
A TMA copy that misses L2 lands `tma.hbm_box_extra_cycles` later than the HBM's latency (a pointer chase's, one line)
after its bytes imply: a box's lines spread over the HBM's channels and it is done with the last (one SM's 16 KiB
boxes one at a time on an idle H200: 1080 cycles, the model 893 without it; `validation/h200/loaded_latency_h200.csv`,
`docs/results/loaded_latency.csv`). From L2 the chip's box lands ~40 cycles after the model's (478 against 437, one
at a time, `validation/h200/tma_boxes_h200.csv`): not modelled.
A CTA's first TMA copy through each tensor's map first reads the map (a 128-byte CUtensorMap), and its bytes move
only once the map is there: one L2 hit latency later. On the H200 (validation/h200/tma_cold_summary_h200.csv) the
first copy through a map lands ~800 cycles later than one through a map already used when the map itself misses
L2 (a kernel's first CTAs: ignored), and 300-600 cycles later in the CTAs after them; its thread is not held.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass
from typing import Final, cast

from simgpu.arch import DTYPE_BYTES, Arch, ContentionRates
from simgpu.errors import ScheduleError
from simgpu.latency import elementwise_floor, mma_sync_floor
from simgpu.ops import Alu, Chain, Exp, Fma, Load, Mma, PlanMemo, Smem, Store, Tmem, UnitOp, Vector
from simgpu.units.contention import Contention, Lane
from simgpu.units.fluid_l2 import FluidL2
from simgpu.units.fma import LanePipe
from simgpu.units.issue import IssueSlots
from simgpu.units.l2 import L2, Access
from simgpu.units.mufu import Mufu
from simgpu.units.server import PendingEnd, Server, SpanRecorder
from simgpu.units.smem import SharedMemory
from simgpu.units.tensor_core import TensorCore
from simgpu.units.tma import CopyEngine
from simgpu.units.tmem import TensorMemory

# `Final`: mypyc compiles the constants in rather than looking them up in the module's dictionary once per op.
WARP_LANES: Final = 32
VECTOR_BYTES_PER_LANE: Final = 16  # 128-bit ld/st.shared, cp.async and ld.global per thread
TMEM_BYTES_PER_INSTRUCTION: Final = 4096  # tcgen05.ld/st 32x32b.x32: 32 lanes x 32 columns x 4 B per warp instruction
FRAGMENT_ROWS: Final = 8  # rows of an MMA accumulator's fragments one warp-level store covers (m16n8: 8 per half)
SECTOR_BYTES: Final = 32  # the L2's unit of access

# mma.sync's shape is fixed by the PTX ISA (m16n8k16 for 16-bit inputs: K is 32 bytes), whatever the chip.
MMA_SYNC_SHAPE = (16, 8, 32)

# Which operand placements each instruction kind accepts (PTX ISA): (A, B, accumulator).
_OPERANDS: dict[str, tuple[frozenset[str], frozenset[str], frozenset[str]]] = {
    "mma_sync": (frozenset({"reg"}), frozenset({"reg"}), frozenset({"reg"})),
    "wgmma": (frozenset({"reg", "smem"}), frozenset({"smem"}), frozenset({"reg"})),
    "tcgen05": (frozenset({"smem", "tmem"}), frozenset({"smem"}), frozenset({"tmem"})),
}


class Sm:
    """The per-SM units and the rules that charge ops to them."""

    def __init__(
        self, index: int, arch: Arch, l2: L2 | FluidL2, recorder: Callable[[int], SpanRecorder | None]
    ) -> None:
        rec = recorder(index)
        parts = arch.tensor_core.subpartitions
        self.index = index
        self.async_release = 0.0  # when the role that issued the latest async MMA may go on (`_mma`)
        self.copy_issued = 0.0  # when the role that issued the latest cp.async copy or fragment store may go on
        self.revision: Revision | None = None  # of the op `execute` reserved last
        self._role: object = None  # the role of the op `execute` is reserving
        self.arch = arch
        self.l2 = l2
        # Fast mode's L2 counts a tile's later accesses' misses per CTA slot (`simgpu.units.fluid_l2`): told the slot.
        self._fluid = l2 if isinstance(l2, FluidL2) else None
        self.issue = IssueSlots(arch.sm.warp_schedulers, rec)
        self._issue_server = self.issue.server
        tc = arch.tensor_core
        native = {str(dtype): rate for dtype, rate in tc.flops_per_cycle.items()}
        legacy = tc.mma_sync_flops_per_cycle
        legacy_rates = {str(dtype): rate for dtype, rate in legacy.items()} if legacy is not None else None
        self.tensor = TensorCore(tc.instruction, native, legacy_rates, parts, rec)
        spec = arch.contention
        contention = None
        if spec is not None:
            rates: dict[str, ContentionRates] = {tc.instruction: spec, "mma_sync": spec.mma_sync or spec}
            contention = Contention(self.tensor.server, tc.instruction, rates)
            self.tensor.contention = contention
        self.contention = contention
        self.mufu = Mufu(arch.mufu.ex2_per_cycle, parts, rec, contention)
        self.fma = LanePipe("fma", arch.fma.fp32_per_cycle, parts, rec, contention)
        self.alu = LanePipe("alu", arch.alu.ops_per_cycle, parts, rec, contention)
        # The FMA, ALU and MUFU pipes' lanes, which exist where contention does: read together by the reservations.
        lanes = (self.fma.lane, self.alu.lane, self.mufu.lane)
        self._pipe_lanes: tuple[Lane, Lane, Lane] | None = None
        if lanes[0] is not None and lanes[1] is not None and lanes[2] is not None:
            self._pipe_lanes = (lanes[0], lanes[1], lanes[2])
        shares = {"cp_async": arch.smem.cp_async_write_port_fraction, "tma": arch.smem.tma_write_port_fraction}
        self.smem = SharedMemory(arch.smem.bandwidth_bytes_per_cycle, shares, rec, contention)
        self.tmem = TensorMemory(arch.tmem.bandwidth_bytes_per_cycle, rec) if arch.tmem is not None else None
        self.tma = CopyEngine(arch.tma.issue_cycles, rec) if arch.tma is not None else None
        ingest = arch.sm.cp_async_bytes_per_cycle
        self.cp_async_ingest = Server("cp_async_ingest", ingest, rec) if ingest is not None else None
        tma_rate = arch.tma.bytes_per_cycle if arch.tma is not None else None
        self.tma_ingest = Server("tma_ingest", tma_rate, rec) if tma_rate is not None else None
        self._ingest = {"cp_async": self.cp_async_ingest, "tma": self.tma_ingest}
        # A TMA copy that misses L2 lands later than one line's HBM latency after its bytes: `tma.hbm_box_extra_cycles`.
        box_extra = arch.tma.hbm_box_extra_cycles if arch.tma is not None else None
        self._tma_box_extra = box_extra or 0.0
        self._partial_sector_accesses = arch.l2.partial_sector_write_accesses
        self._fragment_store_cycles = arch.sm.fragment_store_cycles
        self._fragment_store_min_cycles = arch.sm.fragment_store_min_cycles
        self.store_path = Server("store_path", 1.0, rec) if self._fragment_store_cycles is not None else None
        dsmem = arch.dsmem
        self.dsmem = Server("dsmem", dsmem.bandwidth_bytes_per_cycle, rec) if dsmem is not None else None
        self._dsmem_latency = dsmem.latency_cycles if dsmem is not None else 0.0
        self.latency = arch.latency
        self._cp_async_issue_cycles = arch.sm.cp_async_issue_cycles or 0.0
        self._address_step_cycles = arch.latency.alu_cycles if arch.latency is not None else 0.0
        self._smem_cycles = arch.latency.smem_cycles if arch.latency is not None else None  # read once: per `Smem` op
        self._single_warp_serial = arch.sm.single_warp_serial_fraction  # read once: `_elementwise` is a hot path
        self._schedulers = arch.sm.warp_schedulers
        self._parts = parts  # the lane pipes' processing blocks: a role of w warps reaches min(w, parts) / parts
        # Derived constants of ops already seen (validated once), by shape: ops repeat every loop iteration. (Asked
        # where an op's own `memo` holds no plan for the role and arch: `PlanMemo`.)
        self._elementwise_plans: dict[_ElementwiseKey, _ElementwisePlan] = {}
        self._mma_plans: dict[tuple[object, ...], _MmaPlan] = {}

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
        if self.cp_async_ingest is not None:
            units["cp_async_ingest"] = self.cp_async_ingest
        if self.tma_ingest is not None:
            units["tma_ingest"] = self.tma_ingest
        if self.store_path is not None:
            units["store_path"] = self.store_path
        if self.dsmem is not None:
            units["dsmem"] = self.dsmem
        return units

    def untie(self) -> None:
        """Forget the run's roles once it is over: the last op's role (whose CTA holds this SM), the watched ends and
        the last op's revision, so that reference counting frees the run (`Engine._untie`)."""
        self._role = None
        self.revision = None
        for server in self.servers().values():
            server.watchers = []

    def execute(self, op: UnitOp, now: float, warps: int, role: object = None) -> float:
        """Reserve the units `op` needs for warp role `role`; return its completion time in cycles. `revision` is
        then the op's `Revision` if contention may still move that time, else None."""
        self.revision = None
        self._role = role
        # Matched by exact type, the commonest first, each a native call: compiled, a table of bound methods made
        # each op a Python call (its arguments parsed, its result boxed).
        kind = type(op)
        if kind is Vector:
            return self._elementwise(op, now, warps)  # type: ignore[arg-type]
        if kind is Load:
            return self._load(op, now, warps)  # type: ignore[arg-type]
        if kind is Store:
            return self._store(op, now, warps)  # type: ignore[arg-type]
        if kind is Mma:
            return self._mma(op, now, warps)  # type: ignore[arg-type]
        if kind is Smem:
            return self._smem(op, now, warps)  # type: ignore[arg-type]
        if kind is Exp or kind is Fma or kind is Alu:
            return self._elementwise(op, now, warps)  # type: ignore[arg-type]
        if kind is Tmem:
            return self._tmem(op, now, warps)  # type: ignore[arg-type]
        raise ScheduleError(f"{kind.__name__} is not an op a unit serves")

    def _lanes(self, now: float, lane_ops: float, warps: int) -> float:
        # `IssueSlots.issue` inlined: nearly every op issues lane instructions.
        return self._issue_server.reserve(now, lane_ops / WARP_LANES, min(warps, self._schedulers))

    def _elementwise(self, op: Fma | Alu | Exp | Vector, now: float, warps: int) -> float:
        """FMA, ALU and exp2 lane ops issued together (and a `Vector`'s `issue` lane instructions that only take issue
        slots): the pipes run concurrently, issue slots are shared; the op ends no sooner than its dependency chain
        allows."""
        memo = op.memo
        if memo is not None and memo.arch is self.arch and memo.warps == warps:
            plan = cast(_ElementwisePlan, memo.plan)
        else:
            plan = self._elementwise_plan_of(op, warps)
            object.__setattr__(op, "memo", PlanMemo(self.arch, warps, plan))
        issue_slots, issue_share, floor, fma_total, alu, hardware, share, serial = plan
        base = self._issue_server.reserve(now, issue_slots, issue_share)  # `_lanes`
        floored = now + floor
        if floored > base:
            base = floored
        # Each pipe's server reserved here, at the role's share (`simgpu.units.fma`).
        contention = self.contention
        lanes = self._pipe_lanes
        if contention is None or lanes is None:
            ends: list[float] = []
            if fma_total:
                ends.append(self.fma.server.reserve(now, fma_total, share))
            if alu:
                ends.append(self.alu.server.reserve(now, alu, share))
            if hardware:
                ends.append(self.mufu.server.reserve(now, hardware, share))
            return elementwise_done(now, base, ends, serial)
        fma_lane, alu_lane, mufu_lane = lanes
        pipes: list[PendingEnd] = []
        if fma_total:
            end = contention.reserve_pipe(fma_lane, now, fma_total, share)
            pipes.append(self.fma.server.watch(end, now))
        if alu:
            end = contention.reserve_pipe(alu_lane, now, alu, share)
            pipes.append(self.alu.server.watch(end, now))
        if hardware:
            end = contention.reserve_pipe(mufu_lane, now, hardware, share)
            pipes.append(self.mufu.server.watch(end, now))
        revision = Revision(now, base, tuple(pipes), serial)
        self.revision = revision
        return revision.done()

    def _elementwise_plan_of(self, op: Fma | Alu | Exp | Vector, warps: int) -> _ElementwisePlan:
        """The plan of an elementwise op for a role of `warps`, derived once per op shape (`_elementwise_key`)."""
        key = _elementwise_key(op, warps)
        plan = self._elementwise_plans.get(key)
        if plan is None:
            plan = self._elementwise_plans[key] = self._elementwise_plan(key)
        return plan

    def _elementwise_plan(self, key: _ElementwiseKey) -> _ElementwisePlan:
        """An elementwise op's lane ops per pipe, issue slots, latency floor and shares, for a role of `warps`, from
        its shape (`_elementwise_key`)."""
        fma, alu, ex2, emulated, fma_per_emulated, chain, warps, other = key
        if not 0.0 <= emulated <= 1.0:
            raise ScheduleError(f"emulated_fraction must be in [0, 1], got {emulated}")
        if other < 0:
            raise ScheduleError(f"issue (lane instructions on no pipe) must be >= 0, got {other}")
        hardware = ex2 * (1.0 - emulated)
        fma_total = fma + ex2 * emulated * fma_per_emulated
        floor = 0.0
        if self.latency is not None:
            emulated_chain = fma_per_emulated if ex2 * emulated else 0.0
            floor = elementwise_floor(self.latency, chain, fma, alu, hardware, emulated_chain)
        lanes = fma_total + alu + hardware
        parts = self._parts
        return (
            (lanes + other) / WARP_LANES,
            min(warps, self._schedulers),
            floor,
            fma_total,
            alu,
            hardware,
            min(warps, parts) / parts,
            self._single_warp_serial if warps <= self._schedulers else None,
        )

    def _smem(self, op: Smem, now: float, warps: int) -> float:
        read, write, dsmem = op.read_bytes, op.write_bytes, op.dsmem_bytes  # each field read once (as in `_load`)
        issued = self._lanes(now, (read + write) / VECTOR_BYTES_PER_LANE, warps)
        base = max(issued, now + self._smem_cycles) if self._smem_cycles is not None else issued
        port_done = self.smem.access(now, read, write)
        if dsmem:  # a copy to a peer CTA's smem: through this SM's link, then one network latency
            if self.dsmem is None:
                raise ScheduleError(f"{self.arch.name} has no dsmem section: no SM-to-SM network to copy over")
            base = max(base, self.dsmem.reserve(now, dsmem) + self._dsmem_latency)
        if self.contention is None:
            return max(base, port_done)
        revision = Revision(now, base, (self.smem.server.watch(port_done, now),))
        self.revision = revision
        return revision.done()

    def _tmem(self, op: Tmem, now: float, warps: int) -> float:
        if self.tmem is None:
            raise ScheduleError(f"{self.arch.name} has no Tensor Memory (features.tmem is false)")
        issued = self.issue.issue(now, (op.read_bytes + op.write_bytes) / TMEM_BYTES_PER_INSTRUCTION, warps)
        return max(issued, self.tmem.access(now, op.read_bytes, op.write_bytes))

    def _copy_issue(self, now: float, engine: str, nbytes: float, warps: int, address_instructions: float) -> float:
        if engine == "tma":
            if self.tma is None:
                raise ScheduleError(f"{self.arch.name} has no TMA (features.tma is false)")
            return max(self.issue.issue(now, 1.0, 1), self.tma.issue(now))
        if address_instructions < 0:
            raise ScheduleError(f"address_instructions must be >= 0, got {address_instructions}")
        copies = nbytes / VECTOR_BYTES_PER_LANE  # one instruction per thread per 16 bytes
        issued = self._lanes(now, copies * (1.0 + address_instructions), warps)
        if address_instructions:
            # The ALU pipe at the role's share, as in `_elementwise`.
            parts = self._parts
            share = min(warps, parts) / parts
            contention, lanes = self.contention, self._pipe_lanes
            alu_ops = copies * address_instructions
            if contention is None or lanes is None:
                issued = max(issued, self.alu.server.reserve(now, alu_ops, share))
            else:
                issued = max(issued, contention.reserve_pipe(lanes[1], now, alu_ops, share))  # the ALU's lane
        # Each warp goes through its copies one after the other: the address chain, then the load path's pace.
        step_cycles = address_instructions * self._address_step_cycles
        if engine == "cp_async":
            step_cycles += self._cp_async_issue_cycles
        return max(issued, now + copies / WARP_LANES / warps * step_cycles)

    def _load(self, op: Load, now: float, warps: int) -> float:
        # The fields read once each: compiled, every read of an op's field is a Python attribute lookup.
        engine, nbytes, rounds = op.engine, op.nbytes, op.rounds
        if self._fluid is not None:
            self._fluid.slot = self._cta_slot()
        issued = self._copy_issue(now, engine, nbytes, warps, op.address_instructions)
        # The role that issues a cp.async goes on once its warps have issued it (the engine holds it until then).
        self.copy_issued = issued if engine == "cp_async" else now
        access = self.l2.load(issued, op.key, nbytes)
        if engine == "ldg":
            if rounds == 1:
                return access.ready
            if rounds < 1:
                raise ScheduleError(f"a load's rounds must be >= 1, got {rounds}")
            # Each round waits for its data before the next is issued: the copy's bytes book L2 and HBM at its
            # issue as one access, and it is ready no sooner than `rounds` latencies of the level that served it.
            return max(access.ready, issued + rounds * self._served_latency(access, issued))
        if rounds != 1:
            raise ScheduleError(f"rounds are the round trips of a thread-issued load (ldg), not of {engine}")
        ready = access.ready
        ingest = self._ingest.get(engine)
        if ingest is not None:
            # The copy's bytes leave the SM's load path at its rate; the last returns one latency after it left.
            ready = max(ready, ingest.reserve(issued, nbytes) + self._served_latency(access, issued))
        ready = max(ready, self.smem.copy_in(issued, nbytes, engine))
        if engine == "tma" and not access.hit:
            ready += self._tma_box_extra
        return ready + self._tensor_map_wait(op)

    def _cta_slot(self) -> int:
        """The CTA slot of the role whose op is being reserved (0 for an op executed outside a CTA)."""
        cta = getattr(self._role, "cta", None)  # None: an op executed outside a CTA (unit tests of the SM)
        return 0 if cta is None else int(cta.slot)

    def _served_latency(self, access: Access, issued: float) -> float:
        """The latency of the level that served `access` (a load issued at `issued`): L2's for a hit, HBM's then."""
        return self.l2.hit_latency if access.hit else self.l2.hbm.latency(issued)

    def _store(self, op: Store, now: float, warps: int) -> float:
        key = op.key
        if self._fluid is not None:
            self._fluid.slot = self._cta_slot()
        if op.fragment_lane_bytes:
            issued = self._fragment_store_issue(now, op, warps)
            # L2 and HBM are booked when the stores start: they serve every SM first come, first served in booking
            # order, so a booking at the issue's end (thousands of cycles ahead) would hold back the traffic other
            # SMs book meanwhile. The write is done no sooner than one L2 latency after its last instruction.
            if op.atomic:
                written = self.l2.atomic(now, key, op.nbytes)
            else:
                written = self.l2.store(now, key, op.nbytes, self._partial_sector_bytes(op))
            return max(written, issued + self.l2.hit_latency)
        issued = self._copy_issue(now, op.engine, op.nbytes, warps, 0.0)
        self.copy_issued = now
        wait = self._tensor_map_wait(op)
        if op.atomic:
            return self.l2.atomic(issued, key, op.nbytes) + wait
        return self.l2.store(issued, key, op.nbytes) + wait

    def _partial_sector_bytes(self, op: Store) -> float:
        """The L2 service of a store from fragments whose instructions write less than a sector per row: each row
        segment `l2.partial_sector_write_accesses` sector accesses (0: it costs its bytes)."""
        row_bytes = WARP_LANES // op.fragment_rows * op.fragment_lane_bytes
        if self._partial_sector_accesses is None or row_bytes >= SECTOR_BYTES:
            return 0.0
        return op.nbytes / row_bytes * self._partial_sector_accesses * SECTOR_BYTES

    def _tensor_map_wait(self, op: Load | Store) -> float:
        """How long a copy waits for its tensor's map: nothing unless it is a TMA copy its CTA makes through that
        map for the first time, then one L2 round trip (every CTA but a kernel's very first finds the map in L2;
        the map's bytes are not counted). The copy's own L2/HBM bookings stay at its issue and only its completion
        moves: a booking that far ahead would hold back every SM's traffic booked meanwhile (L2 and HBM serve in
        booking order). Copies that move no bytes (semaphore polls and releases) are plain accesses: no map."""
        if op.engine != "tma" or not op.nbytes or (type(op) is Store and op.release):
            return 0.0
        cta = getattr(self._role, "cta", None)  # None: an op executed outside a CTA (unit tests of the SM)
        if cta is None or op.tensor in cta.tensor_maps:
            return 0.0
        cta.tensor_maps.add(op.tensor)
        return self.l2.hit_latency

    def _fragment_store_issue(self, now: float, op: Store, warps: int) -> float:
        """One instruction per thread per `op.fragment_lane_bytes`; the role goes on once the store path has taken
        them."""
        lane_bytes, rows = op.fragment_lane_bytes, op.fragment_rows
        if lane_bytes < 0:
            raise ScheduleError(f"fragment_lane_bytes must be >= 0, got {lane_bytes}")
        if not 1 <= rows <= FRAGMENT_ROWS:
            raise ScheduleError(f"fragment_rows must be 1 to {FRAGMENT_ROWS}, got {rows}")
        stores = op.nbytes / lane_bytes
        issued = self._lanes(now, stores, warps)
        if self.store_path is not None:
            assert self._fragment_store_cycles is not None  # set together in __init__
            per_instruction = max(self._fragment_store_cycles * rows / FRAGMENT_ROWS, self._fragment_store_min_cycles)
            issued = max(issued, self.store_path.reserve(now, stores / WARP_LANES * per_instruction))
        self.copy_issued = issued
        return issued

    def _mma(self, op: Mma, now: float, warps: int) -> float:
        memo = op.memo
        if memo is not None and memo.arch is self.arch and memo.warps == warps:
            plan = cast(_MmaPlan, memo.plan)
        else:
            plan = self._mma_plan_of(op, warps)
            object.__setattr__(op, "memo", PlanMemo(self.arch, warps, plan))
        # An async MMA's result is usable `result_latency` after its tensor-core work; mma.sync's k-steps chain.
        tensor_done = self.tensor.mma(now, plan.flops, plan.tensor_share, plan.native_cycles, plan.instruction)
        issue_tail = plan.issue_tail
        # Its issuing role goes on once the tensor cores have taken all but the queue's worth of its instructions.
        # (max() written out: once per MMA.)
        if issue_tail is None or (released := tensor_done - issue_tail) <= now:
            self.async_release = now
        else:
            self.async_release = released
        base = self._issue_server.reserve(now, plan.instructions, plan.issue_share)  # `IssueSlots.issue`
        floored = now + plan.floor
        if floored > base:
            base = floored
        if plan.tmem_read:
            assert self.tmem is not None  # tcgen05 implies TMEM (arch validation)
            base = max(base, self.tmem.access(now, plan.tmem_read, 0.0))
        port_done = self.smem.access(now, plan.smem_read, 0.0) if plan.smem_read else now
        if self.contention is None:  # nothing can move this op's end
            return max(base, tensor_done + plan.result_latency, port_done)
        smem_watch = (self.smem.server.watch(port_done, now),) if plan.smem_read else ()
        tensor = self.tensor.server.watch(tensor_done, now)
        revision = Revision(now, base, smem_watch, None, tensor, plan.result_latency, plan.issue_tail)
        self.revision = revision
        return revision.done()

    def _mma_plan_of(self, op: Mma, warps: int) -> _MmaPlan:
        """The plan of an MMA for a role of `warps`, derived once per op shape."""
        # Keyed by the fields the plan depends on: an `Mma`'s own hash and equality are Python functions.
        key = (op.m, op.n, op.k, op.dtype, op.a, op.b, op.acc, op.instruction, op.operand_smem_bytes, op.b_share, warps)
        plan = self._mma_plans.get(key)
        if plan is None:
            plan = self._mma_plans[key] = self._mma_plan(op, warps)
        return plan

    def _mma_plan(self, op: Mma, warps: int) -> _MmaPlan:
        """Check `op` against the instruction's operand rules and shape; derive its instruction and byte counts, and
        its shares of the tensor cores and issue slots for a role of `warps`."""
        tc = self.arch.tensor_core
        instruction = op.instruction or tc.instruction
        if instruction not in _OPERANDS:
            raise ScheduleError(f"unknown MMA instruction {instruction!r}")
        allowed_a, allowed_b, allowed_acc = _OPERANDS[instruction]
        if op.a not in allowed_a or op.b not in allowed_b or op.acc not in allowed_acc:
            raise ScheduleError(
                f"{instruction} takes A from {sorted(allowed_a)}, B from {sorted(allowed_b)}, accumulator in "
                f"{sorted(allowed_acc)}; got A={op.a}, B={op.b}, acc={op.acc}"
            )
        element = DTYPE_BYTES.get(op.dtype)
        if element is None:
            raise ScheduleError(f"unknown MMA dtype {op.dtype!r}")
        if min(op.m, op.n, op.k) <= 0:
            raise ScheduleError(f"an MMA needs positive M, N and K; got {op.m}x{op.n}x{op.k}")
        if instruction == tc.instruction:
            shape_m, shape_n, shape_k_bytes = tc.instruction_m, tc.instruction_n_max, tc.instruction_k_bytes
        else:
            shape_m, shape_n, shape_k_bytes = MMA_SYNC_SHAPE
        if op.m % shape_m or (op.k * element) % shape_k_bytes or op.n % 8:
            raise ScheduleError(
                f"{instruction} needs M a multiple of {shape_m}, N of 8 and K of {shape_k_bytes // element}; "
                f"got {op.m}x{op.n}x{op.k}"
            )
        if op.a == "tmem" and self.tmem is None:
            raise ScheduleError(f"{self.arch.name} has no Tensor Memory for the A operand")
        if op.b_share < 1 or (op.b_share > 1 and instruction != "tcgen05"):
            raise ScheduleError(f"b_share={op.b_share}: only tcgen05's 2-CTA MMAs split B across CTAs")
        # The instruction grid: rows of M, columns of N, k-steps.
        m_blocks, n_blocks, k_steps = op.m // shape_m, -(-op.n // shape_n), op.k * element / shape_k_bytes
        mma_instructions = m_blocks * n_blocks * k_steps
        # A 2-CTA MMA (cta_group::2) is issued once for the pair by one thread of the leader CTA: per CTA of the
        # symmetric pair, 1 / b_share of the pair's instructions.
        instructions = mma_instructions / op.b_share
        # ldmatrix: one 16-byte row per lane per instruction for the register operands read from smem.
        instructions += op.operand_smem_bytes / VECTOR_BYTES_PER_LANE / WARP_LANES
        a_bytes = op.m * op.k * element
        b_bytes = op.n * op.k * element / op.b_share
        # Each instruction reads its own tiles: B once per instruction row of M, A once per instruction column of N
        # (mma.sync takes no operand from smem: `_OPERANDS`).
        smem_read = (
            (a_bytes * n_blocks if op.a == "smem" else 0)
            + (b_bytes * m_blocks if op.b == "smem" else 0)
            + op.operand_smem_bytes
        )
        issue_tail = None
        native_rate = tc.flops_per_cycle.get(op.dtype)  # type: ignore[call-overload]
        if instruction == tc.instruction != "mma_sync" and tc.issue_queue_instructions is not None and native_rate:
            # Nominal cycles of the instructions still allowed in the tensor cores when the role is released.
            queued = min(mma_instructions, tc.issue_queue_instructions + 1)
            issue_tail = queued * op.flops / mma_instructions / native_rate
        floor = result_latency = 0.0
        if self.latency is not None:
            if instruction == "mma_sync":
                floor = mma_sync_floor(self.latency, k_steps, op.operand_smem_bytes > 0)
            else:
                result_latency = self.latency.mma_async_cycles
        tensor_share, native_cycles = self.tensor.plan(op.flops, op.dtype, warps, instruction)
        return _MmaPlan(
            op.flops,
            tensor_share,
            native_cycles,
            min(warps, self._schedulers),
            instruction,
            instructions,
            float(smem_read),
            float(a_bytes if op.a == "tmem" else 0),
            floor,
            result_latency,
            issue_tail,
        )


# An elementwise op's (issue slots, issue share, latency floor, FMA / ALU / MUFU lane ops, pipe share, serial
# fraction or None), derived once per op shape and role size: `Sm._elementwise` unpacks it per op.
_ElementwisePlan = tuple[float, int, float, float, float, float, float, float | None]
# `Sm._elementwise`'s arguments, the key of its plans: FMA, ALU and ex2 lane ops, the emulated fraction, FMAs per
# emulated exp2, the dependency chain, the role's warps, and the lane instructions that only take issue slots.
_ElementwiseKey = tuple[float, float, float, float, float, Chain | None, int, float]


def _elementwise_key(op: Fma | Alu | Exp | Vector, warps: int) -> _ElementwiseKey:
    """An elementwise op's shape for a role of `warps`: its lane ops per kind, emulated exp2s, dependency chain, and
    the lane instructions that only take issue slots."""
    kind = type(op)
    if kind is Vector:
        vector: Vector = op  # type: ignore[assignment]
        return (
            vector.fma,
            vector.alu,
            vector.ex2,
            vector.emulated_fraction,
            vector.fma_per_emulated,
            vector.chain,
            warps,
            vector.issue,
        )
    if kind is Exp:
        exp: Exp = op  # type: ignore[assignment]
        return (0.0, 0.0, exp.count, exp.emulated_fraction, exp.fma_per_emulated, exp.chain, warps, 0.0)
    if kind is Fma:
        return (op.count, 0.0, 0.0, 0.0, 0.0, op.chain, warps, 0.0)  # type: ignore[union-attr]
    return (0.0, op.count, 0.0, 0.0, 0.0, op.chain, warps, 0.0)  # type: ignore[union-attr]


@dataclass(frozen=True, slots=True)
class _MmaPlan:
    flops: float  # the op's, read once
    tensor_share: float  # of the tensor cores' FLOP server (`TensorCore.plan`)
    native_cycles: float  # the FLOPs' cycles at the native instruction's rate (`TensorCore.native_cycles`)
    issue_share: int  # warp schedulers the role issues on
    instruction: str
    instructions: float
    smem_read: float
    tmem_read: float
    floor: float  # latency floor from the op's start (mma.sync's dependent k-steps)
    result_latency: float  # added after the tensor-core work (async MMAs' fence, commit, wait)
    issue_tail: float | None  # async MMAs: cycles of the instructions the tensor cores queue (None: never waits)


def elementwise_done(now: float, base: float, pipe_ends: list[float], serial: float | None) -> float:
    """An elementwise op's completion: the latest of `base` (issue slots, latency floor) and its pipes' ends, and,
    for a role that issues in order (`serial` given), its longest pipe span plus `serial` of the other spans."""
    # max() written out: once per elementwise op. The spans' longest and sum as `Revision.done` keeps them.
    done = base
    longest = -math.inf
    total = 0.0
    for end in pipe_ends:
        if end > done:
            done = end
        span = end - now
        if span > longest:
            longest = span
        total += span
    if serial is not None and len(pipe_ends) > 1:
        bound = now + longest + serial * (total - longest)
        if bound > done:
            done = bound
    return done


class Revision:
    """An op's completion as the units it used now imply: their watched ends move when contention stretches work
    reserved before them (`simgpu.units.server.Server.stretch`)."""

    __slots__ = ("base", "issue_tail", "now", "pipe", "pipes", "result_latency", "serial", "tensor")

    def __init__(
        self,
        now: float,
        base: float,
        pipes: tuple[PendingEnd, ...],
        serial: float | None = None,
        tensor: PendingEnd | None = None,
        result_latency: float = 0.0,
        issue_tail: float | None = None,
    ) -> None:
        self.now = now
        self.base = base  # the part no contention moves: issue slots, latency floors, TMEM reads
        # Lane pipes' or the smem port's ends: one alone in `pipe` (`done` then needs no loop), two or more in `pipes`.
        single = len(pipes) == 1
        self.pipe = pipes[0] if single else None
        self.pipes = () if single else pipes
        self.serial = serial  # `sm.single_warp_serial_fraction` for an in-order role's elementwise op, else None
        self.tensor = tensor  # an MMA's end on the tensor cores
        self.result_latency = result_latency
        self.issue_tail = issue_tail  # async MMAs: see `_MmaPlan.issue_tail`

    def done(self) -> float:
        # `elementwise_done` written out (asked again and again while an op's end settles): one pipe's end bounds
        # the op's alone; `serial` applies to two pipes or more.
        pipes = self.pipes
        done = self.base
        pipe = self.pipe
        if pipe is not None:
            end = pipe.end
            if end > done:
                done = end
        elif pipes:
            # The spans' longest and sum kept as the loop goes (compiled, `max` and `sum` of a list are builtins
            # looked up by name); summed from 0 in order, as `sum` does.
            now = self.now
            longest = -math.inf
            total = 0.0
            for watched in pipes:
                end = watched.end
                if end > done:
                    done = end
                span = end - now
                if span > longest:
                    longest = span
                total += span
            serial = self.serial
            if serial is not None:
                bound = now + longest + serial * (total - longest)
                if bound > done:
                    done = bound
        tensor = self.tensor
        if tensor is not None:
            end = tensor.end + self.result_latency
            if end > done:
                done = end
        return done

    def release(self) -> float:
        """When the role that issued this async MMA may go on (its issue queue)."""
        if self.tensor is None or self.issue_tail is None:
            return self.now
        return max(self.now, self.tensor.end - self.issue_tail)
