"""Two consoles of `benchmarks.exact_issue4` (one `key=value` line per case), before and after: per case the CPU
seconds before and after, their ratio and whether the cycles are equal; then the median ratio and the cases over
10 s in each.

Run: `python docs/results/speed_44/exact/compare_consoles.py BEFORE.txt AFTER.txt`.
"""

from __future__ import annotations

import statistics
import sys

LIMIT_S = 10.0  # issue 4: a prediction in under 10 s


def load(path: str) -> dict[tuple[str, str, str], tuple[float, str]]:
    cases = {}
    with open(path, encoding="utf-8") as handle:
        for line in handle:
            fields = dict(item.split("=", 1) for item in line.split())
            cases[fields["arch"], fields["algo"], fields["pass"]] = (float(fields["cpu_s"]), fields["cycles"])
    return cases


def main() -> None:
    before, after = load(sys.argv[1]), load(sys.argv[2])
    ratios = []
    for case, (seconds, cycles) in before.items():
        if case not in after:
            continue
        new_seconds, new_cycles = after[case]
        ratios.append(new_seconds / seconds)
        moved = "cycles equal" if new_cycles == cycles else f"cycles {cycles} -> {new_cycles}"
        print(*case, f"{seconds:6.2f} -> {new_seconds:6.2f} s  x{ratios[-1]:.2f}", moved)
    over = [sum(s > LIMIT_S for s, _ in cases.values()) for cases in (before, after)]
    print(f"median ratio {statistics.median(ratios):.3f}; over {LIMIT_S:g} s: {over[0]} -> {over[1]}")


if __name__ == "__main__":
    main()
