"""How exact mode's entries fall on the event queue's times, counted in Python mode (run with SIMGPU_NATIVE=0: the
count wraps the engine's dict of due lists): per case, the entries the event loop put on the queue, how many of them
asked for a time no list had yet, and how many asked for the time the one before asked for.
`SIMGPU_NATIVE=0 python docs/results/queue_59/queue_counts.py > docs/results/queue_59/queue_counts.txt`"""

from __future__ import annotations

from typing import Any

import simgpu.engine as engine_module
from simgpu import Problem, load_arch, simulate

CASES = (
    ("h200", "v1", Problem(2, 16, 1024, 64, pass_="fwd_bwd")),
    ("a100", "v1", Problem(2, 16, 1024, 64, pass_="fwd_bwd")),
    ("h200", "standard", Problem(1, 16, 1024, 64, pass_="fwd_bwd")),
    ("h200", "v2", Problem(4, 16, 1024, 64, pass_="fwd_bwd")),
    ("b200", "v2", Problem(4, 16, 1024, 64, pass_="fwd_bwd")),
)


class _CountedDue(dict[float, Any]):
    """The dict of due lists, counting the event loop's lookups (one per entry it puts on the queue)."""

    def __init__(self) -> None:
        super().__init__()
        self.asked = self.new = self.repeated = 0
        self.last: float | None = None

    def get(self, key: float, default: Any = None) -> Any:
        self.asked += 1
        self.repeated += key == self.last
        self.last = key
        found = dict.get(self, key, default)
        self.new += found is None
        return found


def main() -> None:
    if engine_module.Engine.__module__ != "simgpu.engine" or not engine_module.__file__.endswith(".py"):
        raise SystemExit("run with SIMGPU_NATIVE=0: the count wraps the engine's Python source")
    made: list[_CountedDue] = []
    original = engine_module.Engine.__init__

    def counted_init(self: Any, *args: Any, **kwargs: Any) -> None:
        original(self, *args, **kwargs)
        self._due = _CountedDue()
        made.append(self._due)

    engine_module.Engine.__init__ = counted_init  # type: ignore[method-assign]
    for arch, algo, problem in CASES:
        made.clear()
        simulate(load_arch(arch), algo, problem, mode="exact")
        asked = sum(due.asked for due in made)
        new = sum(due.new for due in made)
        repeated = sum(due.repeated for due in made)
        print(
            f"{arch} {algo} {problem.batch}x{problem.heads}x{problem.seqlen_q} d={problem.headdim} fwd+bwd: "
            f"{asked} entries queued, {new / asked:.2f} at a new time, {repeated / asked:.2f} at the time the one "
            "before asked for"
        )


if __name__ == "__main__":
    main()
