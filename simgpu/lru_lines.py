"""The lines of fast mode's L2 replay (`simgpu.replay`): resident keys in least recently used order, and the dirty
ones among them in the order they were dirtied, as doubly linked lists of native objects with a dictionary by key.

Nothing here is modelled: it is the bookkeeping of the replay's L2, which walks every access of the replayed tiles
(its hottest loop). Until the sixty-second session the replay kept two `OrderedDict`s; an eviction (`popitem`, a
method called by name, then a second lookup in the dirty keys) cost some 1,200 instructions and an insertion 540,
where a miss here unlinks and links a few native objects (the exact mode's `simgpu.units.l2.L2` keeps its lines so
since the forty-third session). A line keeps its key (an int: the replay numbers its keys; typed `Any`, so that
compiled, the walk's boxed key is looked up as it is, where an `int` would be unboxed at each call and boxed anew,
past 256 allocated, for the dictionary) and its bytes as the access gave them (an int or a float, summed as such at
the run's end).
"""

from __future__ import annotations

from typing import Any


class Line:
    """A resident key: its bytes, its place in the least recently used order and, while dirty, in the dirty order.
    A line out of a list links to nothing, so that reference counting frees it once it left L2 (the lists are not
    circular; `Lines.__del__` unlinks the lines left in them)."""

    __slots__ = ("dirty", "dirty_next", "dirty_prev", "key", "nbytes", "next", "prev")

    def __init__(self, key: Any, nbytes: int | float) -> None:
        self.key = key
        self.nbytes = nbytes
        self.dirty = False
        self.prev: Line | None = None
        self.next: Line | None = None
        self.dirty_prev: Line | None = None
        self.dirty_next: Line | None = None


class Lines:
    """The replay's resident lines: by key, least recently used first (`first` ... `last`), and the dirty ones,
    dirtied longest ago first (`dirty_first` ... `dirty_last`)."""

    __slots__ = ("by_key", "dirty_first", "dirty_last", "first", "last")

    def __init__(self) -> None:
        self.by_key: dict[Any, Line] = {}
        self.first: Line | None = None
        self.last: Line | None = None
        self.dirty_first: Line | None = None
        self.dirty_last: Line | None = None

    def __len__(self) -> int:
        return len(self.by_key)

    def __del__(self) -> None:
        """Unlink every line: neighbours in a list refer to each other, cycles which reference counting cannot free
        (the engine's runs move what survives them to the oldest generation, which the collector seldom walks), and
        no line outlives its `Lines` but for the walk's locals."""
        line = self.first
        while line is not None:
            after = line.next
            line.prev = line.next = line.dirty_prev = line.dirty_next = None
            line = after
        self.first = self.last = self.dirty_first = self.dirty_last = None

    def get(self, key: Any) -> Line | None:
        return self.by_key.get(key)

    def add(self, key: Any, nbytes: int | float) -> Line:
        """A new line for `key` (not resident), the most recently used."""
        line = self.by_key[key] = Line(key, nbytes)
        self._append(line)
        return line

    def add_oldest(self, key: Any, nbytes: int | float) -> Line:
        """A new line for `key` (not resident), the least recently used."""
        line = self.by_key[key] = Line(key, nbytes)
        first = self.first
        line.next = first
        if first is None:
            self.last = line
        else:
            first.prev = line
        self.first = line
        return line

    def use(self, line: Line) -> None:
        """Make resident `line` the most recently used."""
        if self.last is not line:
            self._unlink(line)
            self._append(line)

    def pop_oldest(self) -> Line:
        """Take the least recently used line out (and out of the dirty order; its `dirty` stays as it was)."""
        line = self.first
        if line is None:
            raise KeyError("no resident line")
        self._unlink(line)
        del self.by_key[line.key]
        if line.dirty:
            self._unlink_dirty(line)
        return line

    def remove(self, key: Any) -> Line | None:
        """Take `key`'s line out, if resident (and out of the dirty order; its `dirty` stays as it was)."""
        line = self.by_key.pop(key, None)
        if line is not None:
            self._unlink(line)
            if line.dirty:
                self._unlink_dirty(line)
        return line

    def rename(self, line: Line, key: Any) -> None:
        """Give resident `line` the key `key` (not resident), in place in both orders."""
        del self.by_key[line.key]
        line.key = key
        self.by_key[key] = line

    def mark_dirty(self, line: Line) -> None:
        """Make clean resident `line` the newest dirty one."""
        line.dirty = True
        last = self.dirty_last
        line.dirty_prev = last
        line.dirty_next = None
        if last is None:
            self.dirty_first = line
        else:
            last.dirty_next = line
        self.dirty_last = line

    def use_dirty(self, line: Line) -> None:
        """Make dirty `line` the newest dirty one."""
        if self.dirty_last is not line:
            self._unlink_dirty(line)
            self.mark_dirty(line)

    def clean_oldest(self) -> Line:
        """Make the line dirtied longest ago clean (it stays resident); it."""
        line = self.dirty_first
        if line is None:
            raise KeyError("no dirty line")
        self._unlink_dirty(line)
        line.dirty = False
        return line

    def keys(self) -> list[Any]:
        """The resident keys, least recently used first (for inspection)."""
        out: list[Any] = []
        line = self.first
        while line is not None:
            out.append(line.key)
            line = line.next
        return out

    def dirty_keys(self) -> list[Any]:
        """The dirty keys, dirtied longest ago first (for inspection)."""
        out: list[Any] = []
        line = self.dirty_first
        while line is not None:
            out.append(line.key)
            line = line.dirty_next
        return out

    def dirty_bytes(self) -> list[int | float]:
        """The dirty lines' bytes, dirtied longest ago first."""
        out: list[int | float] = []
        line = self.dirty_first
        while line is not None:
            out.append(line.nbytes)
            line = line.dirty_next
        return out

    def copy(self) -> Lines:
        """Lines of the same keys, bytes and orders, which change apart from these."""
        made = Lines()
        twins: dict[Any, Line] = {}
        line = self.first
        while line is not None:
            twin = made.add(line.key, line.nbytes)
            twins[line.key] = twin
            line = line.next
        line = self.dirty_first
        while line is not None:
            made.mark_dirty(twins[line.key])
            line = line.dirty_next
        return made

    def _append(self, line: Line) -> None:
        last = self.last
        line.prev = last
        line.next = None
        if last is None:
            self.first = line
        else:
            last.next = line
        self.last = line

    def _unlink(self, line: Line) -> None:
        before, after = line.prev, line.next
        if before is None:
            self.first = after
        else:
            before.next = after
        if after is None:
            self.last = before
        else:
            after.prev = before
        line.prev = line.next = None

    def _unlink_dirty(self, line: Line) -> None:
        before, after = line.dirty_prev, line.dirty_next
        if before is None:
            self.dirty_first = after
        else:
            before.dirty_next = after
        if after is None:
            self.dirty_last = before
        else:
            after.dirty_prev = before
        line.dirty_prev = line.dirty_next = None
