"""Re-predict a few configurations of a committed validation report from its committed measurements (exact mode,
`simgpu.validation.predict`) and print the report's prediction beside the new one: whether the model changes since
the report moved them.

`PYTHONPATH=. python docs/results/revalidation_spot_30.py ALGO MEASURED_CSV REPORT_CSV INDICES` (INDICES: comma
separated positions among the measured file's configurations of ALGO, which the report lists in the same order).
"""

from __future__ import annotations

import csv
import sys
import time

from simgpu.validation import predict, read_cases

algo, measured, report, picks = sys.argv[1], sys.argv[2], sys.argv[3], sys.argv[4]
cases = read_cases(measured, "h200", {algo}, None)
with open(report) as handle:
    old = list(csv.DictReader(handle))
print(len(cases), "cases;", len(old), "rows in the report")
for index in (int(each) for each in picks.split(",")):
    row = old[index]
    started = time.perf_counter()
    new = predict(cases[index])
    seconds = time.perf_counter() - started
    print(
        index,
        row["seqlen"],
        row["headdim"],
        row["causal"],
        row["pass"],
        "old",
        row["predicted_ms"],
        "new",
        new.predicted_ms,
        round(seconds, 1),
        "s",
    )
