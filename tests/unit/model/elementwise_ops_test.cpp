// Fused and eager elementwise ops move the bytes counted op by op in elementwise_ops.cpp.
#include <gtest/gtest.h>

#include <map>
#include <string>

#include "compute/op_coster.hpp"
#include "llama_dims.hpp"
#include "model/elementwise_ops.hpp"
#include "model/layer_ops.hpp"
#include "rapidllm/config.hpp"

namespace rapidllm::model {
namespace {

LocalShape shape(bool eager, double element_bytes = 2.0) {
  LocalShape s;
  s.micro_batch = 1;
  s.seq = 1024;
  s.element_bytes = element_bytes;
  s.eager_elementwise = eager;
  return s;
}

TEST(ElementwiseOps, FusedOpsReadAndWriteEachTensorOnce) {
  const LocalShape s = shape(false);
  const Op norm = norm_op("norm", NormKind::rmsnorm, 1000.0, s);
  EXPECT_DOUBLE_EQ(norm.forward_bytes, 1000.0 * 2 * 2);  // x in, y out
  EXPECT_DOUBLE_EQ(norm.backward_bytes, 1000.0 * 3 * 2);  // x, dy in, dx out
  EXPECT_EQ(norm.forward_kernels, 1);
  const Op glu = swiglu_op("glu", OpClass::elementwise, 1000.0, s);
  EXPECT_DOUBLE_EQ(glu.forward_bytes, 1000.0 * 3 * 2);
  EXPECT_DOUBLE_EQ(glu.backward_bytes, 1000.0 * 5 * 2);
  const Op rope = rotary_op("rope", 1000.0, 2, s);
  EXPECT_DOUBLE_EQ(rope.forward_bytes, 1000.0 * 2 * 2);
  EXPECT_EQ(rope.backward_kernels, 1);
}

// bf16 activations (2 bytes) upcast to fp32 (4 bytes). RMSNorm forward: upcast 2 + 4, pow
// 4 + 4, mean 4, x * r 4 + 4, downcast 4 + 2, times weight 2 + 2 = 36 bytes per element in
// 8 kernels; backward 76 in 14. SiLU-then-multiply: 2 + 2 and 2 + 2 + 2 = 10, backward three
// multiplies' worth 6 + 6 + 6 = 18. Rotary: upcast 6, complex multiply 8, downcast 6 = 20
// each way, 3 kernels per tensor.
TEST(ElementwiseOps, EagerBf16OpsMoveTheirOpByOpBytes) {
  const LocalShape s = shape(true);
  const Op norm = norm_op("norm", NormKind::rmsnorm, 1000.0, s);
  EXPECT_DOUBLE_EQ(norm.forward_bytes, 36'000.0);
  EXPECT_DOUBLE_EQ(norm.backward_bytes, 76'000.0);
  EXPECT_EQ(norm.forward_kernels, 8);
  EXPECT_EQ(norm.backward_kernels, 14);
  const Op glu = swiglu_op("glu", OpClass::elementwise, 1000.0, s);
  EXPECT_DOUBLE_EQ(glu.forward_bytes, 10'000.0);
  EXPECT_DOUBLE_EQ(glu.backward_bytes, 18'000.0);
  EXPECT_EQ(glu.forward_kernels, 2);
  EXPECT_EQ(glu.backward_kernels, 3);
  const Op rope = rotary_op("rope", 1000.0, 2, s);
  EXPECT_DOUBLE_EQ(rope.forward_bytes, 20'000.0);
  EXPECT_DOUBLE_EQ(rope.backward_bytes, 20'000.0);
  EXPECT_EQ(rope.forward_kernels, 6);
}

// fp32 activations: .float() and .type_as() are no-ops, their casts and kernels drop out.
// LayerNorm is one ATen kernel each way in eager PyTorch too.
TEST(ElementwiseOps, Fp32ActivationsSkipTheCastsAndLayerNormIsOneKernelEitherWay) {
  const LocalShape s = shape(true, 4.0);
  const Op norm = norm_op("norm", NormKind::rmsnorm, 1000.0, s);
  EXPECT_DOUBLE_EQ(norm.forward_bytes, 1000.0 * (2 * 4 + 5 * 4));
  EXPECT_DOUBLE_EQ(norm.backward_bytes, 1000.0 * (6 * 4 + 13 * 4));
  EXPECT_EQ(norm.forward_kernels, 6);
  EXPECT_EQ(norm.backward_kernels, 12);
  EXPECT_DOUBLE_EQ(rotary_op("rope", 1000.0, 2, s).forward_bytes, 1000.0 * 8);
  const Op layernorm = norm_op("norm", NormKind::layernorm, 1000.0, shape(true));
  EXPECT_DOUBLE_EQ(layernorm.forward_bytes, norm_op("norm", NormKind::layernorm, 1000.0, shape(false)).forward_bytes);
  EXPECT_EQ(layernorm.forward_kernels, 1);
}

// A Llama layer's eager ops add exactly the differences above: two norms over T x h, the
// gated activation over T x ffn, rotary over T x (q + kv) columns; nothing else changes.
TEST(ElementwiseOps, AnEagerLlamaLayerAddsOnlyItsNormsActivationAndRotary) {
  const LlmDims d = testing::llama3_8b_dims();
  const auto bytes = [&](bool eager) {
    std::map<std::string, double> by_name;
    for (const Op& op : transformer_layer_ops(d, shape(eager))) {
      if (op.kind == OpKind::memory) by_name[std::string(op.name)] += op.forward_bytes + op.backward_bytes;
    }
    return by_name;
  };
  const auto fused = bytes(false);
  const auto eager = bytes(true);
  const double t = 1024.0;
  EXPECT_DOUBLE_EQ(eager.at("attention_norm") - fused.at("attention_norm"), t * 4096 * (36 + 76 - 4 - 6));
  EXPECT_DOUBLE_EQ(eager.at("mlp_norm") - fused.at("mlp_norm"), t * 4096 * (36 + 76 - 4 - 6));
  EXPECT_DOUBLE_EQ(eager.at("swiglu") - fused.at("swiglu"), t * 14336 * (10 + 18 - 6 - 10));
  EXPECT_DOUBLE_EQ(eager.at("rotary_embedding") - fused.at("rotary_embedding"), t * (4096 + 1024) * (40 - 8));
  EXPECT_DOUBLE_EQ(eager.at("attention_residual"), fused.at("attention_residual"));
  EXPECT_DOUBLE_EQ(eager.at("mlp_residual"), fused.at("mlp_residual"));
}

// The loss over T x V logits (bf16): fused, one read forward and a read and a write backward;
// eager F.cross_entropy on an fp32 upcast, 2 + 4 (upcast) + 3 x 4 + 4 (log-softmax, three
// passes over a row) forward, 4 (the gather's dense gradient) + 16 (log-softmax's backward)
// + 4 + 2 (the upcast's) backward.
TEST(ElementwiseOps, AnEagerCrossEntropyMovesItsUpcastLogSoftmaxAndGradients) {
  const LlmDims d = testing::llama3_8b_dims();
  LocalShape s = shape(false);
  const auto loss = [&](bool eager) {
    s.cross_entropy = eager ? CrossEntropyKernel::eager : CrossEntropyKernel::fused;
    for (const Op& op : head_ops(d, s, true)) {
      if (op.name == "cross_entropy") return op;
    }
    ADD_FAILURE() << "no cross_entropy op";
    return Op{};
  };
  const double logits = 1024.0 * 128256.0;
  EXPECT_DOUBLE_EQ(loss(false).forward_bytes, logits * 2);
  EXPECT_DOUBLE_EQ(loss(false).backward_bytes, logits * 4);
  const Op eager = loss(true);
  EXPECT_DOUBLE_EQ(eager.forward_bytes, logits * 22);
  EXPECT_DOUBLE_EQ(eager.backward_bytes, logits * 26);
  EXPECT_EQ(eager.forward_kernels, 3);
  EXPECT_EQ(eager.backward_kernels, 4);

  // What one H100 measured for these kernels (validation/kernels/measured/h100/
  // memory_kernels.csv, cross_entropy_fp32 rows; PyTorch 2.11): forward within 15 % (its
  // reductions run below the streaming rate), backward within 3 %.
  HardwareSpec hw = load_hardware(std::string(RAPIDLLM_SOURCE_DIR) + "/configs/hardware/H100_SXM5_80GB.yaml");
  hw.sw.kernel_launch_overhead_s = 0.0;
  const compute::OpCoster coster(hw, DType::bf16, DType::bf16);
  struct Measured {
    double logits, forward_us, backward_us;
  };
  for (const Measured& m : {Measured{4096.0 * 128256.0, 4412.7, 4557.4}, Measured{8192.0 * 50304.0, 3432.3, 3586.3}}) {
    const double forward = coster.memory_kernel_s(m.logits / logits * eager.forward_bytes, eager.forward_kernels);
    const double backward = coster.memory_kernel_s(m.logits / logits * eager.backward_bytes, eager.backward_kernels);
    EXPECT_NEAR(forward / (m.forward_us * 1e-6), 1.0, 0.15) << m.logits;
    EXPECT_NEAR(backward / (m.backward_us * 1e-6), 1.0, 0.03) << m.logits;
  }
}

// Megatron's vocabulary-parallel cross-entropy over T x V bf16 logits, from its code
// (core/tensor_parallel/cross_entropy.py): forward .float() 2 + 4, max 4, shift 4 + 4, exp
// 4 + 4, sum 4, divide 4 + 4; backward scale 4 + 4, cast back 4 + 2. Compiled
// (--cross-entropy-loss-fusion), the upcast carries the max, the shift, exp and sum are one
// pass, and backward is one: 2 + 4, 4 + 4, 4 + 4 forward, 4 + 2 backward.
TEST(ElementwiseOps, MegatronsCrossEntropyWorksOnAnFp32CopyInPasses) {
  const LlmDims d = testing::llama3_8b_dims();
  LocalShape s = shape(false);
  const auto loss = [&](CrossEntropyKernel kernel) {
    s.cross_entropy = kernel;
    for (const Op& op : head_ops(d, s, true)) {
      if (op.name == "cross_entropy") return op;
    }
    ADD_FAILURE() << "no cross_entropy op";
    return Op{};
  };
  const double logits = 1024.0 * 128256.0;
  const Op unfused = loss(CrossEntropyKernel::megatron_unfused);
  EXPECT_DOUBLE_EQ(unfused.forward_bytes, logits * (6 + 4 + 8 + 8 + 4 + 8));
  EXPECT_DOUBLE_EQ(unfused.backward_bytes, logits * (8 + 6));
  EXPECT_EQ(unfused.forward_kernels, 6);
  EXPECT_EQ(unfused.backward_kernels, 2);
  const Op compiled = loss(CrossEntropyKernel::megatron);
  EXPECT_DOUBLE_EQ(compiled.forward_bytes, logits * (6 + 8 + 8));
  EXPECT_DOUBLE_EQ(compiled.backward_bytes, logits * 6);
  EXPECT_EQ(compiled.forward_kernels, 3);
  EXPECT_EQ(compiled.backward_kernels, 1);
}

// A sequence of k memory kernels pays k DRAM latencies and lasts at least k launch gaps.
TEST(ElementwiseOps, EachEagerKernelPaysItsLatencyAndLaunch) {
  HardwareSpec hw = load_hardware(std::string(RAPIDLLM_SOURCE_DIR) + "/configs/hardware/H100_SXM5_80GB.yaml");
  hw.sw.kernel_launch_overhead_s = 10e-6;
  const compute::OpCoster coster(hw, DType::bf16, DType::bf16);
  const double bw = hw.dram().bandwidth_bytes_per_s * hw.dram().util;
  const double latency = hw.dram().latency_s;
  EXPECT_DOUBLE_EQ(coster.memory_kernel_s(1e9, 8), 1e9 / bw + 8 * latency);  // bandwidth-bound
  EXPECT_DOUBLE_EQ(coster.memory_kernel_s(1e3, 8), 8 * 10e-6);                 // launch-bound
}

}  // namespace
}  // namespace rapidllm::model
