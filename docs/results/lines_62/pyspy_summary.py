"""A py-spy raw profile (`pyspy_loop.py`) summed: the share of samples by the file of the innermost Python frame
(compiled code counts to the Python frame that called it), then by function, wherever on the stack.
`python docs/results/lines_62/pyspy_summary.py OUT`."""

from __future__ import annotations

import sys
from collections import Counter


def main(path: str) -> None:
    total = 0
    innermost: Counter[str] = Counter()
    anywhere: Counter[str] = Counter()
    with open(path, encoding="utf-8") as handle:
        for row in handle:
            stack, _, count = row.rstrip().rpartition(" ")
            samples = int(count)
            total += samples
            frames = stack.split(";")
            leaf = frames[-1]
            innermost[leaf.split("(")[-1].split(":")[0] if "(" in leaf else leaf] += samples
            for name in {frame.split(" (")[0] for frame in frames}:
                anywhere[name] += samples
    print("total samples", total)
    for name, samples in innermost.most_common(25):
        print(f"{samples / total:6.1%} self in {name}")
    print("--- inclusive")
    for name, samples in anywhere.most_common(40):
        print(f"{samples / total:6.1%} {name}")


if __name__ == "__main__":
    main(sys.argv[1])
