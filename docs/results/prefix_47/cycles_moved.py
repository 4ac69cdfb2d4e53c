"""Which predictions two `benchmarks.fast_equality` recordings (`record FILE --grid all`, 530 cases) differ in: the
cases whose cycles or byte counts moved, and by how much, with the largest relative difference of any number.
`python cycles_moved.py BEFORE.jsonl AFTER.jsonl`."""

from __future__ import annotations

import json
import sys

from benchmarks.fast_equality import difference


def main(before_path: str, after_path: str) -> None:
    with open(before_path) as before_file, open(after_path) as after_file:
        pairs = [(json.loads(a), json.loads(b)) for a, b in zip(before_file, after_file, strict=True)]
    moved = []
    for before, after in pairs:
        assert before["case"] == after["case"]
        old, new = before["result"], after["result"]
        if "error" in old or "error" in new:
            if old != new:
                print("refusal differs:", before["case"])
            continue
        same_bytes = all(old[key] == new[key] for key in old if key.endswith("_bytes"))
        if old["cycles"] != new["cycles"] or not same_bytes:
            moved.append((new["cycles"] / old["cycles"] - 1, same_bytes, before["case"], difference(old, new)))
    print(f"{len(pairs)} cases; {len(moved)} moved, byte counts moved in {sum(not m[1] for m in moved)}")
    for change, _, case, largest in sorted(moved, key=lambda m: m[0]):
        sizes = case["problem"]
        print(
            f"{change:+.4f} cycles (largest difference {largest:.3g}): {case['arch']} {case['overrides'] or ''} "
            f"{case['algo']} {sizes['batch']}x{sizes['heads']} N={sizes['seqlen_q']} {sizes['pass_']}"
            f"{' causal' if case['causal'] else ''}"
        )


if __name__ == "__main__":
    main(sys.argv[1], sys.argv[2])
