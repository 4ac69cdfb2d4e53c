"""Which of seed 0's 3,000 random problems changed with the sixty-fifth session's A100 rate: the committed
`docs/results/fast_random.csv` at the session's base (read with `git show`) against the re-run one, every column but
the wall times, by arch, and the rows whose fast/exact ratio crossed the 1% line.
`python docs/results/session_65/random_by_arch.py > docs/results/session_65/random_by_arch.txt`."""

from __future__ import annotations

import csv
import io
import subprocess
from collections import Counter

BASE = "6690ead"
TIMES = ("fast_s", "exact_s")


def within(row: dict[str, str]) -> bool:
    ratio = row["cycles_fast_over_exact"]
    return bool(ratio) and abs(float(ratio) - 1.0) <= 0.01


command = ["git", "show", f"{BASE}:docs/results/fast_random.csv"]
shown = subprocess.run(command, capture_output=True, text=True, check=True)
before = list(csv.DictReader(io.StringIO(shown.stdout)))
with open("docs/results/fast_random.csv", encoding="utf-8") as handle:
    after = list(csv.DictReader(handle))
columns = [name for name in before[0] if name not in TIMES]
changed = [(b, a) for b, a in zip(before, after, strict=True) if any(b[c] != a[c] for c in columns)]
print(f"{len(after)} rows, {len(changed)} changed, by arch: {dict(Counter(a['arch'] for _, a in changed))}")
for label, rows in (
    ("left the 1% band", [(b, a) for b, a in changed if within(b) and not within(a)]),
    ("entered it", [(b, a) for b, a in changed if within(a) and not within(b)]),
):
    print(f"{label}: {len(rows)}")
    for b, a in rows:
        case = f"{a['arch']} {a['algo']} {a['pass_']} {a['batch']}x{a['heads']}x{a['seqlen_q']} d={a['headdim']}"
        print(f"  {case}: {float(b['cycles_fast_over_exact']):.4f} -> {float(a['cycles_fast_over_exact']):.4f}")
