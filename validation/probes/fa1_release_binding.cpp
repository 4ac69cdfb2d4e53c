// Launches FlashAttention v1.0.9's released forward kernels (the FA repository's csrc/flash_attn/src at tag v1.0.9,
// with the CUTLASS headers of its submodule; compiled on the device from a checkout carried there, not part of this
// project) on packed (total tokens, heads, d) tensors, without dropout: the kernel FA1's and FA2's papers time as
// FlashAttention-1. Only the parameters those kernels read in the forward are set; num_splits <= 0 lets the launch
// template choose the splits (its occupancy heuristic), as the release did; they are returned beside the LSE.
#include <torch/extension.h>
#include <ATen/cuda/CUDAContext.h>

#include <cmath>

#include "fmha.h"

namespace {

std::tuple<at::Tensor, int> forward(const at::Tensor &q, const at::Tensor &k, const at::Tensor &v, at::Tensor &out,
                   const at::Tensor &cu_seqlens, int max_seqlen, float softmax_scale, bool causal, int num_splits) {
    TORCH_CHECK(q.is_cuda() && q.is_contiguous() && k.is_contiguous() && v.is_contiguous() && out.is_contiguous());
    TORCH_CHECK(q.dtype() == torch::kFloat16 || q.dtype() == torch::kBFloat16);
    const int total = q.size(0), heads = q.size(1), headdim = q.size(2);
    const int batch = cu_seqlens.numel() - 1;
    TORCH_CHECK(headdim == 64 || headdim == 128, "only the d = 64 and d = 128 kernels are built");
    // The release pads the key length to its key block (256 at d <= 64, 128 above) and the query length to 16 rows.
    const int block_keys = headdim > 64 ? 128 : 256;
    int padded_keys = (max_seqlen + block_keys - 1) / block_keys * block_keys;
    if (max_seqlen <= 128) {
        padded_keys = 128;
    } else if (max_seqlen <= 256) {
        padded_keys = 256;
    }
    const int padded_queries = (max_seqlen + 15) / 16 * 16;
    const bool loop = padded_keys > block_keys;
    auto options = q.options();
    at::Tensor o_accumulator;  // fp32 O between key blocks, read and written back at every step
    if (loop) {
        o_accumulator = torch::empty({total, heads, headdim}, options.dtype(at::kFloat));
    }
    auto lse = torch::empty({batch, heads, padded_queries}, options.dtype(at::kFloat));
    auto rng_state = torch::empty({2}, options.dtype(torch::kInt64));

    auto *properties = at::cuda::getCurrentDeviceProperties();
    Launch_params<FMHA_fprop_params> launch(properties, at::cuda::getCurrentCUDAStream().stream(), false, false);
    FMHA_fprop_params &p = launch.params;
    memset(&p, 0, sizeof(p));
    const bool bf16 = q.dtype() == torch::kBFloat16;
    const Data_type dtype = bf16 ? DATA_TYPE_BF16 : DATA_TYPE_FP16;
    p.is_bf16 = bf16;
    p.q_ptr = q.data_ptr();
    p.k_ptr = k.data_ptr();
    p.v_ptr = v.data_ptr();
    p.o_ptr = out.data_ptr();
    p.q_row_stride_in_elts = p.k_row_stride_in_elts = p.v_row_stride_in_elts = p.o_row_stride_in_elts = heads * headdim;
    p.q_head_stride_in_elts = p.k_head_stride_in_elts = p.v_head_stride_in_elts = p.o_head_stride_in_elts = headdim;
    p.o_tmp_ptr = loop ? o_accumulator.data_ptr() : nullptr;
    p.o_tmp_row_stride_in_elts = heads * headdim;
    p.o_tmp_head_stride_in_elts = headdim;
    p.cu_seqlens_q = p.cu_seqlens_k = static_cast<int *>(cu_seqlens.data_ptr());
    p.softmax_lse_ptr = lse.data_ptr();
    p.b = batch;
    p.h = heads;
    p.seqlen_q = padded_queries;
    p.seqlen_k = padded_keys;
    p.d = headdim;
    p.scale_bmm1f = softmax_scale;
    set_alpha(p.scale_bmm1, softmax_scale, dtype);
    // No dropout: the probability of keeping an element is 1.
    p.p_dropout = 1.f;
    p.p_dropout_in_uint = uint32_t(std::floor(4294967295.0));
    p.p_dropout_in_uint16_t = uint16_t(65535);
    p.rp_dropout = 1.f;
    p.scale_bmm1_rp_dropout = softmax_scale;
    set_alpha(p.scale_dropout, 1.f, dtype);
    p.rng_state = reinterpret_cast<uint64_t *>(rng_state.data_ptr());
    p.is_causal = causal;
    p.num_splits = num_splits;
    if (headdim == 64) {
        run_fmha_fwd_hdim64(launch);
    } else {
        run_fmha_fwd_hdim128(launch);
    }
    return {lse, p.num_splits};  // the launch template writes back the splits it chose
}

}  // namespace

PYBIND11_MODULE(TORCH_EXTENSION_NAME, m) {
    m.def("forward", &forward, "FlashAttention v1.0.9's released forward (no dropout)");
}
