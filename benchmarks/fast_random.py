"""Fast mode against exact mode on random small problems: how far the fixed grid's agreement carries.

`experiments.fast_vs_exact` checks a chosen grid (two shapes per algorithm). This draws problems at random, from a
seed, over what the CLI accepts: every arch with the algorithms it runs, the chip cut to 4-33 SMs (and in a quarter
of the cases L2 cut to 1, 4 or 16 MiB), batch 1-3, heads 1-4, sequence lengths 16-2048 (keys sometimes another
length), head dimensions 32-256, causal or not, bf16, fp16 or fp8, forward or backward, and each of the algorithm's
`OPTIONS` in a fifth of the cases. A problem the simulator
refuses (a clear `SimgpuError`: an unsupported head dimension or dtype) is skipped; one whose exact run would pass
`EXACT_OPS` estimated ops is skipped too (exact mode's time). Per case it records fast over exact cycles, the largest
relative difference of any byte count, both wall times, and any other exception as a crash (with its message): a
failed invariant (`InternalError`: cycles below the roofline, bytes below compulsory) and a deadlock are the model's
failures, crashes too (until the fiftieth session they were counted as refusals: one and three of seed 0's cases).

`python -m benchmarks.fast_random [--cases N] [--seed S] [-j J] [--quick] [--out DIR]` writes `fast_random.csv`
and `fast_random.txt` (per algorithm: cases, cycles within 1%, 2.5% and 5%, the largest error, bytes equal,
crashes). `--quick`: 6 cases. A prediction has no time limit here: a fast-mode run that does not end shows as
the benchmark not ending (the twenty-third session's empty CTAs did; `simgpu.fast_schedule`).
"""

from __future__ import annotations

import argparse
import csv
import random
import time
import traceback
from collections import defaultdict
from collections.abc import Sequence
from concurrent.futures import ProcessPoolExecutor
from pathlib import Path
from typing import Any

from simgpu import Problem, load_arch, simulate
from simgpu.api import schedule
from simgpu.engine import estimated_ops
from simgpu.errors import DeadlockError, InternalError, SimgpuError
from simgpu.result import BYTE_FIELDS

ALGOS_BY_ARCH = {
    "a100": ("standard", "v1", "v2"),
    "h100": ("standard", "v1", "v2", "v3"),
    "h200": ("standard", "v1", "v2", "v3"),
    "b200": ("standard", "v1", "v2", "v4"),
}
SMS = (4, 8, 10, 16, 33)
L2_BYTES = (1 << 20, 4 << 20, 16 << 20)
HEADDIMS = (32, 64, 64, 96, 128, 128, 256)
DTYPES = ("bf16", "bf16", "fp16", "fp8")
# Option values drawn per algorithm, each option set in a fifth of the cases (the rest take the defaults): tile
# sizes, warps, pipeline depths and the ablation switches (`simgpu run --option`).
OPTIONS = {
    "standard": {"block_m": (64, 128), "block_n": (64, 128), "warps": (4, 8), "softmax_passes": (1, 2)},
    "v1": {
        "block_m": (32, 64, 128),
        "block_n": (16, 64, 128),
        "splits": (1, 2, 4, 8),
        "variant": ("release", "algorithm1"),
    },
    "v2": {
        "block_m": (64, 128),
        "block_n": (32, 64, 128),
        "warps": (4, 8),
        "stages": (2, 3),
        "bwd_layout": ("fa2", "ring"),
    },
    "v3": {
        "pingpong": (True, False),
        "intra_wg_overlap": (True, False),
        "warp_specialization": (True, False),
        "persistent": (True, False),
        "stages": (2, 3),
    },
    "v4": {"two_cta": (True, False), "lpt": (True, False), "deterministic": (True, False), "stages": (2, 3)},
}
OPTION_SHARE = 0.2
EXACT_OPS = 150_000  # exact mode's estimated unit ops at most (a few seconds on one core)
BYTES_EQUAL = 1e-9  # relative: byte counts summed in another order differ in the last bits
BANDS = (0.01, 0.025, 0.05)


def draw(rng: random.Random) -> dict[str, Any]:
    """One random case: arch, its overrides, algorithm and problem fields."""
    arch = rng.choice(sorted(ALGOS_BY_ARCH))
    overrides: dict[str, Any] = {"sms": rng.choice(SMS)}
    if rng.random() < 0.25:
        overrides["l2.capacity_bytes"] = rng.choice(L2_BYTES)
    seqlen = rng.randint(16, 700) if rng.random() < 0.5 else rng.choice((256, 512, 1024, 2048))
    algo = rng.choice(ALGOS_BY_ARCH[arch])
    options = {name: rng.choice(values) for name, values in OPTIONS[algo].items() if rng.random() < OPTION_SHARE}
    return {
        "arch": arch,
        "overrides": overrides,
        "algo": algo,
        "options": options,
        "batch": rng.randint(1, 3),
        "heads": rng.randint(1, 4),
        "seqlen_q": seqlen,
        "seqlen_k": rng.randint(16, 1500) if rng.random() < 0.25 else seqlen,
        "headdim": rng.choice(HEADDIMS),
        "causal": rng.random() < 0.4,
        "dtype": rng.choice(DTYPES),
        "pass_": rng.choice(("fwd", "bwd")),
    }


