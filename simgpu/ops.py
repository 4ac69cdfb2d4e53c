"""Ops: what a warp role asks of the units. Ops declare demand (bytes, FLOPs, elements); units decide time.

An op with `arrive=None` is synchronous: the role waits until it completes. An op naming a barrier in `arrive` is
asynchronous (TMA copies, cp.async groups, wgmma, tcgen05): the role continues at once and the op arrives on that
barrier when it completes; another role (or the same one) waits on the barrier. Stores are fire-and-forget unless
`wait=True`. `Repeat` marks a loop so that the engine can see iterations (the fast mode extrapolates them).
Elementwise ops may declare the `Chain` of dependent instructions one warp must wait through (latency, not work).

Semaphores in global memory order CTAs against each other (FA's deterministic dQ accumulation): a `Store` with
`release=True` increments the counter named by its `(tensor, tile)` when it completes, and a `Load` with `acquire=n`
reads that counter and spins until it has been released n times (see `simgpu.engine` for the cost of spinning).

The ops are compiled with mypyc (`simgpu.native`): the compiled engine reads their fields as native attributes, and
each class's own `__init__` stores them natively (`simgpu.slot_init` stands in for it where they run as Python).
Compiled, a field declared `float` holds a float (an int given is converted, as the compiled engine converted it
when it read the field); `int | float` fields keep what they are given.
"""

from __future__ import annotations

from collections.abc import Callable, Hashable, Sequence
from dataclasses import dataclass, field, fields
from typing import Literal

from simgpu.errors import ScheduleError
from simgpu.keys import HashedKeys as HashedKeys
from simgpu.slot_init import slot_init

CopyEngine = Literal["tma", "cp_async", "ldg"]
Operand = Literal["reg", "smem", "tmem"]

# A barrier reference: a name resolves to the slot at the role's cursor for that ring (see `Advance`), as a
# CUTLASS PipelineState does; "ring@view" is the same ring with a second cursor of the role (for a role that both
# fills and drains a ring); (name, slot) names the slot explicitly.
BarrierRef = str | tuple[str, int]


class _Frozen:
    """The base of the frozen dataclasses below, which pickles one as its class called with its `__init__` fields.

    Compiled (mypyc), an instance would otherwise be restored field by field with `setattr`, which a frozen class
    refuses; a `Piece` hashes again where unpickled, as it must (string hashes differ between processes).

    Each class declares its own `__init__` (`init=False`), which mypyc compiles to native stores: mypy sees the
    frozen fields as read-only (hence each store's `type: ignore`), and run as Python the stores would raise, so
    there `slot_init` (at the end of the module) puts a slot-storing `__init__` of the same parameters in its place.
    """

    __slots__ = ()

    def __reduce__(self) -> tuple[type[_Frozen], tuple[object, ...]]:
        return type(self), tuple(getattr(self, each.name) for each in fields(self) if each.init)  # type: ignore[arg-type]


class TileKey:
    """`(tensor, tile)`, the L2's key for a copy's bytes (`Load.key`, `Store.key`), hashed once: as that tuple, and
    equal to it (and to a `TileKey` of the same), so that it stands for the tuple in any dictionary. A tuple's hash is
    worked out anew at each lookup (its tile's tuple hashed inside it): an L2 miss hashed its key twice, to insert it
    and to evict it, some 6% of exact mode's time where every access misses (v1's backward at 4k tokens)."""

    __slots__ = ("_hash", "tensor", "tile")

    def __init__(self, tensor: Hashable, tile: Hashable) -> None:
        self.tensor = tensor
        self.tile = tile
        self._hash = hash((tensor, tile))

    def __hash__(self) -> int:
        return self._hash

    def __eq__(self, other: object) -> bool:
        if isinstance(other, TileKey):
            return self._hash == other._hash and self.tensor == other.tensor and self.tile == other.tile
        if isinstance(other, tuple) and len(other) == 2:
            return bool(self.tensor == other[0] and self.tile == other[1])
        return NotImplemented

    def __repr__(self) -> str:
        return repr((self.tensor, self.tile))

    def __reduce__(self) -> tuple[type[TileKey], tuple[Hashable, Hashable]]:
        return TileKey, (self.tensor, self.tile)  # hashed again where unpickled: string hashes differ between processes


