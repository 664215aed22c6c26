// The architecture quantities every LLM formula uses, derived once from the model spec.
#pragma once

#include <cstdint>

#include "rapidllm/model_spec.hpp"

namespace rapidllm::model {

enum class MlpKind { gelu, swiglu };   // gpt: up + GELU + down; llama family: gate/up + SiLU*up + down
enum class NormKind { layernorm, rmsnorm };

struct LlmDims {
  std::int64_t hidden = 0;         // h
  std::int64_t heads = 0;          // a (query heads)
  std::int64_t kv_heads = 0;       // g
  std::int64_t head_dim = 0;       // d
  std::int64_t ffn = 0;            // f
  std::int64_t vocab = 0;          // V
  int layers = 0;                  // L
  bool tied_embeddings = false;
  bool rope = false;
  bool flash_attention = false;
  std::int64_t attention_tile = 0;  // 0 = derive from shared memory
  MlpKind mlp = MlpKind::gelu;
  NormKind norm = NormKind::layernorm;
  // Sliding-window attention: w keys per query (0 = full causal attention everywhere);
  // with global_every = k > 0 layers k-1, 2k-1, ... (0-based) stay global.
  std::int64_t sliding_window = 0;
  int global_every = 0;

  // The window layer `layer` (0-based) attends over; 0 = full attention.
  [[nodiscard]] std::int64_t layer_window(int layer) const {
    if (sliding_window == 0) return 0;
    return global_every > 0 && (layer + 1) % global_every == 0 ? 0 : sliding_window;
  }
  // How many of the layers first .. first + count - 1 are windowed.
  [[nodiscard]] int windowed_layers(int first, int count) const {
    int n = 0;
    for (int l = first; l < first + count; ++l) n += layer_window(l) > 0 ? 1 : 0;
    return n;
  }

  [[nodiscard]] std::int64_t q_width() const { return heads * head_dim; }
  [[nodiscard]] std::int64_t kv_width() const { return kv_heads * head_dim; }
};

// Throws ConfigError (naming the key) for architectures this model does not cover yet
// (MoE, MLA).
[[nodiscard]] LlmDims llm_dims(const LlmModelSpec& spec, const std::string& source);

// Parameters of the whole model (embedding counted once when tied).
[[nodiscard]] double parameter_count(const LlmDims& d);
// Parameters of one transformer layer.
[[nodiscard]] double layer_parameter_count(const LlmDims& d);

}  // namespace rapidllm::model
