#!/usr/bin/env bash
# Device run: where two softmax warpgroups on one SM lose their time, per SASS instruction. Nsight Compute's source
# page (stall samples by reason, per instruction) and warp-state statistics of `v3_softmax_ncu.py`'s
# softmax_group<1> (one warpgroup) and softmax_group<2> (two, the pair that takes 1325-1345 cycles per iteration
# where one takes 771: validation/h200/softmax_offset/). The question (docs/results/sass_toy_35/README.txt): which
# instructions carry the pair's mio_throttle and not_selected stalls.
# Usage on the device machine, from the repository root: bash validation/probes/softmax_pair_source.sh DEST
set -u
dest=$1
source validation/probes/ncu_pages.sh
ncu_setup softmax_pair_source
sections="--section WarpStateStats --section SourceCounters --section SchedulerStats"
# v3_softmax_ncu.py launches pass_pair<0>, <3>, <1>, then softmax_group<1>, then softmax_group<2>.
ncu_pages "$out" group1 softmax_group 0 v3_softmax_ncu.py
ncu_pages "$out" group2 softmax_group 1 v3_softmax_ncu.py
tar czf "$dest/softmax_pair_source.tgz" -C /tmp softmax_pair_source
ls -la "$out"
