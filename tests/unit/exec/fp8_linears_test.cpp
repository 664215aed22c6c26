// FP8 linears leave the output layer in the activation format: a training recipe
// (Transformer Engine) converts its own linear layers only, and inference quantizers
// (ModelOpt, vLLM) skip lm_head.
#include <gtest/gtest.h>

#include <stdexcept>
#include <string>

#include "compute/op_coster.hpp"
#include "llm_fixtures.hpp"
#include "model/layer_ops.hpp"
#include "model/llm_dims.hpp"

namespace rapidllm::exec {
namespace {

using testing::shipped_hardware;
using testing::shipped_model;

model::LocalShape fp8_recipe_shape() {
  model::LocalShape s;
  s.micro_batch = 2;
  s.seq = 4096;
  s.fp8_linears = true;
  return s;
}

model::Op op_named(const std::vector<model::Op>& ops, std::string_view name) {
  for (const auto& op : ops) {
    if (op.name == name) return op;
  }
  throw std::runtime_error("no op named " + std::string(name));
}

TEST(Fp8Linears, OnlyTheOutputLayerStaysInTheActivationFormat) {
  const model::LlmDims d = model::llm_dims(shipped_model("llama3.1-8b"), "test");
  const model::LocalShape s = fp8_recipe_shape();
  EXPECT_TRUE(op_named(model::head_ops(d, s, true), "lm_head").in_tensor_format);
  for (const auto& op : model::transformer_layer_ops(d, s)) {
    EXPECT_FALSE(op.in_tensor_format) << op.name;
  }
  model::LocalShape inference = s;
  inference.fp8_linears = false;  // FP8 GEMMs without the training recipe's casts
  EXPECT_TRUE(op_named(model::head_ops(d, inference, false), "lm_head").in_tensor_format);
}

TEST(Fp8Linears, TheOutputLayerRunsAtTheSixteenBitRate) {
  const HardwareSpec hw = shipped_hardware("H100_SXM5_80GB");
  const model::LlmDims d = model::llm_dims(shipped_model("llama3.1-8b"), "test");
  const model::LocalShape s = fp8_recipe_shape();
  compute::OpCoster fp8_recipe(hw, DType::bf16, DType::fp8);
  compute::OpCoster fp8_only(hw, DType::fp8, DType::fp8);
  compute::OpCoster bf16_only(hw, DType::bf16, DType::bf16);

  const model::Op lm_head = op_named(model::head_ops(d, s, true), "lm_head");
  const compute::OpTime t = fp8_recipe.time(lm_head);
  EXPECT_DOUBLE_EQ(t.forward_s, bf16_only.time(lm_head).forward_s);
  EXPECT_DOUBLE_EQ(t.backward_s, bf16_only.time(lm_head).backward_s);
  // 8192 tokens x 128256 x 4096 is compute-bound: at the FP8 rate it would take about half.
  EXPECT_GT(t.forward_s, 1.7 * fp8_only.time(lm_head).forward_s);

  const model::Op up = op_named(model::transformer_layer_ops(d, s), "mlp_gate_up");
  EXPECT_DOUBLE_EQ(fp8_recipe.time(up).forward_s, fp8_only.time(up).forward_s);
}

}  // namespace
}  // namespace rapidllm::exec
