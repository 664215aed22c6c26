#include "model/llm_dims.hpp"

#include <fmt/format.h>

#include "rapidllm/error.hpp"

namespace rapidllm::model {

LlmDims llm_dims(const LlmModelSpec& spec, const std::string& source) {
  const auto unsupported = [&](const char* key, const std::string& what) {
    throw ConfigError(SourceLocation{source, 0, 0, {}}, key, what,
                      "this version models dense decoder-only transformers with MHA/GQA/MQA attention");
  };
  if (spec.moe.num_experts > 1) {
    unsupported("model_param.moe.num_experts",
                fmt::format("mixture-of-experts models ({} experts) are not supported yet", spec.moe.num_experts));
  }
  if (spec.attention.type == AttentionType::mla) {
    unsupported("model_param.attention.attention_type", "multi-head latent attention (mla) is not supported yet");
  }
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
  return d;
}

double layer_parameter_count(const LlmDims& d) {
  const double h = static_cast<double>(d.hidden);
  const double attention = h * static_cast<double>(d.q_width() + 2 * d.kv_width()) + static_cast<double>(d.q_width()) * h;
  const double mlp = (d.mlp == MlpKind::swiglu ? 3.0 : 2.0) * h * static_cast<double>(d.ffn);
  // Norm weights (and LayerNorm biases); GPT's linear biases are small and left out, as
  // in the usual 12 L h^2 count.
  const double norms = (d.norm == NormKind::layernorm ? 4.0 : 2.0) * h;
  return attention + mlp + norms;
}

double parameter_count(const LlmDims& d) {
  const double embedding = static_cast<double>(d.vocab) * static_cast<double>(d.hidden);
  const double final_norm = (d.norm == NormKind::layernorm ? 2.0 : 1.0) * static_cast<double>(d.hidden);
  return d.layers * layer_parameter_count(d) + embedding * (d.tied_embeddings ? 1.0 : 2.0) + final_norm;
}

}  // namespace rapidllm::model
