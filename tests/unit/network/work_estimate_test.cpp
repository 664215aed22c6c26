// The work estimate against what the flow simulator really does on small plans (transfers and
// member paths exactly; events within the factor docs/network-simulator.md states), and the
// refusal it drives: a ConfigError naming the estimate and --max-events, before anything is built.
#include <set>
#include <string>
#include <vector>

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <fmt/format.h>

#include "net_fixtures.hpp"
#include "network/backend.hpp"
#include "network/collective_flows.hpp"
#include "network/flow_simulator.hpp"
#include "network/ns3_backend.hpp"
#include "network/work_estimate.hpp"
#include "rapidllm/error.hpp"

namespace rapidllm::network {
namespace {

using namespace rapidllm::network::testing;
using ::testing::HasSubstr;

struct Actual {
  double transfers = 0.0;
  double flows = 0.0;  // pairs of the distinct PairSets (each routed once)
  double events = 0.0;
};

Actual simulate(const std::vector<GroupSpan>& spans, CollectiveOp op, double bytes, const ExecutionBackendSpec& exec) {
  const Topology topo(spans, {});
  FlowPlan plan;
  add_collective(plan, topo, op, bytes, exec);
  Actual a;
  a.transfers = static_cast<double>(plan.transfers.size());
  std::set<const PairSet*> seen;
  for (const auto& t : plan.transfers) {
    if (t.pairs && seen.insert(t.pairs.get()).second) a.flows += static_cast<double>(t.pairs->size());
  }
  FlowSimulator sim(topo);
  a.events = static_cast<double>(sim.run(plan).events);
  return a;
}

WorkEstimate estimate(const std::vector<GroupSpan>& spans, CollectiveOp op, double bytes,
                      const ExecutionBackendSpec& exec) {
  std::vector<SpanShape> shape;
  for (const auto& s : spans) shape.push_back({s.dimension, s.ranks, true});
  return estimate_collective_work(op, bytes, shape, 1, exec);
}

// The factor the docs promise for engine events (rate computations are the estimated part).
constexpr double kEventFactor = 2.0;

void expect_close(const WorkEstimate& e, const Actual& a) {
  EXPECT_EQ(e.transfers, a.transfers);
  EXPECT_EQ(e.flows, a.flows);
  EXPECT_GE(e.events, a.events / kEventFactor) << "actual " << a.events;
  EXPECT_LE(e.events, a.events * kEventFactor) << "actual " << a.events;
}

TEST(WorkEstimate, RingAllReduceOnASwitchCountsEveryEvent) {
  auto sw = dim("sw", TopologyType::switch_, 50e9, 1e-6);
  const std::vector<GroupSpan> g{{&sw, 16}};
  const Actual a = simulate(g, CollectiveOp::all_reduce, 64 * kMiB, {});
  // 2 (n - 1) steps, one after another: a start, a rate (one drain) and a completion each.
  EXPECT_EQ(a.transfers, 30.0);
  EXPECT_EQ(a.events, 90.0);
  const WorkEstimate e = estimate(g, CollectiveOp::all_reduce, 64 * kMiB, {});
  expect_close(e, a);
  EXPECT_EQ(e.events, 90.0);
}

TEST(WorkEstimate, HierarchicalAllToAllAndChunkedAllReduceAreWithinTheFactor) {
  auto nv = dim("nv", TopologyType::switch_, 450e9, 1e-6, {8});
  auto ib = dim("ib", TopologyType::switch_, 50e9, 5e-6);
  const std::vector<GroupSpan> g{{&nv, 8}, {&ib, 8}};
  {
    SCOPED_TRACE("all_to_all");
    ExecutionBackendSpec ring;
    ring.collectives[CollectiveOp::all_to_all] = CollectiveAlgorithm::ring;
    const Actual a = simulate(g, CollectiveOp::all_to_all, 16 * kMiB, ring);
    EXPECT_EQ(a.transfers, 14.0);  // 7 shifted steps per dimension, each its own PairSet
    EXPECT_EQ(a.flows, 14.0 * 64.0);
    expect_close(estimate(g, CollectiveOp::all_to_all, 16 * kMiB, ring), a);
  }
  {
    SCOPED_TRACE("chunked all_reduce");
    ExecutionBackendSpec chunked;
    chunked.preferred_dataset_splits = 4;
    chunked.active_chunks_per_dimension = 2;
    const Actual a = simulate(g, CollectiveOp::all_reduce, 256 * kMiB, chunked);
    expect_close(estimate(g, CollectiveOp::all_reduce, 256 * kMiB, chunked), a);
  }
}

TEST(WorkEstimate, TorusDecompositionIsWithinTheFactor) {
  // The torus, and the mesh whose folded rings put both directions on every link.
  for (TopologyType t : {TopologyType::torus2d, TopologyType::mesh2d}) {
    auto grid = dim("t", t, 100e9, 1e-6, {4, 4});
    const std::vector<GroupSpan> g{{&grid, 16}};
    for (CollectiveOp op : {CollectiveOp::all_reduce, CollectiveOp::all_gather}) {
      SCOPED_TRACE(fmt::format("{} on {}", to_string(op), to_string(t)));
      expect_close(estimate(g, op, 64 * kMiB, {}), simulate(g, op, 64 * kMiB, {}));
    }
  }
}

TEST(WorkEstimate, Ns3EventsAreWithinTheFactorWhenNs3IsBuilt) {
  if (ns3_executable().empty()) GTEST_SKIP() << "rapidllm-ns3 was not built (ns-3 not installed)";
  auto sw = dim("sw", TopologyType::switch_, 50e9, 1e-6);
  const std::vector<GroupSpan> g{{&sw, 8}};
  const Topology topo(g, {});
  FlowPlan plan;
  add_collective(plan, topo, CollectiveOp::all_reduce, 4 * kMiB, {});
  const double real = run_ns3(topo, plan).events;
  const double est = estimate(g, CollectiveOp::all_reduce, 4 * kMiB, {}).ns3_events;
  EXPECT_GT(real, 1000.0);
  EXPECT_GE(est, real / kEventFactor) << "real " << real;
  EXPECT_LE(est, real * kEventFactor) << "real " << real;
}

TEST(WorkEstimate, AMillionRanksAreRefusedBeforeAnythingIsBuilt) {
  // 125,000 switch ports: the topology alone would be ~60 MB, the ring 250k sequential steps.
  auto nv = dim("nv", TopologyType::switch_, 450e9, 1e-6, {8});
  auto ib = dim("ib", TopologyType::switch_, 50e9, 5e-6);
  const std::vector<GroupSpan> g{{&nv, 8}, {&ib, 125000}};
  NetworkSpec net;
  ExecutionBackendSpec exec;
  exec.max_events = 1e6;
  try {
    (void)run_collective(NetworkBackend::flow, CollectiveOp::all_reduce, kGiB, g, net, exec);
    ADD_FAILURE() << "expected a ConfigError";
  } catch (const ConfigError& e) {
    EXPECT_THAT(e.what(), HasSubstr("1000000 ranks"));
    EXPECT_THAT(e.what(), HasSubstr("past the limit of 1e+06"));
    EXPECT_THAT(e.what(), HasSubstr("--max-events"));
    EXPECT_THAT(e.what(), HasSubstr("execution_backend.astra.max_events"));
  }
}

TEST(WorkEstimate, MemoryPastThisMachineIsRefusedWhateverTheLimit) {
  WorkEstimate e;
  e.memory_bytes = physical_memory_bytes() * 2.0;
  try {
    check_work(e, NetworkBackend::flow, 1e18, "a test");
    ADD_FAILURE() << "expected a ConfigError";
  } catch (const ConfigError& err) {
    EXPECT_THAT(err.what(), HasSubstr("more than this machine has"));
  }
  e.memory_bytes = 1e6;
  EXPECT_NO_THROW(check_work(e, NetworkBackend::flow, 1e18, "a test"));
}

}  // namespace
}  // namespace rapidllm::network
