#include "model/llm_dims.hpp"

#include <fmt/format.h>

#include "rapidllm/error.hpp"

namespace rapidllm::model {

LlmDims llm_dims(const LlmModelSpec& spec, const std::string& source) {
  LlmDims d;
  d.hidden = spec.hidden_dim;
  d.heads = spec.attention.num_heads;
  d.kv_heads = spec.attention.kv_heads;
  d.head_dim = spec.attention.head_dim ? *spec.attention.head_dim : spec.hidden_dim / spec.attention.num_heads;
  d.ffn = spec.intermediate_size;
  d.vocab = spec.vocab_size;
  d.layers = spec.num_layers;
  d.tied_embeddings = spec.tied_embeddings;
  d.flash_attention = spec.attention.use_flash_attention;
  d.attention_tile = spec.attention.tile_size.value_or(0);
  d.sliding_window = spec.attention.sliding_window;
  d.global_every = spec.attention.global_every;
  const bool gpt = spec.model_type == "gpt";
  d.mlp = gpt ? MlpKind::gelu : MlpKind::swiglu;
  d.norm = gpt ? NormKind::layernorm : NormKind::rmsnorm;
  d.rope = !gpt;
  d.moe = spec.moe;
  if (d.has_moe() && d.moe.first_k_dense_replace > 0 && d.ffn == 0) {
    throw ConfigError(SourceLocation{source, 0, 0, {}}, "model_param.intermediate_size",
                      fmt::format("the first {} layers are dense (first_k_dense_replace) but intermediate_size is 0",
                                  d.moe.first_k_dense_replace),
                      "set intermediate_size to the dense layers' MLP width");
  }
  if (spec.attention.type == AttentionType::mla) {
    const AttentionSpec& a = spec.attention;
    d.mla = true;
    d.latent = MlaDims{a.q_lora_rank, a.kv_lora_rank, a.qk_nope_head_dim, a.qk_rope_head_dim, a.v_head_dim};
    // After the up-projections every head has its own keys and values (multi-head).
    d.kv_heads = d.heads;
    d.head_dim = d.latent.qk_head();
  }
  return d;
}

double attention_parameter_count(const LlmDims& d) {
  const double h = static_cast<double>(d.hidden);
  const double heads = static_cast<double>(d.heads);
  if (!d.mla) {
    return h * static_cast<double>(d.q_width() + 2 * d.kv_width()) + static_cast<double>(d.q_width()) * h;
  }
  const MlaDims& m = d.latent;
  const double qk = static_cast<double>(m.qk_head());
  const double q_lora = static_cast<double>(m.q_lora);
  const double kv_lora = static_cast<double>(m.kv_lora);
  // Query: down-projection, its norm and up-projection, or one plain projection.
  const double q = m.q_lora > 0 ? h * q_lora + q_lora + q_lora * heads * qk : h * heads * qk;
  // Latent and rope key, the latent's norm, keys and values up from the latent.
  const double kv = h * (kv_lora + static_cast<double>(m.qk_rope)) + kv_lora +
                    kv_lora * heads * static_cast<double>(m.qk_nope + m.v_head);
  const double out = heads * static_cast<double>(m.v_head) * h;
  return q + kv + out;
}

double mlp_parameter_count(const LlmDims& d, std::int64_t ffn) {
  return (d.mlp == MlpKind::swiglu ? 3.0 : 2.0) * static_cast<double>(d.hidden) * static_cast<double>(ffn);
}

LayerParameters layer_parameters(const LlmDims& d, int layer) {
  const double h = static_cast<double>(d.hidden);
  // Norm weights (and LayerNorm biases); GPT's linear biases are small and left out, as
  // in the usual 12 L h^2 count.
  const double norms = (d.norm == NormKind::layernorm ? 4.0 : 2.0) * h;
  LayerParameters p;
  p.dense = attention_parameter_count(d) + norms;
  if (!d.moe_layer(layer)) {
    p.dense += mlp_parameter_count(d, d.ffn);
    return p;
  }
  const double expert = mlp_parameter_count(d, d.moe.moe_intermediate_size);
  p.dense += h * d.moe.num_experts + d.moe.n_shared_experts * expert;  // router and shared experts
  p.routed_experts = d.moe.num_experts * expert;
  return p;
}

double layer_parameter_count(const LlmDims& d) { return layer_parameters(d, 0).total(); }

namespace {

// Embedding and head tables and the final norm.
double outside_layers(const LlmDims& d) {
  const double embedding = static_cast<double>(d.vocab) * static_cast<double>(d.hidden);
  const double final_norm = (d.norm == NormKind::layernorm ? 2.0 : 1.0) * static_cast<double>(d.hidden);
  return embedding * (d.tied_embeddings ? 1.0 : 2.0) + final_norm;
}

}  // namespace

double parameter_count(const LlmDims& d) {
  double layers = 0.0;
  for (int l = 0; l < d.layers; ++l) layers += layer_parameters(d, l).total();
  return layers + outside_layers(d);
}

double active_parameter_count(const LlmDims& d) {
  double layers = 0.0;
  for (int l = 0; l < d.layers; ++l) {
    const LayerParameters p = layer_parameters(d, l);
    layers += p.dense + (p.routed_experts > 0.0 ? d.moe.top_k * mlp_parameter_count(d, d.moe.moe_intermediate_size) : 0.0);
  }
  return layers + outside_layers(d);
}

}  // namespace rapidllm::model
