#include "model/mla_ops.hpp"

#include "model/elementwise_ops.hpp"
#include "model/op_factory.hpp"
#include "model/tp_share.hpp"

namespace rapidllm::model {

namespace {
double as_double(std::int64_t v) { return static_cast<double>(v); }
}  // namespace

void append_mla_ops(const LlmDims& d, const LocalShape& s, std::vector<Op>& ops) {
  const MlaDims& m = d.latent;
  const std::int64_t t = s.tokens();
  const std::int64_t heads = tp_split(d.heads, s.tp, "num_heads");
  // The down-projection takes the (gathered) layer input on every TP rank: as the first
  // column-parallel GEMM of the block it carries the block's input collectives.
  const std::int64_t down = (m.q_lora > 0 ? m.q_lora : heads * m.qk_head()) + m.kv_lora + m.qk_rope;
  ops.push_back(gemm_op("mla_down_projection", OpClass::qkv_projection, TpRole::column, t, down, d.hidden));
  if (s.fp8_linears) ops.push_back(fp8_casts("mla_down_fp8_casts", as_double(t), d.hidden, down, true));
  const double latents = as_double(t) * as_double(m.q_lora + m.kv_lora);
  ops.push_back(norm_op("mla_latent_norms", d.norm, latents, s));
  if (m.q_lora > 0) {
    ops.push_back(gemm_op("mla_q_up_projection", OpClass::qkv_projection, TpRole::none, t, heads * m.qk_head(), m.q_lora));
  }
  const double rope = as_double(t) * as_double((heads + 1) * m.qk_rope);
  ops.push_back(rotary_op("rotary_embedding", rope, 2, s));
  if (!s.decode) {
    ops.push_back(gemm_op("mla_kv_up_projection", OpClass::qkv_projection, TpRole::none, t,
                          heads * (m.qk_nope + m.v_head), m.kv_lora));
    // QK over qk_nope + qk_rope dims, PV over v_head: the mean dimension gives both FLOPs.
    ops.push_back(attention_op(d, s, heads, heads, (m.qk_head() + m.v_head) / 2));
    ops.push_back(gemm_op("output_projection", OpClass::output_projection, TpRole::row, t, d.hidden, heads * m.v_head));
    if (s.fp8_linears) {
      ops.push_back(fp8_casts("output_projection_fp8_casts", as_double(t), heads * m.v_head, d.hidden, false));
    }
    return;
  }
  // Absorbed decode: per head, q_nope (1 x qk_nope) x W_uk^T (qk_nope x kv_lora).
  ops.push_back(gemm_op("mla_q_absorb", OpClass::qkv_projection, TpRole::none, t, m.kv_lora, m.qk_nope, heads));
  Op attention = attention_op(d, s, heads, 1, (m.cache_width() + m.kv_lora) / 2);
  attention.attention.cache_width = m.cache_width();
  ops.push_back(attention);
  // Per head, the latent context (1 x kv_lora) x W_uv (kv_lora x v_head).
  ops.push_back(gemm_op("mla_v_absorb", OpClass::output_projection, TpRole::none, t, m.v_head, m.kv_lora, heads));
  ops.push_back(gemm_op("output_projection", OpClass::output_projection, TpRole::row, t, d.hidden, heads * m.v_head));
}

}  // namespace rapidllm::model
