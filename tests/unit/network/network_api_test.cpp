// The network interface: idle-network costs equal the backends' own answers, submissions
// complete in time order with their callbacks, energy follows the bus factor.
#include <vector>

#include <gtest/gtest.h>

#include "network/analytical_collectives.hpp"
#include "network/backend.hpp"
#include "network/network_api.hpp"

namespace rapidllm::network {
namespace {

NetworkDimension nvswitch() {
  NetworkDimension d;
  d.id = "nvlink";
  d.size = {8};
  d.topology = TopologyType::switch_;
  d.bandwidth_bytes_per_s = {450e9};
  d.latency_s = 2e-6;
  d.energy_per_bit_j = 1e-12;
  return d;
}

TEST(NetworkApi, AnalyticalAnswersAsTheClosedForms) {
  const NetworkDimension d = nvswitch();
  const ExecutionBackendSpec exec;
  const auto net = make_network(NetworkBackend::analytical, NetworkSpec{}, exec);
  const std::vector<GroupSpan> group{GroupSpan{&d, 8}};
  EXPECT_DOUBLE_EQ(net->collective(CollectiveOp::all_reduce, 1e9, group).time_s,
                   estimate_collective(CollectiveOp::all_reduce, 1e9, group, exec).time_s);
  EXPECT_DOUBLE_EQ(net->message_s(d, 1e6), point_to_point_s(d, 1e6));
}

TEST(NetworkApi, SubmissionsCompleteInTimeOrderAndMayChain) {
  const NetworkDimension d = nvswitch();
  const ExecutionBackendSpec exec;
  const auto net = make_network(NetworkBackend::analytical, NetworkSpec{}, exec);
  const std::vector<GroupSpan> group{GroupSpan{&d, 8}};
  const double big = net->collective(CollectiveOp::all_gather, 1e9, group).time_s;
  const double small = net->message_s(d, 1e3);
  std::vector<std::pair<int, double>> done;
  net->submit_collective(0.0, CollectiveOp::all_gather, 1e9, group, [&](double t) {
    done.emplace_back(1, t);
    net->submit_message(t, d, 1e3, [&](double u) { done.emplace_back(3, u); });
  });
  net->submit_message(1e-6, d, 1e3, [&](double t) { done.emplace_back(2, t); });
  while (net->next_completion_s() < std::numeric_limits<double>::infinity()) net->deliver_next();
  ASSERT_EQ(done.size(), 3u);
  EXPECT_EQ(done[0].first, 2);
  EXPECT_DOUBLE_EQ(done[0].second, 1e-6 + small);
  EXPECT_EQ(done[1].first, 1);
  EXPECT_DOUBLE_EQ(done[1].second, big);
  EXPECT_EQ(done[2].first, 3);
  EXPECT_DOUBLE_EQ(done[2].second, big + small);
}

TEST(NetworkApi, FlowAnswersAsTheFlowBackendAndCaches) {
  NetworkSpec spec;
  spec.dimensions = {nvswitch()};
  const ExecutionBackendSpec exec;
  const auto net = make_network(NetworkBackend::flow, spec, exec);
  const std::vector<GroupSpan> group{GroupSpan{&spec.dimensions[0], 8}};
  const double t = net->collective(CollectiveOp::all_reduce, 256e6, group).time_s;
  EXPECT_DOUBLE_EQ(t, run_collective(NetworkBackend::flow, CollectiveOp::all_reduce, 256e6, group, spec, exec).time_s);
  EXPECT_DOUBLE_EQ(net->collective(CollectiveOp::all_reduce, 256e6, group).time_s, t);
  EXPECT_GT(net->message_s(spec.dimensions[0], 1e6), 1e6 / 450e9);
}

TEST(NetworkApi, CollectiveEnergyIsRanksTimesBusFactorTimesBits) {
  const NetworkDimension d = nvswitch();
  const std::vector<GroupSpan> group{GroupSpan{&d, 8}};
  const CollectiveEstimate e = estimate_collective(CollectiveOp::all_reduce, 1e9, group, ExecutionBackendSpec{});
  // 8 ranks x 2(8-1)/8 x 1e9 B x 8 bit x 1 pJ.
  EXPECT_NEAR(collective_energy_j(e, group), 8 * 2.0 * 7 / 8 * 1e9 * 8 * 1e-12, 1e-12);
  EXPECT_DOUBLE_EQ(message_energy_j(d, 1e6), 1e6 * 8 * 1e-12);
}

}  // namespace
}  // namespace rapidllm::network
