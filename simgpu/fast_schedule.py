"""Fast mode's list schedule: the chip's CTA slots take a kernel's tiles in launch order, each when free; the CTAs
of an SM share it and the busy SMs share the chip's bandwidth (a fluid schedule), so full waves, the tail wave and
uneven (causal, LPT) work come out of one schedule. The tiles of a kernel of one class start and end together on
each SM: there the schedule walks runs of SMs in one state rather than SMs (`_uniform_schedule`), and skips full
waves whole. A persistent kernel's slot (one CTA an SM) draws its next tile where its CTA would, some way into the
tile it runs (the claims' leads, `simgpu.fast_costs._claim_leads`), and starts it as that tile ends: with tiles of
unequal work, the slots that run short tiles draw the long ones queued next.

Ignored: that an SM's bandwidth share depends on how many CTAs it holds (each busy SM counts as one sharer); the
claims of a persistent kernel of several CTAs an SM (its slots take their tiles as they free) and of tiles all
alike (which slot takes which does not change when the kernel ends).
"""

from __future__ import annotations

import bisect
import heapq
import math
from collections import deque

import numpy as np

SHARE_STEPS = 64  # busy-SM counts the bandwidth share distinguishes
TAIL = 2  # the column of `shared_schedule`'s times that holds a first tile's tail
LEADS = 3  # the first of the columns that hold how long before a first tile, and a further one, ends it claims the next


def shared_schedule(sms: int, fit: int, times: np.ndarray, tile_class: np.ndarray, sharers: int | None = None) -> float:
    """When the last tile ends if every SM's `fit` CTA slots take the tiles in launch order, each when free (the
    first wave breadth-first across SMs, and so SMs whose slots free at one instant), CTAs on one SM share it and
    busy SMs share the chip's bandwidth.

    `times[c, k - 1, a, f]`: the time of a tile of class c (`tile_class[t]` for tile t) with k CTAs resident on
    its SM, when `sharers` SMs are busy (a = 0; default all: a kernel of fewer tiles than SMs never has more busy)
    or its SM is the only busy one (a = 1), as a slot's first tile (f = 0) or a further one (f = 1); f = 2: the tail
    by which a slot's first tile outlasts its time where its SM takes no further tile (`simgpu.fast_costs.Cost`:
    a further tile hides it), so that the kernel ends that much later if that SM ends last. With A SMs busy
    the time is interpolated linearly in A between the two, A rounded to a 64th of the sharers (each change moves
    every SM's rates); a tile advances at 1/time per cycle while k and A hold. Each busy SM counts as one sharer
    however many CTAs it holds (see the module docstring). Optional f = 3 and 4 (`LEADS`): how long before a first
    and a further tile end a persistent kernel's slot draws its next tile (0: as it ends), read with one slot an SM.
    """
    sharers = sms if sharers is None else sharers
    # A persistent kernel's slots draw their next tiles before their tiles end (`LEADS` columns, one CTA an SM):
    # where its tiles are of several classes, which slot takes which tile goes by those claims.
    claiming = fit == 1 and times.shape[-1] > LEADS and bool(np.any(times[..., LEADS:] > 0.0))
    if len(tile_class) <= sms * fit:
        # One tile per slot at most: no first tile is followed, each takes its tail, and its SM's share of the
        # bandwidth stays taken meanwhile.
        times = times.copy()
        times[..., 0] += times[..., TAIL]
        times[..., TAIL] = 0.0
        claiming = False
    table = times.tolist()  # plain lists: indexing numpy arrays element by element is slow
    if times.shape[0] == 1:  # (tiles all alike: which slot takes which does not matter)
        return _uniform_schedule(sms, fit, table[0], len(tile_class), sharers)
    # Where the runs of tiles of one class end (the class changes), so that the schedule hands out a stretch of
    # tiles of one class by counts rather than tile by tile.
    run_ends = [*(np.flatnonzero(np.diff(tile_class)) + 1).tolist(), len(tile_class)]
    return _ListSchedule(sms, fit, table, tile_class.tolist(), run_ends, sharers, claiming).run()


