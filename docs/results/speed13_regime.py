"""speed13: the backward's wave prefixes (`simgpu.fast_bytes._wave_prefixes`) against a replay of the whole head, on
chips cut small enough to replay whole heads fast (8k tokens, 2 heads, d = 128, prefixes of at least 8 tiles), with
and without the condition that the smaller prefix turns the head's share of L2 over; then the shipped chips at 128k.
Relative differences (prefix - whole) / whole of HBM read, HBM write, HBM timed, L2 read, L2 write bytes.

`PYTHONPATH=. python docs/results/speed13_regime.py`"""

from __future__ import annotations

import time
from typing import Any

from simgpu import Problem, fast_bytes, load_arch
from simgpu.api import schedule
from simgpu.fast_plan import plan_kernel

WHOLE = 10**9


def line(arch: Any, algo: str, problem: Problem, least: int) -> str:
    plans = [plan_kernel(arch, kernel) for kernel in schedule(arch, algo, problem, {})]
    calls: list[int] = []
    original = fast_bytes._head_prefix_bytes
    fast_bytes._head_prefix_bytes = lambda *args: calls.append(1) or original(*args)  # type: ignore[assignment]
    try:
        started = time.process_time()
        _, prefix = fast_bytes.replayed_bytes(arch, plans, prefix_tiles=least)
        prefix_s = time.process_time() - started
    finally:
        fast_bytes._head_prefix_bytes = original  # type: ignore[assignment]
    started = time.process_time()
    _, whole = fast_bytes.replayed_bytes(arch, plans, prefix_tiles=WHOLE)
    whole_s = time.process_time() - started
    gaps = " ".join(f"{(b - a) / a:+9.2e}" for a, b in zip(whole, prefix, strict=True))
    return f"prefix {'yes' if calls else 'no '} {gaps}   replay CPU s {prefix_s:.2f} (whole head {whole_s:.2f})"


def main() -> None:
    guarded = fast_bytes._wave_prefixes

    def unguarded(*args: Any) -> Any:
        return guarded(*args[:-1], 0.0)

    for label, wave_prefixes in (("without the L2 condition", unguarded), ("with it (as shipped)", guarded)):
        print(f"# {label}")
        fast_bytes._wave_prefixes = wave_prefixes  # type: ignore[assignment]
        for name, algo, sms in (("h100", "v2", 3), ("h100", "v3", 2), ("b200", "v4", 3)):
            for l2 in (1_000_000, 2_000_000, 4_000_000, None):
                overrides: dict[str, object] = {"sms": sms} | ({} if l2 is None else {"l2.capacity_bytes": l2})
                arch = load_arch(name, overrides)
                problem = Problem(1, 2, 8192, 128, pass_="bwd")
                print(f"{name} {algo} sms={sms} l2={l2 or 'default'}: {line(arch, algo, problem, 8)}")
        fast_bytes._wave_prefixes = guarded  # type: ignore[assignment]
    print("# shipped chips, 128k tokens, 16 heads, default thresholds")
    for name, algo in (("h100", "v2"), ("h100", "v3"), ("b200", "v2"), ("b200", "v4")):
        problem = Problem(1, 16, 131072, 128, pass_="bwd")
        print(f"{name} {algo}: {line(load_arch(name), algo, problem, fast_bytes.HEAD_PREFIX_TILES)}")


if __name__ == "__main__":
    main()
