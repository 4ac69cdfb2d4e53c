"""The lines of an L2 model: resident keys in least recently used order, and the dirty ones among them in the order
they were dirtied, as doubly linked lists of native objects with a dictionary by key. Exact mode's L2
(`simgpu.units.l2.L2`) and fast mode's L2 replay (`simgpu.replay`) keep their lines so.

Nothing here is modelled: it is bookkeeping. Linked lists, not `OrderedDict`s: an `OrderedDict` hashes the key again
for each move, pop and test and keeps a node table of its own beside the dictionary (a nested tuple key's hash is
worked out anew each time); here a key is looked up once per access (and once more to insert it), and moves,
evictions and write-backs are pointer updates. Until the sixty-second session the replay kept two `OrderedDict`s,
where an eviction (`popitem`, a method called by name, then a second lookup among the dirty keys) cost 1,216
instructions and a dictionary insertion 542 (`docs/results/lines_62/walk_callees_base.txt`). A line's key is typed
`Any`: compiled, the replay's boxed int keys are looked up as they are, where an `int` would be unboxed at each call
and boxed anew (past 256, allocated) for the dictionary. Its bytes are a float (the replay's sizes are whole numbers
far below 2**53: as floats they sum exactly as before).
"""

from __future__ import annotations

from typing import Any


class Line:
    """A resident key: its bytes, its place in the least recently used order and, while dirty, in the dirty order.
    A line out of a list links to nothing, so that reference counting frees it once it left L2 (the lists are not
    circular; `Lines.__del__` unlinks the lines left in them)."""

    __slots__ = ("dirty", "dirty_next", "dirty_prev", "key", "nbytes", "next", "prev")

    def __init__(self, key: Any, nbytes: float) -> None:
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

    def add(self, key: Any, nbytes: float, spare: Line | None = None) -> Line:
        """A line for `key` (not resident), the most recently used: `spare` where given (a line taken out of these,
        `pop_oldest`, that nothing else holds: a miss's insertion takes the line its eviction freed, sparing an
        object's allocation and freeing), else a new one."""
        if spare is None:
            line = Line(key, nbytes)
        else:
            line = spare
            line.key = key
            line.nbytes = nbytes
            line.dirty = False
        self.by_key[key] = line
        self.append(line)
        return line

    def add_oldest(self, key: Any, nbytes: float) -> Line:
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
            self.append(line)

    def pop_oldest(self) -> Line:
        """Take the least recently used line out (and out of the dirty order; its `dirty` stays as it was)."""
        line = self.first
        if line is None:
            raise KeyError("no resident line")
        del self.by_key[line.key]
        self._take(line)
        return line

    def remove(self, key: Any) -> Line | None:
        """Take `key`'s line out, if resident (and out of the dirty order; its `dirty` stays as it was)."""
        line = self.by_key.pop(key, None)
        if line is not None:
            self._take(line)
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

    def lru_lines(self) -> list[Line]:
        """The resident lines, least recently used first."""
        out: list[Line] = []
        line = self.first
        while line is not None:
            out.append(line)
            line = line.next
        return out

    def dirty_lines(self) -> list[Line]:
        """The dirty lines, dirtied longest ago first."""
        out: list[Line] = []
        line = self.dirty_first
        while line is not None:
            out.append(line)
            line = line.dirty_next
        return out

    def copy(self) -> Lines:
        """Lines of the same keys, bytes and orders, which change apart from these."""
        made = Lines()
        for line in self.lru_lines():
            made.add(line.key, line.nbytes)
        for line in self.dirty_lines():
            made.mark_dirty(made.by_key[line.key])
        return made

    def append(self, line: Line) -> None:
        """Link `line` (in `by_key`, in no list) as the most recently used."""
        last = self.last
        line.prev = last
        line.next = None
        if last is None:
            self.first = line
        else:
            last.next = line
        self.last = line

    def _take(self, line: Line) -> None:
        """Unlink `line`, out of `by_key` already, from both orders."""
        self._unlink(line)
        if line.dirty:
            self._unlink_dirty(line)

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
