"""The engine's event queue gives entries back by time, and in the order they were pushed among equal times."""

from __future__ import annotations

import heapq

from hypothesis import given
from hypothesis import strategies as st

from simgpu.event_queue import EventQueue

# Each step pushes an entry due at the time given, or (None) pops one if any is left. Few distinct times: many ties.
_STEPS = st.lists(st.one_of(st.none(), st.sampled_from((0.0, 0.5, 1.0, 2.0, 3.25, 1e9))), max_size=200)


def test_equal_times_leave_in_the_order_pushed_after_earlier_times() -> None:
    queue = EventQueue()
    for time, name in ((2.0, "a"), (1.0, "b"), (2.0, "c"), (1.0, "d"), (0.5, "e")):
        queue.push(time, name, None, True)
    popped = [queue.pop() for _ in range(5)]
    assert [(entry.time, entry.target) for entry in popped] == [
        (0.5, "e"),
        (1.0, "b"),
        (1.0, "d"),
        (2.0, "a"),
        (2.0, "c"),
    ]
    assert queue.first is None


@given(_STEPS)
def test_pops_follow_time_then_push_order_however_pushes_and_pops_interleave(steps: list[float | None]) -> None:
    queue = EventQueue()
    reference: list[tuple[float, int]] = []
    for number, step in enumerate(steps):
        if step is not None:
            queue.push(step, number, f"value {number}", number % 2 == 0)
            heapq.heappush(reference, (step, number))
        elif reference:
            entry = queue.pop()
            time, pushed = heapq.heappop(reference)
            assert (entry.time, entry.target, entry.value, entry.resume) == (
                time,
                pushed,
                f"value {pushed}",
                pushed % 2 == 0,
            )
        first = queue.first
        assert (first.time, first.target) == reference[0] if first is not None else not reference
