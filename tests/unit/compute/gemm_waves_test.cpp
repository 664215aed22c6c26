// Wave quantization and batched GEMMs: tile counts, waves and the time they imply.
#include <gtest/gtest.h>

#include "compute/gemm_tile_model.hpp"
#include "test_devices.hpp"

namespace rapidllm::compute {
namespace {

using test::kA100PeakBf16;
using test::kDramLatencyS;
using test::kLaunchS;

GemmTiling tile_128x256() {
  GemmTiling t;
  t.block_m = 128;
  t.block_n = 256;
  t.block_k = 32;
  t.warp_m = 64;
  t.warp_n = 64;
  t.stages = 3;
  return t;
}

// A column of 128x256 tiles (n = 256, k = 4096) keeps the per-tile work identical and the
// kernel tensor-core bound (8 warps per CTA, 128 flop per byte of A): 108 tiles fill the
// 108 SMs exactly; 109 tiles leave one SM with two, so the kernel takes two tile-rounds.
TEST(GemmWaves, OneExtraTileCostsAFullRound) {
  const GemmTileModel model(test::a100(), DType::bf16);
  const GemmEstimate full = model.evaluate({128 * 108, 256, 4096, 1}, tile_128x256());
  const GemmEstimate spill = model.evaluate({128 * 109, 256, 4096, 1}, tile_128x256());

  EXPECT_EQ(full.tiles, 108);
  EXPECT_DOUBLE_EQ(full.waves, 1.0);
  EXPECT_DOUBLE_EQ(full.wave_efficiency, 1.0);
  EXPECT_EQ(spill.tiles, 109);
  EXPECT_DOUBLE_EQ(spill.waves, 109.0 / 108.0);
  // q = ceil(109/108) * 108 / 109 = 216/109 = 1.98.
  EXPECT_DOUBLE_EQ(spill.wave_efficiency, 109.0 / 216.0);
  EXPECT_EQ(full.bound_by, "tensor-core");
  EXPECT_EQ(spill.bound_by, "tensor-core");

  // One tile = 2*128*256*4096 flop = 0.8613 us at 311.87 TFLOP/s. 108 tiles: one round;
  // 109 tiles: q * 109 tiles-worth = 216/109 * 109 = 216 tiles-worth = two rounds.
  const double round_s = 108.0 * 2.0 * 128 * 256 * 4096 / kA100PeakBf16;
  const double fixed = kDramLatencyS + kLaunchS;
  EXPECT_NEAR(full.time_s, round_s + fixed, 1e-9 * full.time_s);
  EXPECT_NEAR(spill.time_s, 2.0 * round_s + fixed, 1e-9 * spill.time_s);
  EXPECT_NEAR((spill.time_s - fixed) / (full.time_s - fixed), 2.0, 1e-12);
}

TEST(GemmWaves, BatchMultipliesTilesAndWork) {
  const GemmTileModel model(test::a100(), DType::bf16);
  // 4 independent 2048^3 GEMMs: 4 * 16 * 8 = 512 tiles of 128x256; ceil(512/108) = 5
  // rounds, q = 540/512. Compute-bound at 4 * 2 * 2048^3 flop.
  const GemmEstimate e = model.evaluate({2048, 2048, 2048, 4}, tile_128x256());
  EXPECT_EQ(e.tiles, 512);
  EXPECT_DOUBLE_EQ(e.flops, 4.0 * 2.0 * 2048.0 * 2048.0 * 2048.0);
  EXPECT_EQ(e.bound_by, "tensor-core");
  const double expected = (540.0 / 512.0) * e.flops / kA100PeakBf16 + kDramLatencyS + kLaunchS;
  EXPECT_NEAR(e.time_s, expected, 1e-9 * expected);
}

TEST(GemmWaves, SplitKSlicesAreTiles) {
  const GemmTileModel model(test::a100(), DType::bf16);
  GemmTiling t = tile_128x256();
  t.split_k = 8;
  // 256 x 256 x 65536: 2 x 1 tiles x 8 slices = 16 tiles on 108 SMs, q = 108/16.
  const GemmEstimate e = model.evaluate({256, 256, 65536, 1}, t);
  EXPECT_EQ(e.tiles, 16);
  EXPECT_DOUBLE_EQ(e.wave_efficiency, 16.0 / 108.0);
  // Partials: 8 slices x 256*256 fp32 written and read back = 2*8*262144 B through L2,
  // on top of A once per tile column (1), B once per tile row (2) and C.
  const double a = 256.0 * 65536 * 2;
  const double l2 = a + 2.0 * a + 256.0 * 256 * 2 + 2.0 * 8 * 256 * 256 * 4;
  EXPECT_NEAR(e.traffic[2].bytes, l2, 1.0);
  // DRAM: A + B + C = 64.1 MiB > 20 MiB (half of L2), so the 4 MiB of partials spill and
  // are read back; the 16 resident tiles cover the whole 2x1 grid, so A and B are read once.
  const double dram = a + a + 256.0 * 256 * 2 + 2.0 * 8 * 256 * 256 * 4;
  EXPECT_NEAR(e.traffic[3].bytes, dram, 1.0);
}

TEST(GemmWaves, DataThatFitsInHalfOfL2IsReadOnce) {
  const GemmTileModel model(test::a100(), DType::bf16);
  GemmTiling t = tile_128x256();
  t.split_k = 2;
  // 1024^3: A, B, C are 2 MiB each; with the 2 x 1024^2 x 4 B = 8 MiB of partials that is
  // 14 MiB <= 20 MiB, so DRAM sees only the compulsory 6 MiB whatever the tiling.
  const GemmEstimate e = model.evaluate({1024, 1024, 1024, 1}, t);
  EXPECT_NEAR(e.traffic[3].bytes, 3.0 * 1024 * 1024 * 2, 1e-6);
  // 8 x 4 tiles x 2 slices = 64 tiles: L2 streams A 4 times, B 8 times, C once, and the
  // partials twice.
  const double mib2 = 1024.0 * 1024 * 2;
  EXPECT_NEAR(e.traffic[2].bytes, 4.0 * mib2 + 8.0 * mib2 + mib2 + 2.0 * 2 * 1024 * 1024 * 4,
              1e-6);
}

}  // namespace
}  // namespace rapidllm::compute
