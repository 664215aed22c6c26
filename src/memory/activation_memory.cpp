#include "memory/activation_memory.hpp"

#include "model/moe_ops.hpp"
#include "model/tp_share.hpp"

namespace rapidllm::memory {

double layer_activation_bytes(const model::LlmDims& d, const model::LocalShape& s, const ActivationOptions& o,
                              bool moe) {
  const double e = s.element_bytes;
  const double tokens = static_cast<double>(s.tokens());   // s b (per CP rank)
  const double t = s.tp;
  // Tensors on the residual stream: replicated across TP unless SP shards them.
  const double stream = s.sequence_parallel ? tokens / t : tokens;
  const double h = static_cast<double>(d.hidden);
  if (o.recompute == Recompute::full) return stream * h * e;  // the layer input only

  const auto kv_heads = static_cast<double>(model::local_kv_heads(d.kv_heads, s.tp));
  const double q = static_cast<double>(d.q_width()) / t;
  const double kv = kv_heads * static_cast<double>(d.head_dim);
  const double f = static_cast<double>(d.ffn) / t;
  const double mask = o.dropout ? 1.0 : 0.0;  // bytes per element of a dropout mask
  const double lse = tokens * static_cast<double>(d.heads) / t * 4.0;  // fused attention's fp32 log-sum-exp

  if (o.recompute == Recompute::op_level) {
    // Dense layers only (the partition refuses the rest). Saved: the layer input, the outputs
    // of the odd-numbered matmuls (Q and V of Q, K, V; SwiGLU's gate and down projections of
    // wq wk wv wo w1 w3 w2, a GPT MLP's up projection of wq wk wv wo up down) and attention's
    // output with its log-sum-exp. The rest is recomputed from them.
    const bool gated = d.mlp == model::MlpKind::swiglu;
    return stream * h * e + tokens * (2.0 * q + kv) * e + (d.flash_attention ? lse : 0.0) +
           tokens * (gated ? f + h : f) * e;
  }

  double bytes = 0.0;
  bytes += 2.0 * stream * h * e;                   // inputs of the two norms
  // Their saved statistics per token: the reciprocal RMS (LayerNorm: and the mean).
  bytes += 2.0 * stream * (d.norm == model::NormKind::rmsnorm ? 1.0 : 2.0) * o.stats_bytes;
  bytes += 2.0 * stream * h * e;                   // inputs of the QKV and first MLP GEMMs
  if (d.mla) {
    const model::MlaDims& m = d.latent;
    const double heads = static_cast<double>(d.heads) / t;
    bytes += tokens * static_cast<double>(m.q_lora + m.kv_lora + m.qk_rope) * e;  // latents (up-projection inputs)
    bytes += tokens * heads * static_cast<double>(2 * m.qk_head() + m.v_head) * e;  // Q, K, V
    bytes += tokens * heads * static_cast<double>(m.v_head) * e;                    // attention output
  } else {
    bytes += tokens * (q + 2.0 * kv) * e;            // Q, K, V
    bytes += tokens * q * e;                         // attention output = output-projection input
  }
  bytes += 2.0 * stream * h * mask;                // dropout masks after attention and MLP
  if (d.flash_attention) {
    bytes += lse;
  } else if (o.recompute != Recompute::selective) {
    // Scores: softmax output, dropout mask and dropout output per (head, query, key).
    const double scores = tokens * static_cast<double>(d.heads) / t * static_cast<double>(s.seq);
    bytes += scores * (e + (o.dropout ? mask + e : 0.0));  // 5 a s^2 b with dropout, 2 a s^2 b without
  }
  const double per_width = d.mlp == model::MlpKind::swiglu ? 3.0 : 2.0;  // gate, up, product / input, output
  if (!moe) return bytes + tokens * f * per_width * e;
  const model::ExpertLoad load = model::expert_load(d, s);
  const double rows = load.rows * load.hot_rank_factor;
  const double routed_tokens = static_cast<double>(s.ep > 1 ? s.norm_tokens() : s.tokens());
  bytes += routed_tokens * d.moe.num_experts * 4.0;                        // fp32 router scores
  bytes += 2.0 * rows * h * e;                                         // expert inputs and outputs
  bytes += rows * static_cast<double>(load.ffn) * per_width * e;       // expert intermediates
  bytes += tokens * static_cast<double>(d.moe.n_shared_experts * d.moe.moe_intermediate_size) / t * per_width * e;  // shared experts
  return bytes;
}

}  // namespace rapidllm::memory
