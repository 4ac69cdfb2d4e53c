"""Fast against exact mode on random varlen batches (`Problem.varlen`; v4, the one algorithm that takes them), which
`benchmarks.fast_random` does not draw: a B200 cut to 4-33 SMs, 1-4 heads, 1-4 sequences of 16-1500 tokens, d = 64
or 128, causal or not, forward or backward, seed 5. Prints each case's fast over exact cycles and largest relative
byte difference, worst first. `python docs/results/varlen_fast_vs_exact.py` (the .txt beside it is its output)."""

from __future__ import annotations

import random

from simgpu import Problem, load_arch, simulate
from simgpu.result import BYTE_FIELDS

CASES = 20


def main() -> None:
    rng = random.Random(5)
    rows = []
    for _ in range(CASES):
        arch = load_arch("b200", {"sms": rng.choice([4, 8, 16, 33])})
        lengths = [rng.randint(16, 1500) for _ in range(rng.randint(1, 4))]
        causal, pass_ = rng.random() < 0.5, rng.choice(["fwd", "bwd"])
        problem = Problem.varlen(rng.randint(1, 4), lengths, rng.choice([64, 128]), causal=causal, pass_=pass_)
        fast, exact = (simulate(arch, "v4", problem, mode=mode) for mode in ("fast", "exact"))
        pairs = [(getattr(fast, name), getattr(exact, name)) for name in BYTE_FIELDS]
        difference = max(abs(f - e) / max(abs(e), 1.0) for f, e in pairs)
        rows.append((fast.cycles / exact.cycles, difference, arch.sms, problem))
    rows.sort(key=lambda row: -abs(row[0] - 1))
    within = sum(abs(ratio - 1) <= 0.01 for ratio, *_ in rows)
    equal = sum(difference <= 1e-9 for _, difference, *_ in rows)
    print(f"{len(rows)} cases: cycles within 1% in {within}, bytes equal in {equal}")
    for ratio, difference, sms, problem in rows:
        shape = f"{problem.heads} heads, lengths {list(problem.seqlens or ())}, d = {problem.headdim}"
        print(f"{ratio:.3f} bytes {difference:.2g}  {sms} SMs, {problem.pass_}, causal {problem.causal}, {shape}")


if __name__ == "__main__":
    main()
