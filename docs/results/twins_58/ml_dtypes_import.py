"""How long `import ml_dtypes` takes beside NumPy, per installed copy: each timed in a fresh interpreter after NumPy is
imported, median of five. `python docs/results/twins_58/ml_dtypes_import.py [DIR ...]`: the environment's own copy,
then each DIR put first on the path (a `pip install --no-deps --target DIR ml_dtypes==X` of another version)."""

from __future__ import annotations

import os
import statistics
import subprocess
import sys

PROBE = (
    "import time, numpy; t = time.perf_counter(); import ml_dtypes; "
    "print(ml_dtypes.__version__, numpy.__version__, time.perf_counter() - t)"
)


def timed(path: str | None) -> tuple[str, str, float]:
    env = dict(os.environ)
    if path is not None:
        env["PYTHONPATH"] = path
    runs = [
        subprocess.run(
            [sys.executable, "-c", PROBE], env=env, capture_output=True, text=True, check=True
        ).stdout.split()
        for _ in range(5)
    ]
    return runs[0][0], runs[0][1], statistics.median(float(run[2]) for run in runs)


def main() -> None:
    for path in (None, *sys.argv[1:]):
        version, numpy_version, seconds = timed(path)
        print(f"ml_dtypes {version} beside numpy {numpy_version}: import {seconds * 1000:.0f} ms")


if __name__ == "__main__":
    main()
