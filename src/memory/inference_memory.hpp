// Per-GPU memory of an inference run: weights (split by TP and PP), the KV cache at the
// longest context (kv_cache precision, KV heads split by TP or replicated when fewer than
// TP; windowed layers hold their window; the pipeline stage holding the most; sharded by
// position over CP ranks), the prefill's largest live activations (a CP rank's share of
// the tokens), and the same buffers/offset as training.
#pragma once

#include "model/llm_dims.hpp"
#include "rapidllm/hardware_spec.hpp"
#include "rapidllm/memory_breakdown.hpp"

namespace rapidllm::memory {

// KV cache of one rank holding `layers` layers: 2 (K and V) x layers x local KV heads x
// head_dim x batch x context x bytes. MLA caches one latent and rope key per token and
// layer, (kv_lora + qk_rope) x bytes, whole on every TP rank (every head reads it).
[[nodiscard]] double kv_cache_bytes(const model::LlmDims& d, int layers, int tp, std::int64_t batch,
                                    std::int64_t context, double element_bytes);

// The same for layers first .. first + layers - 1 of a model with sliding-window attention:
// a windowed layer keeps a rolling buffer of min(context, w) tokens (vLLM, Mistral's
// reference code), a global one all `context`. Equals the above without a window.
[[nodiscard]] double kv_cache_bytes(const model::LlmDims& d, int first, int layers, int tp, std::int64_t batch,
                                    std::int64_t context, double element_bytes);

// `batch`: the sequences one rank serves; `ep`: the expert-parallel degree (moe_dp) the
// routed experts are split over, beside tp.
[[nodiscard]] MemoryBreakdown inference_memory(const HardwareSpec& hw, const model::LlmDims& d, std::int64_t batch,
                                               std::int64_t prompt, std::int64_t context, int communicators,
                                               int ep = 1);

}  // namespace rapidllm::memory
