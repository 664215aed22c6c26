// How many KV-cache blocks a replica's engine has: the memory the engine's budget leaves
// after the weights, the largest iteration's activations and logits, communication
// buffers and the framework offset, over the bytes a block holds on one GPU (the stage
// with the most layers; sliding-window layers are counted at full length, as engines
// that page one block table for every layer allocate them).
#pragma once

#include <cstdint>

#include "exec/llm_context.hpp"
#include "rapidllm/serve.hpp"

namespace rapidllm::serving {

struct KvCapacity {
  double bytes_per_token = 0.0;  // per GPU
  double budget_bytes = 0.0;     // per GPU
  std::int64_t blocks = 0;
  std::int64_t tokens = 0;  // blocks x block size
};

// Throws InfeasibleError when nothing is left for the cache.
[[nodiscard]] KvCapacity kv_capacity(const exec::LlmContext& ctx, const ServeEngine& engine);

}  // namespace rapidllm::serving
