"""The HBM's time per byte as a linear function of a stream's write fraction, fitted to the H200 probe
(`validation/probes/hbm_mix.py`; two runs on two lent H200s, `validation/h200/hbm_mix/run{1,2}/hbm_mix_h200.csv`),
or with `--chip h100` to the H100's one run (`validation/h200/memory_on_h100/hbm_mix_h100.csv`, 1 GiB arrays).

Per mix the faster of the two grid sizes (2 and 4 CTAs per SM) is taken as the saturated rate. Mixed streams (some
reads and some writes) are fitted by least squares with time per byte = (1 - w) / read_rate + w / write_rate;
streams of reads alone or writes alone are shown beside the fit, not fitted. The model takes read_rate as
`hbm.bandwidth_bytes_per_s x hbm.achievable_fraction` and write_rate as read_rate / `hbm.write_cost_ratio`
(`archs/h100.yaml`, `archs/h200.yaml`; `simgpu.units.hbm`).
Run: `python docs/results/hbm_mix_fit.py [--chip h100] > docs/results/hbm_mix_fit[_h100].txt`.
"""

from __future__ import annotations

import argparse
import csv
from pathlib import Path

import numpy as np

# Per chip: the probe's runs and the datasheet rate (the arch file's hbm.bandwidth_bytes_per_s).
CHIPS = {
    "h200": (sorted(Path("validation/h200/hbm_mix").glob("run*/hbm_mix_h200.csv")), 4.8e12),
    "h100": ([Path("validation/h200/memory_on_h100/hbm_mix_h100.csv")], 3.35e12),
}


def saturated(path: Path) -> dict[tuple[int, int], float]:
    """TB/s per (reads, writes): the faster grid."""
    best: dict[tuple[int, int], float] = {}
    for row in csv.DictReader(path.open(encoding="utf-8")):
        key = (int(row["reads"]), int(row["writes"]))
        best[key] = max(best.get(key, 0.0), float(row["tb_per_s"]))
    return best


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--chip", choices=sorted(CHIPS), default="h200")
    paths, datasheet_bytes_per_s = CHIPS[parser.parse_args().chip]
    runs = {path.parent.name: saturated(path) for path in paths}
    w_fit, t_fit = [], []
    for rates in runs.values():
        for (reads, writes), tb_s in rates.items():
            if reads and writes:
                w_fit.append(writes / (reads + writes))
                t_fit.append(1.0 / tb_s)
    design = np.column_stack([1.0 - np.asarray(w_fit), np.asarray(w_fit)])
    (t_read, t_write), *_ = np.linalg.lstsq(design, np.asarray(t_fit), rcond=None)
    read_rate, write_rate = 1.0 / t_read, 1.0 / t_write
    print(f"fit over {len(w_fit)} mixed streams: reads {read_rate:.3f} TB/s, writes {write_rate:.3f} TB/s")
    print(
        f"  achievable_fraction (reads) = {read_rate * 1e12 / datasheet_bytes_per_s:.4f} "
        f"of {datasheet_bytes_per_s / 1e12:g} TB/s"
    )
    print(f"  write_cost_ratio = {t_write / t_read:.4f}")
    print("run   reads:writes  write share  measured TB/s  fit TB/s  fit/measured - 1")
    for name, rates in runs.items():
        for (reads, writes), tb_s in sorted(rates.items(), key=lambda kv: kv[0][1] / sum(kv[0])):
            w = writes / (reads + writes)
            fit = 1.0 / ((1 - w) * t_read + w * t_write)
            note = "" if reads and writes else "  (not fitted)"
            print(f"{name}  {reads:>5}:{writes:<6}  {w:11.3f}  {tb_s:13.3f}  {fit:8.3f}  {fit / tb_s - 1:+8.1%}{note}")
    residuals = [abs(1.0 / ((1 - w) * t_read + w * t_write) * t - 1) for w, t in zip(w_fit, t_fit, strict=True)]
    print(f"mixed streams: mean |fit/measured - 1| {np.mean(residuals):.1%}, max {max(residuals):.1%}")


if __name__ == "__main__":
    main()
