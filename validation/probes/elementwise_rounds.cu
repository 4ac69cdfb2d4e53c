// Memory rounds of an elementwise kernel (validation/probes/elementwise_rounds.py): an in-place masked fill of an
// fp16 tensor of `elements` values, s[i] = mask[i % nn] ? value : s[i], with a boolean mask of nn bytes that every
// head shares (PyTorch's masked_fill_ on attention scores). CTAs of 128 threads, each over a contiguous chunk.
//
// serial<VT>: each thread takes VT elements, one after the other: the load of element k + 1 is issued only after
// the store of element k (the compiler barrier stands for what aliasing forces in PyTorch's elementwise_kernel, whose
// stores through char pointers may alias its next loads): VT dependent memory round trips per thread.
// hoisted<VT>: the same elements, every load first, then the stores: one round trip per thread.
// vec8: 8 contiguous elements a thread in one 16-byte load (and an 8-byte mask load), one 16-byte store.
// store_narrow, store_vec8: the stores alone (a fill), in two-byte and in 16-byte stores.
#include <cuda_fp16.h>

typedef unsigned int u32;

template <int VT>
__device__ __forceinline__ u32 chunk_base() {
  return blockIdx.x * (128u * VT);
}

template <int VT>
__global__ void serial(__half* s, const unsigned char* mask, u32 nn_minus_1, __half value) {
  const u32 base = chunk_base<VT>() + threadIdx.x;
#pragma unroll
  for (int k = 0; k < VT; ++k) {
    const u32 i = base + 128u * k;
    const unsigned char m = mask[i & nn_minus_1];
    unsigned short x;  // loaded whatever the mask says, as PyTorch's kernel does (plain C++ lets nvcc skip it)
    asm volatile("ld.global.b16 %0, [%1];" : "=h"(x) : "l"(s + i));
    s[i] = m ? value : __ushort_as_half(x);
    asm volatile("" ::: "memory");
  }
}

template <int VT>
__global__ void hoisted(__half* s, const unsigned char* mask, u32 nn_minus_1, __half value) {
  const u32 base = chunk_base<VT>() + threadIdx.x;
  unsigned char m[VT];
  __half x[VT];
#pragma unroll
  for (int k = 0; k < VT; ++k) {
    const u32 i = base + 128u * k;
    m[k] = mask[i & nn_minus_1];
    x[k] = s[i];
  }
#pragma unroll
  for (int k = 0; k < VT; ++k) s[base + 128u * k] = m[k] ? value : x[k];
}

__global__ void vec8(__half* s, const unsigned char* mask, u32 nn_minus_1, __half value) {
  const u32 i = (blockIdx.x * 128u + threadIdx.x) * 8u;
  uint4 x = *reinterpret_cast<const uint4*>(s + i);
  const uint2 m = *reinterpret_cast<const uint2*>(mask + (i & nn_minus_1));
  __half* h = reinterpret_cast<__half*>(&x);
  const unsigned char* b = reinterpret_cast<const unsigned char*>(&m);
#pragma unroll
  for (int k = 0; k < 8; ++k) h[k] = b[k] ? value : h[k];
  *reinterpret_cast<uint4*>(s + i) = x;
}

// Stores alone: 4 two-byte stores a thread (each warp instruction 64 contiguous bytes), or one 16-byte store.
__global__ void store_narrow(__half* s, const unsigned char*, u32, __half value) {
  const u32 base = chunk_base<4>() + threadIdx.x;
#pragma unroll
  for (int k = 0; k < 4; ++k) s[base + 128u * k] = value;
}

__global__ void store_vec8(__half* s, const unsigned char*, u32, __half value) {
  const u32 i = (blockIdx.x * 128u + threadIdx.x) * 8u;
  __half h[8];
#pragma unroll
  for (int k = 0; k < 8; ++k) h[k] = value;
  *reinterpret_cast<uint4*>(s + i) = *reinterpret_cast<const uint4*>(h);
}

template __global__ void serial<1>(__half*, const unsigned char*, u32, __half);
template __global__ void serial<4>(__half*, const unsigned char*, u32, __half);
template __global__ void serial<32>(__half*, const unsigned char*, u32, __half);
template __global__ void hoisted<4>(__half*, const unsigned char*, u32, __half);
template __global__ void hoisted<32>(__half*, const unsigned char*, u32, __half);
