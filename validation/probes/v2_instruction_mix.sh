#!/usr/bin/env bash
# Device run: the instruction mix and warp stalls of our FA2 kernels (validation/probes/v2_instruction_mix.py) under
# Nsight Compute, forward at d = 64 and 128 (the real build and the build without the K/V cp.async, FA2_ABLATE=1)
# and backward at d = 64 and 128, and of our FA3 forward (validation/probes/v3_ncu.py, ping-pong on), plus the
# static SASS of the two FA2 forward kernels. Per profiled build: the details page with metric instances
# (sass__inst_executed_per_opcode: executed warp instructions per opcode) and the source page (per SASS
# instruction: executions and stall samples by reason).
# Usage on the device machine, from the repository root: bash validation/probes/v2_instruction_mix.sh DEST
set -u
dest=$1
source validation/probes/ncu_pages.sh
ncu_setup v2_instruction_mix
python3 - > /tmp/inst.cu <<'EOF'
from cupy_kernels.v2 import launch
print(f'#include "{launch.FWD_SOURCE}"')
for i, d in enumerate((64, 128)):
    print(f"static void* const kernel_{i} = (void*)&{launch.fwd_name(d, launch.fwd_config(d), False, True)};")
EOF
nvcc -std=c++17 -gencode=arch=compute_90a,code=sm_90a -cubin -diag-suppress 177 -o /tmp/fwd.cubin /tmp/inst.cu \
  && cuobjdump -sass /tmp/fwd.cubin > "$out/fwd_sass.txt" 2>&1
sections="--section InstructionStats --section WarpStateStats --section SourceCounters --section SchedulerStats"
profile() {  # name, kernel regex, launches to skip, probe script, its arguments...
  ncu_pages "$out" "$@"
}
fa2='^fa2_(fwd|bwd)$'
profile fwd64 "$fa2" 1 v2_instruction_mix.py fwd 64 0
profile fwd64_noload "$fa2" 1 v2_instruction_mix.py fwd 64 1
profile fwd128 "$fa2" 1 v2_instruction_mix.py fwd 128 0
profile fwd128_noload "$fa2" 1 v2_instruction_mix.py fwd 128 1
profile bwd64 "$fa2" 1 v2_instruction_mix.py bwd 64
profile bwd128 "$fa2" 1 v2_instruction_mix.py bwd 128
profile v3fwd128 fa3 2 v3_ncu.py 128 1
profile v3fwd64 fa3 2 v3_ncu.py 64 1
tar czf "$dest/v2_instruction_mix.tgz" -C /tmp v2_instruction_mix
ls -la "$out"