class PlanMemo:
    """The plan `simgpu.sm` derived for an op (its `memo`; set with `object.__setattr__`, as the op is frozen) for a
    role of `warps` on `arch`. An op's fields never change, so its plan is that of its shape, and every SM built from
    one arch derives the same plans: the SMs that run an op share its memo. Why on the op: a loop body runs the same
    few op objects again and again (v1's forward at 4k tokens on the H100: 6696 elementwise ops of 4 objects, 4464
    MMAs of 2; v4's at 64k on the B200: 10944 of 372), and a table by op identity cost a boxed id, its hash and a
    lookup per op. An op that roles of different sizes run, or arches in turn, gets its plan anew at each change
    (from the SM's plans by shape)."""

    __slots__ = ("arch", "plan", "warps")

    def __init__(self, arch: object, warps: int, plan: object) -> None:
        self.arch = arch
        self.warps = warps
        self.plan = plan


@dataclass(frozen=True, slots=True, init=False)
class Chain(_Frozen):
    """The longest chain of dependent instructions one warp runs through an op, counted by kind.

    Each step waits for the previous one's result, so the op cannot finish before the sum of the steps' latencies
    (the arch's `latency:` section; `simgpu.sm` applies it). Independent work does not count: a warp with `c`
    independent chains over `n` instructions of one kind has `n / c` steps of that kind. A row reduction over a
    quad of lanes is a thread-local chain over the thread's elements, then log2(4) = 2 shuffle steps.
    """

    fma: float = 0.0
    alu: float = 0.0
    mufu: float = 0.0
    shuffle: float = 0.0
    smem: float = 0.0

    def __init__(
        self, fma: float = 0.0, alu: float = 0.0, mufu: float = 0.0, shuffle: float = 0.0, smem: float = 0.0
    ) -> None:
        self.fma = fma  # type: ignore[misc]
        self.alu = alu  # type: ignore[misc]
        self.mufu = mufu  # type: ignore[misc]
        self.shuffle = shuffle  # type: ignore[misc]
        self.smem = smem  # type: ignore[misc]


@dataclass(frozen=True, slots=True, init=False)
class Piece(_Frozen):
    """A tile key for part of what other tiles of the same tensor hold: a kernel reads, with a grid of its own,
    bytes that another kernel wrote (or read) as `wholes`. L2 holds the piece while every one of `wholes` is
    resident (a hit touches them all), or after a miss brought the piece in under its own `name`."""

    name: Hashable
    wholes: tuple[Hashable, ...]
    # Hashed once: a piece of a long row holds hundreds of wholes, and the L2 replay hashes its key per access.
    _hash: int = field(init=False, compare=False, repr=False)

    def __init__(self, name: Hashable, wholes: tuple[Hashable, ...]) -> None:
        self.name = name  # type: ignore[misc]
        self.wholes = wholes  # type: ignore[misc]
        self.__post_init__()

    def __post_init__(self) -> None:
        if not self.wholes:
            raise ScheduleError(f"piece {self.name!r} is part of no tile")
        object.__setattr__(self, "_hash", hash((self.name, self.wholes)))

    def __hash__(self) -> int:
        return self._hash


