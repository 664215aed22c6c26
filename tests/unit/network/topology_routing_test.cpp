// The link graph each topology builds (capacities per the conventions in
// docs/network-simulator.md), the routes between GPUs, and faults.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <map>
#include <string>
#include <vector>

#include "net_fixtures.hpp"
#include "network/routing.hpp"
#include "network/topology.hpp"
#include "rapidllm/error.hpp"

namespace rapidllm::network {
namespace {

using ::testing::HasSubstr;
using namespace rapidllm::network::testing;

double capacity(const Topology& t, int a, int b) {
  auto id = t.link_between(a, b);
  EXPECT_TRUE(id.has_value()) << a << " -> " << b;
  return id ? t.links()[static_cast<std::size_t>(*id)].capacity_bytes_per_s : -1.0;
}

// Sum of fractions per link of a route.
std::map<int, double> route_of(Router& r, int src, int dst, double* latency = nullptr) {
  std::vector<LinkShare> out;
  const double lat = r.route(src, dst, out);
  if (latency) *latency = lat;
  std::map<int, double> m;
  for (const auto& s : out) m[s.link] += s.fraction;
  return m;
}

TEST(Topology, SwitchHasOneSwitchPerSliceAndFullBandwidthPorts) {
  auto nv = dim("nv", TopologyType::switch_, 450e9, 2e-6);
  Topology t({{&nv, 8}}, {});
  EXPECT_EQ(t.num_gpus(), 8);
  EXPECT_EQ(t.num_nodes(), 9);        // GPUs 0-7, switch 8
  EXPECT_EQ(t.links().size(), 16u);   // up and down per GPU
  EXPECT_DOUBLE_EQ(capacity(t, 3, 8), 450e9);
  EXPECT_DOUBLE_EQ(capacity(t, 8, 3), 450e9);
  EXPECT_DOUBLE_EQ(t.links()[0].latency_s, 1e-6);  // alpha/2 per link: GPU -> GPU costs alpha
}

TEST(Topology, FullyConnectedSplitsTheGpuBandwidthOverItsPeers) {
  auto fc = dim("fc", TopologyType::fully_connected, 280e9, 1e-6);
  Topology t({{&fc, 8}}, {});
  EXPECT_EQ(t.links().size(), 56u);                // 8 x 7 directed links
  EXPECT_DOUBLE_EQ(capacity(t, 0, 5), 280e9 / 7);  // B / (n - 1)
}

TEST(Topology, TorusGivesEachOfFourLinksAQuarterAndMergesTwoRankAxes) {
  auto tor = dim("t", TopologyType::torus2d, 100e9, 1e-6, {4, 4});
  Topology t({{&tor, 16}}, {});
  EXPECT_EQ(t.links().size(), 64u);  // 16 GPUs x 4 directions
  EXPECT_DOUBLE_EQ(capacity(t, 0, 1), 25e9);
  EXPECT_DOUBLE_EQ(capacity(t, 0, 3), 25e9);   // wrap-around
  EXPECT_DOUBLE_EQ(capacity(t, 0, 12), 25e9);  // y wrap
  auto small = dim("t2", TopologyType::torus2d, 100e9, 1e-6, {2, 2});
  Topology t2({{&small, 4}}, {});
  EXPECT_DOUBLE_EQ(capacity(t2, 0, 1), 50e9);  // +x and -x cables join the same pair
  auto mesh = dim("m", TopologyType::mesh2d, 100e9, 1e-6, {4, 4});
  Topology m({{&mesh, 16}}, {});
  EXPECT_FALSE(m.link_between(0, 3).has_value());  // no wrap-around on a mesh
}

TEST(Topology, StackedDimensionsUseMixedRadixRanks) {
  auto nv = dim("nv", TopologyType::switch_, 450e9, 1e-6);
  auto ib = dim("ib", TopologyType::ring, 50e9, 5e-6);
  Topology t({{&nv, 4}, {&ib, 3}}, {});
  EXPECT_EQ(t.num_gpus(), 12);
  // GPU 6 = (local 2, node 1): its NVSwitch slice is 4..7, its ring slice is {2, 6, 10}.
  EXPECT_EQ(t.slice_of(0, 6), (std::vector<int>{4, 5, 6, 7}));
  EXPECT_EQ(t.slice_of(1, 6), (std::vector<int>{2, 6, 10}));
  EXPECT_EQ(t.slices(1).size(), 4u);  // one ring per rail
  EXPECT_DOUBLE_EQ(capacity(t, 2, 6), 50e9);
  EXPECT_EQ(t.num_nodes(), 15);  // 12 GPUs + 3 NVSwitches
}

TEST(Routing, RingTakesTheShorterWayAndSplitsTies) {
  auto ring = dim("r", TopologyType::ring, 50e9, 5e-6);
  Topology t({{&ring, 6}}, {});
  Router r(t);
  double lat = 0.0;
  auto two = route_of(r, 0, 2, &lat);
  EXPECT_EQ(two.size(), 2u);
  EXPECT_DOUBLE_EQ(lat, 10e-6);
  auto back = route_of(r, 0, 5);
  ASSERT_EQ(back.size(), 1u);
  EXPECT_EQ(back.begin()->first, *t.link_between(0, 5));
  auto tie = route_of(r, 0, 3);  // 3 hops either way: half each
  EXPECT_EQ(tie.size(), 6u);
  for (const auto& [link, f] : tie) EXPECT_DOUBLE_EQ(f, 0.5);
}

TEST(Routing, TorusIsDimensionOrderedXFirst) {
  auto tor = dim("t", TopologyType::torus2d, 100e9, 1e-6, {4, 4});
  Topology t({{&tor, 16}}, {});
  Router r(t);
  // 0 = (0,0) -> 5 = (1,1): 0 -> 1 along x, then 1 -> 5 along y.
  auto m = route_of(r, 0, 5);
  ASSERT_EQ(m.size(), 2u);
  EXPECT_TRUE(m.count(*t.link_between(0, 1)));
  EXPECT_TRUE(m.count(*t.link_between(1, 5)));
}

TEST(Routing, EachScalableUnitBringsItsSpines) {
  // 16 GPUs in 4 leaves of 4; 2 leaves per scalable unit, 3 spines per unit: 2 units, 6 spines.
  auto pod = superpod("pod", 50e9, 50e9, 2e-6, 4, 3, 2);
  Topology t({{&pod, 16}}, {});
  EXPECT_EQ(t.num_nodes(), 16 + 4 + 6);
  // Every leaf links to every spine; its uplinks carry 4 x 50e9 over 6 spines.
  EXPECT_DOUBLE_EQ(capacity(t, 16, 25), 4 * 50e9 / 6);
  EXPECT_DOUBLE_EQ(capacity(t, 19, 20), 4 * 50e9 / 6);
}

TEST(Routing, FatTreeSpreadsCrossLeafTrafficOverEverySpine) {
  auto pod = superpod("pod", 50e9, 50e9, 2e-6, 4, 2);
  Topology t({{&pod, 8}}, {});
  // GPUs 0-7, leaves 8 and 9, spines 10 and 11. Leaf uplinks: 4 x 50e9 / 2 spines = 100e9.
  EXPECT_EQ(t.num_nodes(), 12);
  EXPECT_DOUBLE_EQ(capacity(t, 8, 10), 100e9);
  Router r(t);
  double lat = 0.0;
  auto m = route_of(r, 1, 6, &lat);
  EXPECT_DOUBLE_EQ(m[*t.link_between(1, 8)], 1.0);
  EXPECT_DOUBLE_EQ(m[*t.link_between(8, 10)], 0.5);
  EXPECT_DOUBLE_EQ(m[*t.link_between(8, 11)], 0.5);
  EXPECT_DOUBLE_EQ(m[*t.link_between(9, 6)], 1.0);
  EXPECT_DOUBLE_EQ(lat, 4e-6);  // four links of alpha/2
  auto same_leaf = route_of(r, 1, 2);
  EXPECT_EQ(same_leaf.size(), 2u);
}

TEST(Faults, SoftFaultScalesBothDirectionsOfTheCable) {
  auto ring = dim("r", TopologyType::ring, 50e9, 5e-6);
  Topology t({{&ring, 4}}, {{0, 1, 0.5}});
  EXPECT_DOUBLE_EQ(capacity(t, 0, 1), 25e9);
  EXPECT_DOUBLE_EQ(capacity(t, 1, 0), 25e9);
  EXPECT_DOUBLE_EQ(capacity(t, 1, 2), 50e9);
}

TEST(Faults, FailedTorusLinkIsRoutedAround) {
  auto tor = dim("t", TopologyType::torus2d, 100e9, 1e-6, {4, 4});
  Topology t({{&tor, 16}}, {{0, 1, 0.0}});
  Router r(t);
  double lat = 0.0;
  auto m = route_of(r, 0, 1, &lat);
  EXPECT_FALSE(m.count(*t.link_between(0, 1)));
  EXPECT_DOUBLE_EQ(lat, 3e-6);  // the detour is 3 hops (via a y neighbour)
  double out_of_0 = 0.0;
  for (const auto& [link, f] : m) {
    if (t.links()[static_cast<std::size_t>(link)].src == 0) out_of_0 += f;
  }
  EXPECT_DOUBLE_EQ(out_of_0, 1.0);  // the whole flow leaves GPU 0 once
}

TEST(Faults, FailedSwitchPortIsNamedBySwitchNodeId) {
  auto nv = dim("nv", TopologyType::switch_, 450e9, 1e-6);
  auto ib = dim("ib", TopologyType::switch_, 50e9, 5e-6);
  // GPUs 0-7 (4 x 2), NVSwitches 8 and 9, IB switches 10-13. GPU 0's NVSwitch port fails:
  // traffic to GPU 1 detours over InfiniBand through GPU 4 and its NVSwitch.
  Topology t({{&nv, 4}, {&ib, 2}}, {{0, 8, 0.0}});
  Router r(t);
  double lat = 0.0;
  auto m = route_of(r, 0, 1, &lat);
  EXPECT_FALSE(m.count(*t.link_between(0, 8)));
  EXPECT_TRUE(m.count(*t.link_between(0, 10)));
}

TEST(Faults, UnreachablePairIsAnInfeasibleErrorNamingIt) {
  auto ring = dim("r", TopologyType::ring, 50e9, 5e-6);
  Topology t({{&ring, 4}}, {{0, 1, 0.0}, {3, 0, 0.0}});
  Router r(t);
  std::vector<LinkShare> out;
  try {
    (void)r.route(2, 0, out);
    ADD_FAILURE() << "expected InfeasibleError";
  } catch (const InfeasibleError& e) {
    EXPECT_THAT(e.what(), HasSubstr("GPU 2"));
    EXPECT_THAT(e.what(), HasSubstr("GPU 0"));
  }
}

TEST(Faults, FaultOnAMissingLinkIsRejectedAndOutsideNodesIgnored) {
  auto ring = dim("r", TopologyType::ring, 50e9, 5e-6);
  EXPECT_THROW(Topology({{&ring, 8}}, {{0, 4, 0.5}}), InfeasibleError);
  Topology ignored({{&ring, 4}}, {{16, 17, 0.1}});  // written for a bigger cluster
  EXPECT_DOUBLE_EQ(capacity(ignored, 0, 1), 50e9);
}

}  // namespace
}  // namespace rapidllm::network
