"""The best of each label's turns per case from `v3_speed_ab.py`'s output (`python
docs/results/session_67/speed_summary.py speed_ab.txt`): milliseconds and TFLOP/s, main against the change."""

from __future__ import annotations

import re
import sys
from collections import defaultdict


def main(path: str) -> None:
    times: dict[tuple[str, str, int], dict[str, list[float]]] = defaultdict(lambda: defaultdict(list))
    tflops: dict[tuple[str, str, int, str], str] = {}
    pattern = re.compile(r"([a-z]+)\d (\w+) v3 (\w+) (\d+): ([\d.]+) ms, (\d+) TFLOP/s")
    with open(path) as handle:
        for line in handle:
            match = pattern.match(line)
            if match is None:
                continue
            label, arch, pass_, n, ms, rate = match.groups()
            times[arch, pass_, int(n)][label].append(float(ms))
            tflops[arch, pass_, int(n), label] = rate
    for (arch, pass_, n), by_label in times.items():
        main_ms, change_ms = min(by_label["main"]), min(by_label["change"])
        print(
            f"{arch} v3 {pass_} {n:6d}: main {main_ms:5.1f} ms ({tflops[arch, pass_, n, 'main']} TFLOP/s), "
            f"change {change_ms:5.1f} ms ({tflops[arch, pass_, n, 'change']}), {change_ms / main_ms:.2f}x"
        )


if __name__ == "__main__":
    main(sys.argv[1])
