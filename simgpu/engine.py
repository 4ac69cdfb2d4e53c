"""The discrete-event engine: CTAs placed on SMs, warp roles as generator processes, ops charged to units.

Kernels run one after another (a launch gap apart) on one chip whose L2 contents carry over between them. For each
kernel the engine computes how many CTAs fit on an SM (threads, registers, shared memory, TMEM, CTA slots) and
starts that many CTA slots per SM, filled breadth-first across SMs as the hardware's block scheduler does. A slot
runs CTAs until the tile queue is empty (one tile per CTA), or, for a persistent kernel, runs one CTA that is handed
its first tile at launch (slot i takes tile i, as FA3's and FA4's tile schedulers start each CTA at its blockIdx)
and whose roles pull further tiles from the queue when they reach them, at most one tile ahead of the CTA's slowest
role: a role may take tile k once every role of its CTA has started tile k - 1 (a scheduler pipeline one tile deep,
as FA3's producer publishes the next tile only once the consumers have read the last). Without that bound a role
with nothing to do for a tile (v4's second softmax warpgroup on an item of one Q tile) would drain the queue into
its own CTA while the other CTAs starved. Each warp role is a process (a generator)
that walks its program: unit ops reserve time on the units (see `simgpu.sm`); synchronous ones suspend the role until
completion, asynchronous ones arrive on a barrier when they complete. A run that ends with roles still waiting is a
deadlock and is reported as one. Clusters are not placed as such: a 2-CTA pair runs as two copies of one symmetric
program, and a cluster barrier (`BarrierSpec.cluster`: one the pair's leader waits on for both CTAs) counts each
arrival one SM-to-SM trip (`dsmem.latency_cycles`) after it is made, when the peer's copy of it would reach the leader.

The event loop runs entries in SimPy's (time, priority, sequence number) order, written out here because SimPy's own
functions took 14-19% of an exact run (cProfile; `docs/results/exact_engine_profile.txt`): a role yields the cycles
it waits (a float) or None when it has registered itself on a barrier or a semaphore; callbacks (an async op's
arrival) are entries too. Same-time entries run in the order SimPy would run them (process starts first, then the
others in the order they were scheduled, a finished role's notice included), so the runs are the ones SimPy ran,
event for event. Process starts (always due now) wait in a queue of their own that runs first; the other entries
wait in `simgpu.event_queue`'s heap, keyed by (time, sequence number) in native fields. A heap of Python tuples
compared its ties through Python's comparisons (`docs/results/exact_engine_speed.md`), and the heap of boxed times
with a dictionary of per-time lists that replaced it hashed and compared boxed floats: a quarter of v1's exact run
(`docs/results/event_heap_60/`).

Semaphores in global memory (`Load.acquire`, `Store.release`) order CTAs against each other. Each kernel launch
starts with every counter at zero. A release counts when its store completes. An acquiring load is an ordinary load
(the first poll); if the counter is still short when it returns, the role polls again, one L2 round trip
(`l2.hit_latency_cycles`) per poll, each poll seeing the counter as it was when issued, and continues when the first
poll issued after the last release it needs returns. The polls after the first cost time, not bytes (a few words
each), so a run's bytes do not depend on its timing. An engine built on part of the chip (`sms`: fast mode's
representative SMs) does not run the other CTAs that would release, so there an acquire costs its first poll only
and never waits (`semaphore_waits`): fast mode does not see the ordering.

This is the exact mode: every CTA and every loop iteration is simulated. Ignored here: anything below the op level
(instruction latencies, register dependencies, warp scheduling policy).
"""

from __future__ import annotations

import gc
import itertools
import math
from collections.abc import Callable, Generator, Hashable, Iterator, Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Final

from simgpu.arch import Arch
from simgpu.errors import DeadlockError, EventBudgetError, ResourceError, ScheduleError
from simgpu.event_queue import EventQueue
from simgpu.kernel import WARP_SIZE, BarrierSpec, Kernel, Role
from simgpu.ops import Advance, Arrive, BarrierRef, Delay, Load, Mma, Op, Repeat, Store, Wait
from simgpu.sm import Revision, Sm
from simgpu.trace import Trace
from simgpu.units.fluid_l2 import FluidL2, MissShares
from simgpu.units.hbm import Hbm
from simgpu.units.l2 import L2
from simgpu.units.server import SpanRecorder

DEFAULT_EVENT_BUDGET = 20_000_000
# `Final` where the loops read a constant once per op: mypyc then compiles it in, or keeps it in a static, rather
# than looking it up in the module's dictionary each time.
SETTLE_TOLERANCE_CYCLES: Final = 1e-6  # a revised end this close to now is now (float rounding of the re-waits)
REGISTER_ALLOCATION_GRANULE = 256  # registers are allocated per warp in units of 256 (CUDA occupancy calculator)
_CONTROL_OPS: Final = frozenset({Repeat, Wait, Arrive, Advance, Delay})  # ops that reserve no unit
AGE_SURVIVORS_ABOVE = 100_000  # young objects left by a run beyond which it moves them to the oldest generation

# A process yields the cycles it waits, or None once it has put itself on a barrier's or a semaphore's waiters.
Process = Generator[float | None, Any, None]
Callback = Callable[[Any], None]
Start = tuple[float, Process, None]  # a process start: (when it is due, the process, no value)


