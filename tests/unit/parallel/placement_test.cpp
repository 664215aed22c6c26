#include <gtest/gtest.h>

#include "parallel/placement.hpp"
#include "rapidllm/error.hpp"

namespace rapidllm::parallel {
namespace {

// A DGX cluster as the shipped configs describe it: 8 GPUs on NVSwitch listing tp, cp,
// ep; InfiniBand of auto size listing dp, pp.
NetworkSpec dgx() {
  NetworkSpec n;
  NetworkDimension nvlink;
  nvlink.id = "nvlink";
  nvlink.size = {8};
  nvlink.parallelisms = {Parallelism::tp, Parallelism::cp, Parallelism::ep};
  NetworkDimension ib;
  ib.id = "ib";
  ib.parallelisms = {Parallelism::dp, Parallelism::pp};
  n.dimensions = {nvlink, ib};
  return n;
}

std::vector<std::pair<std::string, int>> spans(const Placement& pl, Parallelism p) {
  std::vector<std::pair<std::string, int>> out;
  for (const auto& s : pl.group(p)) out.emplace_back(s.dimension->id, s.ranks);
  return out;
}

using Spans = std::vector<std::pair<std::string, int>>;

TEST(Placement, DataParallelStaysInTheNodeWhenItFits) {
  NetworkSpec n = dgx();
  Placement pl(n, Degrees{1, 2, 1, 4, 1});  // cp 2 x dp 4 = 8 GPUs
  EXPECT_EQ(spans(pl, Parallelism::cp), (Spans{{"nvlink", 2}}));
  EXPECT_EQ(spans(pl, Parallelism::dp), (Spans{{"nvlink", 4}}));
}

TEST(Placement, LargeGroupsSpanNodesHierarchically) {
  NetworkSpec n = dgx();
  Placement pl(n, Degrees{1, 2, 1, 32, 1});  // 64 GPUs: dp = 4 per node x 8 nodes
  EXPECT_EQ(spans(pl, Parallelism::dp), (Spans{{"nvlink", 4}, {"ib", 8}}));
  Placement tp8(n, Degrees{8, 1, 1, 4, 4});
  EXPECT_EQ(spans(tp8, Parallelism::tp), (Spans{{"nvlink", 8}}));
  EXPECT_EQ(spans(tp8, Parallelism::dp), (Spans{{"ib", 4}}));
  EXPECT_EQ(tp8.neighbour_dimension(Parallelism::pp)->id, "ib");
}

TEST(Placement, RapidLlmAutoDimensionsHoldWhatTheyList) {
  NetworkSpec n = dgx();
  n.dimensions[0].size.clear();  // size: auto, as in the RAPID-LLM reference files
  Placement pl(n, Degrees{2, 1, 1, 4, 1});
  EXPECT_EQ(pl.capacities()[0], 2);
  EXPECT_EQ(spans(pl, Parallelism::dp), (Spans{{"ib", 4}}));
}

TEST(Placement, ErrorsNameTheProblem) {
  NetworkSpec n = dgx();
  n.dimensions[1].parallelisms = {Parallelism::pp};  // dp on no dimension
  EXPECT_THROW(Placement(n, Degrees{1, 1, 1, 2, 1}), InfeasibleError);
  NetworkSpec fixed = dgx();
  fixed.dimensions[1].size = {2};
  EXPECT_THROW(Placement(fixed, Degrees{8, 1, 1, 4, 1}), InfeasibleError);  // 32 > 16 GPUs
  NetworkSpec odd = dgx();
  EXPECT_THROW(Placement(odd, Degrees{3, 1, 1, 4, 1}), InfeasibleError);  // 3 x 4 misaligns with 8
}

// lay_out_ranks: a communicator of N consecutive ranks (the collective command).
// A framework's rank order refills the lists a file gives, each keeping its length: the
// GB200 NVL72 file's 64-GPU NVLink dimension lists tp, cp, ep and InfiniBand pp, dp; in
// Megatron-Core's order (dp inside pp) a data-parallel group that fits the rack stays in it.
TEST(Placement, AFrameworksRankOrderDecidesWhichGroupSharesTheFastDimension) {
  NetworkSpec n = dgx();
  n.dimensions[0].size = {64};
  n.dimensions[1].parallelisms = {Parallelism::pp, Parallelism::dp};
  const Degrees d{4, 2, 1, 8, 8};  // 512 GPUs
  EXPECT_EQ(spans(Placement(n, d), Parallelism::dp), (Spans{{"ib", 8}}));
  order_parallelisms(n, {Parallelism::tp, Parallelism::cp, Parallelism::ep, Parallelism::dp, Parallelism::pp});
  EXPECT_EQ(n.dimensions[0].parallelisms, (std::vector{Parallelism::tp, Parallelism::cp, Parallelism::ep}));
  EXPECT_EQ(n.dimensions[1].parallelisms, (std::vector{Parallelism::dp, Parallelism::pp}));
  const Placement megatron(n, d);
  EXPECT_EQ(spans(megatron, Parallelism::dp), (Spans{{"nvlink", 8}}));
  EXPECT_EQ(spans(megatron, Parallelism::pp), (Spans{{"ib", 8}}));
  // A file that lists fewer: the last listing dimension takes the rest.
  NetworkSpec short_lists = dgx();
  short_lists.dimensions[1].parallelisms = {Parallelism::dp};
  order_parallelisms(short_lists, {Parallelism::tp, Parallelism::cp, Parallelism::ep, Parallelism::dp, Parallelism::pp});
  EXPECT_EQ(short_lists.dimensions[1].parallelisms, (std::vector{Parallelism::dp, Parallelism::pp}));
}

TEST(RankLayout, FillsTheInnerDimensionFirst) {
  const NetworkSpec n = dgx();
  auto laid = lay_out_ranks(n, 64);
  ASSERT_EQ(laid.size(), 2u);
  EXPECT_EQ(laid[0].dimension->id, "nvlink");
  EXPECT_EQ(laid[0].ranks, 8);
  EXPECT_EQ(laid[1].dimension->id, "ib");
  EXPECT_EQ(laid[1].ranks, 8);
}

TEST(RankLayout, FewRanksStayInside) {
  const NetworkSpec n = dgx();
  auto laid = lay_out_ranks(n, 4);
  ASSERT_EQ(laid.size(), 1u);
  EXPECT_EQ(laid[0].ranks, 4);
  EXPECT_EQ(lay_out_ranks(n, 1).size(), 1u);
}

TEST(RankLayout, NamedDimensionAndErrors) {
  const NetworkSpec n = dgx();
  auto laid = lay_out_ranks(n, 16, std::string("ib"));
  ASSERT_EQ(laid.size(), 1u);
  EXPECT_EQ(laid[0].dimension->id, "ib");
  EXPECT_THROW((void)lay_out_ranks(n, 16, std::string("nvlink")), InfeasibleError);  // size 8
  EXPECT_THROW((void)lay_out_ranks(n, 12), InfeasibleError);  // not whole nodes of 8
  EXPECT_THROW((void)lay_out_ranks(n, 8, std::string("nvswitch")), InfeasibleError);
  NetworkSpec fixed = n;
  fixed.dimensions[1].size = {4};
  EXPECT_THROW((void)lay_out_ranks(fixed, 64), InfeasibleError);  // 8 x 4 = 32 max
}

}  // namespace
}  // namespace rapidllm::parallel
