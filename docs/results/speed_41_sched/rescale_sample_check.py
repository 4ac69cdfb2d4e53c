"""The wide check of `algorithms.v4.rescale_sample` against the numerics' forward (1,800 configurations; the test
`tests/schedules/test_v4_rescale_sample.py` runs a part of it). Prints each difference and a count.

`python docs/results/speed_41_sched/rescale_sample_check.py` from the repository root."""

import itertools
import time

from algorithms.v4.schedule import measured_rescale_fraction
from tests.schedules.test_v4_rescale_sample import numerics_fraction

HEADDIMS = (16, 32, 48, 64, 80, 96, 128, 160, 192, 256)
bad = n = 0
cpu_old_s = cpu_new_s = 0.0
for d, keys, causal, bn, tau in itertools.product(
    HEADDIMS, (130, 257, 1000, 2048), (False, True), (16, 64, 128, 176, 256), (0.0, 0.5, 1.0, 2.5, 8.0)
):
    if keys <= bn:
        continue
    start = time.process_time()
    old = numerics_fraction(d, keys, causal, bn, tau)
    cpu_old_s += time.process_time() - start
    start = time.process_time()
    new = measured_rescale_fraction.__wrapped__(d, keys, causal, bn, tau)
    cpu_new_s += time.process_time() - start
    n += 1
    if old != new or type(old) is not type(new):
        bad += 1
        print("DIFF", d, keys, causal, bn, tau, old, new)
print(f"{n} configurations, {bad} differ; CPU s: numerics {cpu_old_s:.1f}, rescale_sample {cpu_new_s:.1f}")
