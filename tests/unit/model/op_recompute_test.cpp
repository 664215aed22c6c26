// torchtitan's selective op checkpointing: which share of each forward op backward recomputes.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "llama_dims.hpp"
#include "memory/activation_memory.hpp"
#include "model/layer_ops.hpp"
#include "model/op_recompute.hpp"

namespace rapidllm::model {
namespace {

LlmDims llama() { return testing::llama3_8b_dims(); }

LocalShape shape() {
  LocalShape s;
  s.micro_batch = 2;
  s.seq = 8192;
  return s;
}

double share_of(const std::vector<Op>& ops, const std::vector<double>& shares, const std::string& name) {
  for (std::size_t i = 0; i < ops.size(); ++i) {
    if (ops[i].name == name) return shares[i];
  }
  ADD_FAILURE() << "no op " << name;
  return -1.0;
}

// The layer's matmuls in call order are wq, wk, wv, wo, w1, w3, w2: the second, fourth and
// sixth (wk, wo, w3) are recomputed. wk is 1024 of QKV's 4096 + 1024 + 1024 columns, w3 half
// of the fused gate/up GEMM. Attention is saved; every memory-bound op is recomputed.
TEST(OpRecompute, EverySecondMatmulOfALlamaLayerAndItsOtherOps) {
  const std::vector<Op> ops = transformer_layer_ops(llama(), shape());
  const std::vector<double> shares = op_recompute_shares(ops);
  ASSERT_EQ(shares.size(), ops.size());
  EXPECT_DOUBLE_EQ(share_of(ops, shares, "qkv_projection"), 1024.0 / 6144.0);
  EXPECT_DOUBLE_EQ(share_of(ops, shares, "output_projection"), 1.0);
  EXPECT_DOUBLE_EQ(share_of(ops, shares, "mlp_gate_up"), 0.5);
  EXPECT_DOUBLE_EQ(share_of(ops, shares, "mlp_down"), 0.0);
  EXPECT_DOUBLE_EQ(share_of(ops, shares, "attention"), 0.0);
  EXPECT_DOUBLE_EQ(share_of(ops, shares, "attention_norm"), 1.0);
  EXPECT_DOUBLE_EQ(share_of(ops, shares, "swiglu"), 1.0);
  EXPECT_DOUBLE_EQ(share_of(ops, shares, "mlp_residual"), 1.0);
}

// A GPT layer (wq wk wv wo up down): wk, wo and down are recomputed.
TEST(OpRecompute, AGptLayerRecomputesItsDownProjection) {
  LlmDims d = llama();
  d.kv_heads = d.heads;
  d.mlp = MlpKind::gelu;
  d.norm = NormKind::layernorm;
  d.rope = false;
  const std::vector<Op> ops = transformer_layer_ops(d, shape());
  const std::vector<double> shares = op_recompute_shares(ops);
  EXPECT_DOUBLE_EQ(share_of(ops, shares, "qkv_projection"), 1.0 / 3.0);
  EXPECT_DOUBLE_EQ(share_of(ops, shares, "mlp_up"), 0.0);
  EXPECT_DOUBLE_EQ(share_of(ops, shares, "mlp_down"), 1.0);
}

// Saved per token (bf16, no parallelism): the layer input h, Q and V (4096 + 1024), the
// attention output 4096, the gate 14336 and down 4096 outputs, 2 bytes each, plus the fp32
// log-sum-exp per head.
TEST(OpRecompute, TheLayerKeepsItsInputAndTheSavedOpsOutputs) {
  memory::ActivationOptions o;
  o.recompute = memory::Recompute::op_level;
  const double tokens = 2.0 * 8192.0;
  const double per_token = 2.0 * (4096 + 4096 + 1024 + 4096 + 14336 + 4096) + 32 * 4.0;
  EXPECT_DOUBLE_EQ(memory::layer_activation_bytes(llama(), shape(), o), tokens * per_token);
  o.recompute = memory::Recompute::none;
  EXPECT_GT(memory::layer_activation_bytes(llama(), shape(), o), 2.0 * tokens * per_token);
}

}  // namespace
}  // namespace rapidllm::model
