// Memory terms against their closed forms.
#include <gtest/gtest.h>

#include "memory/activation_memory.hpp"
#include "memory/inference_memory.hpp"
#include "memory/training_memory.hpp"
#include "rapidllm/config.hpp"

namespace rapidllm::memory {
namespace {

double category(const MemoryBreakdown& m, const std::string& name) {
  for (const auto& [n, b] : m.bytes) {
    if (n == name) return b;
  }
  ADD_FAILURE() << "no category " << name;
  return 0.0;
}

HardwareSpec mixed_precision_adam() {
  HardwareSpec hw = load_hardware(std::string(RAPIDLLM_SOURCE_DIR) + "/configs/hardware/H100_SXM5_80GB.yaml");
  auto& p = hw.sw.precision;
  p.parameters = Precision{2.0, DType::bf16};        // 2: bf16 weights
  p.gradients = Precision{2.0, DType::bf16};         // 2: bf16 gradients
  p.master_parameters_bytes = 4.0;                   // 4: fp32 master weights
  p.optimizer_states = Precision{4.0, DType::fp32};  // 4 + 4: Adam's two fp32 moments
  hw.sw.const_mem_offset_bytes = 0.0;
  return hw;
}

TEST(MemoryFormulas, MixedPrecisionAdamIsSixteenBytesPerParameter) {
  const HardwareSpec hw = mixed_precision_adam();
  StageMemoryInputs in;
  in.parameters = 1e9;
  const MemoryBreakdown m = training_stage_memory(hw, in, 0, 1, 0);
  EXPECT_DOUBLE_EQ(category(m, "weights") + category(m, "gradients") + category(m, "optimizer_states"), 16e9);
}

TEST(MemoryFormulas, ZeroStagesShardTheirTerms) {
  HardwareSpec hw = mixed_precision_adam();
  StageMemoryInputs in;
  in.parameters = 1e9;
  const int dp = 8;
  hw.sw.dp_zero_stage = 1;  // optimizer states (12 B) / dp
  MemoryBreakdown z1 = training_stage_memory(hw, in, 0, dp, 0);
  EXPECT_DOUBLE_EQ(category(z1, "optimizer_states"), 12e9 / dp);
  EXPECT_DOUBLE_EQ(category(z1, "gradients"), 2e9);
  hw.sw.dp_zero_stage = 2;  // + gradients
  MemoryBreakdown z2 = training_stage_memory(hw, in, 0, dp, 0);
  EXPECT_DOUBLE_EQ(category(z2, "gradients"), 2e9 / dp);
  EXPECT_DOUBLE_EQ(category(z2, "weights"), 2e9);
  hw.sw.dp_zero_stage = 3;  // + weights, plus two gathered layers
  in.layer_parameters = 2e8;
  MemoryBreakdown z3 = training_stage_memory(hw, in, 0, dp, 0);
  EXPECT_DOUBLE_EQ(category(z3, "weights"), 2e9 / dp);
  EXPECT_DOUBLE_EQ(category(z3, "zero3_gathered_parameters"), 2 * 2e8 * 2.0);
  EXPECT_DOUBLE_EQ(z3.total_bytes, 16e9 / dp + 8e8 + 0.0);
}

model::LlmDims gpt(std::int64_t h, std::int64_t a) {
  model::LlmDims d;
  d.hidden = h;
  d.heads = a;
  d.kv_heads = a;
  d.head_dim = h / a;
  d.ffn = 4 * h;
  d.layers = 1;
  d.mlp = model::MlpKind::gelu;
  d.flash_attention = false;
  return d;
}

TEST(MemoryFormulas, GptActivationsAreKorthikantisClosedForms) {
  // Korthikanti et al. 2022, table 2, per layer with 16-bit activations and dropout, plus
  // what the paper leaves out: the two LayerNorms' fp32 mean and reciprocal deviation per
  // token, 16 bytes (sharded with the norms' inputs under sequence parallelism).
  const double s = 2048, b = 4, h = 6144, a = 48, t = 8;
  const double stats = 2 * 2 * 4 * s * b;
  const model::LlmDims d = gpt(6144, 48);
  model::LocalShape shape;
  shape.micro_batch = 4;
  shape.seq = 2048;
  shape.tp = 8;
  ActivationOptions none{Recompute::none, true};
  EXPECT_DOUBLE_EQ(layer_activation_bytes(d, shape, none), s * b * h * (10 + 24 / t + 5 * a * s / (h * t)) + stats);
  shape.sequence_parallel = true;
  EXPECT_DOUBLE_EQ(layer_activation_bytes(d, shape, none), s * b * h / t * (34 + 5 * a * s / h) + stats / t);
  ActivationOptions selective{Recompute::selective, true};
  EXPECT_DOUBLE_EQ(layer_activation_bytes(d, shape, selective), 34 * s * b * h / t + stats / t);
  ActivationOptions full{Recompute::full, true};
  EXPECT_DOUBLE_EQ(layer_activation_bytes(d, shape, full), 2 * s * b * h / t);
  shape.sequence_parallel = false;
  EXPECT_DOUBLE_EQ(layer_activation_bytes(d, shape, full), 2 * s * b * h);
  shape.tp = 1;
  EXPECT_DOUBLE_EQ(layer_activation_bytes(d, shape, none), s * b * h * (34 + 5 * a * s / h) + stats);
  // RMSNorm keeps one statistic per token, and a 2-byte stats format halves it.
  model::LlmDims rms = d;
  rms.norm = model::NormKind::rmsnorm;
  ActivationOptions half_stats{Recompute::none, true, 2.0};
  EXPECT_DOUBLE_EQ(layer_activation_bytes(rms, shape, half_stats), s * b * h * (34 + 5 * a * s / h) + stats / 4);
}

TEST(MemoryFormulas, KvCacheOfLlama3_70B) {
  model::LlmDims d;
  d.kv_heads = 8;
  d.head_dim = 128;
  // 2 (K, V) x 80 layers x 8 KV heads x 128 x 8192 tokens x 2 bytes, batch 1.
  EXPECT_DOUBLE_EQ(kv_cache_bytes(d, 80, 1, 1, 8192, 2.0), 2.0 * 80 * 8 * 128 * 8192 * 2);
  EXPECT_DOUBLE_EQ(kv_cache_bytes(d, 80, 2, 1, 8192, 2.0), 2.0 * 80 * 4 * 128 * 8192 * 2);   // TP splits KV heads
  EXPECT_DOUBLE_EQ(kv_cache_bytes(d, 80, 16, 1, 8192, 2.0), 2.0 * 80 * 1 * 128 * 8192 * 2);  // fewer KV heads than TP
}

}  // namespace
}  // namespace rapidllm::memory
