"""Which instructions carry the softmax pair's MIO-throttle and not-selected stall samples: per opcode, the samples of
each reason in `softmax_group<2>` (two softmax warpgroups on the SM) and `softmax_group<1>` (one), from Nsight Compute's
source pages in validation/h200/stall_hold_on_h100/softmax_pair_source/ (read as `../hold_37/source_stalls.py` reads
them). `python docs/results/hold_38/mio_by_opcode.py`
"""

import sys
from collections import defaultdict
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "hold_37"))
from source_stalls import read, samples  # a sibling folder's script, not a package

SOURCE = Path(__file__).resolve().parents[3] / "validation" / "h200" / "stall_hold_on_h100" / "softmax_pair_source"
for group in ("group1", "group2"):
    rows = read(SOURCE / f"{group}_source.csv")
    by_opcode: dict[str, dict[str, float]] = defaultdict(lambda: defaultdict(float))
    for row in rows:
        opcode = row["Source"].split()[0] if row["Source"].split() else "?"
        if opcode.startswith("@"):
            opcode = row["Source"].split()[1]
        for reason in ("mio", "not_selected", "selected", "wait", "short_sb", "math"):
            by_opcode[opcode.split(".")[0]][reason] += samples(row, reason)
    print(f"{group}:")
    for opcode, counts in sorted(by_opcode.items(), key=lambda item: -item[1]["mio"] - item[1]["not_selected"])[:6]:
        print(f"  {opcode:8s} " + ", ".join(f"{reason} {counts[reason]:.0f}" for reason in counts))
