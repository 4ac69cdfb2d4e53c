"""Side checks quoted in the 2026-12-02 notes and READMEs, with their output in `checks_2026-12-02.txt`.

`python docs/results/checks_2026-12-02.py > docs/results/checks_2026-12-02.txt` (about 3 CPU-minutes):
1. FA3's Table 2 configurations on the H100 in fast mode, with and without the TMA engine rate and issue cost;
2. GPT-2 medium standard attention, forward and backward, on the A100 in fast mode;
3. fast over exact at the corners the property test leaves out (v1 with few queries, partial last blocks);
4. v2 with cp.async loads booked on L2 at their start instead of their issue's end (exact, the H200, N = 1024).
"""

from __future__ import annotations

import simgpu.sm as sm_module
from simgpu import Problem, load_arch, simulate
from simgpu.validation import predict, read_cases

NO_TMA_RATE = {"tma.bytes_per_cycle": None, "tma.issue_cycles": 0}


def fa3_ablation() -> None:
    problem = Problem(4, 16, 8448, 128)
    for label, overrides in (("with TMA rate", {}), ("without", NO_TMA_RATE)):
        arch = load_arch("h100", overrides)
        for options in ({}, {"intra_wg_overlap": False}, {"warp_specialization": False}):
            print(f"fa3_ablation {label} {options}: {simulate(arch, 'v3', problem, options).tflops:.1f} TFLOP/s")


def gpt2() -> None:
    result = simulate("a100", "standard", Problem(64, 16, 1024, 64, pass_="fwd_bwd"))
    gb = (result.hbm_read_bytes + result.hbm_write_bytes) / 1e9
    print(f"gpt2 standard fwd_bwd a100 fast: {result.time_s * 1e3:.3f} ms {gb:.3f} GB")


def ratio(arch_name: str, overrides: dict[str, object], algo: str, problem: Problem) -> float:
    arch = load_arch(arch_name, overrides)
    return simulate(arch, algo, problem, mode="fast").cycles / simulate(arch, algo, problem, mode="exact").cycles


def corners() -> None:
    for keys in (129, 193, 257, 385):
        for queries in (1, 16, 64):
            problem = Problem(2, 2, queries, 128, seqlen_k=keys)
            print(f"corner v1 a100 q={queries} k={keys}: fast/exact {ratio('a100', {}, 'v1', problem):.4f}")
    for n in (129, 145, 161, 192, 255, 256, 384):
        problem = Problem(1, 2, n, 16, causal=True)
        value = ratio("a100", {"hbm.latency_cycles": 0}, "v2", problem)
        print(f"corner v2 a100 no-hbm-latency causal d=16 N={n}: fast/exact {value:.4f}")
    for arch_name in ("a100", "h100"):
        for b, h, n, d in ((1, 2, 129, 32), (8, 8, 129, 32), (8, 8, 129, 16), (1, 2, 129, 64)):
            value = ratio(arch_name, {}, "v2", Problem(b, h, n, d))
            print(f"corner v2 {arch_name} {b}x{h}x{n}x{d}: fast/exact {value:.4f}")


def load_booked_at_start(self: sm_module.Sm, op, now: float, warps: int) -> float:  # type: ignore[no-untyped-def]
    """`Sm._load` with L2 booked at `now`, the data no earlier than one latency after the copy is issued."""
    issued = self._copy_issue(now, op.engine, op.nbytes, warps, op.address_instructions)
    self.copy_issued = issued if op.engine == "cp_async" else now
    access = self.l2.load(now, (op.tensor, op.tile), op.nbytes)
    if op.engine == "ldg":
        return access.ready
    latency = self.l2.hit_latency if access.hit else self.l2.hbm.latency_cycles
    ready = max(access.ready, issued + latency)
    ingest = self._ingest.get(op.engine)
    if ingest is not None:
        ready = max(ready, ingest.reserve(issued, op.nbytes) + latency)
    return max(ready, self.smem.copy_in(issued, op.nbytes, op.engine))


def cp_async_booking() -> None:
    cases = read_cases("validation/h200/kernels_h200.csv", "h200", ["v2"])
    original = sm_module.Sm._load
    for case in [c for c in cases if c.problem.seqlen_q == 1024 and not c.problem.causal]:
        as_is = predict(case).predicted_ms
        sm_module.Sm._load = load_booked_at_start  # type: ignore[method-assign]
        try:
            at_start = predict(case).predicted_ms
        finally:
            sm_module.Sm._load = original  # type: ignore[method-assign]
        p = case.problem
        print(f"cp_async booking v2 {p.pass_} d={p.headdim} N=1024: {as_is:.6f} ms as is, {at_start:.6f} ms at start")


if __name__ == "__main__":
    fa3_ablation()
    gpt2()
    corners()
    cp_async_booking()