@dataclass(frozen=True, slots=True, init=False)
class Load(_Frozen):
    """Global -> on-chip copy of one tile of `tensor`. `tile` names the bytes for L2 residency (a `Piece` where
    they are part of tiles written under other names)."""

    tensor: str
    tile: Hashable
    nbytes: int | float  # a CTA's share of a tile may be fractional (a GEMM cluster's B split over its members)
    engine: CopyEngine = "tma"
    arrive: BarrierRef | None = None
    # A semaphore acquire: the role spins on this word until `(tensor, tile)` has been released this many times in
    # the kernel. Synchronous (`arrive` must be None). None: an ordinary load.
    acquire: int | None = None
    # Integer instructions (ALU) that form the addresses of each thread-issued 16-byte copy (cp.async, ld.global),
    # each waiting for the one before: the issuing code's, not the hardware's (0: addresses come for free).
    address_instructions: float = 0.0
    # Dependent round trips the warps make for a thread-issued load (`engine="ldg"`): each thread holds a part of
    # its elements at a time and uses (and stores) it before it loads the next, as PyTorch's non-vectorized
    # elementwise kernels do one element after another. 1: every load issued before any is waited for.
    rounds: int = 1
    # The L2's key for the bytes (`TileKey`), built once with the op: a loop body runs the same op object again and
    # again, and a tuple built per access cost its allocation, its hash at each lookup and, where the L2 holds
    # another tuple of that key, a comparison (the same object compares by identity).
    key: TileKey = field(init=False, compare=False, repr=False)

    def __init__(
        self,
        tensor: str,
        tile: Hashable,
        nbytes: int | float,
        engine: CopyEngine = "tma",
        arrive: BarrierRef | None = None,
        acquire: int | None = None,
        address_instructions: float = 0.0,
        rounds: int = 1,
    ) -> None:
        self.tensor = tensor  # type: ignore[misc]
        self.tile = tile  # type: ignore[misc]
        self.nbytes = nbytes  # type: ignore[misc]
        self.engine = engine  # type: ignore[misc]
        self.arrive = arrive  # type: ignore[misc]
        self.acquire = acquire  # type: ignore[misc]
        self.address_instructions = address_instructions  # type: ignore[misc]
        self.rounds = rounds  # type: ignore[misc]
        self.key = TileKey(tensor, tile)  # type: ignore[misc]

    def __post_init__(self) -> None:
        """The key, where the class runs as Python (`slot_init`'s `__init__` calls this; the compiled one stores it)."""
        object.__setattr__(self, "key", TileKey(self.tensor, self.tile))

    def with_tile(self, tile: Hashable) -> Load:
        """This load of `tile`: `dataclasses.replace` without its generic walk of the fields (fast mode marks the
        re-reads of thousands of tiles' loads, `simgpu.fold.mark_retouches`)."""
        return self._copy(tile, self.nbytes)

    def with_nbytes(self, nbytes: int | float) -> Load:
        """This load moving `nbytes` (as `with_tile`: the L2 replay's sampled loops scale thousands of accesses)."""
        return self._copy(self.tile, nbytes)

    def _copy(self, tile: Hashable, nbytes: int | float) -> Load:
        return Load(
            self.tensor,
            tile,
            nbytes,
            self.engine,
            self.arrive,
            self.acquire,
            self.address_instructions,
            self.rounds,
        )


@dataclass(frozen=True, slots=True, init=False)
class Store(_Frozen):
    """On-chip -> global write of one tile; `atomic=True` is a read-modify-write done in L2 (fp32 atomics)."""

    tensor: str
    tile: Hashable
    nbytes: int | float  # as `Load.nbytes` (v4's dQ chunks split fp32 columns over the chunks)
    engine: CopyEngine = "ldg"
    atomic: bool = False
    wait: bool = False
    arrive: BarrierRef | None = None
    release: bool = False  # a semaphore release: `(tensor, tile)`'s counter goes up by one when this store completes
    # Bytes per thread per instruction when the warps store straight from registers (4: a packed 16-bit pair or one
    # fp32 atomic; 8: an fp32 pair), each warp instruction covering `fragment_rows` rows; 0: the copy engine's own
    # granularity (16 bytes per thread for ldg, a bulk copy for TMA).
    fragment_lane_bytes: int = 0
    # Rows one such instruction covers: 8 from an MMA accumulator's fragments; 1 where the 32 lanes hold consecutive
    # elements of one row (FA2's dQ accumulator, kept in the fragments' order so that its adds coalesce).
    fragment_rows: int = 8
    key: TileKey = field(init=False, compare=False, repr=False)  # as `Load.key`

    def __init__(
        self,
        tensor: str,
        tile: Hashable,
        nbytes: int | float,
        engine: CopyEngine = "ldg",
        atomic: bool = False,
        wait: bool = False,
        arrive: BarrierRef | None = None,
        release: bool = False,
        fragment_lane_bytes: int = 0,
        fragment_rows: int = 8,
    ) -> None:
        self.tensor = tensor  # type: ignore[misc]
        self.tile = tile  # type: ignore[misc]
        self.nbytes = nbytes  # type: ignore[misc]
        self.engine = engine  # type: ignore[misc]
        self.atomic = atomic  # type: ignore[misc]
        self.wait = wait  # type: ignore[misc]
        self.arrive = arrive  # type: ignore[misc]
        self.release = release  # type: ignore[misc]
        self.fragment_lane_bytes = fragment_lane_bytes  # type: ignore[misc]
        self.fragment_rows = fragment_rows  # type: ignore[misc]
        self.key = TileKey(tensor, tile)  # type: ignore[misc]

    def __post_init__(self) -> None:
        """The key, as `Load.__post_init__`."""
        object.__setattr__(self, "key", TileKey(self.tensor, self.tile))

    def with_tile(self, tile: Hashable) -> Store:
        """This store to `tile` (as `Load.with_tile`)."""
        return self._copy(tile, self.nbytes)

    def with_nbytes(self, nbytes: int | float) -> Store:
        """This store moving `nbytes` (as `Load.with_nbytes`)."""
        return self._copy(self.tile, nbytes)

    def _copy(self, tile: Hashable, nbytes: int | float) -> Store:
        return Store(
            self.tensor,
            tile,
            nbytes,
            self.engine,
            self.atomic,
            self.wait,
            self.arrive,
            self.release,
            self.fragment_lane_bytes,
            self.fragment_rows,
        )


