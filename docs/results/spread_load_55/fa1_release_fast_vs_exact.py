"""FA1's release on the H100: fast mode's predictions against exact mode's, per run that exact mode covers (N up to
2048), before this session (`before/fa1_release_vs_model.txt`) and after (this folder's), over exact mode's
(`docs/results/fa1_release_vs_model_exact.txt`, exact mode unchanged since), read from the scripts' outputs.
`python docs/results/spread_load_55/fa1_release_fast_vs_exact.py > fa1_release_fast_vs_exact.txt`"""

from __future__ import annotations

import re
import statistics
from pathlib import Path

HERE = Path(__file__).resolve().parent
LINE = re.compile(r"^(\S+ d=\d+ causal=\S+\s+N=\s*\d+):.*predicted ([0-9.]+) ms")


def predicted(path: Path) -> dict[str, float]:
    return {m.group(1): float(m.group(2)) for line in path.read_text().splitlines() if (m := LINE.match(line))}


def main() -> None:
    exact = predicted(HERE.parent / "fa1_release_vs_model_exact.txt")
    for label, path in (
        ("before", HERE / "before/fa1_release_vs_model.txt"),
        ("after", HERE / "fa1_release_vs_model.txt"),
    ):
        fast = predicted(path)
        ratios = {run: fast[run] / exact[run] for run in exact}
        for run, ratio in ratios.items():
            print(f"{label}: {run} fast over exact {ratio:.3f}")
        print(f"{label}: mean |fast / exact - 1| {100 * statistics.mean(abs(r - 1) for r in ratios.values()):.1f}%")


if __name__ == "__main__":
    main()
