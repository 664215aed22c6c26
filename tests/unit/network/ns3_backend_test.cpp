// The ns3 backend: its input format, and (when rapidllm-ns3 was built) small packet-level
// runs that must agree with the flow backend within the 8% (they agree within ~2%;
// the full table is validation/network/flow_vs_ns3.md).
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <sstream>
#include <string>

#include "net_fixtures.hpp"
#include "network/backend.hpp"
#include "network/collective_flows.hpp"
#include "network/flow_simulator.hpp"
#include "network/ns3_backend.hpp"
#include "rapidllm/error.hpp"

namespace rapidllm::network {
namespace {

using ::testing::HasSubstr;
using ::testing::StartsWith;
using namespace rapidllm::network::testing;

TEST(Ns3Input, ListsNodesCablesAndTransfersWithTheirPairs) {
  auto sw = dim("sw", TopologyType::switch_, 12.5e9, 1e-6);
  const Topology topo({{&sw, 4}}, {});
  FlowPlan plan;
  add_collective(plan, topo, CollectiveOp::all_gather, 4 * kMiB, {});
  std::ostringstream out;
  write_ns3_input(topo, plan, out);
  const std::string text = out.str();
  EXPECT_THAT(text, StartsWith("rapidllm-ns3 1\nnodes 5 4\nlinks 4\n"));
  EXPECT_THAT(text, HasSubstr("0 4 12500000000 4.9999999999999998e-07\n"));  // GPU 0 - switch, alpha/2
  EXPECT_THAT(text, HasSubstr("transfers 3\n"));
  // Ring all-gather step 1: 1 MiB on every ring edge, no dependencies.
  EXPECT_THAT(text, HasSubstr("1048576 0 0 0 4 0 1 1 2 2 3 3 0\n"));
  EXPECT_THAT(text, HasSubstr("1048576 0 0 1 1 4 0 1 1 2 2 3 3 0\n"));  // step 2 waits for step 1
  EXPECT_THAT(text, HasSubstr("end\n"));
}

TEST(Ns3Backend, MissingExecutableIsAClearError) {
  auto sw = dim("sw", TopologyType::switch_, 12.5e9, 1e-6);
  const Topology topo({{&sw, 2}}, {});
  FlowPlan plan;
  add_collective(plan, topo, CollectiveOp::all_gather, kMiB, {});
  try {
    (void)run_ns3(topo, plan, "/nonexistent/rapidllm-ns3");
    ADD_FAILURE() << "expected an Error";
  } catch (const Error& e) {
    EXPECT_THAT(e.what(), HasSubstr("rapidllm-ns3 failed"));
  }
}

class Ns3CrossCheck : public ::testing::Test {
 protected:
  void SetUp() override {
    if (ns3_executable().empty()) GTEST_SKIP() << "rapidllm-ns3 was not built (ns-3 not installed)";
  }
};

TEST_F(Ns3CrossCheck, RingAllReduceMatchesTheFlowBackend) {
  auto sw = dim("sw", TopologyType::switch_, 12.5e9, 1e-6);
  NetworkSpec net;
  const std::vector<GroupSpan> g{{&sw, 8}};
  const double flow = run_collective(NetworkBackend::flow, CollectiveOp::all_reduce, 4 * kMiB, g, net, {}).time_s;
  const double ns3 = run_collective(NetworkBackend::ns3, CollectiveOp::all_reduce, 4 * kMiB, g, net, {}).time_s;
  expect_rel(flow, ns3, 0.05);
}

TEST_F(Ns3CrossCheck, AllToAllAndTreeMatchTheFlowBackend) {
  auto sw = dim("sw", TopologyType::switch_, 12.5e9, 1e-6);
  NetworkSpec net;
  const std::vector<GroupSpan> g{{&sw, 8}};
  ExecutionBackendSpec tree;
  tree.collectives[CollectiveOp::all_reduce] = CollectiveAlgorithm::double_binary_tree;
  for (auto [op, exec] : {std::pair{CollectiveOp::all_to_all, ExecutionBackendSpec{}},
                          std::pair{CollectiveOp::all_reduce, tree}}) {
    SCOPED_TRACE(std::string(to_string(op)));
    const double flow = run_collective(NetworkBackend::flow, op, 4 * kMiB, g, net, exec).time_s;
    const double ns3 = run_collective(NetworkBackend::ns3, op, 4 * kMiB, g, net, exec).time_s;
    expect_rel(flow, ns3, 0.05);
  }
}

TEST_F(Ns3CrossCheck, TwoJobsOnAnOversubscribedFatTreeMatchTheFlowBackend) {
  auto pod = superpod("pod", 12.5e9, 6.25e9, 1e-6, 4, 1);
  const Topology topo({{&pod, 8}}, {});
  FlowPlan plan;
  // Job A rings over {0, 4, 1, 5}, job B over {2, 6, 3, 7}: every hop crosses the spine.
  add_group_collective(plan, topo, 0, {0, 4, 1, 5}, CollectiveOp::all_reduce, CollectiveAlgorithm::ring, 4 * kMiB);
  add_group_collective(plan, topo, 0, {2, 6, 3, 7}, CollectiveOp::all_reduce, CollectiveAlgorithm::ring, 4 * kMiB);
  FlowSimulator sim(topo);
  const auto flow = sim.run(plan);
  const auto ns3 = run_ns3(topo, plan);
  ASSERT_EQ(ns3.job_time_s.size(), 2u);
  expect_rel(flow.job_time_s[0], ns3.job_time_s[0], 0.05);
  expect_rel(flow.job_time_s[1], ns3.job_time_s[1], 0.05);
}

}  // namespace
}  // namespace rapidllm::network
