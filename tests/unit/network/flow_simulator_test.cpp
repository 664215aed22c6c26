// The flow backend against hand-derived values and against the analytical backend: an
// uncongested collective takes what the alpha-beta formula says; shared links, incast,
// slow and failed links slow it by the amounts max-min fairness predicts; bytes are conserved.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <numeric>
#include <string>
#include <vector>

#include "net_fixtures.hpp"
#include "network/analytical_collectives.hpp"
#include "network/backend.hpp"
#include "network/collective_flows.hpp"
#include "network/flow_simulator.hpp"
#include "rapidllm/error.hpp"

namespace rapidllm::network {
namespace {

using ::testing::HasSubstr;
using namespace rapidllm::network::testing;

double flow_time(CollectiveOp op, double bytes, const std::vector<GroupSpan>& group,
                 const ExecutionBackendSpec& exec = {}, const std::vector<FaultyLink>& faults = {}) {
  NetworkSpec net;
  net.faulty_links = faults;
  return run_collective(NetworkBackend::flow, op, bytes, group, net, exec).time_s;
}

double analytical_time(CollectiveOp op, double bytes, const std::vector<GroupSpan>& group,
                       const ExecutionBackendSpec& exec = {}) {
  return estimate_collective(op, bytes, group, exec).time_s;
}

ExecutionBackendSpec with_algorithm(CollectiveOp op, CollectiveAlgorithm a) {
  ExecutionBackendSpec e;
  e.collectives[op] = a;
  return e;
}

constexpr CollectiveOp kAllOps[] = {CollectiveOp::all_reduce, CollectiveOp::all_gather, CollectiveOp::reduce_scatter,
                                    CollectiveOp::all_to_all};

TEST(FlowBackend, RingAllReduceOnASwitchMatchesTheHandFormula) {
  auto nv = dim("nv", TopologyType::switch_, 450e9, 3e-6);
  // 2(n-1)/n S/B + 2(n-1) alpha, n = 8, S = 1 GiB: 1.75 * 2^30 / 450e9 + 14 * 3e-6
  // = 4.17566264889e-3 + 4.2e-5 = 4.21766264889e-3 s.
  expect_rel(flow_time(CollectiveOp::all_reduce, kGiB, {{&nv, 8}}), 4.21766264889e-3, 1e-9);
}

TEST(FlowBackend, UncongestedEqualsAnalyticalOnEveryTopology) {
  auto ring = dim("ring", TopologyType::ring, 50e9, 5e-6);
  auto fc = dim("fc", TopologyType::fully_connected, 280e9, 2e-6);
  auto sw = dim("sw", TopologyType::switch_, 450e9, 3e-6);
  auto tor = dim("tor", TopologyType::torus2d, 100e9, 1e-6, {4, 4});
  // Cross-leaf paths take 2 alpha (four links of alpha/2), analytical charges alpha per step.
  auto pod = superpod("pod", 50e9, 50e9, 1e-6, 4, 2);
  struct Case {
    std::string name;
    std::vector<GroupSpan> group;
    std::vector<CollectiveOp> ops;
  };
  const std::vector<Case> cases = {
      {"ring", {{&ring, 8}}, {CollectiveOp::all_reduce, CollectiveOp::all_gather, CollectiveOp::reduce_scatter}},
      {"fully connected", {{&fc, 8}}, {std::begin(kAllOps), std::end(kAllOps)}},
      {"switch", {{&sw, 8}}, {std::begin(kAllOps), std::end(kAllOps)}},
      {"torus 4x4", {{&tor, 16}}, {CollectiveOp::all_reduce, CollectiveOp::all_gather, CollectiveOp::reduce_scatter}},
      {"superpod in one leaf", {{&pod, 4}}, {std::begin(kAllOps), std::end(kAllOps)}},
      {"superpod across the spine", {{&pod, 16}}, {CollectiveOp::all_reduce, CollectiveOp::all_gather}},
      {"switch x ring", {{&sw, 8}, {&ring, 4}}, {std::begin(kAllOps), std::end(kAllOps)}},
      {"switch x superpod x ring", {{&sw, 4}, {&pod, 8}, {&ring, 2}}, {CollectiveOp::all_reduce}},
  };
  for (const auto& c : cases) {
    for (auto op : c.ops) {
      SCOPED_TRACE(c.name + " " + std::string(to_string(op)));
      expect_rel(flow_time(op, 256 * kMiB, c.group), analytical_time(op, 256 * kMiB, c.group), 0.01);
    }
  }
}

// The flat ring's latency (flat_ring_latency) is paid in the flow backend too: a small
// all-gather or reduce-scatter over a fast and a slow dimension takes the ring's 15 steps
// at the slow dimension's 50 us, as the analytical model says.
TEST(FlowBackend, ASmallCollectiveAcrossDimensionsPaysTheFlatRingsLatencyAsAnalyticalDoes) {
  auto fast = dim("fast", TopologyType::switch_, 100e9, 1e-6);
  auto slow = dim("slow", TopologyType::switch_, 100e9, 50e-6);
  const std::vector<GroupSpan> g{{&fast, 8}, {&slow, 2}};
  for (auto op : {CollectiveOp::all_gather, CollectiveOp::reduce_scatter}) {
    SCOPED_TRACE(std::string(to_string(op)));
    EXPECT_NEAR(analytical_time(op, 16384.0, g), 750e-6, 1e-9);
    expect_rel(flow_time(op, 16384.0, g), analytical_time(op, 16384.0, g), 0.01);
  }
}

TEST(FlowBackend, EveryAlgorithmMatchesAnalyticalOnASwitch) {
  auto sw = dim("sw", TopologyType::switch_, 100e9, 2e-6);
  const std::vector<GroupSpan> g{{&sw, 16}};
  for (auto a : {CollectiveAlgorithm::ring, CollectiveAlgorithm::direct, CollectiveAlgorithm::halving_doubling,
                 CollectiveAlgorithm::double_binary_tree}) {
    SCOPED_TRACE(std::string(to_string(a)));
    const auto exec = with_algorithm(CollectiveOp::all_reduce, a);
    expect_rel(flow_time(CollectiveOp::all_reduce, 64 * kMiB, g, exec),
               analytical_time(CollectiveOp::all_reduce, 64 * kMiB, g, exec), 0.01);
  }
}

TEST(FlowBackend, InNetworkReductionSendsEachByteOnceEachWay) {
  auto nv = dim("nv", TopologyType::switch_, 450e9, 3e-6);
  nv.in_network_reduction = true;
  // NVLS: S (n+1)/n each way + 2 alpha = 2^30 * 9/8 / 450e9 + 6e-6 = 2.690423e-3 s;
  // busbw = 2(n-1)/n S / t = 1.75 * 2^30 / t ~ 698 GB/s, above the ring's ~445 GB/s.
  const double t = flow_time(CollectiveOp::all_reduce, kGiB, {{&nv, 8}});
  expect_rel(t, kGiB * 9.0 / 8.0 / 450e9 + 6e-6, 1e-9);
  expect_rel(t, analytical_time(CollectiveOp::all_reduce, kGiB, {{&nv, 8}}), 1e-9);
  EXPECT_GT(1.75 * kGiB / t, 690e9);
}

TEST(FlowBackend, InNetworkReductionWithItsOwnConstantsMatchesAnalyticalAtEverySize) {
  auto nv = dim("nv", TopologyType::switch_, 450e9, 1.5e-6);
  nv.util = 0.46;
  nv.in_network_reduction = true;
  nv.in_network_reduction_util = 0.632;
  nv.in_network_reduction_latency_s = 26e-6;
  for (double bytes : {1 * kMiB, 4 * kMiB, 64 * kMiB, kGiB}) {  // ring below ~6.9 MB, nvls above
    expect_rel(flow_time(CollectiveOp::all_reduce, bytes, {{&nv, 8}}),
               analytical_time(CollectiveOp::all_reduce, bytes, {{&nv, 8}}), 1e-9);
  }
}

TEST(FlowBackend, RunsTheProtocolTheAnalyticalModelPicks) {
  auto nv = dim("nv", TopologyType::switch_, 400e9, 1e-6);
  nv.util = 0.8;
  nv.protocols = {{NcclProtocol::ll, 10e-6, 1.5e-6, 0.5, 80e9}, {NcclProtocol::simple, 30e-6, 3e-6, 1.0}};
  auto ring = dim("ring", TopologyType::ring, 50e9, 1e-6);
  ring.protocols = nv.protocols;
  // LL (half the link, capped at 80 GB/s) below ~3.4 MB and Simple above on the switch (see
  // the analytical protocol tests): the flow plan carries 1/fraction bytes per payload byte, the protocol's step latency and
  // its fixed latency once, so it lands on the analytical time.
  for (double bytes : {64.0 * 1024, 1e6, 4e6, 256 * kMiB}) {
    SCOPED_TRACE(bytes);
    for (auto op : {CollectiveOp::all_reduce, CollectiveOp::all_gather}) {
      expect_rel(flow_time(op, bytes, {{&nv, 8}}), analytical_time(op, bytes, {{&nv, 8}}), 0.01);
    }
    expect_rel(flow_time(CollectiveOp::all_reduce, bytes, {{&nv, 4}, {&ring, 4}}),
               analytical_time(CollectiveOp::all_reduce, bytes, {{&nv, 4}, {&ring, 4}}), 0.01);
  }
  // Chunked: the fixed latency is one call's, paid once, not once per chunk.
  ExecutionBackendSpec chunked;
  chunked.preferred_dataset_splits = 4;
  chunked.active_chunks_per_dimension = 1;
  const double one = flow_time(CollectiveOp::all_reduce, 256 * kMiB, {{&nv, 8}});
  const double four = flow_time(CollectiveOp::all_reduce, 256 * kMiB, {{&nv, 8}}, chunked);
  // Four chunks in sequence pay the 14 step latencies four times but the 30 us only once.
  EXPECT_NEAR(four - one, 3 * 14 * 3e-6, 1e-7);
}

TEST(FlowBackend, BroadcastAndSendRecvMatchAnalytical) {
  auto sw = dim("sw", TopologyType::switch_, 400e9, 1e-6);
  auto fc = dim("fc", TopologyType::fully_connected, 300e9, 2e-6);
  auto ring = dim("ring", TopologyType::ring, 50e9, 3e-6);
  auto ib = dim("ib", TopologyType::switch_, 50e9, 5e-6);
  for (auto op : {CollectiveOp::broadcast, CollectiveOp::send_recv}) {
    for (const std::vector<GroupSpan>& g : std::vector<std::vector<GroupSpan>>{
             {{&sw, 8}}, {{&fc, 8}}, {{&ring, 8}}, {{&sw, 8}, {&ib, 4}}}) {
      SCOPED_TRACE(std::string(to_string(op)) + " on " + g.back().dimension->id);
      expect_rel(flow_time(op, 256 * kMiB, g), analytical_time(op, 256 * kMiB, g), 0.01);
    }
    const auto direct = with_algorithm(op, CollectiveAlgorithm::direct);
    expect_rel(flow_time(op, 64 * kMiB, {{&sw, 8}}, direct), analytical_time(op, 64 * kMiB, {{&sw, 8}}, direct),
               0.01);
  }
}

TEST(FlowBackend, SharedNicsMatchAnalytical) {
  auto nv = dim("nv", TopologyType::switch_, 400e9, 1e-6);
  auto ib = dim("ib", TopologyType::switch_, 50e9, 5e-6);
  ib.gpus_per_nic = 4;
  const std::vector<GroupSpan> g{{&nv, 8}, {&ib, 4}};
  for (auto op : {CollectiveOp::all_reduce, CollectiveOp::all_gather}) {
    expect_rel(flow_time(op, 256 * kMiB, g), analytical_time(op, 256 * kMiB, g), 0.01);
  }
  // A quarter of the port each: the inter-node phase is 4x the rail-optimized one.
  auto rail = ib;
  rail.gpus_per_nic = 1;
  expect_rel(flow_time(CollectiveOp::all_reduce, 256 * kMiB, {{&ib, 4}}) - 6 * 5e-6,
             4.0 * (flow_time(CollectiveOp::all_reduce, 256 * kMiB, {{&rail, 4}}) - 6 * 5e-6), 1e-6);
}

TEST(FlowBackend, HalvingOneRingLinkMovesItsTrafficToTheIdleDirection) {
  auto ring = dim("ring", TopologyType::ring, 50e9, 0.0);
  const std::vector<GroupSpan> g{{&ring, 8}};
  const double healthy = flow_time(CollectiveOp::all_reduce, kGiB, g);
  const double slow = flow_time(CollectiveOp::all_reduce, kGiB, g, {}, {{3, 4, 0.5}});
  const double failed = flow_time(CollectiveOp::all_reduce, kGiB, g, {}, {{3, 4, 0.0}});
  // The ring uses one direction; 3 -> 4 sends a third over the half link and two thirds the
  // other way round, which is idle: no slower than healthy (no latency here), and the same
  // as routing all of it round when the link fails (docs/network-simulator.md, "Routing").
  expect_rel(slow / healthy, 1.0, 1e-9);
  expect_rel(failed / healthy, 1.0, 1e-9);
}

TEST(FlowBackend, TwoJobsSharingAnUplinkGetHalfEach) {
  // Fat-tree: 2 leaves of 4 GPUs, 1 spine; the leaf uplink carries 4 x 12.5e9 = 50e9 = one
  // GPU's rate. Job A all-gathers over {0, 4}, job B over {1, 5}: both cross leaf 8's uplink.
  auto pod = superpod("pod", 50e9, 12.5e9, 0.0, 4, 1);
  const Topology topo({{&pod, 8}}, {});
  const double bytes = 64 * kMiB;
  auto run = [&](bool both) {
    FlowPlan plan;
    add_group_collective(plan, topo, 0, {0, 4}, CollectiveOp::all_gather, CollectiveAlgorithm::ring, bytes);
    if (both) add_group_collective(plan, topo, 0, {1, 5}, CollectiveOp::all_gather, CollectiveAlgorithm::ring, bytes);
    FlowSimulator sim(topo);
    return sim.run(plan);
  };
  const auto alone = run(false);
  const auto shared = run(true);
  // Alone: S/2 at 50e9 = 0.67108864e-3 s. Shared: 25e9 each -> twice as long, for both jobs.
  expect_rel(alone.time_s, bytes / 2 / 50e9, 1e-9);
  expect_rel(shared.job_time_s[0], 2 * alone.time_s, 1e-9);
  expect_rel(shared.job_time_s[1], 2 * alone.time_s, 1e-9);
}

TEST(FlowBackend, IncastSharesTheReceiversDownlink) {
  auto sw = dim("sw", TopologyType::switch_, 100e9, 0.0);
  const Topology topo({{&sw, 8}}, {});
  FlowPlan plan;
  auto pairs = std::make_shared<PairSet>();
  pairs->groups = {{0, 1, 2, 3, 4, 5, 6, 7}};
  for (int i = 1; i < 8; ++i) pairs->index_pairs.emplace_back(i, 0);  // 7 senders -> GPU 0
  Transfer t;
  t.pairs = pairs;
  t.bytes = 100e6;
  plan.add(t);
  plan.jobs = 1;
  FlowSimulator sim(topo);
  // Each sender gets 100e9 / 7 of GPU 0's downlink: 100e6 * 7 / 100e9 = 7e-3 s.
  expect_rel(sim.run(plan).time_s, 7e-3, 1e-9);
}

TEST(FlowBackend, MaxMinGivesTheUnconstrainedFlowTheLeftover) {
  // Flows A: 0 -> 1 and B: 2 -> 1 share GPU 1's downlink (100e9); A also shares GPU 0's
  // uplink with C: 0 -> 3. Max-min: A = B = C = 50e9 (downlink and uplink both split), then
  // nothing is left over. With C removed, A = B = 50e9 each.
  auto sw = dim("sw", TopologyType::switch_, 100e9, 0.0);
  const Topology topo({{&sw, 4}}, {});
  auto transfer = [](std::vector<std::pair<int, int>> p, double bytes) {
    auto s = std::make_shared<PairSet>();
    s->groups = {{0, 1, 2, 3}};
    s->index_pairs = std::move(p);
    Transfer t;
    t.pairs = s;
    t.bytes = bytes;
    return t;
  };
  FlowPlan plan;
  plan.add(transfer({{0, 1}}, 100e6));
  plan.add(transfer({{2, 1}}, 50e6));
  plan.add(transfer({{0, 3}}, 200e6));
  FlowSimulator sim(topo);
  const auto r = sim.run(plan);
  // t = 1 ms: B (50e6 at 50e9) ends; A has 50e6 left and now gets 50e9 (uplink shared with C)
  // -> ends at 2 ms; C then runs alone at 100e9: 200e6 - 100e6 sent = 100e6 left -> 3 ms.
  expect_rel(r.transfer_end_s[1], 1e-3, 1e-9);
  expect_rel(r.transfer_end_s[0], 2e-3, 1e-9);
  expect_rel(r.transfer_end_s[2], 3e-3, 1e-9);
}

TEST(FlowBackend, FailedTorusLinkReroutesAndStillCompletesSlower) {
  auto tor = dim("tor", TopologyType::torus2d, 100e9, 1e-6, {4, 4});
  const std::vector<GroupSpan> g{{&tor, 16}};
  const double healthy = flow_time(CollectiveOp::all_reduce, 256 * kMiB, g);
  const double failed = flow_time(CollectiveOp::all_reduce, 256 * kMiB, g, {}, {{5, 6, 0.0}});
  EXPECT_GT(failed, healthy * 1.2);
  EXPECT_LT(failed, healthy * 10.0);
}

TEST(FlowBackend, UnreachablePeerIsAnInfeasibleErrorNamingThePair) {
  auto ring = dim("ring", TopologyType::ring, 50e9, 5e-6);
  try {
    (void)flow_time(CollectiveOp::all_reduce, kMiB, {{&ring, 4}}, {}, {{0, 1, 0.0}, {0, 3, 0.0}});
    ADD_FAILURE() << "expected InfeasibleError";
  } catch (const InfeasibleError& e) {
    EXPECT_THAT(e.what(), HasSubstr("GPU 0"));
    EXPECT_THAT(e.what(), HasSubstr("no path"));
  }
}

TEST(FlowBackend, EveryByteSentIsReceived) {
  auto sw = dim("sw", TopologyType::switch_, 100e9, 1e-6);
  auto ring = dim("ring", TopologyType::ring, 25e9, 5e-6);
  const Topology topo({{&sw, 4}, {&ring, 4}}, {{0, 4, 0.3}});  // a soft fault on the ring link 0 - 4
  for (auto op : kAllOps) {
    SCOPED_TRACE(std::string(to_string(op)));
    FlowPlan plan;
    add_collective(plan, topo, op, 64 * kMiB, {});
    FlowSimulator sim(topo);
    const auto r = sim.run(plan, {true});
    expect_rel(r.bytes_delivered, r.bytes_injected, 1e-9);
    const double sent = std::accumulate(r.node_bytes_sent.begin(), r.node_bytes_sent.end(), 0.0);
    const double received = std::accumulate(r.node_bytes_received.begin(), r.node_bytes_received.end(), 0.0);
    expect_rel(sent, r.bytes_injected, 1e-12);
    expect_rel(received, sent, 1e-12);
  }
  // Ring all-reduce on one switch: every GPU sends (and receives) 2(n-1)/n S.
  const Topology one({{&sw, 8}}, {});
  FlowPlan plan;
  add_collective(plan, one, CollectiveOp::all_reduce, 80e6, {});
  FlowSimulator sim(one);
  const auto r = sim.run(plan, {true});
  for (int g = 0; g < 8; ++g) {
    expect_rel(r.node_bytes_sent[static_cast<std::size_t>(g)], 2.0 * 7 / 8 * 80e6, 1e-12);
    expect_rel(r.node_bytes_received[static_cast<std::size_t>(g)], 2.0 * 7 / 8 * 80e6, 1e-12);
  }
}

TEST(FlowBackend, ChunksPipelineTheDimensionsOfAHierarchicalCollective) {
  auto nv = dim("nv", TopologyType::switch_, 400e9, 0.0);
  auto ib = dim("ib", TopologyType::switch_, 50e9, 0.0);
  const std::vector<GroupSpan> g{{&nv, 8}, {&ib, 4}};
  ExecutionBackendSpec one;
  ExecutionBackendSpec pipelined;
  pipelined.preferred_dataset_splits = 8;
  pipelined.active_chunks_per_dimension = 1;
  const double serial = flow_time(CollectiveOp::all_reduce, kGiB, g, one);
  const double chunked = flow_time(CollectiveOp::all_reduce, kGiB, g, pipelined);
  expect_rel(serial, analytical_time(CollectiveOp::all_reduce, kGiB, g), 1e-9);
  // Phases: RS nv (7/8 S / 400e9), AR ib (2 * 3/4 * S/8 / 50e9), AG nv: t_nv = 2.349e-3,
  // t_ib = 4.027e-3, t_nv. Pipelined over 8 chunks the inter-node phase hides the NVLink ones
  // except for one chunk's: t_ib + 2 t_nv / 8 = 4.614e-3 s (vs 8.725e-3 unchunked).
  const double t_nv = 0.875 * kGiB / 400e9;
  const double t_ib = 2 * 0.75 * kGiB / 8 / 50e9;
  expect_rel(serial, 2 * t_nv + t_ib, 1e-9);
  expect_rel(chunked, t_ib + 2 * t_nv / 8, 0.02);
}

TEST(FlowBackend, ConcurrentChunksShareTheLinksFairly) {
  auto sw = dim("sw", TopologyType::switch_, 100e9, 0.0);
  ExecutionBackendSpec all_at_once;
  all_at_once.preferred_dataset_splits = 4;
  all_at_once.active_chunks_per_dimension = 4;
  // Four chunks side by side split each link four ways: the same time as one chunk.
  expect_rel(flow_time(CollectiveOp::all_reduce, 64 * kMiB, {{&sw, 8}}, all_at_once),
             flow_time(CollectiveOp::all_reduce, 64 * kMiB, {{&sw, 8}}), 1e-9);
}

TEST(FlowBackend, MultiHopAlgorithmsPayForTheirHopsWhereAnalyticalDoesNot) {
  // Halving-doubling on a ring of 8: the first step's partners are 4 hops away, so links
  // carry several flows; analytical ignores this (docs/collectives-analytical.md).
  auto ring = dim("ring", TopologyType::ring, 50e9, 0.0);
  const auto exec = with_algorithm(CollectiveOp::all_reduce, CollectiveAlgorithm::halving_doubling);
  EXPECT_GT(flow_time(CollectiveOp::all_reduce, kGiB, {{&ring, 8}}, exec),
            1.5 * analytical_time(CollectiveOp::all_reduce, kGiB, {{&ring, 8}}, exec));
}

TEST(FlowBackend, AlgorithmsTheTopologyCannotRunAreInfeasible) {
  auto ring = dim("ring", TopologyType::ring, 50e9, 5e-6);
  EXPECT_THROW((void)flow_time(CollectiveOp::all_reduce, kMiB, {{&ring, 8}},
                               with_algorithm(CollectiveOp::all_reduce, CollectiveAlgorithm::direct)),
               InfeasibleError);
  EXPECT_THROW((void)flow_time(CollectiveOp::all_reduce, kMiB, {{&ring, 6}},
                               with_algorithm(CollectiveOp::all_reduce, CollectiveAlgorithm::halving_doubling)),
               InfeasibleError);
  EXPECT_THROW((void)flow_time(CollectiveOp::all_gather, kMiB, {{&ring, 8}},
                               with_algorithm(CollectiveOp::all_gather, CollectiveAlgorithm::nvls)),
               InfeasibleError);
}

TEST(FlowBackend, ALargeRingRunsQuickly) {
  // 1024 ranks on one switch: 2046 ring steps of 1024 flows each.
  auto sw = dim("sw", TopologyType::switch_, 50e9, 5e-6);
  expect_rel(flow_time(CollectiveOp::all_reduce, 256 * kMiB, {{&sw, 1024}}),
             analytical_time(CollectiveOp::all_reduce, 256 * kMiB, {{&sw, 1024}}), 1e-6);
}

}  // namespace
}  // namespace rapidllm::network