class _ListSchedule:
    """`shared_schedule` of tiles of several classes, SM by SM. Per SM, its resident tiles by group, 2 x class +
    further (0 or 1): tiles of one group advance at one rate, so a group keeps the work its tiles have done since it
    formed (`_Group.progress`), when its tiles end on that scale (`ends`, in start order, with the `counts` of tiles
    that end there: tiles started together end together) and its time per tile. A group that empties goes to `spare`
    for the next one to form (thousands form and empty over a kernel of long runs of one class).
    The time holds while the SM's tiles and the busy SMs do not change (set by `schedule`, which runs after every
    such change), so `advance` need not work it out again. A class rather than closures over the schedule's state:
    compiled, its methods are native calls, where each call of a closure was a Python call with its arguments boxed
    (the schedule took a third of `run_fast` for v3's backward at 128k tokens on the H100)."""

    __slots__ = (
        "claiming", "classes", "events", "fit", "groups", "pending", "position", "resident", "run_ends", "sms",
        "spare", "started", "table", "times_now", "updated", "version", "weight", "weights",
    )  # fmt: skip

    def __init__(
        self,
        sms: int,
        fit: int,
        table: list[list[list[list[float]]]],
        classes: list[int],
        run_ends: list[int],
        sharers: int,
        claiming: bool = False,
    ):
        self.sms = sms
        self.fit = fit
        self.table = table
        self.classes = classes
        self.run_ends = run_ends  # where each run of tiles of one class ends, in order (`run_end`)
        # (busy SMs - 1) / (SMs - 1) by busy SMs, rounded to a step of `SHARE_STEPS` at most: asked after every event.
        steps = min(sharers, SHARE_STEPS)
        self.weights = [
            round(steps * (busy - 1) / (sharers - 1)) / steps if sharers > 1 else 1.0 for busy in range(sms + 1)
        ]
        self.groups: list[dict[int, _Group]] = [{} for _ in range(sms)]
        self.spare: list[_Group] = []
        self.resident = [0] * sms
        self.started = [0] * sms
        self.updated = [0.0] * sms
        self.version = [0] * sms
        self.events: list[tuple[float, int, int]] = []
        self.position = 0
        self.weight = 1.0  # `weights` at the busy SMs now: 1 when all are busy
        self.times_now: dict[int, float] = {}  # `duration`'s answers at the present weight, by group x (fit + 1) + CTAs
        # With claims (one CTA an SM), per SM the class of the tile its slot drew ahead, to start as its tile ends (-1:
        # none drawn).
        self.claiming = claiming
        self.pending = [-1] * sms

    def run(self) -> float:
        """When the last tile ends."""
        sms = self.sms
        resident = self.resident
        events = self.events
        version = self.version
        self.start_freed(list(range(sms)), [self.fit] * sms)
        busy = sum(1 for sm in range(sms) if resident[sm])
        self.weight = self.weights[busy]
        self.schedule_all(0.0)
        end = 0.0
        while events:
            now, sm, seen = heapq.heappop(events)
            if seen != version[sm]:
                continue
            # The SMs whose tiles end at this instant take the next tiles in turn, one each, as their slots free one
            # by one in a chip (the first placed leads): not the first SM all it can hold.
            ending = [sm]
            while events and events[0][0] == now:
                _, other, other_seen = heapq.heappop(events)
                if other_seen == version[other]:
                    ending.append(other)
            freed, tails = [], []
            for each in ending:
                self.advance(each, now)
                if self.claiming:
                    self.claim(each)
                done, longest = self.finish(each)
                freed.append(done)
                tails.append(longest)
            end = max(end, now)
            if self.claiming:
                for n, each in enumerate(ending):  # a slot that drew its next tile ahead starts it
                    drawn = self.pending[each]
                    if freed[n] and drawn >= 0:
                        self.pending[each] = -1
                        self.start_many(each, drawn, 1)
                        freed[n] -= 1
            self.start_freed(ending, freed)
            for n, each in enumerate(ending):
                if not resident[each]:
                    end = max(end, now + tails[n])
            busy -= sum(1 for each in ending if not resident[each])  # only an SM's own events change whether it is busy
            if self.weights[busy] != self.weight:
                # The chip's bandwidth is now shared by a different number of SMs: every SM's rates change.
                for other in range(sms):
                    self.advance(other, now)
                self.weight = self.weights[busy]
                self.times_now.clear()
                self.schedule_all(now)
            else:
                for each in ending:
                    self.schedule(each, now)
        return end

    def tail(self, tile_class: int, ctas: int) -> float:
        return _at_weight(self.table[tile_class][ctas - 1], TAIL, self.weight)

    def duration(self, group: int, ctas: int) -> float:
        key = group * (self.fit + 1) + ctas
        time = self.times_now.get(key)
        if time is None:
            time = self.times_now[key] = _at_weight(self.table[group >> 1][ctas - 1], group & 1, self.weight)
        return time

    def advance(self, sm: int, now: float) -> None:
        elapsed = now - self.updated[sm]
        if elapsed:
            for group in self.groups[sm].values():
                if group.time:
                    group.progress += elapsed / group.time
        self.updated[sm] = now

    def next_end(self, sm: int, now: float) -> tuple[float, int, int] | None:
        """The SM's next event (its first tile to end) at the present rates, which it sets; None when it is idle."""
        self.version[sm] += 1
        ctas = self.resident[sm]
        if not ctas:
            return None
        ends = math.inf
        for key, group in self.groups[sm].items():
            group.time = self.duration(key, ctas)
            ends = min(ends, (group.ends[0] - group.progress) * group.time)
            if group.claim >= 0.0:
                ends = min(ends, (group.claim - group.progress) * group.time)
        return (now + max(ends, 0.0), sm, self.version[sm])

    def claim(self, sm: int) -> None:
        """The SM's slot draws the next tile from the queue where its tile has reached the point where it claims one
        (`claim_point`), to start it as the tile ends."""
        for group in self.groups[sm].values():
            if group.claim >= 0.0 and (group.claim - group.progress <= 1e-9 or not group.time):
                group.claim = -1.0
                if self.position < len(self.classes):
                    self.pending[sm] = self.classes[self.position]
                    self.position += 1

    def claim_point(self, tile_class: int, further: int) -> float:
        """Where in a slot's tile of `tile_class` (first or further) it draws the next one, from 0 (as it starts) to
        1 (as it ends): its lead over its time at the present weight, one CTA on the SM."""
        settings = self.table[tile_class][0]
        time = _at_weight(settings, further, self.weight)
        lead = _at_weight(settings, LEADS + further, self.weight)
        return max(0.0, 1.0 - lead / time) if time > 0.0 else 0.0

    def schedule(self, sm: int, now: float) -> None:
        event = self.next_end(sm, now)
        if event is not None:
            heapq.heappush(self.events, event)

    def schedule_all(self, now: float) -> None:
        """Every SM's next event, in a new heap: those of the old one are all out of date."""
        events = self.events
        events[:] = [event for sm in range(self.sms) if (event := self.next_end(sm, now)) is not None]
        heapq.heapify(events)

    def run_end(self, position: int) -> int:
        """Where the run of tiles of one class that holds the tile at `position` ends."""
        return self.run_ends[bisect.bisect_right(self.run_ends, position)]

    def start_freed(self, ending: list[int], freed: list[int]) -> None:
        """The SMs `ending` take the next tiles in turn, one each, `freed[n]` the n-th, as their slots free one by one
        in a chip. Turns in which the same SMs take tiles are handed out as counts where they can be (`start_turns`),
        else tile by tile."""
        classes = self.classes
        total = len(classes)
        if len(ending) == 1:  # one SM takes all its tiles, a run of one class at a time
            sm, left = ending[0], freed[0]
            while left and self.position < total:
                position = self.position
                count = min(left, self.run_end(position) - position)
                self.start_many(sm, classes[position], count)
                self.position = position + count
                left -= count
            return
        turn = 0
        turns = max(freed, default=0)
        while turn < turns and self.position < total:
            taking = [ending[n] for n in range(len(ending)) if freed[n] > turn]  # the SMs that take a tile, in turn
            last = min(freed[n] for n in range(len(ending)) if freed[n] > turn)  # the last turn in which they all do
            if self.start_turns(taking, last - turn):
                turn = last
                continue
            for sm in taking:  # a turn that runs out of tiles, or some SM's first tile and further ones: tile by tile
                if self.position < total:
                    self.start_many(sm, classes[self.position], 1)
                    self.position += 1
            turn += 1

    def start_turns(self, taking: list[int], turns: int) -> bool:
        """`turns` turns in which the SMs `taking` take a tile each, where the tiles are all there and each SM's are
        of one class or all first or all further tiles: SM n of m takes the tiles n, n + m, n + 2m... from here, which
        start together, so only how many of each class it takes counts. Each takes its count of the most common class
        less the others' tiles it takes, counted one by one (FlashAttention's backward pre- and post-kernels at 1k
        tokens: every 13th tile a head's edge). Returns whether it handed them out (False: nothing done)."""
        width = len(taking)
        position = self.position
        end = position + turns * width
        if end > len(self.classes):
            return False
        runs: list[tuple[int, int, int]] = []  # (first tile, end, class) of the runs of one class in these turns
        tiles: dict[int, int] = {}  # tiles of each class in them
        index = bisect.bisect_right(self.run_ends, position)
        first = position
        while first < end:
            last = min(self.run_ends[index], end)
            tile_class = self.classes[first]
            runs.append((first, last, tile_class))
            tiles[tile_class] = tiles.get(tile_class, 0) + last - first
            first, index = last, index + 1
        fit = self.fit
        if len(tiles) > 1 and any(self.started[sm] < fit < self.started[sm] + turns for sm in taking):
            return False  # an SM's first tiles and further ones, of unequal classes: which is which needs the order
        common = max(tiles, key=tiles.__getitem__)
        taken = [turns] * width  # tiles of the most common class that each SM takes
        for first, last, tile_class in runs:
            if tile_class != common:
                for tile in range(first, last):
                    taker = (tile - position) % width
                    taken[taker] -= 1
                    self.start_many(taking[taker], tile_class, 1)
        for taker, sm in enumerate(taking):
            self.start_many(sm, common, taken[taker])
        self.position = end
        return True

    def start_many(self, sm: int, tile_class: int, count: int) -> None:
        """Start `count` tiles of `tile_class` on the SM: its slots' first tiles while it has started fewer than
        `fit`, then further ones."""
        first = min(count, max(self.fit - self.started[sm], 0))
        if first:
            self.add(sm, 2 * tile_class, first)
        if count > first:
            self.add(sm, 2 * tile_class + 1, count - first)
        self.resident[sm] += count
        self.started[sm] += count

    def add(self, sm: int, key: int, count: int) -> None:
        groups = self.groups[sm]
        group = groups.get(key)
        if group is None:
            group = groups[key] = self.spare.pop() if self.spare else _Group()
        end = group.progress + 1.0
        if group.ends and group.ends[-1] == end:
            group.counts[-1] += count
        else:
            group.ends.append(end)
            group.counts.append(count)
        if self.claiming:  # (one tile on the SM: its group is new)
            group.claim = group.progress + self.claim_point(key >> 1, key & 1)

    def finish(self, sm: int) -> tuple[int, float]:
        """Remove the SM's tiles that have ended; return how many, and the longest tail of the first tiles among
        them (what they outlast their time by unless a further tile follows on the SM)."""
        done = 0
        longest = 0.0
        groups = self.groups[sm]
        emptied: list[int] | None = None
        for key, group in groups.items():
            ends = group.ends
            # A tile of no time (an empty CTA: v1's splits past its query blocks) ends as it starts.
            while ends and (ends[0] - group.progress <= 1e-9 or not group.time):
                ends.popleft()
                done += group.counts.popleft()
                if not key & 1:
                    longest = max(longest, self.tail(key >> 1, self.resident[sm]))
            if not ends:
                emptied = [key] if emptied is None else [*emptied, key]
        for key in emptied or ():
            group = groups.pop(key)
            group.progress = group.time = 0.0  # as a new group
            group.claim = -1.0
            self.spare.append(group)
        self.resident[sm] -= done
        return done, longest


