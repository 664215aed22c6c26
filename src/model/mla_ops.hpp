// The attention kernels of one rank for multi-head latent attention (DeepSeek-V2/V3, as
// Megatron-Core's MLASelfAttention and the DeepSeek inference code run it).
//
// Training and prefill: one down-projection of the normed input to the query latent (or,
// without q_lora, the queries directly), the KV latent and the shared rope key, replicated
// on every TP rank; norms on the latents; per-head up-projections (heads split over tp) to
// queries, keys and values; rope; attention with qk_nope + qk_rope query/key dims and
// v_head value dims; the output projection (row-parallel).
//
// Decode absorbs the key and value up-projections into the query and the output: each
// head's query is projected into the latent space (qk_nope -> kv_lora), attention runs
// over the cached latents + rope keys shared by all heads (multi-query with kv_lora +
// qk_rope key dims and kv_lora value dims), and the result is projected back per head
// (kv_lora -> v_head) before the output projection. The cache is the latent, read once.
#pragma once

#include <vector>

#include "model/layer_ops.hpp"

namespace rapidllm::model {

void append_mla_ops(const LlmDims& d, const LocalShape& s, std::vector<Op>& ops);

}  // namespace rapidllm::model
