"""Reads `perf script` output on stdin: the share of samples whose top frame is a dict lookup or a float hash, by the
first compiled (mypyc) frame below it."""

from __future__ import annotations

import re
import sys
from collections import Counter

TOP = re.compile(r"_Py_dict_lookup|_Py_HashDouble|dictkeys_generic_lookup")


def main() -> None:
    counts: Counter[str] = Counter()
    total = 0
    stack: list[str] = []
    for line in [*sys.stdin, "\n"]:
        if line.strip():
            if line[0] in " \t" and len(line.split()) >= 2:
                stack.append(line.split()[1].split("+")[0])
            continue
        if stack:
            total += 1
            if TOP.search(stack[0]):
                caller = next((frame for frame in stack[1:] if frame.startswith("CPyDef")), "other")
                counts[caller] += 1
        stack = []
    hashed = sum(counts.values())
    print(f"{total} samples; top frame a dict lookup or a float hash: {hashed} ({hashed / total:.1%})")
    for caller, count in counts.most_common(8):
        print(f"  {count / total:.1%}  {caller}")


if __name__ == "__main__":
    main()
