// A stack that loops over the local experts on the host (Transformer Engine's GroupedLinear:
// a quantize and a GEMM call per expert): the MoE ops say how many calls each pass makes,
// and the coster holds each pass to calls x sw_param.expert_call_overhead.
#include <gtest/gtest.h>

#include <map>
#include <string>
#include <vector>

#include "compute/op_coster.hpp"
#include "model/llm_dims.hpp"
#include "model/moe_ops.hpp"
#include "rapidllm/config.hpp"

namespace rapidllm::model {
namespace {

// Qwen3-30B-A3B's MoE layer: 128 experts of width 768 on hidden 2048, top 8.
LlmDims qwen3_30b() {
  LlmModelSpec m;
  m.model_type = "llama";
  m.hidden_dim = 2048;
  m.num_layers = 48;
  m.attention.type = AttentionType::gqa;
  m.attention.num_heads = 32;
  m.attention.kv_heads = 4;
  m.attention.head_dim = 128;
  m.moe.num_experts = 128;
  m.moe.top_k = 8;
  m.moe.moe_intermediate_size = 768;
  m.intermediate_size = 768;
  m.vocab_size = 151936;
  m.seq_len = 4096;
  return llm_dims(m, "qwen3-30b-a3b");
}

LocalShape one_sequence_over_ep8(bool fp8) {
  LocalShape s;
  s.micro_batch = 1;
  s.seq = 4096;
  s.ep = 8;
  s.fp8_linears = fp8;
  return s;
}

std::map<std::string, std::int64_t> calls_by_op(bool fp8) {
  std::vector<Op> ops;
  append_moe_ops(qwen3_30b(), one_sequence_over_ep8(fp8), ops);
  std::map<std::string, std::int64_t> calls;
  for (const Op& op : ops) calls[std::string(op.name)] += op.expert_calls;
  return calls;
}

TEST(ExpertCalls, EachExpertPassIsOneCallPerLocalExpert) {
  // 128 experts over ep 8: 16 local experts, one call each per GEMM and per FP8 cast.
  const auto fp8 = calls_by_op(true);
  EXPECT_EQ(fp8.at("moe_expert_up"), 16);
  EXPECT_EQ(fp8.at("moe_expert_down"), 16);
  EXPECT_EQ(fp8.at("moe_expert_up_fp8_casts"), 16);
  EXPECT_EQ(fp8.at("moe_expert_down_fp8_casts"), 16);
  // The router, the permutes and the activation run once for all experts.
  EXPECT_EQ(fp8.at("moe_router"), 0);
  EXPECT_EQ(fp8.at("moe_permute"), 0);
  EXPECT_EQ(fp8.at("moe_unpermute"), 0);
  EXPECT_EQ(fp8.at("moe_swiglu"), 0);
  EXPECT_EQ(calls_by_op(false).count("moe_expert_up_fp8_casts"), 0U);
}

// The up projection's GEMMs: the hot expert's group and the other 15 (expert_load's
// one-hot split), summed as a step sums them.
compute::OpTime up_projection(const HardwareSpec& hw) {
  std::vector<Op> ops;
  append_moe_ops(qwen3_30b(), one_sequence_over_ep8(false), ops);
  compute::OpCoster coster(hw, DType::bf16, DType::bf16);
  compute::OpTime sum;
  for (const Op& op : ops) {
    if (op.name != "moe_expert_up") continue;
    const compute::OpTime t = coster.time(op);
    sum.forward_s += t.forward_s;
    sum.backward_s += t.backward_s;
    sum.weight_grad_s += t.weight_grad_s;
  }
  return sum;
}

TEST(ExpertCalls, APassLastsAtLeastItsCalls) {
  HardwareSpec hw = load_hardware(std::string(RAPIDLLM_SOURCE_DIR) + "/configs/hardware/H100_SXM5_80GB.yaml");
  hw.sw.kernel_launch_overhead_s = 0.0;
  hw.sw.expert_call_overhead_s = 0.0;
  const compute::OpTime kernels = up_projection(hw);
  // 16 experts x 2048 rows x 1536 x 2048: some 100 GFLOP, well under 16 x 50 us on an H100.
  ASSERT_LT(kernels.forward_s, 16 * 50e-6);
  hw.sw.expert_call_overhead_s = 50e-6;
  const compute::OpTime looped = up_projection(hw);
  EXPECT_NEAR(looped.forward_s, 16 * 50e-6, 1e-12);
  EXPECT_NEAR(looped.weight_grad_s, 16 * 50e-6, 1e-12);  // the wgrad GEMMs, one call each
  EXPECT_NEAR(looped.backward_s, 2 * 16 * 50e-6, 1e-12);  // and the dgrad ones
  // A per-expert time below the kernels' own changes nothing.
  hw.sw.expert_call_overhead_s = 1e-9;
  EXPECT_DOUBLE_EQ(up_projection(hw).forward_s, kernels.forward_s);
}

}  // namespace
}  // namespace rapidllm::model