def _uniform_schedule(sms: int, fit: int, times: list[list[list[float]]], tiles: int, sharers: int) -> float:
    """`shared_schedule` of `tiles` tiles of one class (`times[k - 1][a][f]`). An SM's tiles start together and end
    together, so the SMs fall into a few runs of consecutive SMs in one state, and the schedule walks those runs
    rather than the SMs: a run that ends shares the next tiles out evenly over its SMs (as the SMs' events at one
    instant do in `shared_schedule`), and whole waves of further tiles on every slot are skipped."""
    steps = min(sharers, SHARE_STEPS)
    slots = sms * fit
    if tiles >= slots:
        runs = [_Run(sms, fit, 0)]
    else:
        per_sm, more = divmod(tiles, sms)
        runs = [_Run(count, ctas, 0) for count, ctas in ((more, per_sm + 1), (sms - more, per_sm)) if count and ctas]
    position = min(tiles, slots)
    now = end = 0.0
    while runs:
        busy = sum(run.sms for run in runs)
        weight = round(steps * (busy - 1) / (sharers - 1)) / steps if sharers > 1 else 1.0
        durations = [_at_weight(times[run.ctas - 1], run.further, weight) for run in runs]
        first = runs[0]
        if len(runs) == 1 and first.sms == sms and first.ctas == fit and first.further and tiles - position >= slots:
            # Every slot holds a further tile just started and a wave more is queued: the waves repeat.
            waves = (tiles - position) // slots
            now += waves * durations[0]
            position += waves * slots
        step = max(min((1.0 - run.done) * duration for run, duration in zip(runs, durations, strict=True)), 0.0)
        now += step
        following: list[_Run] = []
        for run, duration in zip(runs, durations, strict=True):
            run.done = run.done + step / duration if duration else 1.0
            if 1.0 - run.done > 1e-9:
                following.append(run)
                continue
            # The run's SMs share the tiles left evenly (as many as their slots hold): their slots free together
            # in the fluid schedule, but in a chip one CTA of each SM ends a little before the others (the first
            # placed leads), and the SMs take the next tiles in turn.
            taken = min(tiles - position, run.sms * fit)
            per_sm, more = divmod(taken, run.sms)
            position += taken
            if not run.further and taken < run.sms:  # an SM of the run takes no further tile: its tail shows
                end = max(end, now + _at_weight(times[run.ctas - 1], TAIL, weight))
            for count, ctas in ((more, per_sm + 1), (run.sms - more, per_sm)):
                if count and ctas:
                    last = following[-1] if following else None
                    if last is not None and (last.ctas, last.further, last.done) == (ctas, 1, 0.0):
                        last.sms += count
                    else:
                        following.append(_Run(count, ctas, 1))
        runs = following
    return max(now, end)


