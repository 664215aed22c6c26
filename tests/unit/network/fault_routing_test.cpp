// Routing with faults: a degraded link (0 < w < 1) never costs more than the same link
// failed, never less than healthy, and w = 1 is exactly healthy (docs/network-simulator.md,
// "Routing"); check_faults_exist rejects fault ids the whole cluster does not have.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <map>
#include <optional>
#include <string>
#include <vector>

#include "net_fixtures.hpp"
#include "network/backend.hpp"
#include "network/routing.hpp"
#include "network/topology.hpp"
#include "rapidllm/error.hpp"

namespace rapidllm::network {
namespace {

using ::testing::HasSubstr;
using namespace rapidllm::network::testing;

// Flow-backend time of one collective; no weight = no fault.
double flow_time(CollectiveOp op, double bytes, const std::vector<GroupSpan>& group, int a, int b,
                 std::optional<double> weight) {
  NetworkSpec net;
  if (weight) net.faulty_links = {{a, b, *weight}};
  return run_collective(NetworkBackend::flow, op, bytes, group, net, {}).time_s;
}

// healthy <= w=0.75 <= w=0.5 <= w=0.25 <= failed, w = 1 equal to healthy.
void expect_ordered(CollectiveOp op, double bytes, const std::vector<GroupSpan>& group, int a, int b) {
  const double healthy = flow_time(op, bytes, group, a, b, std::nullopt);
  EXPECT_DOUBLE_EQ(flow_time(op, bytes, group, a, b, 1.0), healthy);
  double previous = healthy;
  for (double w : {0.75, 0.5, 0.25, 0.0}) {
    const double t = flow_time(op, bytes, group, a, b, w);
    EXPECT_GE(t, previous * (1.0 - 1e-12)) << "w = " << w;
    previous = t;
  }
  const double failed = previous;
  EXPECT_GT(failed, healthy);  // the fault matters at all, so the ordering says something
  EXPECT_LT(flow_time(op, bytes, group, a, b, 0.5), failed);
}

TEST(FaultRouting, TorusRingAllReduceCostsBetweenHealthyAndFailed) {
  // The a100_80GB_fault.yaml layout: 16 ranks on a 4 x 4 Torus2D (100 GB x util 0.75), the
  // outer Ring dimension spanning 1 rank.
  auto tor = dim("dim0", TopologyType::torus2d, 75e9, 5e-6, {4, 4});
  auto ring = dim("dim1", TopologyType::ring, 25e9, 5e-6);
  expect_ordered(CollectiveOp::all_reduce, 256 * kMiB, {{&tor, 16}, {&ring, 1}}, 0, 1);
}

TEST(FaultRouting, FatTreeShiftsTrafficOffADegradedUplink) {
  // 2:1 oversubscribed leaves (4 GPUs, 50 GB each; 2 uplinks of 25 GB): the uplink of leaf 8
  // to spine 10 is the fault.
  auto pod = superpod("pod", 50e9, 12.5e9, 2e-6, 4, 2);
  expect_ordered(CollectiveOp::all_reduce, 256 * kMiB, {{&pod, 8}}, 8, 10);
  expect_ordered(CollectiveOp::all_to_all, 64 * kMiB, {{&pod, 8}}, 8, 10);
  // GPU 1 -> GPU 6 at w = 0.5: the route over both spines carries min(50, 2 x 12.5) = 25 GB
  // alone, spine 11 alone carries 25 GB: half the flow takes each, so spine 10 gets a
  // quarter and spine 11 three quarters.
  Topology t({{&pod, 8}}, {{8, 10, 0.5}});
  Router r(t);
  std::vector<LinkShare> out;
  (void)r.route(1, 6, out);
  std::map<int, double> m;
  for (const auto& s : out) m[s.link] += s.fraction;
  EXPECT_DOUBLE_EQ(m[*t.link_between(8, 10)], 0.25);
  EXPECT_DOUBLE_EQ(m[*t.link_between(8, 11)], 0.75);
  EXPECT_DOUBLE_EQ(m[*t.link_between(1, 8)], 1.0);
}

TEST(FaultRouting, DegradedRingLinkSendsTheRestTheOtherWayRound) {
  // Ring of 4, 50 GB per direction; cable 0 - 1 at half capacity. 0 -> 1 alone carries 25 GB
  // direct and 50 GB the other way round (0 -> 3 -> 2 -> 1): a third goes direct, two thirds
  // round, both parts finish together at 75 GB (failed: 50 GB, healthy: 50 GB).
  auto ring = dim("r", TopologyType::ring, 50e9, 5e-6);
  Topology t({{&ring, 4}}, {{0, 1, 0.5}});
  Router r(t);
  std::vector<LinkShare> out;
  const double latency = r.route(0, 1, out);
  std::map<int, double> m;
  for (const auto& s : out) m[s.link] += s.fraction;
  ASSERT_EQ(m.size(), 4u);
  EXPECT_DOUBLE_EQ(m[*t.link_between(0, 1)], 1.0 / 3.0);
  for (auto [a, b] : {std::pair{0, 3}, std::pair{3, 2}, std::pair{2, 1}}) {
    EXPECT_DOUBLE_EQ(m[*t.link_between(a, b)], 2.0 / 3.0) << a << " -> " << b;
  }
  EXPECT_DOUBLE_EQ(latency, 15e-6);  // the longer part: three hops
  // A pair whose route does not touch the fault keeps its shortest path: 2 -> 3 direct.
  out.clear();
  EXPECT_DOUBLE_EQ(r.route(2, 3, out), 5e-6);
  ASSERT_EQ(out.size(), 1u);
  EXPECT_DOUBLE_EQ(out[0].fraction, 1.0);
}

TEST(FaultRouting, DegradedLinkWithNoAlternativeKeepsTheWholeFlow) {
  auto ring = dim("r", TopologyType::ring, 50e9, 5e-6);
  Topology t({{&ring, 2}}, {{0, 1, 0.5}});  // two ranks: one cable, nothing else
  Router r(t);
  std::vector<LinkShare> out;
  (void)r.route(0, 1, out);
  ASSERT_EQ(out.size(), 1u);
  EXPECT_DOUBLE_EQ(out[0].fraction, 1.0);
  EXPECT_DOUBLE_EQ(t.links()[static_cast<std::size_t>(out[0].link)].capacity_bytes_per_s, 25e9);
}

TEST(FaultRouting, WeightOneIsNoFault) {
  auto tor = dim("t", TopologyType::torus2d, 100e9, 1e-6, {4, 4});
  Topology t({{&tor, 16}}, {{0, 1, 1.0}});
  EXPECT_FALSE(t.has_faults());
  Topology soft({{&tor, 16}}, {{0, 1, 0.5}});
  EXPECT_TRUE(soft.has_faults());
  EXPECT_TRUE(soft.links()[static_cast<std::size_t>(*soft.link_between(1, 0))].degraded());
}

TEST(CheckFaultsExist, AcceptsCablesOfTheCluster) {
  auto nv = dim("nv", TopologyType::switch_, 450e9, 1e-6);
  Topology t({{&nv, 8}}, {});  // GPUs 0-7, switch 8
  EXPECT_NO_THROW(check_faults_exist(t, {{0, 8, 0.5}, {8, 3, 0.0}}));
}

TEST(CheckFaultsExist, RejectsANodeOutsideTheClusterNamingTheKeyAndRange) {
  auto nv = dim("nv", TopologyType::switch_, 450e9, 1e-6);
  Topology t({{&nv, 8}}, {});
  try {
    check_faults_exist(t, {{0, 8, 0.5}, {16, 17, 0.1}});
    ADD_FAILURE() << "expected ConfigError";
  } catch (const ConfigError& e) {
    EXPECT_EQ(e.key_path(), "network.faulty_links[1]");
    EXPECT_THAT(e.problem(), HasSubstr("node 16"));
    EXPECT_THAT(e.problem(), HasSubstr("0..8"));
    EXPECT_THAT(e.problem(), HasSubstr("GPUs 0..7"));
  }
  EXPECT_THROW(check_faults_exist(t, {{-1, 0, 0.5}}), ConfigError);
}

TEST(CheckFaultsExist, RejectsTwoNodesNoCableJoins) {
  auto ring = dim("r", TopologyType::ring, 50e9, 5e-6);
  Topology t({{&ring, 8}}, {});
  try {
    check_faults_exist(t, {{0, 4, 0.5}});
    ADD_FAILURE() << "expected ConfigError";
  } catch (const ConfigError& e) {
    EXPECT_EQ(e.key_path(), "network.faulty_links[0]");
    EXPECT_THAT(e.problem(), HasSubstr("no cable joins node 0"));
    EXPECT_THAT(e.problem(), HasSubstr("0..7"));
  }
}

}  // namespace
}  // namespace rapidllm::network
