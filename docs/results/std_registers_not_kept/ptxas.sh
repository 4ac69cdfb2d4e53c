#!/usr/bin/env bash
# Registers per thread of the standard-attention GEMMs at the kernels' 128 x 128 tiles, 4 warps (2 stages for
# std_pv), by ptxas (sm_90a). Run from the repository root: `bash docs/results/std_registers_not_kept/ptxas.sh`
# (its output: ptxas.txt beside it).
set -eu
tmp=$(mktemp -d)
nvcc --version | tail -2
for spec in "std_qk<64,128,128,4,false,true>" "std_qk<64,128,128,4,true,true>" "std_qk<128,128,128,4,false,true>" \
            "std_qk<128,128,128,4,true,true>" "std_qk<128,128,128,4,false,false>"; do
  printf '#include "%s/cupy_kernels/standard/attention.cu"\ntemplate __global__ void %s(const u16*, const u16*, u16*, int, int, float);\n' "$PWD" "$spec" > "$tmp/k.cu"
  echo "$spec: $(nvcc -gencode=arch=compute_90a,code=sm_90a -cubin -Xptxas -v -std=c++17 -o "$tmp/k.cubin" "$tmp/k.cu" 2>&1 | grep -o 'Used [0-9]* registers')"
done
for spec in "std_pv<64,128,128,4,2,true>" "std_pv<128,128,128,4,2,true>"; do
  printf '#include "%s/cupy_kernels/standard/attention.cu"\ntemplate __global__ void %s(const u16*, const u16*, u16*, int, int);\n' "$PWD" "$spec" > "$tmp/k.cu"
  echo "$spec: $(nvcc -gencode=arch=compute_90a,code=sm_90a -cubin -Xptxas -v -std=c++17 -o "$tmp/k.cubin" "$tmp/k.cu" 2>&1 | grep -o 'Used [0-9]* registers')"
done
rm -rf "$tmp"
