// One tensor-parallel rank's share of the model's dimensions (Megatron-LM): query heads, MLP
// width and vocabulary split tp ways; KV heads split too, or replicated on every rank when
// there are fewer KV heads than ranks (GQA / MQA). Every per-rank extent (kernels, memory,
// collectives) comes from here, and tp_split is the one divisibility rule.
#pragma once

#include <cstdint>
#include <string_view>

#include "model/llm_dims.hpp"

namespace rapidllm::model {

// extent / tp; throws InfeasibleError "<what> = <extent> is not divisible by tp = <tp>".
[[nodiscard]] std::int64_t tp_split(std::int64_t extent, int tp, std::string_view what);

[[nodiscard]] inline std::int64_t local_kv_heads(std::int64_t kv_heads, int tp) {
  return kv_heads >= tp ? kv_heads / tp : 1;
}

struct TpShare {
  std::int64_t heads = 0;
  std::int64_t kv_heads = 0;
  std::int64_t ffn = 0;
  std::int64_t vocab = 0;  // vocabulary-parallel embedding and LM head (not required to divide)
};

// Throws InfeasibleError when tp does not divide the heads or the MLP width, or when the
// KV heads and tp do not divide one another.
[[nodiscard]] TpShare tp_share(const LlmDims& d, int tp);

}  // namespace rapidllm::model