@dataclass(frozen=True, slots=True, init=False)
class Mma(_Frozen):
    """C[m, n] += A[m, k] @ B[k, n] on the tensor cores; operands and accumulator live where the names say."""

    m: int
    n: int
    k: int
    dtype: str
    a: Operand = "smem"
    b: Operand = "smem"
    acc: Operand = "reg"
    arrive: BarrierRef | None = None
    # None: the chip's native instruction; "mma_sync" on a wgmma/tcgen05 chip takes its legacy path.
    instruction: str | None = None
    # Thread-issued smem reads that feed this MMA's register operands (ldmatrix for mma.sync).
    operand_smem_bytes: float = 0.0
    # A 2-CTA tcgen05 MMA (cta_group::2): B is split across this many CTAs' smem, so this SM reads 1/b_share of it.
    b_share: int = 1
    # The SM's plan of this op (`PlanMemo`). Not a field of the op's value: no part of its equality, hash, repr or
    # pickle.
    memo: PlanMemo | None = field(default=None, init=False, compare=False, repr=False)

    def __init__(
        self,
        m: int,
        n: int,
        k: int,
        dtype: str,
        a: Operand = "smem",
        b: Operand = "smem",
        acc: Operand = "reg",
        arrive: BarrierRef | None = None,
        instruction: str | None = None,
        operand_smem_bytes: float = 0.0,
        b_share: int = 1,
    ) -> None:
        self.m = m  # type: ignore[misc]
        self.n = n  # type: ignore[misc]
        self.k = k  # type: ignore[misc]
        self.dtype = dtype  # type: ignore[misc]
        self.a = a  # type: ignore[misc]
        self.b = b  # type: ignore[misc]
        self.acc = acc  # type: ignore[misc]
        self.arrive = arrive  # type: ignore[misc]
        self.instruction = instruction  # type: ignore[misc]
        self.operand_smem_bytes = operand_smem_bytes  # type: ignore[misc]
        self.b_share = b_share  # type: ignore[misc]
        self.memo = None  # type: ignore[misc]

    @property
    def flops(self) -> float:
        return 2.0 * self.m * self.n * self.k


@dataclass(frozen=True, slots=True, init=False)
class Exp(_Frozen):
    """`count` exp2 evaluations; `emulated_fraction` of them run as a polynomial on the FMA pipe.

    `fma_per_emulated` is the FMA-pipe op count of one software exp2 (range reduction + Horner + exponent insert),
    given by the algorithm that chose the polynomial.
    """

    count: float
    emulated_fraction: float = 0.0
    fma_per_emulated: float = 0.0
    arrive: BarrierRef | None = None
    chain: Chain | None = None  # None: every lane op independent (one latency per kind used)
    memo: PlanMemo | None = field(default=None, init=False, compare=False, repr=False)  # as `Mma.memo`

    def __init__(
        self,
        count: float,
        emulated_fraction: float = 0.0,
        fma_per_emulated: float = 0.0,
        arrive: BarrierRef | None = None,
        chain: Chain | None = None,
    ) -> None:
        self.count = count  # type: ignore[misc]
        self.emulated_fraction = emulated_fraction  # type: ignore[misc]
        self.fma_per_emulated = fma_per_emulated  # type: ignore[misc]
        self.arrive = arrive  # type: ignore[misc]
        self.chain = chain  # type: ignore[misc]
        self.memo = None  # type: ignore[misc]


