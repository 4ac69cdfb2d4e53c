# Sourced by the device scripts that profile our probes under Nsight Compute (v2_instruction_mix.sh,
# torch_fa2_mix.sh). `ncu_setup NAME`: out=/tmp/NAME made, PYTHONPATH for the probes, and `device_facts "$out"`.
# `device_facts OUT`: the GPU, its clocks and driver, and ncu's version, into OUT/gpu.txt.
# `ncu_pages OUT NAME KERNEL_REGEX SKIP PROBE ARGS...`: ncu (clocks left alone) on the launch after SKIP matching
# launches of `python3 validation/probes/PROBE ARGS...`, with the sections in $sections; writes OUT/NAME.log, the
# details page with metric instances (OUT/NAME_details.csv) and the source page with SASS (OUT/NAME_source.csv).
ncu_setup() {
  out=/tmp/$1
  mkdir -p "$out"
  export PYTHONPATH=. PYTHONUNBUFFERED=1
  device_facts "$out"
}
device_facts() {
  nvidia-smi --query-gpu=name,clocks.sm,clocks.max.sm,power.limit,driver_version --format=csv > "$1/gpu.txt"
  ncu --version >> "$1/gpu.txt" 2>&1
}
ncu_pages() {
  local out=$1 name=$2 kernels=$3 skip=$4 probe=$5
  shift 5
  timeout 120 ncu --clock-control none --kernel-name "regex:$kernels" --launch-skip "$skip" --launch-count 1 \
    $sections -o "/tmp/$name" python3 "validation/probes/$probe" "$@" > "$out/$name.log" 2>&1
  ncu -i "/tmp/$name.ncu-rep" --csv --page details --print-metric-instances values > "$out/${name}_details.csv" 2>&1
  ncu -i "/tmp/$name.ncu-rep" --csv --page source --print-source sass > "$out/${name}_source.csv" 2>&1
}