def case_problem(case: dict[str, Any]) -> Problem:
    """The `Problem` of a drawn case (`draw`); a `ProblemError` where its fields are not one."""
    fields = ("batch", "heads", "seqlen_q", "headdim")
    extra = ("seqlen_k", "causal", "dtype", "pass_")
    return Problem(*(case[name] for name in fields), **{name: case[name] for name in extra})


def compare(case: dict[str, Any]) -> dict[str, Any]:
    """Fast and exact mode on one case: the row of the CSV (`status` ok, skipped or crash)."""
    row = {key: case[key] for key in case if key not in ("overrides", "options")} | {
        "options": " ".join(f"{name}={value}" for name, value in case["options"].items()),
        "sms": case["overrides"]["sms"],
        "l2_bytes": case["overrides"].get("l2.capacity_bytes", ""),
    }
    try:
        arch = load_arch(case["arch"], case["overrides"])
        problem = case_problem(case)
        options = case["options"]
        if sum(estimated_ops(kernel) for kernel in schedule(arch, case["algo"], problem, options)) > EXACT_OPS:
            return row | {"status": "skipped", "detail": "exact mode too long"}
        started = time.perf_counter()
        fast = simulate(arch, case["algo"], problem, options, mode="fast")
        fast_s = time.perf_counter() - started
        exact = simulate(arch, case["algo"], problem, options, mode="exact")
        exact_s = time.perf_counter() - started - fast_s
    except (InternalError, DeadlockError) as err:  # the model's failures, not refusals: crashes (below)
        return row | {"status": "crash", "detail": f"{type(err).__name__}: {err}"}
    except SimgpuError as err:
        return row | {"status": "skipped", "detail": f"{type(err).__name__}: {err}"}
    except Exception as err:  # a crash is what this benchmark looks for: record it, go on
        where = traceback.extract_tb(err.__traceback__)[-1]
        detail = f"{type(err).__name__}: {err} ({Path(where.filename).name}:{where.lineno})"
        return row | {"status": "crash", "detail": detail}
    differences = [
        abs(getattr(fast, name) - getattr(exact, name)) / max(abs(getattr(exact, name)), 1.0) for name in BYTE_FIELDS
    ]
    return row | {
        "status": "ok",
        "cycles_fast_over_exact": fast.cycles / exact.cycles,
        "bytes_max_rel_difference": max(differences),
        "fast_s": fast_s,
        "exact_s": exact_s,
    }


def summary(rows: Sequence[dict[str, Any]]) -> str:
    """Per algorithm and over all: cases compared, cycles within each band, the largest error, bytes equal, crashes."""
    groups: dict[str, list[dict[str, Any]]] = defaultdict(list)
    for row in rows:
        groups[str(row["algo"])].append(row)
        groups["all"].append(row)
    lines = []
    for name in [*sorted(key for key in groups if key != "all"), "all"]:
        done = [row for row in groups[name] if row["status"] == "ok"]
        crashes = sum(row["status"] == "crash" for row in groups[name])
        errors = [abs(float(row["cycles_fast_over_exact"]) - 1) for row in done]
        bands = ", ".join(f"within {band:.1%}: {sum(e <= band for e in errors)}" for band in BANDS)
        equal = sum(float(row["bytes_max_rel_difference"]) <= BYTES_EQUAL for row in done)
        largest = f"{max(errors):.1%}" if errors else "-"
        lines.append(
            f"{name:8s} {len(done)} compared; cycles {bands}; largest {largest}; bytes equal {equal}; crashes {crashes}"
        )
    return "\n".join(lines) + "\n"


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--cases", type=int, default=400, help="random cases drawn (default 400)")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("-j", "--jobs", type=int, default=2)
    parser.add_argument("--quick", action="store_true", help="6 cases")
    parser.add_argument("--out", type=Path, default=Path("out/bench"))
    args = parser.parse_args(argv)
    rng = random.Random(args.seed)
    cases = [draw(rng) for _ in range(6 if args.quick else args.cases)]
    if args.jobs > 1:
        with ProcessPoolExecutor(args.jobs) as pool:
            rows = list(pool.map(compare, cases))
    else:
        rows = [compare(case) for case in cases]
    args.out.mkdir(parents=True, exist_ok=True)
    stem = "fast_random_quick" if args.quick else "fast_random"
    columns = [*rows[0].keys()]
    for row in rows:
        columns += [key for key in row if key not in columns]
    with (args.out / f"{stem}.csv").open("w", newline="", encoding="utf-8") as handle:
        writer = csv.DictWriter(handle, columns)
        writer.writeheader()
        writer.writerows(rows)
    text = f"seed {args.seed}, {len(cases)} cases drawn\n" + summary(rows)
    (args.out / f"{stem}.txt").write_text(text, encoding="utf-8")
    print(text, end="")


if __name__ == "__main__":
    main()
