// Hand-derived checks of the analytical (alpha-beta) collective model. Every expected value
// is worked out in the comment beside it from the formulas in docs/collectives-analytical.md.
#include "network/analytical_collectives.hpp"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "analytical_fixtures.hpp"
#include "rapidllm/collective.hpp"
#include "rapidllm/error.hpp"
#include "rapidllm/hardware_spec.hpp"

namespace rapidllm::network {
namespace {

using ::testing::HasSubstr;
using namespace rapidllm::network::analytical_testing;

// ---- ring ---------------------------------------------------------------------------------

TEST(RingCollective, AllReduceMatchesTwoPassFormula) {
  const auto d = make_dim("dim1", TopologyType::ring, 50e9, 5e-6);
  // 2(n-1)/n*S/B + 2(n-1)*alpha, n = 8: 1.75 * 2^30 = 1879048192 B / 50e9 = 0.03758096384 s,
  // plus 14 * 5e-6 = 7e-5 s -> 0.03765096384 s.
  expect_rel(time_of(CollectiveOp::all_reduce, CollectiveAlgorithm::ring, kGiB, 8, d),
             0.03765096384);
}

TEST(RingCollective, AllGatherReduceScatterAndAllToAllTakeOnePass) {
  const auto d = make_dim("dim1", TopologyType::ring, 50e9, 5e-6);
  // (n-1)/n*S/B + (n-1)*alpha: 0.875 * 2^30 = 939524096 B / 50e9 = 0.01879048192 s,
  // plus 7 * 5e-6 = 3.5e-5 s -> 0.01882548192 s (all-to-all as n-1 pairwise-exchange steps).
  for (auto op : {CollectiveOp::all_gather, CollectiveOp::reduce_scatter,
                  CollectiveOp::all_to_all}) {
    SCOPED_TRACE(std::string(to_string(op)));
    expect_rel(time_of(op, CollectiveAlgorithm::ring, kGiB, 8, d), 0.01882548192);
  }
}

TEST(RingCollective, HalfUtilDoublesTheBandwidthTerm) {
  const auto full = make_dim("d", TopologyType::ring, 50e9, 5e-6, 1.0);
  const auto half = make_dim("d", TopologyType::ring, 50e9, 5e-6, 0.5);
  // B_eff = 25e9: bandwidth term 1879048192 / 25e9 = 0.07516192768 s, latency unchanged 7e-5.
  expect_rel(time_of(CollectiveOp::all_reduce, CollectiveAlgorithm::ring, kGiB, 8, half),
             0.07523192768);
  // The difference is exactly one extra bandwidth term at full rate: 0.03758096384 s.
  expect_rel(time_of(CollectiveOp::all_reduce, CollectiveAlgorithm::ring, kGiB, 8, half) -
                 time_of(CollectiveOp::all_reduce, CollectiveAlgorithm::ring, kGiB, 8, full),
             0.03758096384, 1e-9);
}

TEST(RingCollective, SingleRankTakesNoTime) {
  const auto d = make_dim("d", TopologyType::ring, 50e9, 5e-6);
  // n = 1: nothing moves, not even the latency of a step.
  for (auto alg : {CollectiveAlgorithm::ring, CollectiveAlgorithm::direct,
                   CollectiveAlgorithm::halving_doubling}) {
    EXPECT_EQ(time_of(CollectiveOp::all_reduce, alg, kGiB, 1, d), 0.0);
  }
}

TEST(RingCollective, LargeAllReduceBusBandwidthApproachesEffectiveBandwidth) {
  const auto d = make_dim("d", TopologyType::ring, 50e9, 5e-6, 0.8);
  std::vector<GroupSpan> group{{&d, 8}};
  const double bytes = 64.0 * kGiB;  // 2^36
  const auto est = estimate_collective(CollectiveOp::all_reduce, bytes, group, kNoDefaults);
  // B_eff = 40e9. T_bw = 1.75 * 2^36 / 40e9 = 3.0064771072 s, T_lat = 14 * 5e-6 = 7e-5 s.
  // busbw = (S/t) * 2(n-1)/n = B_eff * T_bw / (T_bw + T_lat) = 39999068699.1 B/s.
  expect_rel(est.busbw_bytes_per_s, 40e9 * 3.0064771072 / (3.0064771072 + 7e-5), 1e-10);
  EXPECT_LT(est.busbw_bytes_per_s, 40e9);
  EXPECT_GT(est.busbw_bytes_per_s, 40e9 * (1.0 - 3e-5));  // T_lat / T_bw = 2.3e-5
  // algbw = S / t = busbw / 1.75.
  expect_rel(est.algbw_bytes_per_s, est.busbw_bytes_per_s / 1.75);
}

// ---- direct ---------------------------------------------------------------------------------

TEST(DirectCollective, OneStepPerPassOnASwitch) {
  const auto d = make_dim("nvs", TopologyType::switch_, 50e9, 5e-6);
  // All-reduce = direct RS + direct AG: 0.03758096384 + 2 * 5e-6 = 0.03759096384 s.
  expect_rel(time_of(CollectiveOp::all_reduce, CollectiveAlgorithm::direct, kGiB, 8, d),
             0.03759096384);
  // All-to-all: 0.01879048192 + 5e-6 = 0.01879548192 s.
  expect_rel(time_of(CollectiveOp::all_to_all, CollectiveAlgorithm::direct, kGiB, 8, d),
             0.01879548192);
}

TEST(DirectCollective, ImpossibleOnRingAndTorusTopologies) {
  const auto ring = make_dim("dim1", TopologyType::ring, 50e9, 5e-6);
  const auto msg = infeasible_message([&] {
    (void)time_on_dimension(CollectiveOp::all_reduce, CollectiveAlgorithm::direct, kGiB, 8, ring);
  });
  EXPECT_THAT(msg, HasSubstr("direct"));
  EXPECT_THAT(msg, HasSubstr("'dim1'"));
  EXPECT_THAT(msg, HasSubstr("Ring"));
  const auto torus = make_dim("t", TopologyType::torus2d, 50e9, 5e-6);
  EXPECT_THROW((void)time_on_dimension(CollectiveOp::all_gather, CollectiveAlgorithm::direct,
                                       kGiB, 4, torus),
               InfeasibleError);
}

// ---- halving-doubling and trees -------------------------------------------------------------

TEST(HalvingDoubling, PowerOfTwoMatchesRabenseifner) {
  const auto d = make_dim("d", TopologyType::switch_, 50e9, 5e-6);
  // n = 8, log2 n = 3. All-reduce: 2*3*5e-6 = 3e-5 + 0.03758096384 = 0.03761096384 s.
  expect_rel(time_of(CollectiveOp::all_reduce, CollectiveAlgorithm::halving_doubling, kGiB, 8, d),
             0.03761096384);
  // All-gather / reduce-scatter: 3 * 5e-6 = 1.5e-5 + 0.01879048192 = 0.01880548192 s.
  expect_rel(time_of(CollectiveOp::all_gather, CollectiveAlgorithm::halving_doubling, kGiB, 8, d),
             0.01880548192);
  expect_rel(
      time_of(CollectiveOp::reduce_scatter, CollectiveAlgorithm::halving_doubling, kGiB, 8, d),
      0.01880548192);
}

TEST(HalvingDoubling, NonPowerOfTwoIsInfeasibleAndSuggestsRing) {
  const auto d = make_dim("dim0", TopologyType::switch_, 50e9, 5e-6);
  const auto msg = infeasible_message([&] {
    (void)time_on_dimension(CollectiveOp::all_reduce, CollectiveAlgorithm::halving_doubling, kGiB,
                            6, d);
  });
  EXPECT_THAT(msg, HasSubstr("power-of-two"));
  EXPECT_THAT(msg, HasSubstr("6 ranks"));
  EXPECT_THAT(msg, HasSubstr("use ring"));
}

TEST(DoubleBinaryTree, AllReduceSendsTwiceTheBufferOverTwoTreeDepths) {
  const auto d = make_dim("d", TopologyType::switch_, 50e9, 5e-6);
  // n = 8: 2*ceil(log2 8)*alpha = 6 * 5e-6 = 3e-5; 2S/B = 2147483648 / 50e9 = 0.04294967296.
  // Total 0.04297967296 s.
  expect_rel(
      time_of(CollectiveOp::all_reduce, CollectiveAlgorithm::double_binary_tree, kGiB, 8, d),
      0.04297967296);
  // n = 6: ceil(log2 6) = 3, so the same latency; the bandwidth term does not depend on n.
  expect_rel(
      time_of(CollectiveOp::all_reduce, CollectiveAlgorithm::double_binary_tree, kGiB, 6, d),
      0.04297967296);
  EXPECT_THROW((void)time_on_dimension(CollectiveOp::all_gather,
                                       CollectiveAlgorithm::double_binary_tree, kGiB, 8, d),
               InfeasibleError);
}

TEST(UnsupportedAlgorithms, MessageNamesTheAlgorithmAndTheAlternatives) {
  const auto d = make_dim("d", TopologyType::torus2d, 50e9, 5e-6);
  for (auto alg : {CollectiveAlgorithm::mesh, CollectiveAlgorithm::mesh2d,
                   CollectiveAlgorithm::hypercube, CollectiveAlgorithm::torus2d}) {
    const std::string name(to_string(alg));
    SCOPED_TRACE(name);
    const auto msg = infeasible_message(
        [&] { (void)time_on_dimension(CollectiveOp::all_reduce, alg, kGiB, 4, d); });
    EXPECT_THAT(msg, HasSubstr("algorithm " + name + " is not supported by the analytical"));
    EXPECT_THAT(msg, HasSubstr("use auto, ring, direct, halvingDoubling or doubleBinaryTree"));
  }
}

// ---- validation -----------------------------------------------------------------------------

TEST(DimensionValidation, NonPositiveBandwidthOrUtilNamesTheDimension) {
  auto zero_bw = make_dim("dimX", TopologyType::ring, 0.0, 5e-6);
  EXPECT_THAT(infeasible_message([&] {
                (void)time_on_dimension(CollectiveOp::all_reduce, CollectiveAlgorithm::ring, kGiB,
                                        4, zero_bw);
              }),
              HasSubstr("'dimX': bandwidth"));
  auto no_bw = make_dim("dimY", TopologyType::ring, 1.0, 5e-6);
  no_bw.bandwidth_bytes_per_s.clear();
  EXPECT_THAT(infeasible_message([&] {
                (void)time_on_dimension(CollectiveOp::all_reduce, CollectiveAlgorithm::ring, kGiB,
                                        4, no_bw);
              }),
              HasSubstr("'dimY': bandwidth"));
  auto zero_util = make_dim("dimZ", TopologyType::switch_, 50e9, 5e-6, 0.0);
  EXPECT_THAT(infeasible_message([&] {
                (void)time_on_dimension(CollectiveOp::all_gather, CollectiveAlgorithm::auto_, kGiB,
                                        4, zero_util);
              }),
              HasSubstr("'dimZ': util"));
}

// ---- SuperPOD spine cap ---------------------------------------------------------------------

TEST(SuperPod, GroupsBeyondOneLeafAreCappedByTheSpineShare) {
  auto d = make_dim("pod", TopologyType::superpod, 50e9, 0.0);
  d.bandwidth_bytes_per_s = {50e9, 25e9};
  d.superpod = SuperPodSpec{"h100", 32, 8, 4};
  // n = 32 fits one leaf -> 50e9: 31/32 * 3.2e9 = 3.1e9 B / 50e9 = 0.062 s (alpha = 0).
  expect_rel(time_of(CollectiveOp::all_gather, CollectiveAlgorithm::ring, 3.2e9, 32, d), 0.062);
  // n = 64 crosses the spine -> min(50e9, 25e9): 63/64 * 6.4e9 = 6.3e9 / 25e9 = 0.252 s.
  expect_rel(time_of(CollectiveOp::all_gather, CollectiveAlgorithm::ring, 6.4e9, 64, d), 0.252);
  // A faster spine does not raise the leaf rate: 6.3e9 / 50e9 = 0.126 s.
  d.bandwidth_bytes_per_s = {50e9, 100e9};
  expect_rel(time_of(CollectiveOp::all_gather, CollectiveAlgorithm::ring, 6.4e9, 64, d), 0.126);
}

// ---- 2-D torus / mesh ring decomposition ----------------------------------------------------

TEST(Torus2D, AllReduceKeepsTheRingBandwidthTermWithFewerSteps) {
  auto d = make_dim("t", TopologyType::torus2d, 100e9, 1e-6);
  d.size = {4, 4};
  // Each half (S/2) at B/2 per axis: RS on 4: 3/4 S/B + 3a; AR on 4 of S/4: 3/8 S/B + 6a;
  // AG on 4: 3/4 S/B + 3a. Sum 15/8 S/B + 12a = 2013265920 / 100e9 + 12e-6 = 0.0201446592 s
  // (a flat 16-ring would pay 30 steps for the same bandwidth term).
  expect_rel(time_of(CollectiveOp::all_reduce, CollectiveAlgorithm::auto_, kGiB, 16, d),
             0.0201446592);
  // Dimension-ordered all-to-all: (3/4 + 3/4) S/B + 6a; S = 1e9 -> 0.015 + 6e-6 = 0.015006 s.
  expect_rel(time_of(CollectiveOp::all_to_all, CollectiveAlgorithm::ring, 1e9, 16, d), 0.015006);
}

TEST(Mesh2D, UsesTheConfiguredShapeOrTheMostSquareFactorization) {
  auto d = make_dim("m", TopologyType::mesh2d, 100e9, 1e-6);
  d.size = {2, 8};
  // A mesh line folds its ring, so both ring directions share every link: each lane (S/4)
  // runs at B/8, twice the torus's bandwidth term, and a step on the 8-rank axis crosses two
  // links (2a), on the 2-rank axis one (a). [2, 8], S = 1.6e9, lane a-then-b: RS on 2 (S/4:
  // S/8 at B/8, a) + AR on 8 of S/8 (14 steps of S/256, 28a) + AG on 2 (S/8 at B/8, a):
  // 15/4 S/B = 0.06 s + 30e-6 s = 0.06003 s (lane b-then-a: 14a + 2a + 14a, the same).
  expect_rel(time_of(CollectiveOp::all_reduce, CollectiveAlgorithm::ring, 1.6e9, 16, d), 0.06003);
  // 9 ranks do not fill [2, 8]: factor as 3 x 3, all-reduce steps 2*(3+3-2) = 8 of two links
  // each; S = 0 leaves only the latency: 16e-6 s.
  expect_rel(time_of(CollectiveOp::all_reduce, CollectiveAlgorithm::ring, 0.0, 9, d), 16e-6);
  // No configured shape, n = 12 -> 3 x 4. All-gather: 2 x 11/12 S/B + (2+3) steps of 2a.
  // S = 1.2e9: 2.2e9 / 100e9 = 0.022 + 10e-6 = 0.02201 s.
  d.size.clear();
  expect_rel(time_of(CollectiveOp::all_gather, CollectiveAlgorithm::auto_, 1.2e9, 12, d), 0.02201);
}

// ---- algorithm resolution -------------------------------------------------------------------

TEST(ResolveAlgorithm, DimensionOverrideBeatsDefaultsBeatsAuto) {
  auto d = make_dim("d", TopologyType::switch_, 50e9, 5e-6);
  ExecutionBackendSpec defaults;
  defaults.collectives[CollectiveOp::all_reduce] = CollectiveAlgorithm::direct;
  // Defaults only: direct.
  EXPECT_EQ(resolve_algorithm(CollectiveOp::all_reduce, 8, d, defaults),
            CollectiveAlgorithm::direct);
  // Neither (all_gather has no default): auto on a Switch -> ring.
  EXPECT_EQ(resolve_algorithm(CollectiveOp::all_gather, 8, d, defaults), CollectiveAlgorithm::ring);
  // Dimension override beats the default.
  d.collective_override[CollectiveOp::all_reduce] = CollectiveAlgorithm::halving_doubling;
  EXPECT_EQ(resolve_algorithm(CollectiveOp::all_reduce, 8, d, defaults),
            CollectiveAlgorithm::halving_doubling);
  // An explicit auto override also beats the default, and resolves from the topology.
  d.collective_override[CollectiveOp::all_reduce] = CollectiveAlgorithm::auto_;
  EXPECT_EQ(resolve_algorithm(CollectiveOp::all_reduce, 8, d, defaults), CollectiveAlgorithm::ring);
  // An override of another op does not leak: reduce_scatter has none -> auto -> ring.
  d.collective_override[CollectiveOp::all_to_all] = CollectiveAlgorithm::ring;
  EXPECT_EQ(resolve_algorithm(CollectiveOp::reduce_scatter, 8, d, defaults),
            CollectiveAlgorithm::ring);
}

TEST(ResolveAlgorithm, AutoFollowsTheTopology) {
  const std::vector<CollectiveOp> reductions{CollectiveOp::all_reduce, CollectiveOp::all_gather,
                                             CollectiveOp::reduce_scatter};
  for (auto topo : {TopologyType::ring, TopologyType::torus2d, TopologyType::mesh2d}) {
    const auto d = make_dim("d", topo, 50e9, 5e-6);
    for (auto op : reductions) {
      EXPECT_EQ(resolve_algorithm(op, 8, d, kNoDefaults), CollectiveAlgorithm::ring);
    }
    EXPECT_EQ(resolve_algorithm(CollectiveOp::all_to_all, 8, d, kNoDefaults),
              CollectiveAlgorithm::ring);
  }
  for (auto topo : {TopologyType::fully_connected, TopologyType::switch_, TopologyType::superpod}) {
    const auto d = make_dim("d", topo, 50e9, 5e-6);
    for (auto op : reductions) {
      EXPECT_EQ(resolve_algorithm(op, 8, d, kNoDefaults), CollectiveAlgorithm::ring);
    }
    EXPECT_EQ(resolve_algorithm(CollectiveOp::all_to_all, 8, d, kNoDefaults),
              CollectiveAlgorithm::direct);
  }
}

// ---- hierarchical composition ---------------------------------------------------------------

TEST(Hierarchical, AllReduceOverNvSwitchAndRing) {
  const auto nvs = make_dim("dim0", TopologyType::switch_, 450e9, 2e-6);
  const auto ib = make_dim("dim1", TopologyType::ring, 50e9, 5e-6);
  std::vector<GroupSpan> group{{&nvs, 8}, {&ib, 4}};
  const auto est = estimate_collective(CollectiveOp::all_reduce, kGiB, group, kNoDefaults);
  ASSERT_EQ(est.phases.size(), 3U);
  EXPECT_EQ(est.ranks, 32);
  // RS on dim0 (ring, auto on a Switch) of S: 7/8 * 2^30 / 450e9 + 7 * 2e-6
  //   = 939524096 / 450e9 + 14e-6 = 0.00210183132444... s.
  EXPECT_EQ(est.phases[0].dimension_id, "dim0");
  EXPECT_EQ(est.phases[0].op, CollectiveOp::reduce_scatter);
  EXPECT_EQ(est.phases[0].algorithm, CollectiveAlgorithm::ring);
  EXPECT_EQ(est.phases[0].ranks, 8);
  EXPECT_EQ(est.phases[0].bytes, kGiB);
  expect_rel(est.phases[0].time_s, 939524096.0 / 450e9 + 14e-6);
  // AR on dim1 of S/8 = 134217728 B: 1.5 * 134217728 / 50e9 + 6 * 5e-6 = 0.00405653184 s.
  EXPECT_EQ(est.phases[1].dimension_id, "dim1");
  EXPECT_EQ(est.phases[1].op, CollectiveOp::all_reduce);
  EXPECT_EQ(est.phases[1].ranks, 4);
  EXPECT_EQ(est.phases[1].bytes, 134217728.0);
  expect_rel(est.phases[1].time_s, 0.00405653184);
  // AG on dim0 back to S: same as the RS.
  EXPECT_EQ(est.phases[2].dimension_id, "dim0");
  EXPECT_EQ(est.phases[2].op, CollectiveOp::all_gather);
  EXPECT_EQ(est.phases[2].bytes, kGiB);
  expect_rel(est.phases[2].time_s, est.phases[0].time_s);
  // Total 2 * 0.00210183132444 + 0.00405653184 = 0.00826019448888... s.
  expect_rel(est.time_s, 2.0 * (939524096.0 / 450e9 + 14e-6) + 0.00405653184);
  expect_rel(est.time_s, 0.008260194488888889, 1e-12);
  // busbw = S/t * 2*31/32 = 1073741824 / 0.0082601944888 * 1.9375 = 2.5185542384e11 B/s.
  expect_rel(est.algbw_bytes_per_s, kGiB / est.time_s);
  expect_rel(est.busbw_bytes_per_s, 251855423840.0, 1e-9);
}

TEST(Hierarchical, PhaseOrderAndSizesForEveryOp) {
  const auto a = make_dim("A", TopologyType::switch_, 100e9, 1e-6);
  const auto b = make_dim("B", TopologyType::switch_, 100e9, 1e-6);
  const auto c = make_dim("C", TopologyType::ring, 100e9, 1e-6);
  const auto unused = make_dim("U", TopologyType::ring, 100e9, 1e-6);
  // Spans of 1 rank (U) are skipped; n = 2 * 4 * 3 = 24.
  std::vector<GroupSpan> group{{&a, 2}, {&unused, 1}, {&b, 4}, {&c, 3}};
  const double s = 2.4e9;
  struct Want {
    std::string dim;
    CollectiveOp op;
    double bytes;
  };
  auto check = [&](CollectiveOp op, const std::vector<Want>& want) {
    SCOPED_TRACE(std::string(to_string(op)));
    const auto est = estimate_collective(op, s, group, kNoDefaults);
    EXPECT_EQ(est.ranks, 24);
    ASSERT_EQ(est.phases.size(), want.size());
    double sum = 0.0;
    for (std::size_t i = 0; i < want.size(); ++i) {
      EXPECT_EQ(est.phases[i].dimension_id, want[i].dim) << i;
      EXPECT_EQ(est.phases[i].op, want[i].op) << i;
      expect_rel(est.phases[i].bytes, want[i].bytes);
      sum += est.phases[i].time_s;
    }
    expect_rel(est.time_s, sum);
  };
  using Op = CollectiveOp;
  // All-reduce: RS A (S), RS B (S/2), AR C (S/8), AG B (S/2), AG A (S).
  check(Op::all_reduce, {{"A", Op::reduce_scatter, 2.4e9},
                         {"B", Op::reduce_scatter, 1.2e9},
                         {"C", Op::all_reduce, 0.3e9},
                         {"B", Op::all_gather, 1.2e9},
                         {"A", Op::all_gather, 2.4e9}});
  // Reduce-scatter innermost first on the shrinking buffer.
  check(Op::reduce_scatter,
        {{"A", Op::reduce_scatter, 2.4e9}, {"B", Op::reduce_scatter, 1.2e9},
         {"C", Op::reduce_scatter, 0.3e9}});
  // All-gather outermost first on the growing buffer.
  check(Op::all_gather,
        {{"C", Op::all_gather, 0.3e9}, {"B", Op::all_gather, 1.2e9}, {"A", Op::all_gather, 2.4e9}});
  // All-to-all: one exchange per dimension on the full buffer, innermost first.
  check(Op::all_to_all,
        {{"A", Op::all_to_all, 2.4e9}, {"B", Op::all_to_all, 2.4e9}, {"C", Op::all_to_all, 2.4e9}});
}

TEST(Hierarchical, EachPhaseResolvesItsOwnOpsAlgorithm) {
  const auto nvs = make_dim("dim0", TopologyType::switch_, 450e9, 2e-6);
  const auto ib = make_dim("dim1", TopologyType::ring, 50e9, 5e-6);
  ExecutionBackendSpec defaults;
  defaults.collectives[CollectiveOp::all_reduce] = CollectiveAlgorithm::double_binary_tree;
  std::vector<GroupSpan> group{{&nvs, 8}, {&ib, 4}};
  const auto est = estimate_collective(CollectiveOp::all_reduce, kGiB, group, defaults);
  ASSERT_EQ(est.phases.size(), 3U);
  // The RS / AG phases have no default -> ring; the outer all-reduce takes the tree.
  EXPECT_EQ(est.phases[0].algorithm, CollectiveAlgorithm::ring);
  EXPECT_EQ(est.phases[1].algorithm, CollectiveAlgorithm::double_binary_tree);
  EXPECT_EQ(est.phases[2].algorithm, CollectiveAlgorithm::ring);
  // Tree on 4 ranks of S/8: 2*ceil(log2 4) = 4 steps * 5e-6 = 2e-5; 2 * 134217728 / 50e9 =
  // 0.00536870912 -> 0.00538870912 s.
  expect_rel(est.phases[1].time_s, 0.00538870912);
}

TEST(Hierarchical, SingleRankGroupTakesNoTime) {
  const auto d = make_dim("d", TopologyType::switch_, 450e9, 2e-6);
  std::vector<GroupSpan> group{{&d, 1}};
  const auto est = estimate_collective(CollectiveOp::all_reduce, kGiB, group, kNoDefaults);
  // n = 1: no phase, zero time, and no bandwidth to report (rather than S/0).
  EXPECT_EQ(est.ranks, 1);
  EXPECT_TRUE(est.phases.empty());
  EXPECT_EQ(est.time_s, 0.0);
  EXPECT_EQ(est.algbw_bytes_per_s, 0.0);
  EXPECT_EQ(est.busbw_bytes_per_s, 0.0);
}

TEST(Hierarchical, EmptyGroupOrMissingDimensionIsInfeasible) {
  EXPECT_THROW((void)estimate_collective(CollectiveOp::all_reduce, kGiB, {}, kNoDefaults),
               InfeasibleError);
  std::vector<GroupSpan> group{{nullptr, 4}};
  EXPECT_THAT(infeasible_message([&] {
                (void)estimate_collective(CollectiveOp::all_reduce, kGiB, group, kNoDefaults);
              }),
              HasSubstr("span 0 has no network dimension"));
}

// ---- flat ring: all-gather and reduce-scatter across dimensions ------------------------------

// A: 8 ranks, 1 us a step; B: 2 ranks, 50 us a step (a slow network between nodes); both
// 100 GB/s, no fixed latency. 16 KiB: composed hierarchically the all-gather is B's phase,
// 1 x 50 us + 1/2 x 2048 / 100e9 = 50.01024 us, then A's, 7 x 1 us + 7/8 x 16384 / 100e9 =
// 7.14336 us: 57.1536 us. NCCL's one ring of 16 ranks takes 15 steps of at least 50 us:
// 750 us, the 692.8464 us beyond the phases charged to B's (the slowest) phase.
TEST(FlatRing, ASmallAllGatherOrReduceScatterAcrossDimensionsLastsItsRingsStepsAtTheSlowestHop) {
  const auto a = make_dim("A", TopologyType::switch_, 100e9, 1e-6);
  const auto b = make_dim("B", TopologyType::switch_, 100e9, 50e-6);
  const std::vector<GroupSpan> group{{&a, 8}, {&b, 2}};
  const auto gather = estimate_collective(CollectiveOp::all_gather, 16384.0, group, kNoDefaults);
  expect_rel(gather.time_s, 750e-6);
  ASSERT_EQ(gather.phases.size(), 2U);
  EXPECT_EQ(gather.phases[0].dimension_id, "B");
  expect_rel(gather.phases[0].time_s, 750e-6 - 7.14336e-6);
  expect_rel(gather.phases[1].time_s, 7.14336e-6);
  // Reduce-scatter: the same ring, phases innermost first.
  const auto scatter = estimate_collective(CollectiveOp::reduce_scatter, 16384.0, group, kNoDefaults);
  expect_rel(scatter.time_s, 750e-6);
  EXPECT_EQ(scatter.phases[1].dimension_id, "B");
  expect_rel(scatter.phases[1].time_s, 750e-6 - 7.14336e-6);
}

// 2.4 GB: B's phase 50 us + 1/2 x 0.3e9 / 100e9 = 1.55 ms, A's 7 us + 7/8 x 2.4e9 / 100e9 =
// 21.007 ms; 22.557 ms is far above the ring's 750 us of steps: the phases stand.
TEST(FlatRing, ABandwidthBoundAllGatherKeepsItsHierarchicalPhases) {
  const auto a = make_dim("A", TopologyType::switch_, 100e9, 1e-6);
  const auto b = make_dim("B", TopologyType::switch_, 100e9, 50e-6);
  const auto est = estimate_collective(CollectiveOp::all_gather, 2.4e9, {{&a, 8}, {&b, 2}}, kNoDefaults);
  expect_rel(est.time_s, 1.55e-3 + 21.007e-3);
}

// All-reduce keeps the hierarchical composition (NCCL's tree, its pick at small sizes, is
// hierarchical): RS on A 7.14336 us, AR on B 2 x 50 us + 16384 / 8 / 100e9 = 100.02048 us,
// AG on A 7.14336 us; 114.3072 us, where a flat ring would take 30 steps of 50 us. A phase
// that is not a ring (here direct on B) leaves the all-gather hierarchical too.
TEST(FlatRing, AllReduceAndNonRingPhasesKeepTheHierarchicalComposition) {
  const auto a = make_dim("A", TopologyType::switch_, 100e9, 1e-6);
  const auto b = make_dim("B", TopologyType::switch_, 100e9, 50e-6);
  const std::vector<GroupSpan> group{{&a, 8}, {&b, 2}};
  expect_rel(estimate_collective(CollectiveOp::all_reduce, 16384.0, group, kNoDefaults).time_s, 114.3072e-6);
  ExecutionBackendSpec direct;
  direct.collectives[CollectiveOp::all_gather] = CollectiveAlgorithm::direct;
  // Direct on both: B 50 us + 1/2 x 2048 / 100e9, A 1 us + 7/8 x 16384 / 100e9.
  expect_rel(estimate_collective(CollectiveOp::all_gather, 16384.0, group, direct).time_s,
             50.01024e-6 + 1.14336e-6);
}

TEST(FlatRing, TheFloorIsTheRingsStepsAtTheSlowestStepLessThePhasesTimes) {
  const std::vector<RingPhaseSteps> phases{{8, 1e-6, 10e-6, true}, {4, 20e-6, 30e-6, true}, {2, 5e-6, 5e-6, true}};
  // 64 ranks: 63 x 20 us = 1260 us, less 45 us of phases: 1215 us, on the 20 us phase.
  const FlatRingLatency gather = flat_ring_latency(CollectiveOp::all_gather, phases);
  EXPECT_EQ(gather.phase, 1U);
  expect_rel(gather.extra_s, 1215e-6);
  EXPECT_EQ(flat_ring_latency(CollectiveOp::all_reduce, phases).extra_s, 0.0);
  EXPECT_EQ(flat_ring_latency(CollectiveOp::all_to_all, phases).extra_s, 0.0);
  EXPECT_EQ(flat_ring_latency(CollectiveOp::all_gather, std::vector<RingPhaseSteps>{phases[1]}).extra_s, 0.0);
  std::vector<RingPhaseSteps> not_ring = phases;
  not_ring[2].ring = false;
  EXPECT_EQ(flat_ring_latency(CollectiveOp::reduce_scatter, not_ring).extra_s, 0.0);
}

// ---- reference point: 8x H100 on NVSwitch ---------------------------------------------------

TEST(ReferencePoint, H100NvSwitchAllReduceBusBandwidth) {
  // 8 GPUs, 450 GB/s per direction (NVLink 4, 18 links x 25 GB/s), 3 us per step.
  for (double util : {1.0, 0.8}) {
    SCOPED_TRACE(util);
    const auto d = make_dim("nvlink", TopologyType::switch_, 450e9, 3e-6, util);
    std::vector<GroupSpan> group{{&d, 8}};
    const auto est = estimate_collective(CollectiveOp::all_reduce, kGiB, group, kNoDefaults);
    // Auto = ring: t = 1.75 * 2^30 / (450e9 util) + 14 * 3e-6.
    //   util 1.0: 0.00417566264889 + 4.2e-5 = 0.00421766264889 s -> busbw 4.4552e11 B/s;
    //   util 0.8: 0.00521957831111 + 4.2e-5 = 0.00526157831111 s -> busbw 3.5713e11 B/s.
    const double t = 1879048192.0 / (450e9 * util) + 42e-6;
    expect_rel(est.time_s, t);
    expect_rel(est.busbw_bytes_per_s, 1879048192.0 / t);
    // Within 1% of 450e9 * util: the 14 latency steps cost 1% of a 4 ms collective.
    EXPECT_NEAR(est.busbw_bytes_per_s, 450e9 * util, 0.011 * 450e9 * util);
  }
  const auto d = make_dim("nvlink", TopologyType::switch_, 450e9, 3e-6, 1.0);
  std::vector<GroupSpan> group{{&d, 8}};
  expect_rel(estimate_collective(CollectiveOp::all_reduce, kGiB, group, kNoDefaults)
                 .busbw_bytes_per_s,
             445518845015.976, 1e-9);
}

// ---- in-switch reduction (NVLS) -------------------------------------------------------------

TEST(NvlsCollective, AutoAllReduceUsesTheSwitchWhenItReduces) {
  auto d = make_dim("nvs", TopologyType::switch_, 450e9, 3e-6);
  d.in_network_reduction = true;
  EXPECT_EQ(resolve_algorithm(CollectiveOp::all_reduce, 8, d, kNoDefaults), CollectiveAlgorithm::nvls);
  EXPECT_EQ(resolve_algorithm(CollectiveOp::all_gather, 8, d, kNoDefaults), CollectiveAlgorithm::ring);
  // S (n+1)/n / B + 2 alpha: 2^30 * 9/8 / 450e9 + 6e-6 = 2.6904227e-3 + ... = 2.69642270e-3 s;
  // busbw = 1.75 * 2^30 / t = 696.9 GB/s, i.e. 2(n-1)/(n+1) B = 700 GB/s less the latency.
  const auto est = estimate_collective(CollectiveOp::all_reduce, kGiB, {{&d, 8}}, kNoDefaults);
  expect_rel(est.time_s, kGiB * 9.0 / 8.0 / 450e9 + 6e-6);
  EXPECT_NEAR(est.busbw_bytes_per_s, 1.75 * kGiB / est.time_s, 1.0);
  EXPECT_GT(est.busbw_bytes_per_s, 690e9);
}

TEST(NvlsCollective, AutoTakesTheFasterOfRingAndNvlsAtEachSize) {
  auto d = make_dim("nvs", TopologyType::switch_, 450e9, 1.5e-6, 0.46);
  d.in_network_reduction = true;
  d.in_network_reduction_util = 0.632;
  d.in_network_reduction_latency_s = 26e-6;
  // Ring: 14 * 1.5e-6 + 1.75 S / 207e9; nvls: 2 * 26e-6 + 1.125 S / 284.4e9. They cross where
  // 2.1e-5 + 8.4541e-12 S = 5.2e-5 + 3.9557e-12 S, i.e. at S = 6.89e6 bytes.
  EXPECT_EQ(choose_algorithm(CollectiveOp::all_reduce, 4e6, 8, d, kNoDefaults), CollectiveAlgorithm::ring);
  EXPECT_EQ(choose_algorithm(CollectiveOp::all_reduce, 16e6, 8, d, kNoDefaults), CollectiveAlgorithm::nvls);
  expect_rel(estimate_collective(CollectiveOp::all_reduce, 4e6, {{&d, 8}}, kNoDefaults).time_s,
             14 * 1.5e-6 + 1.75 * 4e6 / (450e9 * 0.46));
  expect_rel(estimate_collective(CollectiveOp::all_reduce, 16e6, {{&d, 8}}, kNoDefaults).time_s,
             2 * 26e-6 + 1.125 * 16e6 / (450e9 * 0.632));
  // An explicit nvls is kept at every size.
  ExecutionBackendSpec nvls;
  nvls.collectives[CollectiveOp::all_reduce] = CollectiveAlgorithm::nvls;
  EXPECT_EQ(choose_algorithm(CollectiveOp::all_reduce, 4e6, 8, d, nvls), CollectiveAlgorithm::nvls);
}

TEST(NvlsCollective, OnlyAnAllReduceOnASwitch) {
  const auto ring = make_dim("r", TopologyType::ring, 50e9, 5e-6);
  EXPECT_THAT(infeasible_message([&] {
                (void)time_on_dimension(CollectiveOp::all_reduce, CollectiveAlgorithm::nvls, kGiB, 8, ring);
              }),
              HasSubstr("nvls"));
  const auto sw = make_dim("s", TopologyType::switch_, 50e9, 5e-6);
  EXPECT_THROW((void)time_on_dimension(CollectiveOp::all_gather, CollectiveAlgorithm::nvls, kGiB, 8, sw),
               InfeasibleError);
}

}  // namespace
}  // namespace rapidllm::network