class UnitTotals:
    """Busy cycles summed over all instances of a unit, how many instances there are, and what they served. A plain
    class, never changed once made: every run makes one per unit (16 on a Hopper SM), and compiled, a frozen
    dataclass's `__init__` is a Python function setting each field through `object.__setattr__`: 62,670 of the
    488,424 instructions of a representative run of 10 ops, 2,489 as a plain class
    (`docs/results/lines_62/tiny_run_callgrind.txt`; v3's backward at 16k tokens makes 140 runs a prediction)."""

    __slots__ = ("amount", "busy_cycles", "instances")

    def __init__(self, busy_cycles: float, instances: int, amount: float) -> None:
        self.busy_cycles = busy_cycles
        self.instances = instances
        self.amount = amount

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, UnitTotals):
            return NotImplemented
        return (self.busy_cycles, self.instances, self.amount) == (other.busy_cycles, other.instances, other.amount)

    def __hash__(self) -> int:
        return hash((self.busy_cycles, self.instances, self.amount))

    def __repr__(self) -> str:
        return f"UnitTotals(busy_cycles={self.busy_cycles!r}, instances={self.instances!r}, amount={self.amount!r})"


@dataclass(frozen=True)
class RunStats:
    """What one engine run measured; `simgpu.result` turns it into a Result."""

    cycles: float
    kernel_cycles: tuple[float, ...]
    units: dict[str, UnitTotals]
    hbm_read_bytes: float
    hbm_write_bytes: float
    l2_read_bytes: float
    l2_write_bytes: float
    smem_read_bytes: float
    smem_write_bytes: float
    tmem_read_bytes: float
    tmem_write_bytes: float
    ops: int
    ctas_per_sm: tuple[int, ...]
    tensor_activity: float  # MMA FLOPs as a share of the native tensor rate over the run (see simgpu.clock)
    # When persistent CTAs drew their further tiles from the kernel's queue, in order: a CTA draws its next tile as
    # the first of its roles to finish the current one asks (FA3's producer, once it has issued the tile's last
    # loads), before the tile ends where that role runs ahead (fast mode's list schedule hands a slot its next tile
    # then, `simgpu.fast_costs._claim_leads`).
    claim_cycles: tuple[float, ...] = ()


def estimated_ops(kernel: Kernel) -> float:
    """Unit ops the kernel will run, estimated from its first tile's programs times the number of tiles (loop
    bodies are sampled at their first iteration, not expanded): cheap enough to check before running."""
    return len(kernel.tiles) * sum((_count_ops(role.program(kernel.tiles[0])) for role in kernel.roles), 0.0)


def _count_ops(ops: Sequence[Op]) -> float:
    # Matched by exact type, as `Engine._role` matches them: fast mode's representative runs count a folded tile's
    # every op before each run.
    total = 0.0
    for op in ops:
        kind = type(op)
        if kind is Repeat:
            loop: Repeat = op  # type: ignore[assignment]
            total += loop.count * _count_ops(loop.body(0)) if loop.count else 0.0
        elif kind not in _CONTROL_OPS:
            total += 1
    return total


