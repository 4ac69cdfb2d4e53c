"""Fast mode's results on random mid-size problems, dumped for an equality check between two checkouts: the
problems of `benchmarks.fast_random` (options drawn, chips cut, L2 cut) with 2k-32k tokens per sequence, one
sequence of 1-4 heads, in half the cases on the whole chip.
`python docs/results/tile_copies_50/random_equality.py OUT.json [SEED] [CASES]` from each checkout, then
`python docs/results/tile_copies_50/random_equality.py --compare BASE.json NEW.json`."""

from __future__ import annotations

import json
import random
import sys

from benchmarks.fast_equality import dump_record
from benchmarks.fast_random import case_problem, draw


def dump(path: str, seed: int, count: int) -> None:
    rng = random.Random(seed)
    out = []
    for _ in range(count):
        case = draw(rng)
        case["seqlen_q"] = rng.choice((2048, 4096, 8192, 16384, 32768))
        case["seqlen_k"] = case["seqlen_q"] if rng.random() < 0.8 else rng.choice((1024, 4096, 8192))
        case["batch"], case["heads"] = 1, rng.choice((1, 2, 4))
        if rng.random() < 0.5:
            case["overrides"] = {}
        problem = case_problem(case)
        record = dump_record(case["arch"], case["overrides"], case["algo"], problem, case["options"])
        out.append([repr(case), record])
    with open(path, "w", encoding="utf-8") as handle:
        json.dump(out, handle)


def compare(base_path: str, new_path: str) -> None:
    with open(base_path, encoding="utf-8") as handle:
        base = json.load(handle)
    with open(new_path, encoding="utf-8") as handle:
        new = json.load(handle)
    assert [case for case, _ in base] == [case for case, _ in new], "not the same cases"
    results = sum(not isinstance(record, str) for _, record in base)
    differ = [case for (case, one), (_, two) in zip(base, new, strict=True) if one != two]
    print(f"{len(base)} cases, {results} predictions (the rest refused alike), {len(differ)} differ")
    for case in differ:
        print(case)


if __name__ == "__main__":
    if sys.argv[1] == "--compare":
        compare(sys.argv[2], sys.argv[3])
    else:
        dump(sys.argv[1], int(sys.argv[2]) if len(sys.argv) > 2 else 7, int(sys.argv[3]) if len(sys.argv) > 3 else 600)
