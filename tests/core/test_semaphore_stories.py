"""Semaphore stories: CTAs ordered through a counter in global memory (`Load.acquire`, `Store.release`).

The toy chip has two SMs, and every memory access (an L2 hit or a miss to HBM) is a round trip of 100 cycles; the
semaphore words and adds are zero-byte accesses, so only issue slots (one cycle per TMA instruction) and round trips
count.
"""

from __future__ import annotations

from collections.abc import Hashable, Sequence

import pytest

from simgpu.arch import Arch
from simgpu.engine import Engine
from simgpu.errors import DeadlockError
from simgpu.kernel import CtaResources, Kernel, Role
from simgpu.ops import Fma, Load, Op, Store

ROUND_TRIP = 100
ISSUE = 1  # a TMA instruction's issue cycle
WORK = 1000  # cycles of FMA work (128 lanes per cycle)


@pytest.fixture
def two_sms(toy_blackwell: Arch) -> Arch:
    return toy_blackwell.with_overrides(
        {"sms": 2, "l2.hit_latency_cycles": ROUND_TRIP, "hbm.latency_cycles": ROUND_TRIP}
    )


def acquire(value: int) -> Load:
    return Load("sem", "dQ", 0, engine="tma", acquire=value)


RELEASE = Store("sem", "dQ", 0, engine="tma", atomic=True, release=True)


def ordered_adds(programs: dict[int, Sequence[Op]]) -> Kernel:
    """One CTA per tile, each on its own SM (breadth-first placement)."""

    def program(tile: Hashable) -> Sequence[Op]:
        return programs[tile]  # type: ignore[index]

    return Kernel("story", tuple(programs), CtaResources(128, 32, 0), (Role("dq", 4, program),))


def test_the_second_add_waits_for_the_first_release(two_sms: Arch) -> None:
    # CTA 0 works 1000 cycles, then issues its add and its release (1000-1001, 1001-1002); the release reaches L2
    # and counts at 1102. CTA 1's first poll is back at 101; it polls again every round trip, each poll seeing the
    # counter as it leaves: the polls leaving at 101, 201, ..., 1101 see 0, the one leaving at 1201 sees 1 and is
    # back at 1301. Then CTA 1 issues its add (1301-1302), which lands at 1402.
    add = Store("dQaccum", 0, 0, engine="tma", atomic=True)
    first = (Fma(128 * WORK), add, RELEASE)
    second = (acquire(1), add)
    stats = Engine(two_sms).run([ordered_adds({0: first, 1: second})])
    released = WORK + 2 * ISSUE + ROUND_TRIP
    first_poll = ISSUE + ROUND_TRIP
    leaves = first_poll + -(-(released - first_poll) // ROUND_TRIP) * ROUND_TRIP
    assert (released, first_poll, leaves) == (1102, 101, 1201)
    assert stats.cycles == leaves + ROUND_TRIP + ISSUE + ROUND_TRIP == 1402


def test_an_acquire_that_is_already_released_costs_one_poll(two_sms: Arch) -> None:
    # The release (issued 0-1) counts at 101; the FMA work runs 1-1001; the acquire is issued 1001-1002 and its
    # first poll, back at 1102, sees the release.
    stats = Engine(two_sms).run([ordered_adds({0: (RELEASE, Fma(128 * WORK), acquire(1))})])
    assert stats.cycles == ISSUE + WORK + ISSUE + ROUND_TRIP


def test_a_never_released_semaphore_is_a_deadlock_that_names_it(two_sms: Arch) -> None:
    # CTA 1 releases once; CTA 0 needs two releases: the run stops with CTA 0 spinning, not polling for ever.
    kernel = ordered_adds({0: (acquire(2),), 1: (RELEASE,)})
    with pytest.raises(DeadlockError, match=r"CTA 0 role 'dq' spins on semaphore \('sem', 'dQ'\) until it reaches 2 "):
        Engine(two_sms).run([kernel])


def test_semaphores_start_at_zero_in_every_kernel(two_sms: Arch) -> None:
    released = ordered_adds({0: (RELEASE,)})
    with pytest.raises(DeadlockError, match=r"released 0 times"):
        Engine(two_sms).run([released, ordered_adds({0: (acquire(1),)})])


def test_part_of_a_chip_does_not_wait_for_ctas_it_does_not_run(two_sms: Arch) -> None:
    # Fast mode's representative SMs (`sms=`): an acquire costs its first poll and goes on.
    stats = Engine(two_sms, sms=1).run([ordered_adds({0: (acquire(5), Fma(128 * WORK))})])
    assert stats.cycles == ISSUE + ROUND_TRIP + WORK