def ctas_per_sm(arch: Arch, kernel: Kernel) -> int:
    """How many CTAs of `kernel` fit on one SM at once; ResourceError naming the resource if none does."""
    cta = kernel.cta
    warps = -(-cta.threads // WARP_SIZE)
    regs_per_warp = -(-cta.registers_per_thread * WARP_SIZE // REGISTER_ALLOCATION_GRANULE)
    regs_per_warp *= REGISTER_ALLOCATION_GRANULE
    where = f"kernel {kernel.name}"
    if cta.registers_per_thread > arch.sm.max_registers_per_thread:
        raise ResourceError(
            f"{where}: {cta.registers_per_thread} registers per thread exceed the limit of "
            f"{arch.sm.max_registers_per_thread} on {arch.name}"
        )
    if cta.smem_bytes > arch.smem.per_cta_bytes:
        raise ResourceError(
            f"{where}: needs {cta.smem_bytes} bytes of shared memory per CTA; {arch.name} allows "
            f"{arch.smem.per_cta_bytes}"
        )
    if cta.tmem_columns:
        if arch.tmem is None:
            raise ResourceError(f"{where}: needs Tensor Memory, which {arch.name} does not have")
        if cta.tmem_columns > arch.tmem.columns:
            raise ResourceError(f"{where}: needs {cta.tmem_columns} TMEM columns; {arch.name} has {arch.tmem.columns}")
    limits = {
        "threads": arch.sm.max_threads // cta.threads,
        "CTA slots": arch.sm.max_ctas,
        "registers": arch.sm.registers // (regs_per_warp * warps),
        "shared memory": arch.smem.capacity_bytes // cta.smem_bytes if cta.smem_bytes else arch.sm.max_ctas,
    }
    if cta.tmem_columns and arch.tmem is not None:
        granule = arch.tmem.column_granule
        columns = -(-cta.tmem_columns // granule) * granule
        limits["TMEM"] = arch.tmem.columns // columns
    resource, fit = min(limits.items(), key=lambda item: item[1])
    if fit < 1:
        raise ResourceError(f"{where}: one CTA does not fit on an SM of {arch.name} ({resource})")
    return fit


def _age_survivors() -> None:
    """Move the objects that outlived the paused collector (the ops the kernels' programs made and keep: 0.66 million
    after v1's forward at issue 4's shape) to its oldest generation without walking them: the first allocation after
    `gc.enable` would otherwise collect them all as young objects (0.24-0.47 s of a 7-11 s run). `gc.freeze` then
    `gc.unfreeze` (two list splices), as `simgpu.fast.plan_fast` freezes its plan, and likewise not where something
    else froze objects (our `gc.unfreeze` would release them). Only after a run that left many: `gc.get_freeze_count`
    walks the frozen objects, and fast mode's small runs (72 in one prediction) follow a plan frozen by the
    hundred thousand."""
    if gc.get_count()[0] > AGE_SURVIVORS_ABOVE and gc.get_freeze_count() == 0:
        gc.freeze()
        gc.unfreeze()


class _Barrier:
    __slots__ = ("arrivals", "count", "handoff", "hop", "name", "phases", "waited", "waiters", "wake")

    def __init__(
        self,
        spec: BarrierSpec,
        slot: int,
        wake: Callable[[Process, Any], None],
        roles: int,
        hop: float = 0.0,
        handoff: float = 0.0,
    ) -> None:
        self.name = spec.name if spec.slots == 1 else f"{spec.name}[{slot}]"
        self.hop = hop  # a cluster barrier's arrivals count this many cycles after they are made (`BarrierSpec`)
        self.handoff = handoff  # a role's `Arrive` reaches the waiters this many cycles after it is made
        self.arrivals = spec.arrivals
        self.count = 0
        self.phases = spec.initial_phases
        self.waiters: list[tuple[int, Process]] = []
        self.wake = wake
        # By role number, the phases each role of the CTA has waited for on it (a role's `Wait`s count its phases;
        # a list here, not a dictionary of barriers on the role: no hashing at each wait).
        self.waited = [0] * roles

    def __call__(self, _value: Any) -> None:
        """The barrier as an entry's callback (an async op's completion, a delayed arrival): one arrival. Scheduled
        as itself, not as its bound `arrive`: taking the method made an object at each such op (a Python attribute
        lookup, 1.4% of v1's exact backward by callgrind)."""
        self.arrive()

    def arrive(self) -> None:
        """One arrival."""
        self.count += 1
        if self.count < self.arrivals:
            return
        self.count = 0
        self.phases += 1
        waiters = self.waiters
        if len(waiters) == 1:  # the common case, one role waiting, without the two lists
            phase, process = waiters[0]
            if phase <= self.phases:
                self.waiters = []
                self.wake(process, None)
            return
        ready = [w for w in waiters if w[0] <= self.phases]
        self.waiters = [w for w in waiters if w[0] > self.phases]
        for _, process in ready:
            self.wake(process, None)


class _ArrivalCheck:
    """The entry of an async op whose end contention may move: arrive on `barrier` if the op's end (`revision`) is
    now, else check again at its revised end. One object per op, scheduled again as itself (a bound method and a
    tuple for its value were two objects per op, the method's a Python attribute lookup); not a closure that
    schedules itself, which would be a reference cycle per op."""

    __slots__ = ("barrier", "engine", "revision")

    def __init__(self, engine: Engine, barrier: _Barrier, revision: Revision) -> None:
        self.engine = engine
        self.barrier = barrier
        self.revision = revision

    def __call__(self, _value: Any) -> None:
        engine, barrier = self.engine, self.barrier
        later = self.revision.done()
        if later > engine.now + SETTLE_TOLERANCE_CYCLES:
            engine._call_after(later - engine.now, self)
        elif barrier.hop:
            engine._call_after(barrier.hop, barrier)
        else:
            barrier.arrive()


class _Semaphore:
    """A counter in global memory: releases so far, and the roles spinning until it reaches their value."""

    __slots__ = ("key", "value", "waiters")

    def __init__(self, key: Hashable) -> None:
        self.key = key
        self.value = 0
        self.waiters: list[tuple[int, Process]] = []

    def release(self, now: float, wake: Callable[[Process, Any], None]) -> None:
        self.value += 1
        ready = [w for w in self.waiters if w[0] <= self.value]
        self.waiters = [w for w in self.waiters if w[0] > self.value]
        for _, process in ready:
            wake(process, now)  # the waiter learns when the release happened


class _RoleState:
    __slots__ = ("cta", "cursors", "done", "name", "number", "process", "spinning", "waiting")

    def __init__(self, name: str, number: int, cta: _Cta) -> None:
        self.name = name
        self.number = number  # the role's position in its kernel's roles
        self.cta = cta
        self.process: Process | None = None  # the role's generator, which waiters lists hold
        self.cursors: dict[str, int] = {}
        self.waiting: tuple[_Barrier, int] | None = None
        self.spinning: tuple[_Semaphore, int] | None = None  # a semaphore acquire and the value it waits for
        self.done = False


class _Join:
    """A slot waiting for all roles of its CTA: each finished role's notice counts, the last one wakes the slot."""

    __slots__ = ("count", "roles", "slot", "wake")

    def __init__(self, roles: int, slot: Process, wake: Callable[[Process, Any], None]) -> None:
        self.roles = roles
        self.count = 0
        self.slot = slot
        self.wake = wake

    def __call__(self, _value: Any) -> None:
        self.count += 1
        if self.count == self.roles:
            self.wake(self.slot, None)


class _TileQueue:
    """The kernel's tiles in launch order, handed out one at a time through the tiles' own iterator (without copying
    a lazy grid, whose iterator makes its index tuples at C speed: indexed one at a time, in Python, they cost four
    exact predictions 1.6% of their kernels' instructions, `docs/results/queue_59/callgrind.txt`)."""

    __slots__ = ("left", "order")

    def __init__(self, tiles: Sequence[Hashable]) -> None:
        self.order = iter(tiles)
        self.left = len(tiles)

    def __bool__(self) -> bool:
        return self.left > 0

    def pop(self) -> Hashable:
        self.left -= 1
        return next(self.order)


# `_Cta.tile`'s answer to a role that would run more than one tile ahead of its CTA's slowest role.
_AHEAD: Final = object()


class _Cta:
    __slots__ = (
        "barriers", "held", "index", "kernel", "queue", "reached", "rings", "slot", "slots", "sm", "tensor_maps",
        "tiles",
    )  # fmt: skip

    def __init__(
        self,
        index: int,
        kernel: Kernel,
        sm: Sm,
        tiles: list[Hashable],
        queue: _TileQueue | None,
        wake: Callable[[Process, Any], None],
        slot: int = 0,
    ):
        self.index = index
        self.slot = slot  # the CTA slot of its SM it runs in (0 to the CTAs that fit on an SM, less one)
        self.kernel = kernel
        self.sm = sm
        self.tiles = tiles
        self.queue = queue  # persistent CTAs draw further tiles from the kernel's queue
        self.reached = [-1] * len(kernel.roles)  # per role, the last tile it started
        self.held: list[Process] = []  # roles waiting for the slowest role to start the tile before theirs
        self.barriers = {
            spec.name: [
                _Barrier(spec, i, wake, len(kernel.roles), _hop(spec, sm), _handoff(spec, sm))
                for i in range(spec.slots)
            ]
            for spec in kernel.barriers
        }
        self.rings: dict[str, list[_Barrier]] = {}  # by a cursor reference ("name" or "name@cursor"): its ring
        self.slots: dict[tuple[str, int], _Barrier] = {}  # by an explicit reference: its slot
        self.tensor_maps: set[str] = set()  # tensors whose TMA descriptor this CTA has fetched (`simgpu.sm`)

    def tile(self, k: int, now: float, claims: list[float]) -> Hashable | None:
        """The CTA's tile k; None when the queue is empty; `_AHEAD` while some role has not started tile k - 1. A tile
        drawn from the queue at `now` is noted in `claims`."""
        if k < len(self.tiles):
            return self.tiles[k]
        if not self.queue:
            return None
        if min(self.reached) < k - 1:
            return _AHEAD
        self.tiles.append(self.queue.pop())
        claims.append(now)
        return self.tiles[k]

    def start(self, role: int, k: int, wake: Callable[[Process, Any], None]) -> None:
        """Role number `role` starts tile k: roles held behind the slowest one go on once it has moved."""
        slowest = min(self.reached)
        self.reached[role] = k
        if self.held and min(self.reached) > slowest:
            held, self.held = self.held, []
            for process in held:
                wake(process, None)

    def barrier(self, ref: BarrierRef, role: _RoleState) -> _Barrier:
        """The barrier slot `ref` names: explicit `(name, slot)`, or the role's cursor on ring `name`."""
        if isinstance(ref, str):
            ring = self.rings.get(ref)  # asked once per op that waits or arrives: the name parsed once
            if ring is None:
                ring = self.rings[ref] = self._ring(ref.partition("@")[0])
            if len(ring) == 1:  # one slot (v1's and v2's barriers): no cursor to read
                return ring[0]
            return ring[role.cursors.get(ref, 0) % len(ring)]
        barrier = self.slots.get(ref)
        if barrier is None:
            name, slot = ref
            ring = self._ring(name)
            barrier = self.slots[ref] = ring[slot % len(ring)]
        return barrier

    def _ring(self, name: str) -> list[_Barrier]:
        ring = self.barriers.get(name)
        if ring is None:
            raise ScheduleError(f"kernel {self.kernel.name}: no barrier named {name!r}")
        return ring


def _hop(spec: BarrierSpec, sm: Sm) -> float:
    """The SM-to-SM trip a cluster barrier's arrivals make (0 for a CTA's own barriers)."""
    if not spec.cluster:
        return 0.0
    if sm.arch.dsmem is None:
        raise ScheduleError(f"barrier {spec.name} is a cluster barrier, but {sm.arch.name} has no dsmem section")
    return sm.arch.dsmem.latency_cycles


def _handoff(spec: BarrierSpec, sm: Sm) -> float:
    """From a role's `Arrive` to a waiter seeing it (0 where the arch gives no figure)."""
    latency = sm.arch.latency
    if latency is None:
        return 0.0
    cycles = latency.named_handoff_cycles if spec.named else latency.mbarrier_handoff_cycles
    return cycles or 0.0


class Engine:
    """Runs kernels on a model of `arch` at `clock_hz` (exact mode). One Engine, one run."""

    def __init__(
        self,
        arch: Arch,
        clock_hz: float | None = None,
        trace: Trace | None = None,
        event_budget: int = DEFAULT_EVENT_BUDGET,
        *,
        sms: int | None = None,
        miss_shares: Mapping[str, MissShares] | None = None,
        max_ctas_per_sm: int | None = None,
        bandwidth_share: float | None = None,
        traffic_share: float | None = None,
        semaphore_waits: bool | None = None,
        burst_share: float = 1.0,
    ) -> None:
        """`sms` builds only that many SMs, with `bandwidth_share` of the chip's HBM and L2 bandwidth (by default their
        share of the SMs) and making `traffic_share` of the chip's HBM traffic (by default as much as their
        bandwidth share: the HBM's loaded latency counts their bookings over that share of the chip's rate, and
        the other SMs' at their average, `simgpu.units.hbm.Hbm.latency`),
        `miss_shares` replaces L2 residency by the chip-wide miss shares (with `burst_share`: the share of their
        bandwidth at which the SMs' requests made before any of their data came back are served,
        `simgpu.units.fluid_l2`), and `max_ctas_per_sm` runs fewer CTAs at once than fit: fast mode's
        representative SMs (`simgpu.fast`). `semaphore_waits` (default: only when the whole chip is built) lets
        semaphore acquires wait for releases."""
        self.arch = arch
        self.semaphore_waits = sms is None if semaphore_waits is None else semaphore_waits
        self._semaphores: dict[Hashable, _Semaphore] = {}
        self.clock_hz = clock_hz if clock_hz is not None else arch.clock_hz
        self.trace = trace
        self.event_budget = event_budget
        self.max_ctas_per_sm = max_ctas_per_sm
        self.now = 0.0
        self._queue = EventQueue()  # the entries due, in (time, order scheduled)
        # Process starts, due now, run before the other entries due now, in the order made. A list the loop walks
        # and empties once walked (a deque's truth test was a call into Python at each entry, twice).
        self._starts: list[Start] = []
        self._horizon = 0.0  # the latest end of a write no role waits for: the run lasts until it drains
        self._slots_done = 0
        built = arch.sms if sms is None else sms
        share = built / arch.sms if bandwidth_share is None else bandwidth_share
        hbm_rate = arch.hbm_bytes_per_cycle(self.clock_hz)
        traffic = share if traffic_share is None else traffic_share
        self.hbm = Hbm(
            hbm_rate * share,
            arch.hbm.latency_cycles,
            self._chip_recorder(),
            arch.hbm.loaded_latency,
            hbm_rate * traffic,
            arch.hbm.write_cost_ratio,
            1.0 if sms is None else traffic,
        )
        l2_rate = arch.l2_bytes_per_cycle(self.clock_hz) * share
        self.l2: L2 | FluidL2
        if miss_shares is None:
            self.l2 = L2(
                arch.l2.capacity_bytes,
                l2_rate,
                arch.l2.hit_latency_cycles,
                self.hbm,
                self._chip_recorder(),
                arch.l2.dirty_capacity_bytes,
            )
        else:
            self.l2 = FluidL2(
                l2_rate, arch.l2.hit_latency_cycles, self.hbm, miss_shares, self._chip_recorder(), burst_share
            )
        self.sms = [Sm(i, arch, self.l2, self._sm_recorder) for i in range(built)]
        self._ops = 0
        self._roles: list[_RoleState] = []
        self._ctas = 0
        self._claims: list[float] = []  # `RunStats.claim_cycles`

    def _chip_recorder(self) -> SpanRecorder | None:
        trace = self.trace
        if trace is None:
            return None
        return lambda unit, start, end: trace.unit_span("chip", unit, start, end)

    def _sm_recorder(self, index: int) -> SpanRecorder | None:
        trace = self.trace
        if trace is None or index not in trace.sms:
            return None
        return lambda unit, start, end: trace.unit_span(f"SM {index}", unit, start, end)

    def run(self, kernels: Sequence[Kernel]) -> RunStats:
        if not kernels:
            raise ScheduleError("nothing to run: no kernels")
        estimate = sum(estimated_ops(kernel) for kernel in kernels)
        if estimate > self.event_budget:
            raise EventBudgetError(
                f"this run needs about {estimate:,.0f} ops, over exact mode's event budget of {self.event_budget:,}; "
                "use fast mode (the default: drop --exact / mode='exact') or a smaller problem"
            )
        launch_cycles = self.arch.kernel_launch_s * self.clock_hz
        kernel_cycles = []
        fits = []
        # The cycle collector is paused while the kernels run (it took 4% of a run, walking the young objects the
        # ops make and, now and then, everything alive). A run leaves no cyclic garbage behind while it goes (the
        # roles' generators release their frames when they finish), so reference counting frees what dies; the
        # engine's own cycles (its SMs and units) wait for the next collection.
        collecting = gc.isenabled()
        gc.disable()
        try:
            for kernel in kernels:
                start = self.now
                fit = ctas_per_sm(self.arch, kernel)
                fits.append(fit)
                if self.max_ctas_per_sm is not None:
                    fit = min(fit, self.max_ctas_per_sm)
                self._run_kernel(kernel, fit, start + launch_cycles)
                kernel_cycles.append(self.now - start)
        finally:
            if collecting:
                _age_survivors()
                gc.enable()
        self.l2.flush()
        stats = self._stats(tuple(kernel_cycles), tuple(fits))
        self._untie()
        return stats

    def _run_kernel(self, kernel: Kernel, fit: int, start: float) -> None:
        queue = _TileQueue(kernel.tiles)
        self._roles = []
        self._semaphores = {}
        placed = [sm for _ in range(fit) for sm in self.sms]
        # Persistent: every slot's first tile is fixed before any role runs. Drawn lazily, a CTA whose load role runs
        # ahead (all of a short tile's loads issued at once) would pop the next tile before later slots had started,
        # and a small grid would run on fewer CTAs than it has tiles.
        firsts = [queue.pop() if kernel.persistent and queue else None for _ in placed]
        self._slots_done = 0
        slots: list[list[Process]] = []
        for number, (sm, first) in enumerate(zip(placed, firsts, strict=True)):
            itself: list[Process] = []
            itself.append(self._slot(sm, number // len(self.sms), kernel, queue, start, first, itself))
            slots.append(itself)
            self._start(itself[0])
        self._loop()
        if self._slots_done < len(placed):
            raise DeadlockError(self._deadlock_message(kernel))
        # Each kernel's processes untied as it ends, not kept to the run's end: kept, a run of many kernels and CTAs
        # (standard attention's at issue 4's shape) held them all and freed them at its end, 18% of its time.
        for state in self._roles:
            state.process = None
        for itself in slots:
            itself.clear()

    def _untie(self) -> None:
        """Drop the references by which the run's SMs hold themselves in cycles (an SM the role of its last op, whose
        CTA holds the SM; a kernel's finished processes are untied as it ends, `_run_kernel`: a role's state its
        generator, whose frame holds the state; a slot the list that holds it): reference counting then frees them
        when the engine goes, where the cycle collector would have to find them (about 110 objects a run, 72 runs in
        one fast prediction of v3's backward at 1k, the collector 12% of its CPU time). After the run's stats: nothing
        of it is read again."""
        for sm in self.sms:
            sm.untie()
        if isinstance(self.l2, L2):
            self.l2.untie()  # its lines: lists that hold themselves
        # And the engine's own list of them: their barriers call back into the engine (`_Barrier.wake`). The queue's
        # spare entries still hold the last processes and callbacks they ran.
        self._roles = []
        self._queue.clear()

    def _start(self, process: Process) -> None:
        self._starts.append((self.now, process, None))

    def _wake(self, process: Process, value: Any) -> None:
        """Resume `process` with `value` after the entries already due now (SimPy's `Event.succeed`)."""
        self._queue.push(self.now, process, value, True)

    def _call_after(self, delay: float, callback: Callback, value: Any = None) -> None:
        self._schedule(self.now + delay, callback, value)

    def _schedule(self, time: float, callback: Callback, value: Any) -> None:
        """Call `callback` with `value` at `time`, after the entries already due then."""
        self._queue.push(time, callback, value, False)

    def _loop(self) -> None:
        """Run entries in (time, priority, sequence) order until none is left; the time is then the latest entry's
        or an undrained write's (`_horizon`)."""
        queue, starts = self._queue, self._starts
        # A builtin read once: compiled, it is looked up by name at every call.
        resume = next
        now = self.now
        started = 0  # the starts run so far, of those in `starts`
        target: Any = None  # a process or a callback (`_schedule`)
        value: Any = None
        while True:
            if started < len(starts):
                now, target, value = starts[started]
                resumes = True
                started += 1
                if started == len(starts):
                    starts.clear()
                    started = 0
            else:
                if queue.first is None:
                    break
                entry = queue.pop()
                now = entry.time
                target = entry.target
                value = entry.value
                resumes = entry.resume
            self.now = now
            if not resumes:
                target(value)
                continue
            try:
                # `next` where no value is sent (nearly every entry): it calls the generator's own step, where
                # `send` is a method looked up by name and called with its arguments parsed.
                delay = resume(target) if value is None else target.send(value)
                # While the entry the process asks for would be the next to run, run it here rather than through
                # the queue: no process start waits, and no entry is due before it nor at it (those scheduled
                # earlier run first).
                while delay is not None and started == len(starts):
                    # Unboxed once: added to `now` as a float the sum and its comparison are native, not calls.
                    cycles: float = delay
                    later = now + cycles
                    due = queue.first
                    if due is not None and due.time <= later:
                        break
                    now = later
                    self.now = now
                    delay = resume(target)
            except StopIteration:
                continue
            if delay is not None:
                wait: float = delay
                queue.push(now + wait, target, None, True)
        if self._horizon > self.now:
            self.now = self._horizon

    def _deadlock_message(self, kernel: Kernel) -> str:
        # Roles spinning on a semaphore first: the other roles of their CTAs wait on barriers behind them.
        stuck = sorted((r for r in self._roles if not r.done), key=lambda r: r.spinning is None)
        shown = []
        for role in stuck[:4]:
            if role.spinning is not None:
                semaphore, value = role.spinning
                shown.append(
                    f"CTA {role.cta.index} role {role.name!r} spins on semaphore {semaphore.key!r} until it reaches "
                    f"{value} (released {semaphore.value} times when the run stopped)"
                )
                continue
            if role.process in role.cta.held:
                shown.append(f"CTA {role.cta.index} role {role.name!r} waits for its CTA's slowest role")
                continue
            if role.waiting is None:
                shown.append(f"CTA {role.cta.index} role {role.name!r} (not waiting on a barrier)")
                continue
            barrier, phase = role.waiting
            shown.append(
                f"CTA {role.cta.index} role {role.name!r} waits on barrier {barrier.name!r} phase {phase} "
                f"({barrier.phases} completed, {barrier.count}/{barrier.arrivals} arrivals)"
            )
        more = f" and {len(stuck) - len(shown)} more" if len(stuck) > len(shown) else ""
        return f"deadlock in kernel {kernel.name}: " + "; ".join(shown) + more

    def _slot(
        self,
        sm: Sm,
        slot: int,
        kernel: Kernel,
        queue: _TileQueue,
        start: float,
        first: Hashable | None,
        itself: list[Process],
    ) -> Process:
        """Run CTAs on slot `slot` of `sm`; `first` is a persistent slot's tile handed out at launch (None: none);
        `itself` holds this generator (its roles' last notice wakes it)."""
        yield start - self.now
        launch = self.arch.sm.cta_launch_cycles
        while first is not None or queue:
            if launch:
                yield launch
            if first is None and not queue:
                break
            tile = first if first is not None else queue.pop()
            first = None
            cta = _Cta(self._ctas, kernel, sm, [tile], queue if kernel.persistent else None, self._wake, slot)
            self._ctas += 1
            join = _Join(len(kernel.roles), itself[0], self._wake)
            for number, role in enumerate(kernel.roles):
                state = _RoleState(role.name, number, cta)
                state.process = self._role(cta, role, state, join)
                self._start(state.process)
            yield None  # until the last role's notice wakes this slot
            if kernel.persistent:
                break
        self._slots_done += 1

    def _role(self, cta: _Cta, role: Role, state: _RoleState, join: _Join) -> Process:
        """Walk the role's program for each tile its CTA gets. Loops are expanded through a stack of iterators
        (`itertools.chain` over the iterations' bodies) rather than nested generators, so a resumed role does not
        pass through one generator frame per loop level."""
        self._roles.append(state)
        sm = cta.sm
        warps = role.warps
        trace = self.trace if self.trace is not None and sm.index in self.trace.sms else None
        wait_cycles = self.arch.latency.wait_cycles if self.arch.latency is not None else None
        k = 0
        while (tile := cta.tile(k, self.now, self._claims)) is not None:
            if tile is _AHEAD:
                cta.held.append(state.process)  # type: ignore[arg-type]
                yield None  # until the slowest role starts tile k - 1
                continue
            cta.start(state.number, k, self._wake)
            k += 1
            ops: Iterator[Op] = iter(role.program(tile))  # the innermost loop's; the outer ones' wait on `stack`
            if k == 1 and role.setup:
                ops = itertools.chain(role.setup, ops)
            stack: list[Iterator[Op]] = []
            # Casts by annotation, not `isinstance`: this loop runs once per op of a run.
            while True:
                for op in ops:
                    kind = type(op)
                    # Identity tests, not `in _CONTROL_OPS`: a set lookup is a call at each op.
                    if kind is Repeat or kind is Wait or kind is Arrive or kind is Advance or kind is Delay:
                        if kind is Repeat:
                            loop: Repeat = op  # type: ignore[assignment]
                            stack.append(ops)
                            ops = itertools.chain.from_iterable(map(loop.body, range(loop.count)))
                            break  # into the loop's body
                        elif kind is Wait:
                            wait: Wait = op  # type: ignore[assignment]
                            barrier = cta.barrier(wait.barrier, state)
                            waited = barrier.waited
                            phase = waited[state.number] + 1
                            waited[state.number] = phase
                            reached = self.now
                            if barrier.phases < phase:
                                barrier.waiters.append((phase, state.process))  # type: ignore[arg-type]
                                state.waiting = (barrier, phase)
                                yield None
                                state.waiting = None
                            if wait_cycles and self.now < reached + wait_cycles:
                                yield reached + wait_cycles - self.now  # the wait's own round trip
                        elif kind is Arrive:
                            arrival: Arrive = op  # type: ignore[assignment]
                            barrier = cta.barrier(arrival.barrier, state)
                            if barrier.hop or barrier.handoff:
                                self._call_after(barrier.hop + barrier.handoff, barrier)
                            else:
                                barrier.arrive()
                        elif kind is Advance:
                            advance: Advance = op  # type: ignore[assignment]
                            for name in advance.barriers:
                                state.cursors[name] = state.cursors.get(name, 0) + 1
                        else:
                            delay: Delay = op  # type: ignore[assignment]
                            yield delay.cycles
                        continue
                    self._ops += 1
                    if self._ops > self.event_budget:
                        raise EventBudgetError(
                            f"simulation exceeded its event budget of {self.event_budget:,} ops; use fast mode "
                            "(the default: drop --exact / mode='exact') or a smaller problem"
                        )
                    now = self.now
                    done = sm.execute(op, now, warps, state)  # type: ignore[arg-type]
                    revision = sm.revision
                    arrive: BarrierRef | None = op.arrive  # type: ignore[union-attr]
                    # A field only loads or only stores have, read through a local of that class: read off the
                    # union of ops, it was a Python attribute lookup at each of them.
                    acquire: int | None = None
                    drains = False  # a store no role waits for
                    if kind is Load:
                        load_op: Load = op  # type: ignore[assignment]
                        acquire = load_op.acquire
                    elif kind is Store:
                        store_op: Store = op  # type: ignore[assignment]
                        drains = not store_op.wait
                        if store_op.release:
                            self._release_at(self._semaphore(store_op), done - now)
                    if acquire is not None:
                        yield from self._acquire(cta, state, op, done - now)  # type: ignore[arg-type]
                    elif arrive is not None:
                        barrier = cta.barrier(arrive, state)
                        if revision is None:  # nothing moves the op's end (copies): one entry at it
                            self._schedule(now + (done - now) + barrier.hop, barrier, None)
                        else:
                            self._schedule(self.now + (done - now), _ArrivalCheck(self, barrier, revision), None)
                        if kind is Load and sm.copy_issued > now:
                            yield sm.copy_issued - now  # its warps are still issuing the copy
                        if kind is Mma and sm.async_release > now:
                            yield sm.async_release - now  # the tensor cores' queue is full
                            # Wait until the op's revised release no longer lies ahead (inlined: once per op).
                            while (
                                revision is not None
                                and (later := revision.release()) > self.now + SETTLE_TOLERANCE_CYCLES
                            ):
                                yield later - self.now
                    elif drains:
                        # The kernel stays open until the write drains (the sum as a scheduled wait would make it).
                        end = now + (done - now)
                        if end > self._horizon:
                            self._horizon = end
                        if sm.copy_issued > now:
                            yield sm.copy_issued - now  # its warps are still issuing the stores
                    else:
                        yield done - now
                        if revision is not None:
                            # Wait until the op's revised end no longer lies ahead (inlined: once per op).
                            while (later := revision.done()) > self.now + SETTLE_TOLERANCE_CYCLES:
                                yield later - self.now
                            done = self.now
                    if trace is not None:
                        trace.role_span(f"SM {sm.index}", f"CTA slot {cta.index} {role.name}", kind.__name__, now, done)
                else:
                    if not stack:
                        break
                    ops = stack.pop()
        state.done = True
        self._schedule(self.now, join, None)  # SimPy's finished-process event, which the CTA's all-of condition counts

    def _semaphore(self, op: Load | Store) -> _Semaphore:
        key = op.key
        semaphore = self._semaphores.get(key)
        if semaphore is None:
            semaphore = self._semaphores[key] = _Semaphore(key)
        return semaphore

    def _release_at(self, semaphore: _Semaphore, delay: float) -> None:
        self._call_after(delay, lambda _value: semaphore.release(self.now, self._wake))

    def _acquire(self, cta: _Cta, state: _RoleState, op: Load, first_poll: float) -> Process:
        """The first poll (the load itself), then, while the counter is short, polls one L2 round trip apart."""
        if op.arrive is not None:
            raise ScheduleError(f"kernel {cta.kernel.name}: a semaphore acquire is synchronous (it has no arrive)")
        assert op.acquire is not None
        yield first_poll
        semaphore = self._semaphore(op)
        if not self.semaphore_waits or semaphore.value >= op.acquire:
            return
        returned = self.now
        assert state.process is not None
        semaphore.waiters.append((op.acquire, state.process))
        state.spinning = (semaphore, op.acquire)
        released = yield None
        state.spinning = None
        # Polls leave back to back from `returned`, one round trip apart; the first to leave at or after the
        # release sees it and is back one round trip later.
        round_trip = self.arch.l2.hit_latency_cycles
        if round_trip:
            polls = math.ceil((released - returned) / round_trip)
            yield returned + (polls + 1) * round_trip - self.now
        trace = self.trace
        if trace is not None and cta.sm.index in trace.sms:
            name = f"CTA slot {cta.index} {state.name}"
            trace.role_span(f"SM {cta.sm.index}", name, "SemaphoreSpin", returned, self.now)

    def _stats(self, kernel_cycles: tuple[float, ...], fits: tuple[int, ...]) -> RunStats:
        hbm_busy = self.hbm.server.busy_cycles
        if isinstance(self.l2, FluidL2):
            # Fast mode's representative SMs: the HBM time of their misses at the miss shares, not of the whole
            # misses the fluid L2 spread over the accesses, of which a few rounds hold one more or one fewer.
            hbm_busy += self.l2.owed_miss_bytes / self.hbm.server.rate_per_cycle
        units: dict[str, UnitTotals] = {
            "hbm": UnitTotals(hbm_busy, 1, self.hbm.server.amount),
            "l2": UnitTotals(self.l2.server.busy_cycles, 1, self.l2.server.amount),
        }
        # Summed over the SMs in a tuple per unit, each unit's totals built once at the end: a frozen dataclass's
        # `__init__` is a Python function, compiled or not (two per unit and SM took 2% of v3's backward at 1k).
        sums: dict[str, tuple[float, int, float]] = {}
        for sm in self.sms:
            for name, server in sm.servers().items():
                busy, instances, amount = sums.get(name, (0.0, 0, 0.0))
                sums[name] = (busy + server.busy_cycles, instances + 1, amount + server.amount)
        for name, (busy, instances, amount) in sums.items():
            units[name] = UnitTotals(busy, instances, amount)
        # Sums begun at 0.0: a float on a chip without Tensor Memory too, as the compiled engine gives it.
        smem_r = sum((sm.smem.read_bytes for sm in self.sms), 0.0)
        smem_w = sum((sm.smem.write_bytes for sm in self.sms), 0.0)
        tmem_r = sum((sm.tmem.read_bytes for sm in self.sms if sm.tmem is not None), 0.0)
        tmem_w = sum((sm.tmem.write_bytes for sm in self.sms if sm.tmem is not None), 0.0)
        return RunStats(
            cycles=self.now,
            kernel_cycles=kernel_cycles,
            units=units,
            hbm_read_bytes=self.hbm.read_bytes,
            hbm_write_bytes=self.hbm.write_bytes,
            l2_read_bytes=self.l2.read_bytes,
            l2_write_bytes=self.l2.write_bytes,
            smem_read_bytes=smem_r,
            smem_write_bytes=smem_w,
            tmem_read_bytes=tmem_r,
            tmem_write_bytes=tmem_w,
            ops=self._ops,
            ctas_per_sm=fits,
            tensor_activity=(
                sum(sm.tensor.native_cycles for sm in self.sms) / (len(self.sms) * self.now) if self.now else 0.0
            ),
            claim_cycles=tuple(self._claims),
        )
