"""Why the L2 replay hands a wave's slots over store by store: exact mode's L2 accesses re-walked in other orders.

Standard attention's forward on the whole A100 (1 x 16 heads, N = 1024, d = 64): S (32 MB) about fills the 40 MB L2.
This logs every L2 load and store exact mode makes (in the order it makes them), then walks the same accesses
through the same L2 model without timing: (1) in exact mode's order; (2) with the softmax kernel's accesses in the
replay's former lockstep order (a wave's loads, then its P stores, then its LSE stores, wave after wave); (3) slot
by slot: the first wave's loads, then per slot the finished tile's stores and the first load of the tile that takes
the slot next (`simgpu.replay._handover`). Prints the HBM reads per tensor of each walk (MB).
Run from the repository root:
`SIMGPU_NATIVE=0 python docs/results/handover_34/orders.py > docs/results/handover_34/orders.txt`.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Hashable, Sequence

import simgpu.units.l2 as l2_module
from simgpu import Problem, load_arch, simulate
from simgpu.units.hbm import Hbm

Access = tuple[str, Hashable, float]  # ("load" or "store", key, bytes)
SLOTS = 1728  # the softmax kernel's CTA slots on the A100 (16 per SM)


def exact_order() -> list[Access]:
    """Exact mode's L2 accesses, in the order it makes them."""
    order: list[Access] = []
    load, store = l2_module.L2.load, l2_module.L2.store

    def logged_load(self: l2_module.L2, now: float, key: Hashable, nbytes: float) -> l2_module.Access:
        order.append(("load", key, nbytes))
        return load(self, now, key, nbytes)

    def logged_store(self: l2_module.L2, now: float, key: Hashable, nbytes: float, service: float = 0.0) -> float:
        order.append(("store", key, nbytes))
        return store(self, now, key, nbytes, service)

    l2_module.L2.load, l2_module.L2.store = logged_load, logged_store  # type: ignore[method-assign]
    try:
        simulate("a100", "standard", Problem(1, 16, 1024, 64), mode="exact")
    finally:
        l2_module.L2.load, l2_module.L2.store = load, store  # type: ignore[method-assign]
    return order


def misses(order: Sequence[Access]) -> dict[str, float]:
    """HBM reads per tensor (MB) of `order` walked through the A100's L2 model, without timing."""
    arch = load_arch("a100")
    capacity = arch.l2.capacity_bytes
    l2 = l2_module.L2(capacity, 1e12, 0.0, Hbm(1e12, 0.0), None, capacity * arch.l2.max_dirty_fraction)
    read: Counter[str] = Counter()
    for kind, key, nbytes in order:
        if kind == "store":
            l2.store(0.0, key, nbytes)
        elif not l2.load(0.0, key, nbytes).hit:
            read[key[0]] += nbytes  # type: ignore[index]
    return {tensor: round(nbytes / 1e6, 2) for tensor, nbytes in sorted(read.items())}


def main() -> None:
    order = exact_order()
    # The softmax kernel's accesses: its loads of S and its stores of P and LSE (tile: S row load, P store, LSE store).
    softmax = [n for n, (kind, key, _) in enumerate(order) if key[0] in ("P", "LSE") and kind == "store"]  # type: ignore[index]
    softmax += [n for n, (kind, key, _) in enumerate(order) if key[0] == "S" and kind == "load"]  # type: ignore[index]
    first, last = min(softmax), max(softmax)
    before, inside, after = order[:first], order[first : last + 1], order[last + 1 :]
    tiles: dict[Hashable, list[Access]] = {}
    for access in inside:
        tile = access[1][1]  # type: ignore[index]
        tiles.setdefault(getattr(tile, "name", tile), []).append(access)  # a row of S is a piece of its tiles
    names = list(tiles)  # in the order their first access came: the launch order
    waves = [names[start : start + SLOTS] for start in range(0, len(names), SLOTS)]
    lockstep = [tiles[name][step] for wave in waves for step in range(3) for name in wave]
    handover = [tiles[name][0] for name in waves[0]]
    for number, wave in enumerate(waves):
        nxt = waves[number + 1] if number + 1 < len(waves) else []
        for slot, name in enumerate(wave):
            handover += tiles[name][1:]
            if slot < len(nxt):
                handover.append(tiles[nxt[slot]][0])
    print(f"softmax: {len(names)} tiles of 3 accesses in {len(waves)} waves of {SLOTS} slots")
    print("exact mode's order:       ", misses(order))
    print("softmax in lockstep:      ", misses(before + lockstep + after))
    print("softmax handed slot by slot:", misses(before + handover + after))


if __name__ == "__main__":
    main()
