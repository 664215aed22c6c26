// The tiling search: what it considers, that it is deterministic, and the choices it makes.
#include <gtest/gtest.h>

#include <algorithm>
#include <limits>
#include <vector>

#include "compute/gemm_tile_model.hpp"
#include "test_devices.hpp"

namespace rapidllm::compute {
namespace {

using test::kA100PeakBf16;
using test::kH100PeakBf16;
using test::kLaunchS;

const std::vector<GemmShape>& llm_shapes() {
  static const std::vector<GemmShape> shapes{
      {8192, 8192, 8192, 1}, {4096, 12288, 4096, 1}, {4096, 4096, 11008, 1},
      {1, 8192, 8192, 1},    {16, 28672, 8192, 1},   {256, 256, 65536, 1},
      {1000, 3000, 777, 1},  {128, 128, 64, 32},     {16, 16, 16, 1},
      {2048, 50257, 1024, 1}, {4096, 2048, 524288, 1}};
  return shapes;
}

bool same_tiling(const GemmTiling& a, const GemmTiling& b) {
  return a.block_m == b.block_m && a.block_n == b.block_n && a.block_k == b.block_k &&
         a.warp_m == b.warp_m && a.warp_n == b.warp_n && a.split_k == b.split_k &&
         a.stages == b.stages && a.ctas_per_sm == b.ctas_per_sm;
}

TEST(GemmSearch, CandidatesAreFewFeasibleAndSplitOnlyWhereKAllows) {
  const GemmTileModel model(test::a100(), DType::bf16);
  for (const GemmShape& s : llm_shapes()) {
    const std::vector<GemmTiling> candidates = model.candidate_tilings(s);
    ASSERT_FALSE(candidates.empty()) << s.m << "x" << s.n << "x" << s.k;
    EXPECT_LE(candidates.size(), 400U) << s.m << "x" << s.n << "x" << s.k;
    for (const GemmTiling& t : candidates) {
      EXPECT_NO_THROW((void)model.evaluate(s, t));
      EXPECT_GE(t.ctas_per_sm, 1);
      EXPECT_GE(t.stages, 2);
      EXPECT_LE(t.stages, 4);
      // split_k only where each slice still holds a whole K-step.
      if (t.split_k > 1) {
        EXPECT_GE(s.k / t.split_k, t.block_k);
      }
    }
  }
}

TEST(GemmSearch, EstimateIsTheFastestCandidateAndDeterministic) {
  const GemmTileModel model(test::h100(), DType::bf16);
  for (const GemmShape& s : llm_shapes()) {
    const GemmEstimate best = model.estimate(s);
    const GemmEstimate again = model.estimate(s);
    EXPECT_EQ(best.time_s, again.time_s);
    EXPECT_TRUE(same_tiling(best.tiling, again.tiling));
    double fastest = std::numeric_limits<double>::infinity();
    bool listed = false;
    for (const GemmTiling& t : model.candidate_tilings(s)) {
      fastest = std::min(fastest, model.evaluate(s, t).time_s);
      listed = listed || same_tiling(t, best.tiling);
    }
    EXPECT_TRUE(listed);
    EXPECT_EQ(best.time_s, fastest);
  }
}

TEST(GemmSearch, NeverFasterThanThePeakPlusLaunch) {
  for (const HardwareSpec& hw : {test::a100(), test::h100()}) {
    const GemmTileModel model(hw, DType::bf16);
    const double peak = hw.core.num_sms == 108 ? kA100PeakBf16 : kH100PeakBf16;
    for (const GemmShape& s : llm_shapes()) {
      const GemmEstimate e = model.estimate(s);
      EXPECT_GE(e.time_s, e.flops / peak + kLaunchS) << s.m << "x" << s.n << "x" << s.k;
      EXPECT_GT(e.wave_efficiency, 0.0);
      EXPECT_LE(e.wave_efficiency, 1.0);
    }
  }
}

TEST(GemmSearch, DoublingKDoublesAComputeBoundGemm) {
  const GemmTileModel model(test::a100(), DType::bf16);
  const GemmEstimate k1 = model.estimate({8192, 8192, 8192, 1});
  const GemmEstimate k2 = model.estimate({8192, 8192, 16384, 1});
  // Both tensor-core bound; only the 9.1 us of launch and fill does not double:
  // (2x + 9.1us) / (x + 9.1us) with x ~ 3.53 ms = 1.9974.
  EXPECT_EQ(k1.bound_by, "tensor-core");
  EXPECT_EQ(k2.bound_by, "tensor-core");
  EXPECT_NEAR(k2.time_s / k1.time_s, 2.0, 0.01);
}

TEST(GemmSearch, SplitKHelpsSkinnyLargeKGemm) {
  const GemmTileModel model(test::a100(), DType::bf16);
  const GemmShape s{256, 256, 65536, 1};
  const GemmEstimate best = model.estimate(s);
  double best_unsplit = std::numeric_limits<double>::infinity();
  for (const GemmTiling& t : model.candidate_tilings(s)) {
    if (t.split_k == 1) best_unsplit = std::min(best_unsplit, model.evaluate(s, t).time_s);
  }
  // Without split-K at most 256 tiles of 16x16 (q = 324/256, narrow warp tiles) or a few
  // large tiles on 108 SMs; slicing K fills the machine with large tiles.
  EXPECT_GT(best.tiling.split_k, 1);
  EXPECT_LT(best.time_s, 0.9 * best_unsplit);
}

TEST(GemmSearch, HopperPadsToItsLargerMma) {
  const GemmTileModel model(test::h100(), DType::bf16);
  // FMA_d1 = 16: m = 1 pads to 16 rows, so only 16-row CTA tiles are useful.
  for (const GemmTiling& t : model.candidate_tilings({1, 8192, 8192, 1})) {
    EXPECT_EQ(t.block_m, 16);
  }
}

}  // namespace
}  // namespace rapidllm::compute
