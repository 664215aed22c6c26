#include <gtest/gtest.h>

#include "compute/gemm_tile_model.hpp"
#include "exec/gemm_predictor.hpp"
#include "rapidllm/config.hpp"
#include "rapidllm/error.hpp"

namespace rapidllm::exec {
namespace {

// The DGX H100 with its NVSwitch pinned to a plain alpha-beta ring (450 GB/s per direction,
// 0.93 us per step), so the expected collective times below do not move with calibration.
HardwareSpec h100() {
  HardwareSpec hw = load_hardware(std::string(RAPIDLLM_SOURCE_DIR) + "/configs/hardware/H100_SXM5_80GB.yaml");
  NetworkDimension& nv = hw.network.dimensions.front();
  nv.protocols.clear();
  nv.in_network_reduction = false;
  nv.util = 1.0;
  nv.latency_s = 0.93e-6;
  return hw;
}

double ring_all_reduce_s(double bytes, int n) { return 2.0 * (n - 1) / n * bytes / 450e9 + 2.0 * (n - 1) * 0.93e-6; }

TEST(GemmPredictor, SingleGpuIsTheTileModelEstimate) {
  HardwareSpec hw = h100();
  GemmModelSpec g{8192, 8192, 8192, false, ShardAxis::row};
  GemmPrediction p = predict_gemm(hw, g, DType::bf16);
  compute::GemmTileModel model(hw, DType::bf16);
  EXPECT_DOUBLE_EQ(p.time_s, model.estimate({8192, 8192, 8192, 1}).time_s);
  EXPECT_DOUBLE_EQ(p.flops, 2.0 * 8192 * 8192 * 8192);
  EXPECT_DOUBLE_EQ(p.achieved_flops_per_s, p.flops / p.time_s);
  EXPECT_EQ(p.passes.size(), 1u);
  EXPECT_TRUE(p.network_dimension.empty());
  // A, B and C in bf16: 3 x 8192^2 x 2 bytes.
  EXPECT_DOUBLE_EQ(p.peak_memory_bytes, 3.0 * 8192 * 8192 * 2);
  EXPECT_TRUE(p.fits_in_memory);
}

TEST(GemmPredictor, RowParallelAddsTheAllReduceOfC) {
  HardwareSpec hw = h100();
  hw.parallelism.tp = 8;
  GemmModelSpec g{4096, 16384, 8192, true, ShardAxis::row};  // M, K, N
  GemmPrediction p = predict_gemm(hw, g, DType::bf16);
  ASSERT_EQ(p.passes.size(), 3u);
  EXPECT_EQ(p.network_dimension, "nvlink");
  const auto& fwd = p.passes[0];
  EXPECT_EQ(fwd.compute.shape.k, 16384 / 8);
  ASSERT_EQ(fwd.collectives.size(), 1u);
  const double c_bytes = 4096.0 * 8192 * 2;
  EXPECT_NEAR(fwd.collectives[0].estimate.time_s, ring_all_reduce_s(c_bytes, 8), 1e-12);
  EXPECT_DOUBLE_EQ(fwd.time_s, fwd.compute.time_s + fwd.communication_time_s);  // no overlap configured
  EXPECT_DOUBLE_EQ(p.flops, 3 * 2.0 * 4096 * 16384 * 8192);
  double sum = 0;
  for (const auto& pass : p.passes) sum += pass.time_s;
  EXPECT_DOUBLE_EQ(p.time_s, sum);
}

TEST(GemmPredictor, OverlapHidesTheShorterOfComputeAndCommunication) {
  HardwareSpec hw = h100();
  hw.parallelism.tp = 8;
  hw.network.overlap.tp_overlap = 0.5;
  GemmModelSpec g{4096, 16384, 8192, false, ShardAxis::row};
  GemmPrediction p = predict_gemm(hw, g, DType::bf16);
  const auto& fwd = p.passes[0];
  const double hidden = 0.5 * std::min(fwd.communication_time_s, fwd.compute.time_s);
  EXPECT_NEAR(fwd.exposed_communication_time_s, fwd.communication_time_s - hidden, 1e-15);
}

TEST(GemmPredictor, DynamicEnergyCountsFlopsAtTheConfiguredCost) {
  HardwareSpec hw = h100();
  GemmModelSpec g{4096, 4096, 4096, false, ShardAxis::row};
  GemmPrediction p = predict_gemm(hw, g, DType::bf16);
  EXPECT_DOUBLE_EQ(p.energy.compute_j, 2.0 * 4096 * 4096 * 4096 * 5.75e-13);
  // DRAM energy = DRAM bytes x 8 bits x 15.2 pJ/bit (the shipped H100's measured values).
  EXPECT_DOUBLE_EQ(p.energy.memory_j.back().second, p.passes[0].compute.traffic[3].bytes * 8 * 15.2e-12);
  // An fp8 FLOP costs half: the tensor cores draw the same power per clock at twice the rate.
  const GemmPrediction fp8 = predict_gemm(hw, g, DType::fp8);
  EXPECT_DOUBLE_EQ(fp8.energy.compute_j, 2.0 * 4096 * 4096 * 4096 * 5.75e-13 / 2.0);
  EXPECT_DOUBLE_EQ(p.energy.network_j, 0.0);
}

TEST(GemmPredictor, TensorParallelGroupsArePlacedLikeAnyOther) {
  // tp = 16 on 8-GPU NVSwitch nodes: the one placement spans two nodes, so the all-reduce
  // runs hierarchically (NVSwitch, then InfiniBand), as it would inside an LLM layer.
  HardwareSpec hw = h100();
  hw.parallelism.tp = 16;
  GemmModelSpec g{4096, 16384, 8192, false, ShardAxis::row};
  const GemmPrediction p = predict_gemm(hw, g, DType::bf16);
  ASSERT_EQ(p.passes[0].collectives.size(), 1u);
  EXPECT_EQ(p.passes[0].collectives[0].estimate.ranks, 16);
  EXPECT_EQ(p.passes[0].collectives[0].estimate.phases.size(), 3u);  // reduce-scatter, all-reduce, all-gather
}

TEST(GemmPredictor, InfeasibleShardingsAndNetworks) {
  HardwareSpec hw = h100();
  hw.parallelism.tp = 32;
  hw.network.dimensions[1].size = {2};  // 8 x 2 GPUs in all
  GemmModelSpec g{4096, 16384, 8192, false, ShardAxis::row};
  EXPECT_THROW((void)predict_gemm(hw, g, DType::bf16), InfeasibleError);
  hw.network.dimensions[1].size.clear();
  hw.parallelism.tp = 2;
  hw.network.dimensions[0].parallelisms.clear();  // no dimension carries tp
  EXPECT_THROW((void)predict_gemm(hw, g, DType::bf16), InfeasibleError);
}

}  // namespace
}  // namespace rapidllm::exec
