#include "serve/kv_capacity.hpp"

#include <cmath>

#include <fmt/format.h>

#include "memory/inference_memory.hpp"
#include "rapidllm/error.hpp"

namespace rapidllm::serving {

KvCapacity kv_capacity(const exec::LlmContext& ctx, const ServeEngine& engine) {
  const HardwareSpec& hw = ctx.hardware();
  const auto& d = ctx.dims();
  const auto& deg = ctx.degrees();
  int communicators = 0;
  for (int degree : {deg.tp, deg.pp}) communicators += degree > 1 ? 1 : 0;
  // One sequence of a full token budget sizes the activations; logits are held for every
  // sequence that samples (up to max_num_seqs), fp32.
  const MemoryBreakdown m =
      memory::inference_memory(hw, d, 1, engine.max_num_batched_tokens, 0, communicators, deg.ep);
  double other = 0.0;
  for (const auto& [name, bytes] : m.bytes) {
    if (name != "kv_cache" && name != "temporaries") other += bytes;
  }
  other += static_cast<double>(engine.max_num_seqs) * static_cast<double>(d.vocab) / deg.tp * 4.0;
  KvCapacity out;
  const int layers = static_cast<int>(std::ceil(static_cast<double>(d.layers) / deg.pp));
  out.bytes_per_token = memory::kv_cache_bytes(d, layers, deg.tp, 1, 1, hw.sw.precision.kv_cache.bytes);
  const double capacity = hw.dram().size_bytes;
  out.budget_bytes = engine.kv_budget == KvBudget::fraction_of_total ? engine.kv_memory_fraction * capacity - other
                                                                      : engine.kv_memory_fraction * (capacity - other);
  out.blocks = out.budget_bytes > 0.0
                   ? static_cast<std::int64_t>(std::floor(out.budget_bytes / (out.bytes_per_token * engine.block_size)))
                   : 0;
  out.tokens = out.blocks * engine.block_size;
  if (out.blocks < 1) {
    throw InfeasibleError(fmt::format(
        "no room for a KV cache: the weights, activations and buffers take {:.1f} GiB of the {:.1f} GiB GPU "
        "(engine memory fraction {}); add tensor or pipeline parallelism",
        other / 1073741824.0, capacity / 1073741824.0, engine.kv_memory_fraction));
  }
  return out;
}

}  // namespace rapidllm::serving
