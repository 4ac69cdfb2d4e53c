"""Problems the simulator is asked about: an attention shape and pass, or a GEMM shape.

FLOPs follow the papers' convention (shared/reference/papers.md): an attention forward is
4 * batch * heads * seqlen_q * seqlen_k * headdim, halved when causal; backward is 2.5x forward and
forward+backward 3.5x; a varlen batch sums each sequence's own. Compulsory HBM bytes are the inputs read once plus
the outputs written once: no schedule can move less, so results below it are internal errors. A problem whose
inputs and outputs exceed the arch's HBM is refused (OutOfMemoryError).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Literal

from simgpu.arch import DTYPE_BYTES, Arch
from simgpu.errors import OutOfMemoryError, ProblemError

Pass = Literal["fwd", "bwd", "fwd_bwd"]
PASSES: tuple[str, ...] = ("fwd", "bwd", "fwd_bwd")
INPUT_DTYPES: tuple[str, ...] = ("bf16", "fp16", "fp8")
LSE_BYTES = 4  # the log-sum-exp statistics are fp32 in every FlashAttention version
PASS_FLOPS = {"fwd": 1.0, "bwd": 2.5, "fwd_bwd": 3.5}  # a pass's FLOPs over the forward's (the papers' convention)


GB = 1e9


def _positive(name: str, value: int) -> None:
    if isinstance(value, bool) or not isinstance(value, int) or value <= 0:
        raise ProblemError(f"{name} must be a positive integer, got {value!r}")


@dataclass(frozen=True)
class Problem:
    """Attention of `(batch, heads, seqlen, headdim)` tensors; `seqlen_k` defaults to `seqlen_q`.

    `seqlens`: a varlen batch (FlashAttention's `cu_seqlens`): sequence b has `seqlens[b]` query and key tokens,
    packed without padding; `batch` is their number and `seqlen_q` (= `seqlen_k`) the longest. `Problem.varlen`
    builds one. Only algorithms that declare `VARLEN` take it (`simgpu.api.schedule`)."""

    batch: int
    heads: int
    seqlen_q: int
    headdim: int
    seqlen_k: int | None = None
    causal: bool = False
    dtype: str = "bf16"
    pass_: str = "fwd"
    seqlens: tuple[int, ...] | None = None

    @classmethod
    def varlen(
        cls,
        heads: int,
        seqlens: Sequence[int],
        headdim: int,
        causal: bool = False,
        dtype: str = "bf16",
        pass_: str = "fwd",
    ) -> Problem:
        """A varlen batch of sequences of `seqlens` tokens each."""
        lengths = tuple(seqlens)
        if not lengths:
            raise ProblemError("seqlens: a varlen batch needs at least one sequence")
        for length in lengths:
            _positive("each of seqlens", length)
        return cls(len(lengths), heads, max(lengths), headdim, None, causal, dtype, pass_, lengths)

    def __post_init__(self) -> None:
        for name in ("batch", "heads", "seqlen_q", "headdim"):
            _positive(name, getattr(self, name))
        if self.seqlen_k is None:
            object.__setattr__(self, "seqlen_k", self.seqlen_q)
        _positive("seqlen_k", self.nk)
        if self.dtype not in INPUT_DTYPES:
            raise ProblemError(f"dtype must be one of {', '.join(INPUT_DTYPES)}, got {self.dtype!r}")
        if self.pass_ not in PASSES:
            raise ProblemError(f"pass must be one of {', '.join(PASSES)}, got {self.pass_!r}")
        if not isinstance(self.causal, bool):
            raise ProblemError(f"causal must be a bool, got {self.causal!r}")
        if self.seqlens is not None:
            self._check_seqlens(self.seqlens)

    def _check_seqlens(self, seqlens: tuple[int, ...]) -> None:
        if not isinstance(seqlens, tuple) or len(seqlens) != self.batch:
            raise ProblemError(f"seqlens must be a tuple of batch = {self.batch} lengths, got {seqlens!r}")
        for length in seqlens:
            _positive("each of seqlens", length)
        if max(seqlens) != self.seqlen_q or self.nk != self.seqlen_q:
            raise ProblemError(
                f"a varlen batch has seqlen_q = seqlen_k = its longest sequence ({max(seqlens)}), got "
                f"{self.seqlen_q} and {self.nk}"
            )

    @property
    def nk(self) -> int:
        assert self.seqlen_k is not None  # set in __post_init__
        return self.seqlen_k

    @property
    def element_bytes(self) -> int:
        return DTYPE_BYTES[self.dtype]

    def forward_flops(self) -> float:
        if self.seqlens is not None:
            flops = 4.0 * self.heads * self.headdim * sum(length * length for length in self.seqlens)
        else:
            flops = 4.0 * self.batch * self.heads * self.seqlen_q * self.nk * self.headdim
        return flops / 2 if self.causal else flops

    @property
    def flops(self) -> float:
        return self.forward_flops() * PASS_FLOPS[self.pass_]

    @property
    def required_flops(self) -> float:
        """The FLOPs of the score pairs the causal mask leaves (the papers' `flops` count otherwise): the tensor work
        no schedule can skip (`simgpu.api.roofline_cycles`). The papers halve causal work whatever the lengths; the
        mask, aligned bottom-right (`attending_rows`), leaves sum over rows of the keys each sees: with fewer keys
        than queries that is Nk (Nk + 1) / 2, far below Nq Nk / 2 (at Nq = 2048, Nk = 742: 0.36 of it; the papers'
        count put the roofline above v3's simulated backward there, a false invariant failure)."""
        if not self.causal:
            return self.flops
        if self.seqlens is not None:
            pairs = float(sum(length * (length + 1) // 2 for length in self.seqlens))
        else:
            nq, nk = self.seqlen_q, self.nk
            seen = min(nq, nk)  # rows that see a key: the last `seen` rows, the first of them sees nk - seen + 1
            pairs = float(self.batch * (seen * (nk - seen) + seen * (seen + 1) // 2))
        return 4.0 * self.heads * self.headdim * pairs * PASS_FLOPS[self.pass_]

    def tensor_bytes(self, seqlen: int) -> int:
        """Bytes of one (batch, heads, seqlen, headdim) tensor in the input dtype; of a varlen batch, of its packed
        tokens (`seqlen` is then `seqlen_q`, `seqlen_k` or `attending_rows`, all of which cover every token)."""
        return self._tokens(seqlen) * self.heads * self.headdim * self.element_bytes

    def _tokens(self, seqlen: int) -> int:
        return sum(self.seqlens) if self.seqlens is not None else self.batch * seqlen

    @property
    def attending_rows(self) -> int:
        """Query rows that see at least one key. The causal mask is aligned bottom-right (row i sees key j iff
        j <= i + seqlen_k - seqlen_q), so with seqlen_q > seqlen_k the first seqlen_q - seqlen_k rows see none."""
        return min(self.seqlen_q, self.nk) if self.causal else self.seqlen_q

    @property
    def lse_bytes(self) -> int:
        return self._tokens(self.seqlen_q) * self.heads * LSE_BYTES

    def _compulsory(self) -> tuple[int, int]:
        """(read, write) bytes: inputs read once and outputs written once, for the pass asked.

        A backward pass must read Q, K, V and dO; what it reads of the forward's state depends on the algorithm
        (O and LSE for FlashAttention, P for standard attention, smaller than O and LSE when seqlen < headdim + 2),
        so none of that state counts as compulsory. Rows of Q and dO that see no key need not be read."""
        q, kv, lse = self.tensor_bytes(self.seqlen_q), self.tensor_bytes(self.nk), self.lse_bytes
        q_read = self.tensor_bytes(self.attending_rows)
        return {
            "fwd": (q_read + 2 * kv, q + lse),  # read Q, K, V; write O, LSE
            "bwd": (2 * q_read + 2 * kv, q + 2 * kv),  # read Q, K, V, dO; write dQ, dK, dV
            "fwd_bwd": (2 * q_read + 2 * kv, 2 * q + lse + 2 * kv),  # read Q, K, V, dO; write O, LSE, dQ, dK, dV
        }[self.pass_]

    @property
    def compulsory_read_bytes(self) -> int:
        return self._compulsory()[0]

    @property
    def compulsory_write_bytes(self) -> int:
        return self._compulsory()[1]

    def check_arch(self, arch: Arch) -> None:
        _check_arch(self, arch)

    def describe(self) -> dict[str, object]:
        described: dict[str, object] = {
            "batch": self.batch,
            "heads": self.heads,
            "seqlen_q": self.seqlen_q,
            "seqlen_k": self.nk,
            "headdim": self.headdim,
            "causal": self.causal,
            "dtype": self.dtype,
            "pass": self.pass_,
        }
        if self.seqlens is not None:
            described["seqlens"] = list(self.seqlens)
        return described


@dataclass(frozen=True)
class GemmProblem:
    """C (m x n) = A (m x k) @ B (k x n), inputs in `dtype`, fp32 accumulation, C written in `dtype`."""

    m: int
    n: int
    k: int
    dtype: str = "bf16"

    def __post_init__(self) -> None:
        for name in ("m", "n", "k"):
            _positive(name, getattr(self, name))
        if self.dtype not in INPUT_DTYPES:
            raise ProblemError(f"dtype must be one of {', '.join(INPUT_DTYPES)}, got {self.dtype!r}")

    @property
    def element_bytes(self) -> int:
        return DTYPE_BYTES[self.dtype]

    @property
    def flops(self) -> float:
        return 2.0 * self.m * self.n * self.k

    @property
    def required_flops(self) -> float:
        """All of a GEMM's FLOPs are required (`Problem.required_flops`)."""
        return self.flops

    @property
    def compulsory_read_bytes(self) -> int:
        return (self.m * self.k + self.k * self.n) * self.element_bytes

    @property
    def compulsory_write_bytes(self) -> int:
        return self.m * self.n * self.element_bytes

    def check_arch(self, arch: Arch) -> None:
        _check_arch(self, arch)

    def describe(self) -> dict[str, object]:
        return {"m": self.m, "n": self.n, "k": self.k, "dtype": self.dtype}


AnyProblem = Problem | GemmProblem


def _check_arch(problem: AnyProblem, arch: Arch) -> None:
    """The arch's tensor cores take the dtype, and its HBM holds the inputs and outputs at once. The footprint is
    the compulsory traffic, a lower bound (a schedule's own buffers come on top: `algorithms._schedule.memory`);
    checked up front so that an absurd size is refused at once, not after building millions of tiles."""
    if problem.dtype not in arch.dtypes:
        raise ProblemError(
            f"dtype {problem.dtype} is not supported by {arch.name} (its tensor cores take {', '.join(arch.dtypes)})"
        )
    footprint = problem.compulsory_read_bytes + problem.compulsory_write_bytes
    if footprint > arch.hbm.capacity_bytes:
        raise OutOfMemoryError(
            f"out of memory on {arch.name}: the inputs and outputs alone need {footprint / GB:,.1f} GB of HBM, "
            f"capacity {arch.hbm.capacity_bytes / GB:.1f} GB (a smaller problem, or --set hbm.capacity_bytes=...)"
        )