@dataclass(frozen=True, slots=True, init=False)
class Fma(_Frozen):
    """`count` FP32 lane operations on the FMA pipe (FMUL, FADD or FFMA each count one)."""

    count: float
    arrive: BarrierRef | None = None
    chain: Chain | None = None  # None: every lane op independent (one latency per kind used)
    memo: PlanMemo | None = field(default=None, init=False, compare=False, repr=False)  # as `Mma.memo`

    def __init__(self, count: float, arrive: BarrierRef | None = None, chain: Chain | None = None) -> None:
        self.count = count  # type: ignore[misc]
        self.arrive = arrive  # type: ignore[misc]
        self.chain = chain  # type: ignore[misc]
        self.memo = None  # type: ignore[misc]


@dataclass(frozen=True, slots=True, init=False)
class Alu(_Frozen):
    """`count` lane operations on the ALU pipe (compare, min/max, integer, conversions)."""

    count: float
    arrive: BarrierRef | None = None
    chain: Chain | None = None  # None: every lane op independent (one latency per kind used)
    memo: PlanMemo | None = field(default=None, init=False, compare=False, repr=False)  # as `Mma.memo`

    def __init__(self, count: float, arrive: BarrierRef | None = None, chain: Chain | None = None) -> None:
        self.count = count  # type: ignore[misc]
        self.arrive = arrive  # type: ignore[misc]
        self.chain = chain  # type: ignore[misc]
        self.memo = None  # type: ignore[misc]


@dataclass(frozen=True, slots=True, init=False)
class Vector(_Frozen):
    """Interleaved elementwise work of one warp role: FMA-pipe, ALU-pipe and exp2 lane ops issued together.

    The pipes work concurrently and share the warp schedulers' issue slots, as interleaved instructions do (FA2's
    softmax mixes FFMA, FMNMX and MUFU.EX2). `emulated_fraction` of the exps run on the FMA pipe as polynomials of
    `fma_per_emulated` ops each. `issue` lane instructions take issue slots and no modeled pipe: branches, the
    uniform datapath, loads and stores of a few bytes a thread beyond what the op's copies issue (PyTorch's
    elementwise kernels, counted by Nsight Compute).
    """

    fma: float = 0.0
    alu: float = 0.0
    ex2: float = 0.0
    emulated_fraction: float = 0.0
    fma_per_emulated: float = 0.0
    arrive: BarrierRef | None = None
    chain: Chain | None = None  # None: every lane op independent (one latency per kind used)
    issue: float = 0.0
    memo: PlanMemo | None = field(default=None, init=False, compare=False, repr=False)  # as `Mma.memo`

    def __init__(
        self,
        fma: float = 0.0,
        alu: float = 0.0,
        ex2: float = 0.0,
        emulated_fraction: float = 0.0,
        fma_per_emulated: float = 0.0,
        arrive: BarrierRef | None = None,
        chain: Chain | None = None,
        issue: float = 0.0,
    ) -> None:
        self.fma = fma  # type: ignore[misc]
        self.alu = alu  # type: ignore[misc]
        self.ex2 = ex2  # type: ignore[misc]
        self.emulated_fraction = emulated_fraction  # type: ignore[misc]
        self.fma_per_emulated = fma_per_emulated  # type: ignore[misc]
        self.arrive = arrive  # type: ignore[misc]
        self.chain = chain  # type: ignore[misc]
        self.issue = issue  # type: ignore[misc]
        self.memo = None  # type: ignore[misc]


