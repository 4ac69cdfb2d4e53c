"""Probes of where fast mode spends its time, beside `benchmarks.profile_fast`: how many ops the schedules build per
prediction (`ops`), what one op's construction costs (`init`), and how much of an H200 prediction its re-run at the
power-limited clock takes (`reruns`). Each takes `benchmarks.fast_ab`'s `simspeed` cases (16k tokens, 16 heads,
d = 128), CPU seconds (`time.process_time`) after a warm-up prediction. `ops` counts an op where Python calls its
class's `__init__`: compiled (`simgpu.native`), the ops that compiled code builds (the folds' and the replay's,
`Load.with_nbytes`) do not pass there, so it counts them all only with `SIMGPU_NATIVE=0`.

`python -m benchmarks.fast_probes ops|init|reruns [--out FILE]` prints its table (and writes it to FILE).
"""

from __future__ import annotations

import argparse
import time
import timeit
from collections import Counter
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import simgpu.api
import simgpu.ops
from benchmarks.fast_ab import cases
from simgpu import Problem, load_arch, simulate

OP_TYPES = ("Load", "Store", "Mma", "Exp", "Fma", "Alu", "Vector", "Smem", "Tmem", "Delay", "Arrive", "Wait", "Advance")
OP_TYPES += ("Repeat", "Chain", "Piece")
INIT_REPEATS = 200_000


def _problem(seqlen: int, pass_: str) -> Problem:
    return Problem(max(1, 16384 // seqlen), 16, seqlen, 128, pass_=pass_)


@contextmanager
def _counting(counts: Counter[str]) -> Iterator[None]:
    """Count the ops of each type built meanwhile (their `__init__` wrapped)."""
    originals = {name: getattr(simgpu.ops, name).__init__ for name in OP_TYPES}

    def counted(name: str, init: Callable[..., None]) -> Callable[..., None]:
        def wrapped(self: object, *args: Any, **kwargs: Any) -> None:
            counts[name] += 1
            init(self, *args, **kwargs)

        return wrapped

    for name, init in originals.items():
        getattr(simgpu.ops, name).__init__ = counted(name, init)
    try:
        yield
    finally:
        for name, init in originals.items():
            getattr(simgpu.ops, name).__init__ = init


def ops() -> list[str]:
    """Per case, the ops built by one prediction (after a warm-up), and their total per type."""
    lines, totals, predictions = [], Counter[str](), 0
    for arch, algo, pass_, seqlen in cases("simspeed"):
        target, problem = load_arch(arch), _problem(seqlen, pass_)
        simulate(target, algo, problem)
        counts = Counter[str]()
        with _counting(counts):
            simulate(target, algo, problem)
        totals.update(counts)
        predictions += 1
        lines.append(f"{arch} {algo} {pass_} {seqlen}: {sum(counts.values())} ops built")
    lines.append(f"{predictions} predictions, {sum(totals.values())} ops built: {dict(totals.most_common())}")
    return lines


def init() -> list[str]:
    """Nanoseconds to build a `Load` of 6 fields given (the schedules' cp.async copy) and a `Wait`."""

    def load() -> object:
        return simgpu.ops.Load("K", (0, 1, 2), 16384, engine="cp_async", arrive="kv", address_instructions=6.0)

    def wait() -> object:
        return simgpu.ops.Wait("kv")

    out = []
    for name, build in (("Load", load), ("Wait", wait)):
        best = min(timeit.repeat(build, number=INIT_REPEATS, repeat=5)) / INIT_REPEATS
        out.append(f"{name}: {best * 1e9:.0f} ns per op (best of 5 x {INIT_REPEATS})")
    return out


def reruns() -> list[str]:
    """Per H200 case: the prediction's CPU seconds, its plan's (folds and L2 replay, made once), and each run's at its
    clock (a second one where the power limit lowers the clock)."""
    runs: list[tuple[float, float]] = []
    run = simgpu.api._run

    def timed(arch: Any, kernels: Any, clock_hz: float, *rest: Any) -> Any:
        started = time.process_time()
        stats = run(arch, kernels, clock_hz, *rest)
        runs.append((clock_hz, time.process_time() - started))
        return stats

    lines = []
    simgpu.api._run = timed  # type: ignore[assignment]
    try:
        for arch, algo, pass_, seqlen in cases("simspeed"):
            if arch != "h200":
                continue
            target, problem = load_arch(arch), _problem(seqlen, pass_)
            simulate(target, algo, problem)
            runs.clear()
            started = time.process_time()
            simulate(target, algo, problem)
            total = time.process_time() - started
            shown = "; ".join(f"{clock / 1e6:.0f} MHz {seconds:.3f} s" for clock, seconds in runs)
            second = runs[1][1] / total if len(runs) > 1 else 0.0
            lines.append(f"{algo} {pass_} {seqlen}: {total:.3f} s; runs: {shown}; second run {second:.0%} of it")
    finally:
        simgpu.api._run = run
    return lines


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    parser.add_argument("probe", choices=("ops", "init", "reruns"))
    parser.add_argument("--out", type=Path)
    args = parser.parse_args(argv)
    lines = {"ops": ops, "init": init, "reruns": reruns}[args.probe]()
    text = "\n".join(lines) + "\n"
    print(text, end="")
    if args.out is not None:
        args.out.write_text(text)


if __name__ == "__main__":
    main()
