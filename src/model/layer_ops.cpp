#include "model/layer_ops.hpp"

#include <algorithm>

#include "model/elementwise_ops.hpp"
#include "model/mla_ops.hpp"
#include "model/moe_ops.hpp"
#include "model/op_factory.hpp"
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
    case OpClass::router: return "compute.moe_router";
    case OpClass::experts: return "compute.moe_experts";
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
double as_double(std::int64_t v) { return static_cast<double>(v); }

// Multi-head or grouped-query attention: QKV projection, rope, attention, output projection.
void append_attention_ops(const LlmDims& d, const LocalShape& s, std::vector<Op>& ops) {
  const std::int64_t t = s.tokens();
  const TpShare share = tp_share(d, s.tp);
  const std::int64_t heads = share.heads;
  const std::int64_t kv_heads = share.kv_heads;
  const std::int64_t q_cols = heads * d.head_dim;
  const std::int64_t kv_cols = kv_heads * d.head_dim;
  ops.push_back(gemm_op("qkv_projection", OpClass::qkv_projection, TpRole::column, t, q_cols + 2 * kv_cols, d.hidden));
  ops.back().matmul_columns = {q_cols, kv_cols, kv_cols};  // wq, wk, wv
  if (s.fp8_linears) ops.push_back(fp8_casts("qkv_fp8_casts", as_double(t), d.hidden, q_cols + 2 * kv_cols, true));
  if (d.rope) {
    ops.push_back(rotary_op("rotary_embedding", as_double(t) * as_double(q_cols + kv_cols), 2, s));
  }
  Op attention = attention_op(d, s, heads, kv_heads, d.head_dim);
  ops.push_back(attention);
  ops.push_back(gemm_op("output_projection", OpClass::output_projection, TpRole::row, t, d.hidden, q_cols));
  if (s.fp8_linears) ops.push_back(fp8_casts("output_projection_fp8_casts", as_double(t), q_cols, d.hidden, false));
}

// Per logit of e bytes: HBM bytes read + written forward and backward, and kernels each way.
struct LossPasses {
  double forward_bytes, backward_bytes;
  int forward_kernels, backward_kernels;
};

LossPasses loss_passes(CrossEntropyKernel kernel, double e) {
  switch (kernel) {
    case CrossEntropyKernel::fused:
      // One kernel reads the logits (running max and sum of exponentials, the target logit)
      // and writes softmax - onehot over them in place; backward scales it.
      return {e, 2.0 * e, 1, 1};
    case CrossEntropyKernel::megatron:
      // Megatron-Core's vocabulary-parallel cross-entropy (core/fusions/fused_cross_entropy.py,
      // r0.8+) with each step compiled: the fp32 upcast with the row max (reads e, writes 4),
      // the shift, exponentials and their sum (reads 4, writes 4), the softmax division
      // (reads 4, writes 4); backward subtracts the one-hot, scales and casts back in one
      // (reads 4, writes e).
      return {e + 20.0, 4.0 + e, 3, 1};
    case CrossEntropyKernel::megatron_unfused:
      // The same steps one PyTorch op each (tensor_parallel/cross_entropy.py; Megatron-LM's
      // default, and its 2020 code): .float() (e + 4), the row max (4), the in-place shift
      // (8), exp (8), the row sum (4), the softmax division (8); backward the in-place
      // scaling by the loss gradient (8) and .float()'s backward cast (4 + e).
      return {e + 36.0, 12.0 + e, 6, 2};
    case CrossEntropyKernel::eager:
      // F.cross_entropy(logits.float(), labels): the upcast reads e and writes 4, log-softmax
      // reads 4 three times (a vocabulary row is too wide for one pass: its max, its sum of
      // exponentials, then the output) and writes 4, the target gather is one value per token
      // (3 kernels). Backward: the gather's gradient is written dense (4; a fill and a
      // scatter), log-softmax's backward reads that gradient twice (its row sum, then the
      // output pass) and its output once and writes 4, the upcast's backward reads 4 and
      // writes e (4 kernels). Measured on one H100 (validation/kernels/measured/h100/
      // memory_kernels.csv, 4096 x 128256 and 8192 x 50304 bf16 logits): the time of 25.3 and
      // 26.2 bytes per logit at the streaming rate, for these 22 and 26.
      return {e + 20.0, 24.0 + e, 3, 4};
  }
  return {e, 2.0 * e, 1, 1};
}

Op cross_entropy_op(CrossEntropyKernel kernel, double logits, double e) {
  const LossPasses passes = loss_passes(kernel, e);
  // The passes are in bytes per logit already: one "element" is one byte.
  Op loss = memory_op("cross_entropy", OpClass::loss, logits * passes.forward_bytes, logits * passes.backward_bytes, 1.0);
  loss.forward_kernels = passes.forward_kernels;
  loss.backward_kernels = passes.backward_kernels;
  return loss;
}

}  // namespace

