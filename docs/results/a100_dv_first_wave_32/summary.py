"""Exact mode's CTA times per wave of the A100's std_dv kernel, from cta_ends_exact.txt: `python summary.py`."""

import re
from pathlib import Path

LINE = re.compile(r"\s+\('SM (\d+)', 'CTA slot (\d+) warps'\) (\S+) (\S+) (\S+)")


def main() -> None:
    rows = []
    for line in (Path(__file__).parent / "cta_ends_exact.txt").read_text(encoding="utf-8").splitlines():
        match = LINE.match(line)
        if match:
            rows.append((int(match.group(2)), float(match.group(5))))
    for low, high in ((0, 108), (108, 216), (216, 256)):
        times = [cycles for slot, cycles in rows if low <= slot < high]
        mean = sum(times) / len(times)
        print(f"slots {low}-{high - 1}: {len(times)} CTAs, mean {mean:.0f}, min {min(times):.0f}, max {max(times):.0f}")


if __name__ == "__main__":
    main()
