#include <gtest/gtest.h>

#include "parallel/placement.hpp"
#include "rapidllm/error.hpp"

namespace rapidllm::parallel {
namespace {

NetworkSpec dgx_cluster() {
  NetworkSpec n;
  NetworkDimension nvlink;
  nvlink.id = "nvlink";
  nvlink.size = {8};
  NetworkDimension ib;
  ib.id = "ib";  // size auto
  n.dimensions = {nvlink, ib};
  return n;
}

TEST(RankLayout, FillsTheInnerDimensionFirst) {
  NetworkSpec n = dgx_cluster();
  auto spans = lay_out_ranks(n, 64);
  ASSERT_EQ(spans.size(), 2u);
  EXPECT_EQ(spans[0].dimension->id, "nvlink");
  EXPECT_EQ(spans[0].ranks, 8);
  EXPECT_EQ(spans[1].dimension->id, "ib");
  EXPECT_EQ(spans[1].ranks, 8);
}

TEST(RankLayout, FewRanksStayInside) {
  NetworkSpec n = dgx_cluster();
  auto spans = lay_out_ranks(n, 4);
  ASSERT_EQ(spans.size(), 1u);
  EXPECT_EQ(spans[0].ranks, 4);
  EXPECT_EQ(lay_out_ranks(n, 1).size(), 1u);
}

TEST(RankLayout, NamedDimensionAndErrors) {
  NetworkSpec n = dgx_cluster();
  auto spans = lay_out_ranks(n, 16, std::string("ib"));
  ASSERT_EQ(spans.size(), 1u);
  EXPECT_EQ(spans[0].dimension->id, "ib");
  EXPECT_THROW((void)lay_out_ranks(n, 16, std::string("nvlink")), InfeasibleError);  // size 8
  EXPECT_THROW((void)lay_out_ranks(n, 12), InfeasibleError);  // not whole nodes of 8
  EXPECT_THROW((void)lay_out_ranks(n, 8, std::string("nvswitch")), InfeasibleError);
  NetworkSpec fixed = n;
  fixed.dimensions[1].size = {4};
  EXPECT_THROW((void)lay_out_ranks(fixed, 64), InfeasibleError);  // 8 x 4 = 32 max
}

}  // namespace
}  // namespace rapidllm::parallel
