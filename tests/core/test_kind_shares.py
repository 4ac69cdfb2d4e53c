"""Miss shares per cost kind (fifty-seventh session): where the chip starts a head's kinds of tiles in different waves
(FA3's LPT order), the replay counts each kind's misses apart, and a wave's first touches of a key are shared by the
kinds it starts together."""

from __future__ import annotations

from dataclasses import replace

from simgpu import Problem, load_arch, simulate
from simgpu.api import schedule
from simgpu.fast_plan import plan_kernel
from simgpu.replay import KernelAccesses, Record, kind_shares, labelled, replay
from simgpu.units.fluid_l2 import MissShares

KEY_BYTES = 1024


def _load(tensor: str, kind: int, block: int) -> Record:
    return (0, labelled(tensor, kind), (tensor, block), KEY_BYTES)


def _shares(kind_waves: tuple[tuple[int, int], ...]) -> dict[str, MissShares]:
    # Two slots. Wave 0: a tile of kind 0 loads K blocks 0 and 1, a tile of kind 1 then loads K block 0. Wave 1: a
    # tile of kind 2 loads K block 1, which wave 0 brought in.
    tiles = [[_load("K", 0, 0), _load("K", 0, 1)], [_load("K", 1, 0)], [_load("K", 2, 1)]]
    kernel = KernelAccesses(tiles, slots=2, labelled=True, kind_waves=kind_waves)
    result = replay(load_arch("h100"), [kernel])
    assert result.hbm_read_bytes == 2 * KEY_BYTES  # sharing moves no byte: each block is read once
    return result.shares[0]


def test_a_waves_first_touch_is_shared_by_the_kinds_started_together_and_no_other() -> None:
    shares = _shares(((0, 0), (0, 0), (1, 1)))
    # Block 0: kind 0 missed it and kind 1 hit it in the same wave, kinds started together: half each. Block 1:
    # only kind 0 loaded it in its wave. Kind 2 hit in a later wave: none.
    assert shares[labelled("K", 0)].load == 1.5 / 2
    assert shares[labelled("K", 1)].load == 0.5
    assert shares[labelled("K", 2)].load == 0.0


def test_kinds_not_started_together_keep_the_walks_misses() -> None:
    shares = _shares(((0, 0), (1, 1), (2, 2)))
    assert shares[labelled("K", 0)].load == 1.0
    assert shares[labelled("K", 1)].load == 0.0
    assert shares[labelled("K", 2)].load == 0.0


def test_a_kind_meets_its_own_label_and_the_unlabelled_tensors() -> None:
    own, other, plain = MissShares(load=1.0), MissShares(load=0.25), MissShares(load=0.5)
    shares = {labelled("K", 0): own, labelled("K", 1): other, "Q": plain}
    assert kind_shares(shares, 0) == {"K": own, "Q": plain}
    assert kind_shares(shares, 1) == {"K": other, "Q": plain}
    assert kind_shares(shares, 2) == {"Q": plain}


def test_lpt_order_starts_a_heads_query_blocks_apart_and_a_grid_together() -> None:
    arch = load_arch("h100")
    problem = Problem(32, 16, 512, 128, causal=True)
    (lpt,) = schedule(arch, "v3", problem, {})
    plan = plan_kernel(arch, lpt)
    # Sections of 128 heads, longest query blocks (kind 0) first: a head's next kind lies 128 tiles later, in the
    # next wave of the 132 slots for all but 4 heads of a section, the one after 256 tiles later, and so on.
    assert plan.kind_waves(arch.sms * plan.fit) == ((0, 0), (1, 1), (2, 2), (3, 3))
    (grid,) = schedule(arch, "v3", problem, {"lpt": False})
    plan = plan_kernel(arch, grid)
    # A head's four query blocks follow one another: they start in one wave, but for the heads cut by a wave's end.
    assert plan.kind_waves(arch.sms * plan.fit) is None


def test_a_kernel_that_does_not_say_which_tiles_share_memory_gets_no_kind_waves() -> None:
    # FA3's LPT order starts a head's kinds waves apart (above), but which entries of a tile's index name the head
    # is the schedule's to say: without `memory_axes` fast mode counts no waves per head.
    arch = load_arch("h100")
    (lpt,) = schedule(arch, "v3", Problem(32, 16, 512, 128, causal=True), {})
    assert lpt.memory_axes == 2
    plan = plan_kernel(arch, replace(lpt, memory_axes=0))
    assert plan.kind_waves(arch.sms * plan.fit) is None


def test_a_grids_kind_waves_from_its_first_heads_pattern_are_those_of_every_tile() -> None:
    # v2's causal forward, 8 query blocks of 4 kinds a head (the longer ones fold alike): a grid is asked from its
    # first head's pattern, a list of the same tiles from every tile. With 3 slots a head's blocks fall in 3 or 4
    # waves; with 64, in one.
    arch = load_arch("h100")
    (kernel,) = schedule(arch, "v2", Problem(2, 3, 1024, 128, causal=True), {})
    grid, listed = plan_kernel(arch, kernel), plan_kernel(arch, replace(kernel, tiles=list(kernel.tiles)))
    assert len(set(grid.kinds)) == 4
    for slots in (3, 5, 64):
        assert grid.kind_waves(slots) == listed.kind_waves(slots)
    assert grid.kind_waves(3) is not None
    assert grid.kind_waves(64) is None


def test_fast_mode_follows_lpts_first_touches_on_the_whole_h100() -> None:
    # v3's persistent causal forward at N = 512: the longest query block of each head in a group of 128 reads the
    # heads' K and V from HBM, the shorter ones hit. With one share for all kinds fast mode spread those misses over
    # every kind and came out 19.4% under exact mode's cycles (`docs/results/first_touch_57/`).
    arch = load_arch("h100")
    problem = Problem(32, 16, 512, 128, causal=True)
    exact = simulate(arch, "v3", problem, mode="exact")
    fast = simulate(arch, "v3", problem)
    assert fast.hbm_read_bytes == exact.hbm_read_bytes
    assert abs(fast.cycles / exact.cycles - 1) < 0.02
