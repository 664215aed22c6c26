#include <gtest/gtest.h>

#include <unordered_set>

#include "compute/gemm_cache.hpp"
#include "rapidllm/error.hpp"
#include "test_devices.hpp"

namespace rapidllm::compute {
namespace {

TEST(GemmCache, RepeatReturnsTheSameEntry) {
  CachedGemmModel cache(GemmTileModel(test::a100(), DType::bf16));
  const GemmEstimate& first = cache.estimate({4096, 4096, 4096, 1});
  const GemmEstimate& again = cache.estimate({4096, 4096, 4096, 1});
  EXPECT_EQ(&first, &again);
  EXPECT_EQ(cache.size(), 1U);
  // The cached value is the uncached model's answer.
  const GemmEstimate direct = cache.model().estimate({4096, 4096, 4096, 1});
  EXPECT_EQ(first.time_s, direct.time_s);
  EXPECT_EQ(first.tiling.block_m, direct.tiling.block_m);
}

TEST(GemmCache, SizeCountsDistinctShapesAndReferencesStayValid) {
  CachedGemmModel cache(GemmTileModel(test::h100(), DType::bf16));
  const GemmEstimate& kept = cache.estimate({1, 4096, 4096, 1});
  const double kept_time = kept.time_s;
  for (std::int64_t k = 64; k <= 64 * 200; k += 64) (void)cache.estimate({2048, 2048, k, 1});
  (void)cache.estimate({2048, 2048, 64, 2});  // batch is part of the key
  (void)cache.estimate({1, 4096, 4096, 1});   // a repeat
  EXPECT_EQ(cache.size(), 1U + 200U + 1U);
  // Rehashing moved no node: the first reference still reads the same estimate.
  EXPECT_EQ(kept.time_s, kept_time);
  EXPECT_EQ(kept.shape, (GemmShape{1, 4096, 4096, 1}));
}

TEST(GemmCache, FailedShapeLeavesNoEntry) {
  CachedGemmModel cache(GemmTileModel(test::a100(), DType::bf16));
  EXPECT_THROW((void)cache.estimate({0, 1, 1, 1}), InfeasibleError);
  EXPECT_EQ(cache.size(), 0U);
}

TEST(GemmCache, HashSeparatesPermutedShapes) {
  // m/n/k permutations are different GEMMs and must not collide systematically.
  const GemmShapeHash hash;
  std::unordered_set<std::size_t> seen;
  for (std::int64_t a : {1, 64, 4096, 8192}) {
    for (std::int64_t b : {1, 64, 4096, 8192}) {
      for (std::int64_t c : {1, 64, 4096, 8192}) seen.insert(hash({a, b, c, 1}));
    }
  }
  EXPECT_EQ(seen.size(), 64U);
}

}  // namespace
}  // namespace rapidllm::compute
