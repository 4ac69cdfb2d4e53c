#!/usr/bin/env bash
# Device run: Nsight Compute's source page (stall samples by reason, per SASS instruction) and warp-state statistics
# of `softmax_turns.py`'s kernel started in step (delay 0) and in turns (delay 512): where the two states of a pair
# of softmax warpgroups spend their time.
# Usage on the device machine, from the repository root: bash validation/probes/softmax_turns_ncu.sh DEST
set -u
dest=$1
source validation/probes/ncu_pages.sh
ncu_setup softmax_turns_ncu
sections="--section WarpStateStats --section SourceCounters --section SchedulerStats"
# softmax_turns.py launches each delay of DELAYS = (0, 64, 512, 1024) twice; the second launch is profiled.
ncu_pages "$out" delay0 softmax_turns 1 softmax_turns.py /tmp/softmax_turns_unused
ncu_pages "$out" delay512 softmax_turns 5 softmax_turns.py /tmp/softmax_turns_unused
tar czf "$dest/softmax_turns_ncu.tgz" -C /tmp softmax_turns_ncu
ls -la "$out"
