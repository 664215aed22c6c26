// tech_param.core.power_limit: a cap below max_power lowers the SM clock of compute-bound
// kernels as dynamic power ~ f^3 above the static draw; memory-bound kernels keep their
// bandwidth; the energy of an op goes as V^2 (spec_names.cpp, CoreSpec::power_capped_clock_factor).
#include <gtest/gtest.h>

#include <cmath>
#include <string>
#include <vector>

#include "compute/attention_model.hpp"
#include "compute/gemm_cache.hpp"
#include "compute/gemm_tile_model.hpp"
#include "compute/op_coster.hpp"
#include "rapidllm/config.hpp"

namespace rapidllm::compute {
namespace {

HardwareSpec h100(const std::vector<std::string>& overrides = {}) {
  return load_hardware(std::string(RAPIDLLM_SOURCE_DIR) + "/configs/hardware/H100_SXM5_80GB.yaml", overrides);
}

// Grand Teton's 500 W cap on the shipped H100 (700 W TDP, 115 W awake with no work):
// (385 / 585)^(1/3) by hand.
constexpr double kClockAt500W = 0.869831;

TEST(PowerCap, UncappedDeviceRunsItsOwnRates) {
  const HardwareSpec hw = h100();
  EXPECT_EQ(hw.core.power_limit_w, 0.0);
  EXPECT_DOUBLE_EQ(hw.core.power_capped_clock_factor(), 1.0);
  // A cap at the TDP itself changes nothing.
  EXPECT_DOUBLE_EQ(h100({"tech_param.core.power_limit=700"}).core.power_capped_clock_factor(), 1.0);
}

TEST(PowerCap, CubeRootOfTheDynamicPowerShare) {
  const HardwareSpec hw = h100({"tech_param.core.power_limit=500"});
  EXPECT_NEAR(hw.core.power_capped_clock_factor(), kClockAt500W, 1e-6);
  EXPECT_NEAR(hw.core.energy_per_flop(DType::bf16) / h100().core.energy_per_flop(DType::bf16),
              kClockAt500W * kClockAt500W, 1e-6);
  // The datasheet peak (the MFU denominator) is the chip's; the achievable rate is the cap's.
  EXPECT_DOUBLE_EQ(*hw.core.peak_flops_per_s(DType::bf16), *h100().core.peak_flops_per_s(DType::bf16));
  EXPECT_NEAR(*hw.core.achievable_flops_per_s(DType::fp8) / *h100().core.achievable_flops_per_s(DType::fp8),
              kClockAt500W, 1e-6);
}

TEST(PowerCap, ComputeBoundKernelsSlowMemoryBoundOnesDoNot) {
  HardwareSpec free = h100();
  HardwareSpec capped = h100({"tech_param.core.power_limit=500"});
  for (HardwareSpec* hw : {&free, &capped}) hw->sw.kernel_launch_overhead_s = 0.0;
  // 8192^3 bf16: tensor-core bound, its time stretches by the clock.
  CachedGemmModel free_gemm(GemmTileModel(free, DType::bf16));
  CachedGemmModel capped_gemm(GemmTileModel(capped, DType::bf16));
  const GemmShape cube{8192, 8192, 8192, 1};
  EXPECT_NEAR(free_gemm.estimate(cube).time_s / capped_gemm.estimate(cube).time_s, kClockAt500W, 0.005);
  // FlashAttention-2 over 2 x 32 heads x 8k causal: matmuls and softmax both on the SM clock.
  model::AttentionShape shape;
  shape.batch = 2;
  shape.heads = shape.kv_heads = 32;
  shape.q_len = shape.kv_len = 8192;
  shape.head_dim = 128;
  shape.causal = true;
  for (HardwareSpec* hw : {&free, &capped}) hw->sw.attention_kernel = AttentionKernel::flash2;
  const AttentionTime a = AttentionModel(free, DType::bf16).time(shape, free_gemm);
  const AttentionTime b = AttentionModel(capped, DType::bf16).time(shape, capped_gemm);
  EXPECT_NEAR(a.forward_s / b.forward_s, kClockAt500W, 1e-4);  // its tiles' HBM latency does not scale
  EXPECT_NEAR(a.backward_s / b.backward_s, kClockAt500W, 1e-4);
  // A 1 GiB streaming kernel: HBM-bound, drawing less than the cap.
  const OpCoster free_ops(free, DType::bf16, DType::bf16);
  const OpCoster capped_ops(capped, DType::bf16, DType::bf16);
  EXPECT_DOUBLE_EQ(free_ops.memory_kernel_s(1 << 30), capped_ops.memory_kernel_s(1 << 30));
}

}  // namespace
}  // namespace rapidllm::compute
