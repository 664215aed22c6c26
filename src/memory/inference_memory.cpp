#include "memory/inference_memory.hpp"

#include <algorithm>
#include <cmath>

#include "memory/memory_categories.hpp"
#include "model/tp_share.hpp"

namespace rapidllm::memory {

double kv_cache_bytes(const model::LlmDims& d, int layers, int tp, std::int64_t batch, std::int64_t context,
                      double element_bytes) {
  if (d.mla) {
    return static_cast<double>(layers) * static_cast<double>(d.latent.cache_width()) * static_cast<double>(batch) *
           static_cast<double>(context) * element_bytes;
  }
  const auto kv_heads = static_cast<double>(model::local_kv_heads(d.kv_heads, tp));
  return 2.0 * layers * kv_heads * static_cast<double>(d.head_dim) * static_cast<double>(batch) *
         static_cast<double>(context) * element_bytes;
}

double kv_cache_bytes(const model::LlmDims& d, int first, int layers, int tp, std::int64_t batch, std::int64_t context,
                      double element_bytes) {
  const int windowed = d.windowed_layers(first, layers);
  if (windowed == 0) return kv_cache_bytes(d, layers, tp, batch, context, element_bytes);
  const std::int64_t rolling = std::min(context, d.sliding_window);
  return kv_cache_bytes(d, layers - windowed, tp, batch, context, element_bytes) +
         kv_cache_bytes(d, windowed, tp, batch, rolling, element_bytes);
}

MemoryBreakdown inference_memory(const HardwareSpec& hw, const model::LlmDims& d, std::int64_t batch,
                                 std::int64_t prompt, std::int64_t context, int communicators, int ep) {
  const auto& par = hw.parallelism;
  const auto& prec = hw.sw.precision;
  const int layers = static_cast<int>(std::ceil(static_cast<double>(d.layers) / par.pp));
  const double table = static_cast<double>(d.vocab) * static_cast<double>(d.hidden);
  // The stage holding the embedding (and, untied, the head when pp = 1) peaks: its layers'
  // dense parameters over tp, their routed experts over tp x ep.
  double layer_params = layers * model::layer_parameter_count(d);
  if (d.has_moe()) {
    layer_params = 0.0;
    for (int l = 0; l < layers; ++l) {
      const model::LayerParameters p = model::layer_parameters(d, l);
      layer_params += p.dense + p.routed_experts / ep;
    }
  }
  const double params = (layer_params + table * (d.tied_embeddings || par.pp > 1 ? 1 : 2)) / par.tp;
  MemoryBreakdown b;
  b.bytes.reserve(8);
  b.capacity_bytes = hw.dram().size_bytes;
  const auto add = [&b](std::string_view name, double bytes) {
    b.bytes.emplace_back(name, bytes);
    b.total_bytes += bytes;
  };
  add(kWeights, params * prec.parameters.bytes);
  double kv_cache = 0.0;
  if (d.sliding_window == 0) {
    kv_cache = kv_cache_bytes(d, layers, par.tp, batch, context, prec.kv_cache.bytes);
  } else {
    // Hybrid local/global: the stage holding the most cache (stage i: L/pp layers, the
    // first L % pp stages one more, in order).
    for (int i = 0, first = 0; i < par.pp; ++i) {
      const int count = d.layers / par.pp + (i < d.layers % par.pp ? 1 : 0);
      kv_cache = std::max(kv_cache, kv_cache_bytes(d, first, count, par.tp, batch, context, prec.kv_cache.bytes));
      first += count;
    }
  }
  // Context parallelism shards the cache by position over the cp ranks (each keeps the
  // keys and values of its own part of the sequence) and the prefill's tokens with it.
  add(kKvCache, kv_cache / par.cp);
  // Prefill of one layer: its input and the widest intermediate (MLP) are live together;
  // the logits of the last positions are fp32.
  const double tokens = static_cast<double>(batch) * static_cast<double>(prompt) / par.cp;
  const std::int64_t widest_mlp = d.has_moe() ? std::max(d.has_dense_layers() ? d.ffn : 0,
                                                   d.moe.moe_intermediate_size * d.moe.top_k + d.moe.moe_intermediate_size * d.moe.n_shared_experts)
                                        : d.ffn;
  const double widest = std::max<double>(static_cast<double>(d.hidden), 2.0 * static_cast<double>(widest_mlp) / par.tp);
  add(kActivations, tokens * (static_cast<double>(d.hidden) + widest) * prec.tensor_format.bytes);
  add(kTemporaries, static_cast<double>(batch) * static_cast<double>(d.vocab) / par.tp * 4.0);
  add(kCommunicationBuffers, communicators * 2.0 * 4.0 * 1024 * 1024 * 16);
  add(kFrameworkOffset, hw.sw.const_mem_offset_bytes);
  return b;
}

}  // namespace rapidllm::memory
