"""Fast mode's list schedule hands out runs of tiles of one class by counts (`simgpu.fast_schedule`): the same
kernel ends, to the bit, as when every tile is handed out and ended one at a time (`_tile_by_tile`, the schedule as
it was before the forty-fourth session)."""

from __future__ import annotations

import heapq
import math

import numpy as np
import pytest

from simgpu.fast_schedule import LEADS, SHARE_STEPS, TAIL, _at_weight, shared_schedule


def _tile_by_tile(sms: int, fit: int, times: np.ndarray, tile_class: np.ndarray, sharers: int) -> float:
    """The list schedule of several classes, each tile started and ended on its own; with one slot an SM and the
    claims' leads (`LEADS` columns), each tile drawing the next one at its claim."""
    claiming = fit == 1 and times.shape[-1] > LEADS and bool(np.any(times[..., LEADS:] > 0))
    if len(tile_class) <= sms * fit:
        times = times.copy()
        times[..., 0] += times[..., TAIL]
        times[..., TAIL] = 0.0
        claiming = False
    table, classes = times.tolist(), tile_class.tolist()
    steps = min(sharers, SHARE_STEPS)
    weights = [round(steps * (busy - 1) / (sharers - 1)) / steps if sharers > 1 else 1.0 for busy in range(sms + 1)]
    groups: list[dict[tuple[int, int], list]] = [{} for _ in range(sms)]  # key: [progress, ends, time, claim]
    resident, started, updated, version = [0] * sms, [0] * sms, [0.0] * sms, [0] * sms
    pending: list[list[int]] = [[] for _ in range(sms)]
    state = {"position": 0, "weight": 1.0}

    def start(sm: int, drawn: int | None = None) -> None:
        if drawn is None and state["position"] >= len(classes):
            return
        if drawn is None:
            drawn = classes[state["position"]]
            state["position"] += 1
        key = (drawn, 1 if started[sm] >= fit else 0)
        group = groups[sm].setdefault(key, [0.0, [], 0.0, -1.0])
        group[1].append(group[0] + 1.0)
        if claiming:
            settings = table[drawn][0]
            time = _at_weight(settings, key[1], state["weight"])
            lead = _at_weight(settings, LEADS + key[1], state["weight"])
            group[3] = group[0] + (max(0.0, 1.0 - lead / time) if time > 0 else 0.0)
        resident[sm] += 1
        started[sm] += 1

    def claim(sm: int) -> None:
        for group in groups[sm].values():
            if group[3] >= 0 and (group[3] - group[0] <= 1e-9 or not group[2]):
                group[3] = -1.0
                if state["position"] < len(classes):
                    pending[sm].append(classes[state["position"]])
                    state["position"] += 1

    def advance(sm: int, now: float) -> None:
        elapsed = now - updated[sm]
        if elapsed:
            for group in groups[sm].values():
                if group[2]:
                    group[0] += elapsed / group[2]
        updated[sm] = now

    def next_end(sm: int, now: float) -> tuple[float, int, int] | None:
        version[sm] += 1
        if not resident[sm]:
            return None
        ends = math.inf
        for key, group in groups[sm].items():
            group[2] = _at_weight(table[key[0]][resident[sm] - 1], key[1], state["weight"])
            ends = min(ends, (group[1][0] - group[0]) * group[2])
            if group[3] >= 0:
                ends = min(ends, (group[3] - group[0]) * group[2])
        return (now + max(ends, 0.0), sm, version[sm])

    def finish(sm: int) -> tuple[int, float]:
        done, longest = 0, 0.0
        for key, group in list(groups[sm].items()):
            while group[1] and (group[1][0] - group[0] <= 1e-9 or not group[2]):
                group[1].pop(0)
                done += 1
                if not key[1]:
                    longest = max(longest, _at_weight(table[key[0]][resident[sm] - 1], TAIL, state["weight"]))
            if not group[1]:
                del groups[sm][key]
        resident[sm] -= done
        return done, longest

    for _ in range(fit):
        for sm in range(sms):
            start(sm)
    busy = sum(1 for sm in range(sms) if resident[sm])
    state["weight"] = weights[busy]
    events = [event for sm in range(sms) if (event := next_end(sm, 0.0)) is not None]
    heapq.heapify(events)
    end = 0.0
    while events:
        now, sm, seen = heapq.heappop(events)
        if seen != version[sm]:
            continue
        ending = [sm]
        while events and events[0][0] == now:
            _, other, other_seen = heapq.heappop(events)
            if other_seen == version[other]:
                ending.append(other)
        finished = []
        for each in ending:
            advance(each, now)
            if claiming:
                claim(each)
            finished.append(finish(each))
        end = max(end, now)
        freed = [done for done, _ in finished]
        for n, each in enumerate(ending):
            if freed[n] and pending[each]:
                start(each, pending[each].pop(0))
                freed[n] -= 1
        for turn in range(max(freed)):
            for n, each in enumerate(ending):
                if turn < freed[n]:
                    start(each)
        for n, each in enumerate(ending):
            if not resident[each]:
                end = max(end, now + finished[n][1])
        busy -= sum(1 for each in ending if not resident[each])
        if weights[busy] != state["weight"]:
            for other in range(sms):
                advance(other, now)
            state["weight"] = weights[busy]
            events = [event for other in range(sms) if (event := next_end(other, now)) is not None]
            heapq.heapify(events)
        else:
            for each in ending:
                if (event := next_end(each, now)) is not None:
                    heapq.heappush(events, event)
    return end