Op attention_op(const LlmDims& d, const LocalShape& s, std::int64_t heads, std::int64_t kv_heads,
                std::int64_t head_dim) {
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
                                       head_dim, !s.decode, d.flash_attention || s.decode, d.attention_tile,
                                       s.element_bytes, s.kv_element_bytes};
  if (!s.decode) attention.attention.window = s.window;
  return attention;
}

void append_mlp_ops(const LlmDims& d, const LocalShape& s, std::int64_t ffn, const MlpNames& names,
                    std::vector<Op>& ops) {
  const std::int64_t t = s.tokens();
  const double eb = s.element_bytes;
  const double act = as_double(t) * as_double(ffn);
  if (d.mlp == MlpKind::swiglu) {
    ops.push_back(gemm_op(names.up, OpClass::mlp, TpRole::column, t, 2 * ffn, d.hidden));
    ops.back().matmul_columns = {ffn, ffn, 0};  // gate (w1), up (w3)
    if (s.fp8_linears) ops.push_back(fp8_casts(names.up_casts, as_double(t), d.hidden, 2 * ffn, true));
    ops.push_back(swiglu_op(names.activation, OpClass::elementwise, act, s));
  } else {
    ops.push_back(gemm_op(names.up, OpClass::mlp, TpRole::column, t, ffn, d.hidden));
    if (s.fp8_linears) ops.push_back(fp8_casts(names.up_casts, as_double(t), d.hidden, ffn, true));
    ops.push_back(memory_op(names.activation, OpClass::elementwise, 2 * act, 3 * act, eb));
  }
  ops.push_back(gemm_op(names.down, OpClass::mlp, TpRole::row, t, d.hidden, ffn));
  if (s.fp8_linears) ops.push_back(fp8_casts(names.down_casts, as_double(t), ffn, d.hidden, false));
}

std::vector<Op> transformer_layer_ops(const LlmDims& d, const LocalShape& s, bool moe) {
  const double nt = as_double(s.norm_tokens());
  const double h = as_double(d.hidden);
  const double eb = s.element_bytes;

  std::vector<Op> ops;
  ops.reserve(moe ? 24 : 14);
  ops.push_back(norm_op("attention_norm", d.norm, nt * h, s));
  if (d.mla) {
    append_mla_ops(d, s, ops);
  } else {
    append_attention_ops(d, s, ops);
  }
  // Residual add (read two, write one) and the pre-MLP norm; backward adds the residual
  // gradient to the branch gradient.
  ops.push_back(memory_op("attention_residual", OpClass::elementwise, 3 * nt * h, 2 * nt * h, eb));
  ops.push_back(norm_op("mlp_norm", d.norm, nt * h, s));
  if (moe) {
    append_moe_ops(d, s, ops);
  } else {
    const bool gated = d.mlp == MlpKind::swiglu;
    append_mlp_ops(d, s, tp_share(d, s.tp).ffn,
                   MlpNames{gated ? "mlp_gate_up" : "mlp_up", gated ? "mlp_gate_up_fp8_casts" : "mlp_up_fp8_casts",
                            gated ? "swiglu" : "gelu", "mlp_down", "mlp_down_fp8_casts"},
                   ops);
  }
  ops.push_back(memory_op("mlp_residual", OpClass::elementwise, 3 * nt * h, 2 * nt * h, eb));
  return ops;
}

std::vector<Op> embedding_ops(const LlmDims& d, const LocalShape& s) {
  const double nt = as_double(s.norm_tokens());
  const double h = as_double(d.hidden);
  // Gather rows (write the activations); backward scatter-adds the gradient rows into the
  // vocabulary-parallel embedding gradient.
  Op lookup = memory_op("embedding", OpClass::embedding, nt * h, 2 * nt * h, s.element_bytes);
  lookup.tp_role = TpRole::row;
  return {lookup};
}

std::vector<Op> head_ops(const LlmDims& d, const LocalShape& s, bool with_loss) {
  const double nt = as_double(s.norm_tokens());
  const double h = as_double(d.hidden);
  const std::int64_t t = s.tokens();
  const std::int64_t vocab = tp_share(d, s.tp).vocab;
  std::vector<Op> ops;
  ops.push_back(norm_op("final_norm", d.norm, nt * h, s));
  // FP8 schemes leave the output layer in 16 bits: training recipes convert the transformer
  // layers' linears only, and inference quantizers exclude lm_head by default.
  Op lm_head = gemm_op("lm_head", OpClass::lm_head, TpRole::column, t, vocab, d.hidden);
  lm_head.in_tensor_format = true;
  ops.push_back(lm_head);
  if (with_loss) {
    ops.push_back(cross_entropy_op(s.cross_entropy, as_double(t) * as_double(vocab), s.element_bytes));
  }
  return ops;
}

}  // namespace rapidllm::model