@dataclass(frozen=True, slots=True, init=False)
class Smem(_Frozen):
    """Thread-issued shared-memory traffic (ldmatrix, ld/st.shared) through the SM's smem port.

    `dsmem_bytes` of it also cross the cluster's SM-to-SM network (DSMEM): a bulk copy from this CTA's smem into a
    peer CTA's smem (`cp.async.bulk.shared::cluster`) passes this SM's link and lands one network latency after its
    last byte (the arch's `dsmem:` section). In a symmetric exchange each CTA sends as much as it receives, so
    the op's `read_bytes` (sent) and `write_bytes` (received from the peer) go through this CTA's port."""

    read_bytes: float = 0.0
    write_bytes: float = 0.0
    arrive: BarrierRef | None = None
    dsmem_bytes: float = 0.0

    def __init__(
        self,
        read_bytes: float = 0.0,
        write_bytes: float = 0.0,
        arrive: BarrierRef | None = None,
        dsmem_bytes: float = 0.0,
    ) -> None:
        self.read_bytes = read_bytes  # type: ignore[misc]
        self.write_bytes = write_bytes  # type: ignore[misc]
        self.arrive = arrive  # type: ignore[misc]
        self.dsmem_bytes = dsmem_bytes  # type: ignore[misc]


@dataclass(frozen=True, slots=True, init=False)
class Tmem(_Frozen):
    """Thread-issued Tensor Memory traffic (tcgen05.ld / tcgen05.st)."""

    read_bytes: float = 0.0
    write_bytes: float = 0.0
    arrive: BarrierRef | None = None

    def __init__(self, read_bytes: float = 0.0, write_bytes: float = 0.0, arrive: BarrierRef | None = None) -> None:
        self.read_bytes = read_bytes  # type: ignore[misc]
        self.write_bytes = write_bytes  # type: ignore[misc]
        self.arrive = arrive  # type: ignore[misc]


@dataclass(frozen=True, slots=True, init=False)
class Delay(_Frozen):
    """A fixed latency that occupies no unit (a dependency chain, a barrier round trip)."""

    cycles: float

    def __init__(self, cycles: float) -> None:
        self.cycles = cycles  # type: ignore[misc]


@dataclass(frozen=True, slots=True, init=False)
class Arrive(_Frozen):
    """Arrive once on a barrier slot of the CTA."""

    barrier: BarrierRef

    def __init__(self, barrier: BarrierRef) -> None:
        self.barrier = barrier  # type: ignore[misc]


@dataclass(frozen=True, slots=True, init=False)
class Wait(_Frozen):
    """Wait for the next phase of a barrier slot (each role counts the phases it has consumed per slot)."""

    barrier: BarrierRef

    def __init__(self, barrier: BarrierRef) -> None:
        self.barrier = barrier  # type: ignore[misc]


@dataclass(frozen=True, slots=True, init=False)
class Advance(_Frozen):
    """Move this role's cursor on each named barrier ring to the next slot."""

    barriers: tuple[str, ...]

    def __init__(self, barriers: tuple[str, ...]) -> None:
        self.barriers = barriers  # type: ignore[misc]


@dataclass(frozen=True, slots=True, init=False)
class Repeat(_Frozen):
    """Run `body(i)` for i in range(count): a loop the engine can see (the fast mode extrapolates it).

    The body is a function of the iteration so that each iteration can name its own tiles (for L2 residency).
    `held`, where given: the loop iterations that `body(i)` holds, told without building it (the count of its
    nested loops, and of theirs where those hold loops: `simgpu.fold`'s count). Fast mode's folds count the
    nested iterations of every iteration they remove by it; without it they build each removed body to count them
    (v1's tile at 128k tokens: 1,016 removed key blocks in each of its folds, each body built in the schedule's
    Python; `docs/results/copies_63/counts.txt`).
    """

    count: int
    body: Callable[[int], Sequence[Op]]
    held: Callable[[int], int] | None = field(default=None, compare=False)

    def __init__(
        self, count: int, body: Callable[[int], Sequence[Op]], held: Callable[[int], int] | None = None
    ) -> None:
        self.count = count  # type: ignore[misc]
        self.body = body  # type: ignore[misc]
        self.held = held  # type: ignore[misc]


UnitOp = Load | Store | Mma | Exp | Fma | Alu | Vector | Smem | Tmem
Op = UnitOp | Delay | Arrive | Wait | Advance | Repeat

# Run as Python (not compiled), a class's own `__init__` above cannot store into its frozen instance: `slot_init`
# gives it one of the same signature that stores through the slots (and leaves a compiled class as it is).
for _kind in (Chain, Piece, Load, Store, Mma, Exp, Fma, Alu, Vector, Smem, Tmem, Delay, Arrive, Wait, Advance, Repeat):
    slot_init(_kind)