def _times(rng: np.random.Generator, classes: int, fit: int) -> np.ndarray:
    """Times of `classes` classes at 1 to `fit` CTAs, all SMs busy and alone: first, further, tail."""
    base = rng.uniform(50.0, 150.0, size=(classes, 1, 1, 1))
    ctas = np.arange(1, fit + 1).reshape(1, fit, 1, 1)
    times = base * ctas * rng.uniform(0.9, 1.3, size=(classes, fit, 2, 3))
    times[..., 2] *= 0.1
    return times


@pytest.mark.parametrize("seed", range(12))
def test_runs_of_one_class_end_as_tiles_one_by_one(seed: int) -> None:
    """Long runs of one class broken by a few others (a kernel's edge tiles), short runs (causal), a tile of no
    time, fewer tiles than slots: the schedule ends where the tile-by-tile schedule does, bit for bit."""
    rng = np.random.default_rng(seed)
    sms, fit, classes = int(rng.integers(1, 20)), int(rng.integers(1, 6)), int(rng.integers(2, 5))
    tiles = int(rng.integers(1, 12 * sms * fit))
    run = int(rng.choice([1, 3, 40]))
    tile_class = np.repeat(rng.integers(0, classes, size=tiles // run + 1), run)[:tiles]
    times = _times(rng, classes, fit)
    if seed % 4 == 0:
        times[0] = 0.0  # v1's empty CTAs
    sharers = min(sms, tiles)  # as `simgpu.fast.run_fast` gives it: a kernel never has more SMs busy than tiles
    assert shared_schedule(sms, fit, times, tile_class, sharers) == _tile_by_tile(sms, fit, times, tile_class, sharers)


def test_lockstep_waves_with_an_edge_tile_per_head() -> None:
    """FlashAttention's backward pre- and post-kernels: every SM's slots end together, one edge tile per head."""
    rng = np.random.default_rng(44)
    sms, fit = 12, 4
    tile_class = np.zeros(700, dtype=int)
    tile_class[97::98] = 1
    times = _times(rng, 2, fit)
    assert shared_schedule(sms, fit, times, tile_class, sms) == _tile_by_tile(sms, fit, times, tile_class, sms)


@pytest.mark.parametrize("seed", range(12))
def test_persistent_slots_that_draw_ahead_end_as_tiles_one_by_one(seed: int) -> None:
    """One slot an SM, each class drawing its next tile some way into its own (the leads, up to its whole time): the
    schedule by runs of one class ends where the tile-by-tile schedule does, bit for bit."""
    rng = np.random.default_rng(100 + seed)
    sms, classes = int(rng.integers(1, 20)), int(rng.integers(2, 6))
    tiles = int(rng.integers(sms + 1, 12 * sms + 2))
    run = int(rng.choice([1, 3, 40]))
    tile_class = np.repeat(rng.integers(0, classes, size=tiles // run + 1), run)[:tiles]
    times = _times(rng, classes, 1)
    leads = times[..., :2] * rng.uniform(0.0, 1.2, size=(classes, 1, 2, 2)) * (rng.random((classes, 1, 1, 1)) < 0.7)
    times = np.concatenate([times, leads], axis=-1)
    sharers = min(sms, tiles)
    assert shared_schedule(sms, 1, times, tile_class, sharers) == _tile_by_tile(sms, 1, times, tile_class, sharers)
