"""The shares of fast mode's phases in the native profiles beside this file (`perf`'s cumulative share of samples
of each compiled function; a function that calls itself or another listed one counts in both).
`python docs/results/prefix_checks_50/profiles/summary.py [DIR] > DIR/summary.txt` (DIR: this folder by default;
`../../tile_copies_50/profiles/` holds the same cases' profiles after the session's tile copies)."""

from __future__ import annotations

import re
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
PHASES = {
    "replay": "fast_bytes___replayed_bytes",  # the L2 replay, all of it
    "walks": "replay____walk",  # its walks of the records through the L2 model
    "tiles": "fast_bytes____head_copies",  # its tiles folded, or copied from another head, and their records
    "checks": "fast_bytes____head_prefixes",  # the checks that choose how a long head replays
    "SMs": "fast_costs___class_costs",  # the representative SMs' engine runs
    "schedule": "fast_schedule___shared_schedule",  # the list schedule of several classes
}


def main(folder: Path = HERE) -> None:
    print(f"{'case':28} {'s each':>7} " + " ".join(f"{name:>9}" for name in PHASES))
    for path in sorted(folder.glob("*.txt")):
        if path.name == "summary.txt":
            continue
        text = path.read_text(encoding="utf-8")
        each = float(re.search(r"runs ([0-9.]+) s each", text).group(1))  # type: ignore[union-attr]
        shares = []
        for symbol in PHASES.values():
            found = re.search(rf"([0-9.]+)%\s+[0-9.]+%\s+\[\.\] CPyDef_{symbol}\s", text)
            shares.append(f"{float(found.group(1)) if found else 0.0:8.1f}%")
        print(f"{path.stem:28} {each:7.3f} " + " ".join(shares))


if __name__ == "__main__":
    main(Path(sys.argv[1]) if len(sys.argv) > 1 else HERE)
