"""The event loop's order and what a run leaves behind: a process whose next entry would run next is resumed in place
(`Engine._loop`), in the order a heap of (time, priority, sequence) entries gives; and a finished run leaves no
reference cycles for the collector (`Engine._untie`)."""

from __future__ import annotations

import gc
import heapq
import random
from collections.abc import Generator, Iterator
from contextlib import contextmanager

from simgpu import Problem, load_arch, simulate
from simgpu.engine import Engine

Log = list[tuple[str, float]]


def _process(name: str, delays: list[float], log: Log, engine: Engine) -> Generator[float, None, None]:
    for delay in delays:
        log.append((name, engine.now))
        yield delay
    log.append((name, engine.now))


def _reference(programs: dict[str, list[float]]) -> Log:
    """SimPy's order written plainly: starts first (priority 0), then by time and the order entries were made."""
    log: Log = []
    heap = [(0.0, 0, n, name, 0) for n, name in enumerate(programs)]
    made = len(heap)
    while heap:
        now, _, _, name, step = heapq.heappop(heap)
        log.append((name, now))
        delays = programs[name]
        if step < len(delays):
            heapq.heappush(heap, (now + delays[step], 1, made, name, step + 1))
            made += 1
    return log


def test_the_loop_runs_entries_in_time_priority_and_sequence_order() -> None:
    rng = random.Random(41)
    for _ in range(200):
        programs = {
            f"p{n}": [rng.choice((0.0, 0.5, 1.0, 1.0, 2.0, 3.5)) for _ in range(rng.randrange(6))]
            for n in range(rng.randrange(1, 5))
        }
        engine = Engine(load_arch("h100"), sms=1)
        log: Log = []
        for name, delays in programs.items():
            engine._start(_process(name, delays, log, engine))
        engine._loop()
        assert log == _reference(programs), programs


@contextmanager
def _collector_paused() -> Iterator[None]:
    enabled = gc.isenabled()
    gc.collect()
    gc.disable()
    try:
        yield
    finally:
        if enabled:
            gc.enable()


def test_a_run_leaves_no_cycles_for_the_collector() -> None:
    # Exact mode (three kernels: the backward's) and fast mode (its representative runs on one SM).
    arch = load_arch("h100")
    for mode in ("exact", "fast"):
        simulate(arch, "v2", Problem(1, 2, 512, 64, pass_="bwd"), mode=mode)  # caches and plans made beforehand
        with _collector_paused():
            simulate(arch, "v2", Problem(1, 2, 512, 64, pass_="bwd"), mode=mode)
            assert gc.collect() == 0, mode
