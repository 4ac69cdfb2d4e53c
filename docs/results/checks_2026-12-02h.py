"""Side check of the eighth session: the model's side of `validation/probes/loaded_latency.py`. One SM (the prober)
copies 24 boxes of 16 KiB from HBM one after the other through TMA while the other 131 SMs of an H200 stream
16 KiB boxes from HBM (each its own, `inflight` at a time) or from 32 boxes shared by all (L2), or idle. Prints
the prober's median cycles per copy (from one copy's issue to the next's, as the probe's issue-to-data plus the
loop) and the HBM's busy fraction. Measured on the H200 (`validation/h200/loaded_latency_h200.csv`): 1080 idle,
1013-1170 with L2 streaming, 1507 / 1673 / 2442 with 1 / 2 / 4 boxes in flight per SM from HBM.
The probe's model now lives in `experiments.loaded_latency` (`probe_in_model`). Run from the repository root:
`python docs/results/checks_2026-12-02h.py > docs/results/checks_2026-12-02h.txt` (eighth session), and
`> docs/results/checks_2026-12-02w.txt` (eleventh: with the HBM's loaded latency)."""

from __future__ import annotations

from experiments.loaded_latency import probe_in_model
from simgpu.arch import load_arch

for source, inflight in (("idle", 0), ("l2", 1), ("l2", 4), ("hbm", 1), ("hbm", 2), ("hbm", 4)):
    median, busy = probe_in_model(load_arch("h200"), source, inflight, 131)
    print(f"{source} x {inflight}: prober median {median:.0f} cycles per copy, HBM busy {busy:.2f}")
