"""`simgpu validate`'s predictions, streamed: a run cut short (a device call's time limit) keeps what it finished.

`python validation/probes/validate_stream.py run CSV ALGO JOBS OUT.jsonl` predicts every configuration of ALGO in the
measurement CSV (`simgpu.validation.read_cases` / `predict`: exact mode, the measured clock) in a pool of JOBS
processes, longest first, and appends one JSON line (a `Comparison`) per finished configuration.
`python validation/probes/validate_stream.py report ALGO CSV OUT.jsonl DIR` writes `simgpu validate`'s report (CSV and
scatter PNG, rows in the measurement file's order) from those lines and prints the MAPEs.
Run from the repository root with the repository first on PYTHONPATH.
"""

from __future__ import annotations

import dataclasses
import json
import sys
from multiprocessing import Pool
from pathlib import Path

from simgpu.validation import Case, Comparison, mape, predict, read_cases, write_report


def _one(case: Case) -> dict[str, object]:
    return dataclasses.asdict(predict(case))


def run(path: str, algo: str, jobs: int, out: str) -> None:
    cases = read_cases(path, "h200", [algo])
    cases.sort(key=lambda c: -c.problem.batch * c.problem.heads * c.problem.seqlen_q**2)  # the pool's tail is short
    with Pool(jobs) as pool, open(out, "w") as handle:
        for row in pool.imap_unordered(_one, cases):
            handle.write(json.dumps(row) + "\n")
            handle.flush()


def report(algo: str, path: str, lines: str, out_dir: str) -> None:
    rows = [Comparison(**json.loads(line)) for line in Path(lines).read_text().splitlines()]
    order = {}
    for i, case in enumerate(read_cases(path, "h200", [algo])):
        p = case.problem
        options = " ".join(f"{name}={value}" for name, value in case.options.items())
        order[p.pass_, p.batch, p.heads, p.seqlen_q, p.headdim, p.causal, options] = i
    rows.sort(key=lambda r: order[r.pass_, r.batch, r.heads, r.seqlen, r.headdim, r.causal, r.options])
    Path(out_dir).mkdir(parents=True, exist_ok=True)
    write_report(rows, out_dir, "NVIDIA H200")
    for (name, pass_), error in mape(rows).items():
        print(f"{name} {pass_}: MAPE {100 * error:.1f}% over {sum(r.pass_ == pass_ for r in rows)} configurations")
        for d in sorted({r.headdim for r in rows}):
            errors = [r.rel_error for r in rows if r.headdim == d and r.pass_ == pass_]
            mean = 100 * sum(map(abs, errors)) / len(errors)
            print(f"  d={d}: {mean:.1f}%, {100 * min(errors):+.1f} .. {100 * max(errors):+.1f}%")


if __name__ == "__main__":
    if sys.argv[1] == "run":
        run(sys.argv[2], sys.argv[3], int(sys.argv[4]), sys.argv[5])
    else:
        report(sys.argv[2], sys.argv[3], sys.argv[4], sys.argv[5])
