// CostCache's placements: one per layout of the dimensions' storage, and never one built
// for another network's sizes, parallelisms or storage.
#include <algorithm>

#include <gtest/gtest.h>

#include "exec/cost_cache.hpp"
#include "llm_fixtures.hpp"

namespace rapidllm::exec {
namespace {

using testing::shipped_hardware;

const parallel::Degrees kDegrees{.tp = 8, .cp = 1, .ep = 1, .dp = 16, .pp = 4};

TEST(CostCachePlacement, OneLayoutIsBuiltOnceAndEqualsAFreshOne) {
  const HardwareSpec hw = shipped_hardware("H100_SXM5_80GB");
  CostCache cache;
  const auto first = cache.placement(hw.network, kDegrees);
  EXPECT_EQ(cache.placement(hw.network, kDegrees), first);  // the same object again
  const parallel::Placement fresh(hw.network, kDegrees);
  for (Parallelism p : {Parallelism::tp, Parallelism::cp, Parallelism::ep, Parallelism::dp, Parallelism::pp}) {
    ASSERT_EQ(first->group(p).size(), fresh.group(p).size());
    for (std::size_t k = 0; k < fresh.group(p).size(); ++k) {
      EXPECT_EQ(first->group(p)[k].dimension, fresh.group(p)[k].dimension);
      EXPECT_EQ(first->group(p)[k].ranks, fresh.group(p)[k].ranks);
    }
    EXPECT_EQ(first->stride(p), fresh.stride(p));
    EXPECT_EQ(first->neighbour_dimension(p), fresh.neighbour_dimension(p));
  }
  EXPECT_EQ(first->capacities(), fresh.capacities());
}

TEST(CostCachePlacement, OtherDegreesSizesParallelismsOrStorageBuildAnew) {
  HardwareSpec hw = shipped_hardware("H100_SXM5_80GB");
  CostCache cache;
  const auto base = cache.placement(hw.network, kDegrees);
  parallel::Degrees other = kDegrees;
  other.tp = 4;
  other.dp = 32;
  EXPECT_NE(cache.placement(hw.network, other), base);

  // The same storage re-laid out (a sweep's placement re-orders what each dimension holds).
  hw.network.dimensions[0].size = {4};
  const auto resized = cache.placement(hw.network, other);
  EXPECT_NE(resized, base);
  EXPECT_EQ(resized->capacities().front(), 4);
  auto& outer = hw.network.dimensions[1].parallelisms;  // [pp, dp] -> [dp, pp]: the strides swap
  std::reverse(outer.begin(), outer.end());
  const auto reordered = cache.placement(hw.network, other);
  EXPECT_NE(reordered, resized);
  EXPECT_NE(reordered->stride(Parallelism::pp), resized->stride(Parallelism::pp));

  // Equal content in other storage: its own placement, pointing into that storage.
  const HardwareSpec copy = shipped_hardware("H100_SXM5_80GB");
  const auto elsewhere = cache.placement(copy.network, kDegrees);
  EXPECT_NE(elsewhere, base);
  EXPECT_EQ(elsewhere->group(Parallelism::tp).front().dimension, &copy.network.dimensions[0]);
}

}  // namespace
}  // namespace rapidllm::exec
