// The flow backend runs what the analytical backend times (issue 39, "collectives written
// once"): on an idle 8 x 8 Mesh2D, an 8 x 8 Torus2D and a 64-GPU binary hypercube (six
// stacked two-rank dimensions) all-reduce and all-gather take the same time on both, and
// every topology + algorithm + op the analytical backend times also runs on the flow backend.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include <fmt/format.h>

#include "net_fixtures.hpp"
#include "network/analytical_collectives.hpp"
#include "network/backend.hpp"
#include "rapidllm/error.hpp"

namespace rapidllm::network {
namespace {

using namespace rapidllm::network::testing;

double flow_time(CollectiveOp op, double bytes, const std::vector<GroupSpan>& group,
                 const ExecutionBackendSpec& exec = {}) {
  return run_collective(NetworkBackend::flow, op, bytes, group, NetworkSpec{}, exec).time_s;
}

double analytical_time(CollectiveOp op, double bytes, const std::vector<GroupSpan>& group,
                       const ExecutionBackendSpec& exec = {}) {
  return estimate_collective(op, bytes, group, exec).time_s;
}

// RAPID-LLM's H100_SXM5_80GB_2d.yaml: 750 GB (binary) per GPU, 5 us a link.
constexpr double kRapidBandwidth = 750.0 * kGiB;
constexpr double kRapidLatency = 5e-6;

// A 64-GPU binary hypercube: six two-rank dimensions, one cable of B per GPU on each.
std::vector<NetworkDimension> hypercube_dims(double bandwidth, double latency) {
  std::vector<NetworkDimension> dims;
  for (int i = 0; i < 6; ++i) dims.push_back(dim(fmt::format("h{}", i), TopologyType::ring, bandwidth, latency));
  return dims;
}

std::vector<GroupSpan> spans_of(const std::vector<NetworkDimension>& dims, int ranks_each) {
  std::vector<GroupSpan> g;
  for (const auto& d : dims) g.push_back({&d, ranks_each});
  return g;
}

// ---- hand-derived closed forms (B = 100e9, link latency L = 1 us, S = 256 MiB) ----------------

constexpr double kS = 256.0 * kMiB;
constexpr double kB = 100e9;
constexpr double kL = 1e-6;

TEST(MeshFolding, AllReduceOnAMeshPaysTheFoldedRingsHalfBandwidthAndTwoHops) {
  const auto mesh = dim("m", TopologyType::mesh2d, kB, kL, {8, 8});
  const auto torus = dim("t", TopologyType::torus2d, kB, kL, {8, 8});
  // Torus: each lane (S/4) at B/4: 2 (63/64) S/B = 1.96875 x 2.68435456e-3 s, plus
  // 2 (8 + 8 - 2) = 28 one-link steps: 5.28482304e-3 + 28e-6 = 5.31282304e-3 s.
  expect_rel(analytical_time(CollectiveOp::all_reduce, kS, {{&torus, 64}}), 5.31282304e-3, 1e-12);
  // Mesh: no wrap-around, the ring is folded onto the line, so both directions' lanes cross
  // every directed link (B/8 a lane: twice the bandwidth term) and a step crosses two links:
  // 3.9375 x 2.68435456e-3 + 28 x 2e-6 = 1.056964608e-2 + 5.6e-5 = 1.062564608e-2 s.
  expect_rel(analytical_time(CollectiveOp::all_reduce, kS, {{&mesh, 64}}), 1.062564608e-2, 1e-12);
  expect_rel(flow_time(CollectiveOp::all_reduce, kS, {{&mesh, 64}}), 1.062564608e-2, 1e-9);
}

TEST(MeshFolding, AllGatherOnAMeshAndTheTorusByHand) {
  const auto mesh = dim("m", TopologyType::mesh2d, kB, kL, {8, 8});
  const auto torus = dim("t", TopologyType::torus2d, kB, kL, {8, 8});
  // Torus: 63/64 S/B + 14 steps: 2.64241152e-3 + 14e-6 = 2.65641152e-3 s.
  expect_rel(analytical_time(CollectiveOp::all_gather, kS, {{&torus, 64}}), 2.65641152e-3, 1e-12);
  expect_rel(flow_time(CollectiveOp::all_gather, kS, {{&torus, 64}}), 2.65641152e-3, 1e-9);
  // Mesh: 2 x 63/64 S/B + 14 two-link steps: 5.28482304e-3 + 28e-6 = 5.31282304e-3 s.
  expect_rel(analytical_time(CollectiveOp::all_gather, kS, {{&mesh, 64}}), 5.31282304e-3, 1e-12);
  expect_rel(flow_time(CollectiveOp::all_gather, kS, {{&mesh, 64}}), 5.31282304e-3, 1e-9);
}

TEST(Hypercube, AllReduceIsRabenseifnerOverTheSixDimensions) {
  const auto dims = hypercube_dims(kB, kL);
  // Reduce-scatter over h0..h4 (S/2 + S/4 + ... + S/32 at B), all-reduce of S/32 on h5
  // (S/32), all-gather back: 63/32 S/B + (5 + 2 + 5) steps = 5.28482304e-3 + 12e-6.
  expect_rel(analytical_time(CollectiveOp::all_reduce, kS, spans_of(dims, 2)), 5.29682304e-3, 1e-12);
  expect_rel(flow_time(CollectiveOp::all_reduce, kS, spans_of(dims, 2)), 5.29682304e-3, 1e-9);
}

// ---- the acceptance check: within 5 % on an idle network --------------------------------------

struct Shape {
  std::string name;
  std::vector<NetworkDimension> dims;
  int ranks_each = 0;
};

std::vector<Shape> shapes() {
  return {
      {"Mesh2D 8x8", {dim("m", TopologyType::mesh2d, kRapidBandwidth, kRapidLatency, {8, 8})}, 64},
      {"Torus2D 8x8", {dim("t", TopologyType::torus2d, kRapidBandwidth, kRapidLatency, {8, 8})}, 64},
      {"hypercube 2^6", hypercube_dims(kRapidBandwidth, kRapidLatency), 2},
  };
}

TEST(FlowMatchesAnalytical, AllReduceAndAllGatherOnMeshTorusAndHypercubeWithin5Percent) {
  // RAPID-LLM's chunking and endpoint delay (H100_SXM5_80GB_2d.yaml): 4 chunks side by side,
  // 5 ns a step; the analytical backend ignores both, which moves flow by well under 1 %.
  ExecutionBackendSpec rapid;
  rapid.preferred_dataset_splits = 4;
  rapid.active_chunks_per_dimension = 32;
  rapid.endpoint_delay_s = 5e-9;
  for (const Shape& shape : shapes()) {
    const auto group = spans_of(shape.dims, shape.ranks_each);
    for (CollectiveOp op : {CollectiveOp::all_reduce, CollectiveOp::all_gather}) {
      for (double bytes : {256.0 * kMiB, 64.0 * 1024.0}) {
        for (const ExecutionBackendSpec& exec : {ExecutionBackendSpec{}, rapid}) {
          SCOPED_TRACE(fmt::format("{} {} {} B, {} chunks", shape.name, to_string(op), bytes,
                                   exec.preferred_dataset_splits));
          const double a = analytical_time(op, bytes, group, exec);
          const double f = flow_time(op, bytes, group, exec);
          ASSERT_GT(a, 0.0);
          EXPECT_NEAR(f / a, 1.0, 0.05) << "flow " << f << " s, analytical " << a << " s";
          if (exec.preferred_dataset_splits == 1) {
            EXPECT_NEAR(f / a, 1.0, 1e-9);  // nothing the analytical backend ignores
          }
        }
      }
    }
  }
}

// ---- no refusal: whatever the analytical backend times, the flow backend runs ------------------

TEST(FlowMatchesAnalytical, EveryPairTheAnalyticalBackendTimesRunsOnTheFlowBackend) {
  std::vector<NetworkDimension> dims = {
      dim("ring", TopologyType::ring, kB, kL),
      dim("fc", TopologyType::fully_connected, kB, kL),
      dim("sw", TopologyType::switch_, kB, kL),
      dim("tor", TopologyType::torus2d, kB, kL, {4, 4}),
      dim("mesh", TopologyType::mesh2d, kB, kL, {4, 4}),
      dim("mesh_odd", TopologyType::mesh2d, kB, kL, {3, 5}),
      superpod("pod", kB, kB / 2.0, kL, 4, 2),
  };
  auto nvls = dim("nvls", TopologyType::switch_, kB, kL);
  nvls.in_network_reduction = true;
  dims.push_back(nvls);
  const CollectiveOp ops[] = {CollectiveOp::all_reduce, CollectiveOp::all_gather, CollectiveOp::reduce_scatter,
                              CollectiveOp::all_to_all,  CollectiveOp::broadcast,  CollectiveOp::send_recv};
  const CollectiveAlgorithm algorithms[] = {
      CollectiveAlgorithm::auto_,      CollectiveAlgorithm::ring,   CollectiveAlgorithm::direct,
      CollectiveAlgorithm::halving_doubling, CollectiveAlgorithm::double_binary_tree,
      CollectiveAlgorithm::nvls,       CollectiveAlgorithm::mesh,   CollectiveAlgorithm::mesh2d,
      CollectiveAlgorithm::hypercube,  CollectiveAlgorithm::torus2d};
  const auto ranks_of = [](const NetworkDimension& d) { return d.size.size() == 2 ? d.size[0] * d.size[1] : 16; };
  // Each dimension alone, and each inside and outside a switch (hierarchical composition).
  const auto sw = dim("outer_sw", TopologyType::switch_, kB, kL);
  std::vector<std::vector<GroupSpan>> groups;
  for (const auto& d : dims) {
    groups.push_back({{&d, ranks_of(d)}});
    groups.push_back({{&sw, 4}, {&d, ranks_of(d)}});
    groups.push_back({{&d, ranks_of(d)}, {&sw, 4}});
  }
  int timed = 0;
  for (const auto& group : groups) {
    std::string where;
    for (const auto& span : group) where += fmt::format(" {} x{}", span.dimension->id, span.ranks);
    for (CollectiveOp op : ops) {
      for (CollectiveAlgorithm alg : algorithms) {
        ExecutionBackendSpec exec;
        exec.collectives[op] = alg;
        SCOPED_TRACE(fmt::format("{} on{}, {}", to_string(op), where, to_string(alg)));
        bool analytical_runs = true;
        try {
          (void)analytical_time(op, 1.0 * kMiB, group, exec);
        } catch (const InfeasibleError&) {
          analytical_runs = false;
        }
        if (!analytical_runs) continue;
        ++timed;
        EXPECT_NO_THROW((void)flow_time(op, 1.0 * kMiB, group, exec));
      }
    }
  }
  EXPECT_GT(timed, 300);  // the loop reached the pairs (not refused wholesale)
}

}  // namespace
}  // namespace rapidllm::network
