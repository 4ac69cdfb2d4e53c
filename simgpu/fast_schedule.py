"""Fast mode's list schedule: the chip's CTA slots take a kernel's tiles in launch order, each when free; the CTAs
of an SM share it and the busy SMs share the chip's bandwidth (a fluid schedule), so full waves, the tail wave and
uneven (causal, LPT) work come out of one schedule. Full waves of one class are skipped whole.

Ignored: that an SM's bandwidth share depends on how many CTAs it holds (each busy SM counts as one sharer).
"""

from __future__ import annotations

import heapq

import numpy as np

SHARE_STEPS = 64  # busy-SM counts the bandwidth share distinguishes


def shared_schedule(sms: int, fit: int, times: np.ndarray, tile_class: np.ndarray) -> float:
    """When the last tile ends if every SM's `fit` CTA slots take the tiles in launch order, each when free (the
    first wave breadth-first across SMs), CTAs on one SM share it and busy SMs share the chip's bandwidth.

    `times[c, k - 1, a, f]`: the time of a tile of class c (`tile_class[t]` for tile t) with k CTAs resident on
    its SM, when every SM is busy (a = 0) or its SM is the only busy one (a = 1), as a slot's first tile (f = 0)
    or a further one (f = 1). With A SMs busy the time is interpolated linearly in A between the two, A rounded to
    a 64th of the SMs (each change moves every SM's rates); a tile advances at 1/time per cycle while k and A
    hold. Each busy SM counts as one sharer however many CTAs it holds (see the module docstring). Full waves of
    one class run in lockstep: they are skipped whole, `period` apiece.
    """
    table = times.tolist()  # plain lists: indexing numpy arrays element by element is slow
    classes = tile_class.tolist()
    # Where the run of equal classes that contains each tile ends (for skipping waves).
    run_ends = np.append(np.flatnonzero(np.diff(tile_class)) + 1, len(classes))
    steps = min(sms, SHARE_STEPS)
    slots = sms * fit
    # Per SM: [work left, class, further, time]; the time holds while the SM's tiles and the busy SMs do not change
    # (set by `schedule`, which runs after every such change), so `advance` need not work it out again.
    remaining: list[list[list[float]]] = [[] for _ in range(sms)]
    started = [0] * sms
    updated = [0.0] * sms
    version = [0] * sms
    events: list[tuple[float, int, int]] = []
    position = 0
    weight = 1.0  # (busy SMs - 1) / (SMs - 1), rounded: 1 when all are busy

    times_now: dict[tuple[float, int, float], float] = {}  # duration's answers at the present weight

    def duration(sm: int, entry: list[float]) -> float:
        key = (entry[1], len(remaining[sm]), entry[2])
        time = times_now.get(key)
        if time is None:
            settings = table[int(entry[1])][len(remaining[sm]) - 1]
            busy, alone = settings[0][int(entry[2])], settings[1][int(entry[2])]
            time = times_now[key] = float(alone + (busy - alone) * weight)
        return time

    def share_weight(busy: int) -> float:
        return round(steps * (busy - 1) / (sms - 1)) / steps if sms > 1 else 1.0

    def advance(sm: int, now: float) -> None:
        elapsed = now - updated[sm]
        if elapsed:
            for entry in remaining[sm]:
                entry[0] -= elapsed / entry[3]
        updated[sm] = now

    def schedule(sm: int, now: float) -> None:
        version[sm] += 1
        entries = remaining[sm]
        if entries:
            last: list[float] = []
            for entry in entries:
                # An SM's tiles are mostly of one class and start: work a time out once per run of equal ones.
                entry[3] = last[3] if last and last[1] == entry[1] and last[2] == entry[2] else duration(sm, entry)
                last = entry
            ends = min(entry[0] * entry[3] for entry in entries)
            heapq.heappush(events, (now + max(ends, 0.0), sm, version[sm]))

    def start(sm: int) -> None:
        nonlocal position
        if position < len(classes):
            remaining[sm].append([1.0, classes[position], 1.0 if started[sm] >= fit else 0.0, 0.0])
            started[sm] += 1
            position += 1

    def waves_to_skip() -> int:
        """Whole waves that would repeat the chip's present state: every slot runs a further tile of the class
        that the next waves of the queue hold."""
        if position >= len(classes) or weight != 1.0:
            return 0
        upcoming = classes[position]
        run = int(run_ends[np.searchsorted(run_ends, position, side="right")]) - position
        if run < 2 * slots:
            return 0
        for entries in remaining:
            if len(entries) != fit or any(e[1] != upcoming or e[2] != 1.0 for e in entries):
                return 0
        return run // slots - 1

    for _ in range(fit):
        for sm in range(sms):
            start(sm)
    busy = sum(1 for sm in range(sms) if remaining[sm])
    weight = share_weight(busy)
    for sm in range(sms):
        schedule(sm, 0.0)
    end = 0.0
    next_check = slots
    while events:
        now, sm, seen = heapq.heappop(events)
        if seen != version[sm]:
            continue
        advance(sm, now)
        done = [entry for entry in remaining[sm] if entry[0] <= 1e-9]
        remaining[sm] = [entry for entry in remaining[sm] if entry[0] > 1e-9]
        end = max(end, now)
        for _ in done:
            start(sm)
        if not remaining[sm]:
            busy -= 1  # only an SM's own events change whether it is busy
        if share_weight(busy) != weight:
            # The chip's bandwidth is now shared by a different number of SMs: every SM's rates change.
            for other in range(sms):
                advance(other, now)
            weight = share_weight(busy)
            times_now.clear()
            for other in range(sms):
                if other != sm:
                    schedule(other, now)
        schedule(sm, now)
        if position >= next_check:
            next_check = position + slots
            waves = waves_to_skip()
            if waves:
                # Each slot finishes one tile per period: shift the whole state by that many periods.
                period = duration(0, remaining[0][0])
                for other in range(sms):
                    advance(other, now)
                    updated[other] = now + waves * period
                position += waves * slots
                now += waves * period
                end = max(end, now)
                for other in range(sms):
                    schedule(other, now)
    return end
