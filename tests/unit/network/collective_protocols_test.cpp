// Hand-derived checks of what the analytical model adds beyond the alpha-beta formulas: NCCL's
// protocols (the fastest per size), broadcast and send/recv, and NIC ports shared by GPUs.
// Expected values are worked out beside each check (docs/collectives-analytical.md).
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <string>

#include "analytical_fixtures.hpp"
#include "network/analytical_collectives.hpp"
#include "rapidllm/collective.hpp"
#include "rapidllm/error.hpp"

namespace rapidllm::network {
namespace {

using ::testing::HasSubstr;
using namespace rapidllm::network::analytical_testing;

// ---- shared NIC ports -----------------------------------------------------------------------

TEST(SharedNics, GpusBehindOnePortSplitItsBandwidth) {
  // Four NICs for eight GPUs: every GPU gets half a 50 GB/s port. Ring all-reduce on 16
  // ranks: 2 x 15/16 x 1 GiB / 25e9 + 30 x 5 us.
  auto ib = make_dim("ib", TopologyType::switch_, 50e9, 5e-6);
  ib.gpus_per_nic = 2;
  expect_rel(time_of(CollectiveOp::all_reduce, CollectiveAlgorithm::ring, kGiB, 16, ib),
             2.0 * 15.0 / 16.0 * kGiB / 25e9 + 30 * 5e-6);
}

// ---- broadcast and send/recv ------------------------------------------------------------------

TEST(BroadcastAndSendRecv, RingAndDirectFormulas) {
  const auto sw = make_dim("sw", TopologyType::switch_, 100e9, 2e-6);
  const double s = 64e6;
  // Ring broadcast = pipelined chain: S/B + (n-1) alpha = 64e6/100e9 + 7 x 2e-6 = 654 us.
  expect_rel(time_of(CollectiveOp::broadcast, CollectiveAlgorithm::ring, s, 8, sw), 640e-6 + 14e-6);
  // Direct broadcast: the root's port sends (n-1) S: 7 x 640 us + 2 us.
  expect_rel(time_of(CollectiveOp::broadcast, CollectiveAlgorithm::direct, s, 8, sw), 7 * 640e-6 + 2e-6);
  // Send/recv: one step of S either way.
  expect_rel(time_of(CollectiveOp::send_recv, CollectiveAlgorithm::ring, s, 8, sw), 640e-6 + 2e-6);
  expect_rel(time_of(CollectiveOp::send_recv, CollectiveAlgorithm::direct, s, 8, sw), 640e-6 + 2e-6);
  // FullyConnected: the per-GPU bandwidth is spread over n-1 links; a send uses the one to
  // its peer (7 x 640 us + 2 us), a broadcast runs n-1 channel chains over all of them.
  const auto fc = make_dim("fc", TopologyType::fully_connected, 100e9, 2e-6);
  expect_rel(time_of(CollectiveOp::send_recv, CollectiveAlgorithm::ring, s, 8, fc), 7 * 640e-6 + 2e-6);
  expect_rel(time_of(CollectiveOp::broadcast, CollectiveAlgorithm::ring, s, 8, fc), 640e-6 + 14e-6);
  // nccl-tests: busbw = algbw for both.
  const auto est = estimate_collective(CollectiveOp::broadcast, s, {{&sw, 8}}, kNoDefaults);
  expect_rel(est.busbw_bytes_per_s, s / est.time_s);
  EXPECT_EQ(est.phases[0].algorithm, CollectiveAlgorithm::ring);
}

TEST(BroadcastAndSendRecv, HierarchicalBroadcastIsOutermostFirstAndSendRecvTheSlowestHop) {
  const auto nv = make_dim("nv", TopologyType::switch_, 400e9, 1e-6);
  const auto ib = make_dim("ib", TopologyType::switch_, 50e9, 5e-6);
  const double s = 1e8;
  // Broadcast: across nodes on ib (S/50e9 + 3 x 5 us), then inside each node (S/400e9 + 7 us).
  const auto b = estimate_collective(CollectiveOp::broadcast, s, {{&nv, 8}, {&ib, 4}}, kNoDefaults);
  ASSERT_EQ(b.phases.size(), 2U);
  EXPECT_EQ(b.phases[0].dimension_id, "ib");
  expect_rel(b.time_s, (s / 50e9 + 15e-6) + (s / 400e9 + 7e-6));
  // Send/recv: every rank sends at once; the node-crossing ranks set the pace.
  const auto p = estimate_collective(CollectiveOp::send_recv, s, {{&nv, 8}, {&ib, 4}}, kNoDefaults);
  ASSERT_EQ(p.phases.size(), 2U);
  expect_rel(p.time_s, s / 50e9 + 5e-6);
}

TEST(BroadcastAndSendRecv, TreesHalvingDoublingNvlsAndTwoDimensionalTopologiesRefuseThem) {
  const auto sw = make_dim("sw", TopologyType::switch_, 100e9, 2e-6);
  auto tor = make_dim("tor", TopologyType::torus2d, 100e9, 2e-6);
  for (auto op : {CollectiveOp::broadcast, CollectiveOp::send_recv}) {
    SCOPED_TRACE(std::string(to_string(op)));
    EXPECT_THAT(infeasible_message([&] { (void)time_of(op, CollectiveAlgorithm::halving_doubling, 1e6, 8, sw); }),
                HasSubstr("halvingDoubling"));
    EXPECT_THROW((void)time_of(op, CollectiveAlgorithm::double_binary_tree, 1e6, 8, sw), InfeasibleError);
    EXPECT_THROW((void)time_of(op, CollectiveAlgorithm::nvls, 1e6, 8, sw), InfeasibleError);
    EXPECT_THAT(infeasible_message([&] { (void)time_of(op, CollectiveAlgorithm::ring, 1e6, 16, tor); }),
                HasSubstr("not modelled"));
  }
}

// ---- NCCL protocols -------------------------------------------------------------------------

// LL: 10 us fixed, 0.5 us per step, 1/4 of the bandwidth; Simple: 30 us fixed, 3 us per step,
// all of it. Round numbers so the crossover can be worked out by hand.
NetworkDimension with_two_protocols() {
  auto d = make_dim("nv", TopologyType::switch_, 400e9, 1e-6, 0.8);
  d.protocols = {{NcclProtocol::ll, 10e-6, 0.5e-6, 0.25}, {NcclProtocol::simple, 30e-6, 3e-6, 1.0}};
  return d;
}

TEST(Protocols, EachCollectiveTakesTheFastestProtocolAtItsSize) {
  const auto d = with_two_protocols();
  // 8-rank ring all-reduce, B x util = 320e9:
  //   LL:     10e-6 + 14 x 0.5e-6 + 1.75 S / 80e9  = 17e-6 + 2.1875e-11 S
  //   Simple: 30e-6 + 14 x 3e-6   + 1.75 S / 320e9 = 72e-6 + 5.46875e-12 S
  // equal at S = 55e-6 / 1.640625e-11 = 3,352,380.95 bytes.
  const auto small = time_on_dimension(CollectiveOp::all_reduce, CollectiveAlgorithm::ring, 1e6, 8, d);
  EXPECT_EQ(small.protocol, NcclProtocol::ll);
  expect_rel(small.time_s, 17e-6 + 2.1875e-11 * 1e6);
  const auto large = time_on_dimension(CollectiveOp::all_reduce, CollectiveAlgorithm::ring, 4e6, 8, d);
  EXPECT_EQ(large.protocol, NcclProtocol::simple);
  expect_rel(large.time_s, 72e-6 + 5.46875e-12 * 4e6);
  // All-gather: half the steps and half the volume; LL = 10e-6 + 7 x 0.5e-6 + 0.875 S / 80e9.
  const auto ag = time_on_dimension(CollectiveOp::all_gather, CollectiveAlgorithm::ring, 1e6, 8, d);
  EXPECT_EQ(ag.protocol, NcclProtocol::ll);
  expect_rel(ag.time_s, 13.5e-6 + 0.875e6 / 80e9);
  // The pick is reported phase by phase.
  const auto est = estimate_collective(CollectiveOp::all_reduce, 4e6, {{&d, 8}}, kNoDefaults);
  ASSERT_EQ(est.phases.size(), 1U);
  EXPECT_EQ(est.phases[0].protocol, NcclProtocol::simple);
}

TEST(Protocols, MaxBandwidthCapsAProtocolWhateverTheLink) {
  auto d = with_two_protocols();
  d.protocols[0].max_bandwidth_bytes_per_s = 50e9;  // below LL's 80e9 share of the link
  // LL: 17e-6 + 1.75 S / 50e9 = 17e-6 + 3.5e-11 S; at 1e6 bytes 52 us, still under Simple's 77.5 us.
  const auto p = time_on_dimension(CollectiveOp::all_reduce, CollectiveAlgorithm::ring, 1e6, 8, d);
  EXPECT_EQ(p.protocol, NcclProtocol::ll);
  expect_rel(p.time_s, 17e-6 + 3.5e-11 * 1e6);
  // The crossover moves down: 55e-6 / (3.5e-11 - 5.46875e-12) = 1,862,433 bytes.
  EXPECT_EQ(time_on_dimension(CollectiveOp::all_reduce, CollectiveAlgorithm::ring, 2e6, 8, d).protocol,
            NcclProtocol::simple);
  EXPECT_EQ(time_on_dimension(CollectiveOp::all_reduce, CollectiveAlgorithm::ring, 1.8e6, 8, d).protocol,
            NcclProtocol::ll);
}

TEST(Protocols, NoProtocolsMeansOneAlphaBetaProtocolWithTheDimensionsLatency) {
  const auto d = make_dim("nv", TopologyType::switch_, 400e9, 2e-6, 0.8);
  const auto p = time_on_dimension(CollectiveOp::all_reduce, CollectiveAlgorithm::ring, 1e6, 8, d);
  EXPECT_EQ(p.protocol, NcclProtocol::simple);
  expect_rel(p.time_s, 14 * 2e-6 + 1.75e6 / 320e9);
}

TEST(Protocols, NvlsKeepsItsOwnConstantsAndAutoComparesItWithTheBestRingProtocol) {
  auto d = with_two_protocols();
  d.in_network_reduction = true;
  d.in_network_reduction_util = 0.6;
  d.in_network_reduction_latency_s = 40e-6;
  // nvls: 80e-6 + 1.125 S / 240e9. At 1e6 bytes LL's 38.9 us beats nvls's 84.7 us; at 64 MiB
  // nvls's 394.6 us beats Simple's 439.0 us.
  EXPECT_EQ(choose_algorithm(CollectiveOp::all_reduce, 1e6, 8, d, kNoDefaults), CollectiveAlgorithm::ring);
  const double big = 64.0 * 1048576.0;
  EXPECT_EQ(choose_algorithm(CollectiveOp::all_reduce, big, 8, d, kNoDefaults), CollectiveAlgorithm::nvls);
  expect_rel(time_of(CollectiveOp::all_reduce, CollectiveAlgorithm::nvls, big, 8, d), 80e-6 + 1.125 * big / 240e9);
}

TEST(Protocols, PointToPointIsOneStepUnderTheFastestProtocol) {
  const auto d = with_two_protocols();
  // LL: 10.5e-6 + S / 80e9; Simple: 33e-6 + S / 320e9.
  expect_rel(point_to_point_s(d, 1e5), 10.5e-6 + 1e5 / 80e9);
  expect_rel(point_to_point_s(d, 1e8), 33e-6 + 1e8 / 320e9);
  EXPECT_EQ(point_to_point_s(d, 0.0), 0.0);
}

}  // namespace
}  // namespace rapidllm::network
