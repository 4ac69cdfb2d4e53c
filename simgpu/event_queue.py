"""The exact engine's pending entries, earliest first: a binary heap keyed by (due time, sequence number).

An entry is a process to resume or a callback to call, with the value it gets, due at a time in cycles. Entries due
at the same time leave in the order they were pushed (the sequence number breaks ties), which is SimPy's order for
entries of one priority; `simgpu.engine` keeps process starts, which SimPy runs first, in a queue of their own.

Why not `heapq`: its heap of boxed floats compares each pair through Python's rich comparison, and the dictionary
that grouped same-time entries into one list hashed every float. Together they took about a quarter of an exact run
of v1 (callgrind, `docs/results/event_heap_60/`). Here the keys are native fields of a compiled class, compared
without a call. Nothing is modeled here.
"""

from __future__ import annotations

from typing import Any


class Entry:
    """One pending entry: what to run (`target`) with `value`, due at `time` cycles; `seq` orders equal times."""

    __slots__ = ("seq", "target", "time", "value")

    def __init__(self, time: float, seq: int, target: Any, value: Any) -> None:
        self.time = time
        self.seq = seq
        self.target = target
        self.value = value


class EventQueue:
    """Entries by (time, order pushed). `heap[0]` is the next one out; the engine reads its time to decide whether a
    process's next step may run at once."""

    __slots__ = ("_pushed", "_spare", "heap")

    def __init__(self) -> None:
        self.heap: list[Entry] = []
        self._pushed = 0
        # Entries popped, made again by the next pushes: an entry made and freed per push was a fifth of the queue's
        # cost (allocation, the collector's bookkeeping). They keep their target and value until then.
        self._spare: list[Entry] = []

    def push(self, time: float, target: Any, value: Any) -> None:
        """Add an entry due at `time`, after every entry pushed before it with the same time."""
        seq = self._pushed
        self._pushed = seq + 1
        spare = self._spare
        if spare:
            entry = spare.pop()
            entry.time = time
            entry.seq = seq
            entry.target = target
            entry.value = value
        else:
            entry = Entry(time, seq, target, value)
        heap = self.heap
        heap.append(entry)
        pos = len(heap) - 1
        # Sift up. The new entry's number is the largest yet, so it passes a parent only on an earlier time.
        while pos > 0:
            parent_pos = (pos - 1) >> 1
            parent = heap[parent_pos]
            if time < parent.time:
                heap[pos] = parent
                pos = parent_pos
            else:
                break
        heap[pos] = entry

    def pop(self) -> Entry:
        """Remove and return the earliest entry (the first pushed among the earliest). The heap must not be empty.
        The entry is the queue's again at the next push: read it before that."""
        heap = self.heap
        last = heap.pop()
        if heap:
            first = heap[0]
            # Sift the last leaf down from the root: each step moves the earlier child up. Floyd's order (the hole
            # down to a leaf at one comparison a level, then the leaf up, as `heapq` does) wrote every level and
            # cost more here, where a comparison is cheap and a list write is not.
            size = len(heap)
            time = last.time
            seq = last.seq
            pos = 0
            child_pos = 1
            while child_pos < size:
                child = heap[child_pos]
                right_pos = child_pos + 1
                if right_pos < size:
                    right = heap[right_pos]
                    if right.time < child.time or (right.time == child.time and right.seq < child.seq):
                        child = right
                        child_pos = right_pos
                if child.time < time or (child.time == time and child.seq < seq):
                    heap[pos] = child
                    pos = child_pos
                    child_pos = 2 * pos + 1
                else:
                    break
            heap[pos] = last
        else:
            first = last
        self._spare.append(first)
        return first

    def clear(self) -> None:
        """Drop every entry, pending or spare, and what they hold."""
        self.heap = []
        self._spare = []
