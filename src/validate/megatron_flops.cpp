#include "validate/megatron_flops.hpp"

#include <algorithm>

namespace rapidllm::validate {

namespace {

double dense_flops(const LlmModelSpec& m) {
  const double h = static_cast<double>(m.hidden_dim);
  const double s = static_cast<double>(m.seq_len);
  const double ratio = static_cast<double>(m.attention.kv_heads) / m.attention.num_heads;
  const double gated = m.model_type == "llama" ? 1.5 : 1.0;
  return 12.0 * static_cast<double>(m.global_batch_size) * s * m.num_layers * h * h *
         ((1.0 + ratio + s / h) + static_cast<double>(m.intermediate_size) / h * gated +
          static_cast<double>(m.vocab_size) / (2.0 * m.num_layers * h));
}

// Per token and summed over `layers`: Megatron's MLA projections and core attention
// (forward + backward = 3, FMA = 2).
double mla_attention(const LlmModelSpec& m, double layers) {
  const AttentionSpec& at = m.attention;
  const double h = static_cast<double>(m.hidden_dim);
  const double s = static_cast<double>(m.seq_len);
  const double a = at.num_heads;
  const double qk = at.qk_nope_head_dim + at.qk_rope_head_dim;
  const double q = at.q_lora_rank > 0 ? at.q_lora_rank * (h + a * qk + 1.0) : h * a * qk;
  const double kv = at.kv_lora_rank * (h + a * (at.qk_nope_head_dim + at.v_head_dim) + 1.0) + h * at.qk_rope_head_dim;
  const double out = a * at.v_head_dim * h;
  const double core = s * a * qk / 2.0 + s * a * at.v_head_dim / 2.0;
  return 6.0 * layers * (q + kv + out + core);
}

// Per token and summed over `layers`: MHA/GQA projections and causal core attention.
double gqa_attention(const LlmModelSpec& m, double layers) {
  const double h = static_cast<double>(m.hidden_dim);
  const double s = static_cast<double>(m.seq_len);
  const double a = m.attention.num_heads;
  const double d = m.attention.head_dim ? *m.attention.head_dim : h / a;
  const double g = m.attention.kv_heads;
  return 12.0 * layers * h * h * ((1.0 + g / a + s / h / 2.0) * (a * d / h));
}

}  // namespace

double megatron_flops(const LlmModelSpec& m, int mtp_depth) {
  const bool moe = m.moe.num_experts > 1;
  if (!moe && m.attention.type != AttentionType::mla) return dense_flops(m);
  const double h = static_cast<double>(m.hidden_dim);
  const int freq = std::max(m.moe.moe_layer_freq, 1);
  const auto is_moe = [&](int layer) { return moe && layer >= m.moe.first_k_dense_replace && layer % freq == 0; };
  int moe_layers = 0;
  for (int i = 0; i < m.num_layers; ++i) moe_layers += is_moe(i) ? 1 : 0;
  // The MTP layers are of the last layer's kind.
  if (is_moe(m.num_layers - 1)) moe_layers += mtp_depth;
  const double layers = m.num_layers + mtp_depth;
  const double dense_layers = layers - moe_layers;
  const double gated = m.model_type == "gpt" ? 1.0 : 1.5;
  const double expert = static_cast<double>(m.moe.moe_intermediate_size);
  const double mlp = 12.0 * h * gated *
                     (static_cast<double>(m.intermediate_size) * dense_layers +
                      expert * (m.moe.top_k + m.moe.n_shared_experts) * moe_layers);
  const double attention =
      m.attention.type == AttentionType::mla ? mla_attention(m, layers) : gqa_attention(m, layers);
  const double mtp = 6.0 * mtp_depth * (3.0 * h + 2.0 * h * h);
  const double logits = 6.0 * h * static_cast<double>(m.vocab_size) * (mtp_depth + 1);
  return static_cast<double>(m.global_batch_size) * static_cast<double>(m.seq_len) * (mlp + attention + mtp + logits);
}

}  // namespace rapidllm::validate