def _at_weight(settings: list[list[float]], column: int, weight: float) -> float:
    """Time `column` (first tile, further tile or `TAIL`) of a class at one occupancy (`settings[a]`: every SM busy,
    a = 0, or its SM alone, a = 1) with the busy SMs' `weight` (0: this SM alone, 1: all busy): linear between."""
    busy, alone = settings[0][column], settings[1][column]
    if weight == 1.0:  # the end itself, not `alone` plus the difference rounded: an all-busy kernel reads no alone
        return float(busy)
    return float(alone + (busy - alone) * weight)


class _Run:
    """Consecutive SMs in one state: `ctas` tiles resident on each, first (0) or further (1) tiles, each `done`
    of its work."""

    __slots__ = ("ctas", "done", "further", "sms")

    def __init__(self, sms: int, ctas: int, further: int) -> None:
        self.sms = sms
        self.ctas = ctas
        self.further = further
        self.done = 0.0


class _Group:
    """An SM's resident tiles of one class and start (first or further): they advance at one rate. `claim`: where
    on that scale its tile draws the next one (`_ListSchedule.claim`; -1: drawn, or no claims)."""

    __slots__ = ("claim", "counts", "ends", "progress", "time")

    def __init__(self) -> None:
        self.progress = 0.0
        self.ends: deque[float] = deque()
        self.counts: deque[int] = deque()
        self.time = 0.0
        self.claim = -1.0
