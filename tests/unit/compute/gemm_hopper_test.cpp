// Hopper mechanisms of the tile model: warpgroup-level MMA (tech_param.core.mma_threads)
// and thread-block clusters with TMA multicast (tech_param.core.max_cluster_size).
#include <gtest/gtest.h>

#include "compute/gemm_tile_model.hpp"
#include "rapidllm/error.hpp"
#include "test_devices.hpp"

namespace rapidllm::compute {
namespace {

using test::kH100PeakBf16;
using test::kMiB;

// The shipped H100 config's Hopper keys and its shared-memory bandwidth from the CUDA
// guide (128 B/clock/SM x 1.83 GHz x 132 SMs), instead of RAPID-LLM's lower NCU figure.
HardwareSpec hopper() {
  HardwareSpec hw = test::h100();
  hw.core.mma_threads = 128;
  hw.core.max_cluster_size = 8;
  hw.memory[1].bandwidth_bytes_per_s = 128.0 * 1.83e9 * 132;
  return hw;
}

GemmTiling wgmma_tiling(int cluster_m, int cluster_n) {
  GemmTiling t;
  t.block_m = 128;
  t.block_n = 256;
  t.block_k = 32;
  t.warp_m = 64;  // two warpgroups, each owning a 64 x 256 tile
  t.warp_n = 256;
  t.stages = 4;
  t.cluster_m = cluster_m;
  t.cluster_n = cluster_n;
  return t;
}

double level_bytes(const GemmEstimate& e, const std::string& name) {
  for (const auto& t : e.traffic) {
    if (t.level == name) return t.bytes;
  }
  throw std::runtime_error("no level " + name);
}

constexpr double kN = 8192.0;
constexpr double kOperand = kN * kN * 2.0;  // A, B or C of an 8192^2 bf16 matrix: 128 MiB

TEST(GemmHopper, WarpgroupTileSetsSharedMemoryReads) {
  const GemmTileModel model(hopper(), DType::bf16);
  const GemmEstimate e = model.evaluate({8192, 8192, 8192, 1}, wgmma_tiling(1, 1));
  // Reads: M*N*K*(1/256 + 1/64)*2 B; writes: A once per tile column (32) and B once per
  // tile row (64).
  const double reads = kN * kN * kN * (1.0 / 256 + 1.0 / 64) * 2.0;
  EXPECT_DOUBLE_EQ(level_bytes(e, "SRAM-L1"), reads + 32 * kOperand + 64 * kOperand);
}

TEST(GemmHopper, TheSameTileIsTooBigForOneWarp) {
  // 64 x 256 fp32 accumulators over 32 threads = 512 registers per thread (> 255); over a
  // 128-thread warpgroup: (65536 + (64+256)*8*2*2) / 512 = 148.
  const GemmTileModel warp_level(test::h100(), DType::bf16);
  EXPECT_THROW((void)warp_level.evaluate({8192, 8192, 8192, 1}, wgmma_tiling(1, 1)), InfeasibleError);
  const GemmTileModel group_level(hopper(), DType::bf16);
  EXPECT_NO_THROW((void)group_level.evaluate({8192, 8192, 8192, 1}, wgmma_tiling(1, 1)));
}

TEST(GemmHopper, ClusterMulticastDividesTheSharedOperandsL2Traffic) {
  const GemmTileModel model(hopper(), DType::bf16);
  const GemmShape s{8192, 8192, 8192, 1};
  // 64 x 32 tiles of 128 x 256. Without a cluster L2 sends A to all 32 tile columns and B
  // to all 64 tile rows, then C: (32 + 64 + 1) x 128 MiB.
  EXPECT_DOUBLE_EQ(level_bytes(model.evaluate(s, wgmma_tiling(1, 1)), "SRAM-L2"), 97 * kOperand);
  // A 2x1 cluster (two CTAs along M) shares each B tile: B crosses L2 64/2 times.
  EXPECT_DOUBLE_EQ(level_bytes(model.evaluate(s, wgmma_tiling(2, 1)), "SRAM-L2"), 65 * kOperand);
  // 1x2 shares A instead: A 32/2 times.
  EXPECT_DOUBLE_EQ(level_bytes(model.evaluate(s, wgmma_tiling(1, 2)), "SRAM-L2"), 81 * kOperand);
  // Shared memory still receives every CTA's full operand stream.
  EXPECT_DOUBLE_EQ(level_bytes(model.evaluate(s, wgmma_tiling(2, 1)), "SRAM-L1"),
                   level_bytes(model.evaluate(s, wgmma_tiling(1, 1)), "SRAM-L1"));
}

TEST(GemmHopper, ClustersNeedHardwareSupportAndAWholeGrid) {
  const GemmTileModel no_clusters(test::h100(), DType::bf16);  // max_cluster_size 1
  EXPECT_THROW((void)no_clusters.evaluate({8192, 8192, 8192, 1}, wgmma_tiling(2, 1)), InfeasibleError);
  const GemmTileModel model(hopper(), DType::bf16);
  // m = 8192 + 128: 65 tile rows, not a multiple of a 2-row cluster.
  EXPECT_THROW((void)model.evaluate({8320, 8192, 8192, 1}, wgmma_tiling(2, 1)), InfeasibleError);
}

TEST(GemmHopper, Square8192IsTensorCoreBoundOnHopper) {
  const GemmTileModel model(hopper(), DType::bf16);
  const GemmEstimate e = model.estimate({8192, 8192, 8192, 1});
  EXPECT_EQ(e.bound_by, "tensor-core");
  // Compute roof: 2^40 flop at 989.4 TFLOP/s, times the wave factor of the chosen tiles,
  // plus the DRAM latency (100 ns) and the launch (9 us).
  const double q = static_cast<double>((e.tiles + 131) / 132 * 132) / static_cast<double>(e.tiles);
  EXPECT_NEAR(e.time_s, q * 2.0 * kN * kN * kN / kH100PeakBf16 + 100e-9 + 9e-6, 1e-12);
  EXPECT_LT(e.time_s, 1.2e-3);  // 1.111 ms floor x q <= 1.04 + fixed terms
}

}  // namespace
}  // namespace rapidllm::compute
