"""The exact engine's pending entries, earliest first: a pairing heap keyed by (due time, sequence number).

An entry is a process to resume or a callback to call, with the value it gets, due at a time in cycles. Entries due
at the same time leave in the order they were pushed (the sequence number breaks ties), which is SimPy's order for
entries of one priority; `simgpu.engine` keeps process starts, which SimPy runs first, in a queue of their own.

Why not `heapq`: its heap of boxed floats compares each pair through Python's rich comparison, and the dictionary
that grouped same-time entries into one list hashed every float. Together they took about a quarter of an exact run
of v1 (callgrind, `docs/results/event_heap_60/`). Here the keys are native fields of a compiled class, compared
without a call. A pairing heap (Fredman, Sedgewick, Sleator and Tarjan 1986) links entries through their own fields:
a push is one comparison, a pop pairs the first's children. A binary heap in a list cost more here, where each read
and write of a list item is a call and a comparison is not. Nothing is modeled here.
"""

from __future__ import annotations

from typing import Any


class Entry:
    """One pending entry: what to run (`target`) with `value`, due at `time` cycles; `seq` orders equal times.
    `resume`: `target` is a process to resume (else a callback to call). `child` and `sibling` place it in the
    heap: its first child, and the next child of its parent."""

    __slots__ = ("child", "resume", "seq", "sibling", "target", "time", "value")

    def __init__(self, time: float, seq: int, target: Any, value: Any, resume: bool) -> None:
        self.time = time
        self.seq = seq
        self.target = target
        self.value = value
        self.resume = resume
        self.child: Entry | None = None
        self.sibling: Entry | None = None


def _meld(a: Entry, b: Entry) -> Entry:
    """The root of two heaps' union (roots `a` and `b`, neither with a sibling): the later becomes the earlier's
    first child."""
    if b.time < a.time or (b.time == a.time and b.seq < a.seq):
        a, b = b, a
    b.sibling = a.child
    a.child = b
    return a


class EventQueue:
    """Entries by (time, order pushed). `first` is the next one out (None when empty); the engine reads its time to
    decide whether a process's next step may run at once."""

    __slots__ = ("_pushed", "_spare", "first")

    def __init__(self) -> None:
        self.first: Entry | None = None
        self._pushed = 0
        # Entries popped, made again by the next pushes: no allocation and no collector bookkeeping per push (6%
        # fewer instructions in v1's exact forward, measured with the binary heap that came first). They keep their
        # target and value until then.
        self._spare: list[Entry] = []

    def push(self, time: float, target: Any, value: Any, resume: bool) -> None:
        """Add an entry due at `time`, after every entry pushed before it with the same time (`Entry`)."""
        seq = self._pushed
        self._pushed = seq + 1
        spare = self._spare
        if spare:
            entry = spare.pop()
            entry.time = time
            entry.seq = seq
            entry.target = target
            entry.value = value
            entry.resume = resume
        else:
            entry = Entry(time, seq, target, value, resume)
        first = self.first
        if first is None:
            self.first = entry
        elif time < first.time:  # the number is the largest yet: an equal time goes after
            entry.child = first
            self.first = entry
        else:
            entry.sibling = first.child
            first.child = entry

    def pop(self) -> Entry:
        """Remove and return the earliest entry (the first pushed among the earliest). The queue must not be empty.
        The entry is the queue's again at the next push: read it before that."""
        first = self.first
        assert first is not None
        # Two passes over the children: meld them in pairs from the left, each pair put on a list that runs back
        # through `sibling`; then meld that list into one heap, from the last pair to the first.
        pairs: Entry | None = None
        node = first.child
        while node is not None:
            other = node.sibling
            if other is None:
                rest = None
                pair = node
            else:
                rest = other.sibling
                node.sibling = None
                other.sibling = None
                pair = _meld(node, other)
            pair.sibling = pairs
            pairs = pair
            node = rest
        root = pairs
        if root is not None:
            node = root.sibling
            root.sibling = None
            while node is not None:
                rest = node.sibling
                node.sibling = None
                root = _meld(root, node)
                node = rest
        self.first = root
        first.child = None
        self._spare.append(first)
        return first

    def clear(self) -> None:
        """Drop every entry, pending or spare, and what they hold."""
        self.first = None
        self._spare = []
