// The architecture quantities every LLM formula uses, derived once from the model spec.
#pragma once

#include <algorithm>
#include <array>
#include <cstdint>

#include "rapidllm/model_spec.hpp"

namespace rapidllm::model {

enum class MlpKind { gelu, swiglu };   // gpt: up + GELU + down; llama family: gate/up + SiLU*up + down
enum class NormKind { layernorm, rmsnorm };

// Multi-head latent attention (DeepSeek-V2/V3): queries through a q_lora-rank bottleneck
// (0 = a plain projection), keys and values from one kv_lora-rank latent plus a shared
// rope key of qk_rope dims per token; per head qk_nope + qk_rope query/key dims and v_head
// value dims.
struct MlaDims {
  std::int64_t q_lora = 0;
  std::int64_t kv_lora = 0;
  std::int64_t qk_nope = 0;
  std::int64_t qk_rope = 0;
  std::int64_t v_head = 0;

  [[nodiscard]] std::int64_t qk_head() const { return qk_nope + qk_rope; }
  // Cached per token and layer: the latent and the rope key (K and V are both read from it).
  [[nodiscard]] std::int64_t cache_width() const { return kv_lora + qk_rope; }

  friend bool operator==(const MlaDims&, const MlaDims&) = default;
};

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
  // Mixture of experts (DeepSeek/Megatron terms, docs/moe-mla.md): layer l (0-based) routes
  // each token to top_k of num_experts expert MLPs of width moe_intermediate_size when
  // l >= first_k_dense_replace and l % moe_layer_freq == 0, beside n_shared_experts
  // always-active ones; the other layers keep the dense MLP of width ffn. One expert gets
  // expert_imbalance_factor x the mean tokens (RAPID-LLM's one-hot imbalance).
  MoeSpec moe;
  bool mla = false;
  MlaDims latent;

  [[nodiscard]] bool has_moe() const { return moe.num_experts > 1; }
  // Whether some layer has the dense MLP.
  [[nodiscard]] bool has_dense_layers() const { return !has_moe() || moe.first_k_dense_replace > 0 || moe.moe_layer_freq > 1; }
  [[nodiscard]] bool moe_layer(int layer) const {
    return has_moe() && layer >= moe.first_k_dense_replace && layer % std::max(1, moe.moe_layer_freq) == 0;
  }

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

  // The kind of layer `layer` is: bit 0 windowed attention, bit 1 MoE MLP. Layers of one
  // kind cost the same; kLayerKinds kinds in all.
  [[nodiscard]] int layer_kind(int layer) const { return (layer_window(layer) > 0 ? 1 : 0) | (moe_layer(layer) ? 2 : 0); }
  // How many of the layers first .. first + count - 1 are of each kind.
  [[nodiscard]] std::array<int, 4> layer_kinds(int first, int count) const {
    std::array<int, 4> n{};
    for (int l = first; l < first + count; ++l) ++n[static_cast<std::size_t>(layer_kind(l))];
    return n;
  }

  [[nodiscard]] std::int64_t q_width() const { return heads * head_dim; }
  [[nodiscard]] std::int64_t kv_width() const { return kv_heads * head_dim; }

  friend bool operator==(const LlmDims&, const LlmDims&) = default;
};

inline constexpr int kLayerKinds = 4;
[[nodiscard]] constexpr bool windowed_kind(int kind) { return (kind & 1) != 0; }
[[nodiscard]] constexpr bool moe_kind(int kind) { return (kind & 2) != 0; }

[[nodiscard]] LlmDims llm_dims(const LlmModelSpec& spec, const std::string& source);

// Parameters of the whole model (embedding counted once when tied).
[[nodiscard]] double parameter_count(const LlmDims& d);
// Parameters one token passes through: top_k routed plus the shared experts of each MoE
// layer (= parameter_count for a dense model).
[[nodiscard]] double active_parameter_count(const LlmDims& d);

// One transformer layer's parameters: attention, norms, the dense MLP or the router and
// shared experts (everything every rank of an expert-parallel group holds whole), and the
// routed experts (split over expert parallelism).
struct LayerParameters {
  double dense = 0.0;
  double routed_experts = 0.0;
  [[nodiscard]] double total() const { return dense + routed_experts; }
};
[[nodiscard]] LayerParameters layer_parameters(const LlmDims& d, int layer);
// The attention block's parameters (projections; MLA's latent norms included).
[[nodiscard]] double attention_parameter_count(const LlmDims& d);
// One expert MLP of width `ffn`.
[[nodiscard]] double mlp_parameter_count(const LlmDims& d, std::int64_t ffn);
// Parameters of one layer of a dense model (every layer alike).
[[nodiscard]] double layer_parameter_count(const LlmDims& d);

}  // namespace rapidllm::model
