"""Which compiled functions the dictionary work of a `perf script` dump sits under: per sample whose innermost frame
is a dictionary or hash routine, its nearest compiled (`CPyDef_`) or interpreted caller. `python
perf_dict_callers.py PERF_SCRIPT.txt` (from `perf record -F 200 --call-graph dwarf,16384 python one_exact.py h200
v1 fwd` and `perf script`)."""

import collections
import sys

leaves: collections.Counter[str] = collections.Counter()
callers: collections.Counter[str] = collections.Counter()
samples = 0


def count(block: list[str]) -> None:
    global samples
    frames = [line.split()[1].split("+")[0] for line in block[1:] if len(line.split()) > 1]
    if not frames:
        return
    samples += 1
    leaves[frames[0]] += 1
    if "lookup" in frames[0] or "dict" in frames[0].lower():
        callers[next((f for f in frames if f.startswith(("CPyDef", "_PyEval"))), "?")] += 1


with open(sys.argv[1]) as handle:
    block: list[str] = []
    for line in handle:
        if line.strip():
            block.append(line)
        elif block:
            count(block)
            block = []
print(f"{samples} samples; innermost frames: {leaves.most_common(8)}")
print(f"dictionary work: {sum(callers.values())} samples, by caller:")
for name, n in callers.most_common(14):
    print(f"  {n:5d} {n / samples:6.1%} {name}")
