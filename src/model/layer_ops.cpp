#include "model/layer_ops.hpp"

#include <algorithm>

#include "model/tp_share.hpp"

namespace rapidllm::model {

std::string_view compute_category(OpClass c) {
  switch (c) {
    case OpClass::qkv_projection: return "compute.qkv_projection";
    case OpClass::attention: return "compute.attention";
    case OpClass::output_projection: return "compute.output_projection";
    case OpClass::mlp: return "compute.mlp";
    case OpClass::elementwise: return "compute.norm_elementwise";
    case OpClass::embedding: return "compute.embedding";
    case OpClass::lm_head: return "compute.lm_head";
    case OpClass::loss: return "compute.loss";
  }
  return "compute.?";
}

std::string_view to_string(OpClass c) { return compute_category(c).substr(std::string_view("compute.").size()); }

std::int64_t LocalShape::tokens() const {
  if (decode) return micro_batch;
  return micro_batch * ((seq + cp - 1) / cp);  // the busiest CP rank (training requires cp | seq)
}

std::int64_t LocalShape::norm_tokens() const { return sequence_parallel ? tokens() / tp : tokens(); }

namespace {

Op gemm(std::string_view name, OpClass cls, TpRole role, std::int64_t m, std::int64_t n, std::int64_t k) {
  Op op;
  op.name = name;
  op.cls = cls;
  op.kind = OpKind::gemm;
  op.tp_role = role;
  op.gemm = GemmShape{m, n, k, 1};
  return op;
}

// A memory-bound kernel: `reads` + `writes` elements forward; backward moves `bwd`
// elements (its gradient inputs, saved tensors and gradient outputs).
Op memory(std::string_view name, OpClass cls, double reads_writes, double bwd, double element_bytes) {
  Op op;
  op.name = name;
  op.cls = cls;
  op.kind = OpKind::memory;
  op.forward_bytes = reads_writes * element_bytes;
  op.backward_bytes = bwd * element_bytes;
  return op;
}

double as_double(std::int64_t v) { return static_cast<double>(v); }

// The FP8 casts around a linear layer with input T x K and output T x N (Transformer
// Engine): forward quantizes the input (read 2 B, write 1 B per element) unless the
// preceding norm already wrote FP8 (TE's fused LayerNormLinear); backward cast-transposes
// the output gradient (read 2 B, write 1 B twice) and transposes the saved FP8 input
// (read and write 1 B).
Op fp8_casts(std::string_view name, std::int64_t tokens, std::int64_t k, std::int64_t n, bool input_from_norm) {
  const double t = as_double(tokens);
  Op op;
  op.name = name;
  op.cls = OpClass::elementwise;
  op.kind = OpKind::memory;
  op.forward_bytes = input_from_norm ? 0.0 : 3.0 * t * as_double(k);
  op.backward_bytes = 4.0 * t * as_double(n) + 2.0 * t * as_double(k);
  return op;
}

}  // namespace

std::vector<Op> transformer_layer_ops(const LlmDims& d, const LocalShape& s) {
  const std::int64_t t = s.tokens();
  const double nt = as_double(s.norm_tokens());
  const double h = as_double(d.hidden);
  const double eb = s.element_bytes;
  const TpShare share = tp_share(d, s.tp);
  const std::int64_t heads = share.heads;
  const std::int64_t kv_heads = share.kv_heads;
  const std::int64_t q_cols = heads * d.head_dim;
  const std::int64_t kv_cols = kv_heads * d.head_dim;
  const std::int64_t ffn = share.ffn;

  std::vector<Op> ops;
  ops.reserve(14);
  // Pre-attention norm: read x, write normed x; backward reads x, dy and writes dx.
  ops.push_back(memory("attention_norm", OpClass::elementwise, 2 * nt * h, 3 * nt * h, eb));
  ops.push_back(gemm("qkv_projection", OpClass::qkv_projection, TpRole::column, t, q_cols + 2 * kv_cols, d.hidden));
  if (s.fp8_linears) ops.push_back(fp8_casts("qkv_fp8_casts", t, d.hidden, q_cols + 2 * kv_cols, true));
  if (d.rope) {
    const double qk = as_double(t) * as_double(q_cols + kv_cols);
    ops.push_back(memory("rotary_embedding", OpClass::elementwise, 2 * qk, 2 * qk, eb));
  }
  Op attention;
  attention.name = "attention";
  attention.cls = OpClass::attention;
  attention.kind = OpKind::attention;
  // Decode: the cached tokens a query attends to, split by position over the CP ranks.
  const std::int64_t cached = s.window > 0 ? std::min(s.kv_len, s.window) : s.kv_len;
  const std::int64_t decode_kv = (cached + s.cp - 1) / s.cp;
  attention.attention = AttentionShape{s.micro_batch, heads, kv_heads,
                                       s.decode ? 1 : (s.seq + s.cp - 1) / s.cp,
                                       s.decode ? decode_kv : s.seq,
                                       d.head_dim, !s.decode, d.flash_attention || s.decode, d.attention_tile,
                                       s.element_bytes, s.kv_element_bytes};
  if (!s.decode) attention.attention.window = s.window;
  ops.push_back(attention);
  ops.push_back(gemm("output_projection", OpClass::output_projection, TpRole::row, t, d.hidden, q_cols));
  if (s.fp8_linears) ops.push_back(fp8_casts("output_projection_fp8_casts", t, q_cols, d.hidden, false));
  // Residual add (read two, write one) and the pre-MLP norm; backward adds the residual
  // gradient to the branch gradient.
  ops.push_back(memory("attention_residual", OpClass::elementwise, 3 * nt * h, 2 * nt * h, eb));
  ops.push_back(memory("mlp_norm", OpClass::elementwise, 2 * nt * h, 3 * nt * h, eb));
  const double act = as_double(t) * as_double(ffn);
  if (d.mlp == MlpKind::swiglu) {
    ops.push_back(gemm("mlp_gate_up", OpClass::mlp, TpRole::column, t, 2 * ffn, d.hidden));
    if (s.fp8_linears) ops.push_back(fp8_casts("mlp_gate_up_fp8_casts", t, d.hidden, 2 * ffn, true));
    // silu(gate) * up: read 2, write 1; backward reads gate, up, dy and writes dgate, dup.
    ops.push_back(memory("swiglu", OpClass::elementwise, 3 * act, 5 * act, eb));
  } else {
    ops.push_back(gemm("mlp_up", OpClass::mlp, TpRole::column, t, ffn, d.hidden));
    if (s.fp8_linears) ops.push_back(fp8_casts("mlp_up_fp8_casts", t, d.hidden, ffn, true));
    ops.push_back(memory("gelu", OpClass::elementwise, 2 * act, 3 * act, eb));
  }
  ops.push_back(gemm("mlp_down", OpClass::mlp, TpRole::row, t, d.hidden, ffn));
  if (s.fp8_linears) ops.push_back(fp8_casts("mlp_down_fp8_casts", t, ffn, d.hidden, false));
  ops.push_back(memory("mlp_residual", OpClass::elementwise, 3 * nt * h, 2 * nt * h, eb));
  return ops;
}

std::vector<Op> embedding_ops(const LlmDims& d, const LocalShape& s) {
  const double nt = as_double(s.norm_tokens());
  const double h = as_double(d.hidden);
  // Gather rows (write the activations); backward scatter-adds the gradient rows into the
  // vocabulary-parallel embedding gradient.
  Op lookup = memory("embedding", OpClass::embedding, nt * h, 2 * nt * h, s.element_bytes);
  lookup.tp_role = TpRole::row;
  return {lookup};
}

std::vector<Op> head_ops(const LlmDims& d, const LocalShape& s, bool with_loss) {
  const double nt = as_double(s.norm_tokens());
  const double h = as_double(d.hidden);
  const std::int64_t t = s.tokens();
  const std::int64_t vocab = tp_share(d, s.tp).vocab;
  std::vector<Op> ops;
  ops.push_back(memory("final_norm", OpClass::elementwise, 2 * nt * h, 3 * nt * h, s.element_bytes));
  ops.push_back(gemm("lm_head", OpClass::lm_head, TpRole::column, t, vocab, d.hidden));
  if (with_loss) {
    // Vocabulary-parallel cross-entropy: read the logits for max, sum-exp and the target
    // logit (fused), backward writes softmax - onehot over the logits.
    const double logits = as_double(t) * as_double(vocab);
    ops.push_back(memory("cross_entropy", OpClass::loss, logits, 2 * logits, s.element_bytes));
  }
  return ops;
}

}  // namespace rapidllm::model
