// Property: a collective's transfer plan moves exactly the bytes its algorithm implies, and
// the flow simulator delivers every byte it injects. Per rank (nccl-tests size S, N ranks
// over dimensions of n_i ranks): all-reduce 2(N-1)/N S (a hierarchical reduce-scatter's
// pieces telescope to (N-1)/N S, the all-gather back the same), reduce-scatter and
// all-gather (N-1)/N S, all-to-all sum_i (n_i-1)/n_i S (one exchange per dimension on the
// full buffer), send/recv S each way, broadcast S into every rank but the root. Chunking
// splits the buffer, so it must not change any of these. A step that drops or repeats a
// piece, or a chunk sent twice, shows up here even where the timing looks plausible.
#include <cmath>
#include <numeric>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "network/collective_flows.hpp"
#include "network/flow_simulator.hpp"
#include "network/topology.hpp"
#include "property_support.hpp"

namespace rapidllm::property {
namespace {

NetworkDimension random_dimension(Rng& rng, const std::string& id, int& ranks) {
  NetworkDimension d;
  d.id = id;
  d.topology = rng.pick(std::vector<TopologyType>{TopologyType::ring, TopologyType::fully_connected,
                                                  TopologyType::switch_, TopologyType::torus2d});
  d.bandwidth_bytes_per_s = {rng.log_uniform(1e9, 1e12)};
  d.latency_s = rng.log_uniform(1e-7, 1e-5);
  if (d.topology == TopologyType::torus2d) {
    const int a = rng.uniform_int(2, 3);
    const int b = rng.uniform_int(2, 3);
    d.size = {a, b};
    ranks = a * b;
  } else {
    ranks = rng.uniform_int(2, 6);
  }
  return d;
}

struct Expected {
  std::vector<double> sent;      // per GPU
  std::vector<double> received;  // per GPU
};

// What every GPU sends and receives for `op` over spans of `ranks` (innermost first);
// `axes` lists each span's ring lengths (a Torus2D span runs its all-to-all as one exchange
// per axis, on the full buffer each, like two dimensions).
Expected expected_bytes(CollectiveOp op, double s, const std::vector<int>& ranks,
                        const std::vector<std::vector<int>>& axes) {
  const int total = std::accumulate(ranks.begin(), ranks.end(), 1, std::multiplies<>());
  const double n = total;
  double each = 0.0;
  switch (op) {
    case CollectiveOp::all_reduce: each = 2.0 * (n - 1.0) / n * s; break;
    case CollectiveOp::all_gather:
    case CollectiveOp::reduce_scatter: each = (n - 1.0) / n * s; break;
    case CollectiveOp::all_to_all:
      for (const auto& span : axes) {
        for (int r : span) each += (r - 1.0) / r * s;
      }
      break;
    case CollectiveOp::send_recv: each = s; break;
    case CollectiveOp::broadcast: {
      // Rank 0 holds the data: it receives nothing, every other rank receives S once. What
      // each rank forwards depends on the chain; only the total is fixed.
      Expected e{std::vector<double>(static_cast<std::size_t>(total), 0.0),
                 std::vector<double>(static_cast<std::size_t>(total), s)};
      e.received[0] = 0.0;
      return e;
    }
  }
  return {std::vector<double>(static_cast<std::size_t>(total), each),
          std::vector<double>(static_cast<std::size_t>(total), each)};
}

TEST(BytesConserved, EveryRankMovesWhatTheAlgorithmImplies) {
  Rng rng(0x5eed0005);
  constexpr int kCases = 150;
  for (int i = 0; i < kCases; ++i) {
    // One to three stacked dimensions; with a torus among them broadcast and send/recv are
    // left out (not modelled on a torus).
    const int levels = rng.uniform_int(1, 3);
    std::vector<NetworkDimension> dims(static_cast<std::size_t>(levels));
    std::vector<int> ranks(static_cast<std::size_t>(levels));
    std::string text;
    bool torus = false;
    for (int l = 0; l < levels; ++l) {
      const auto li = static_cast<std::size_t>(l);
      dims[li] = random_dimension(rng, fmt::format("d{}", l), ranks[li]);
      torus = torus || dims[li].topology == TopologyType::torus2d;
      text += fmt::format("{}{} x{}", l > 0 ? " / " : "", to_string(dims[li].topology), ranks[li]);
    }
    std::vector<CollectiveOp> ops{CollectiveOp::all_reduce, CollectiveOp::all_gather, CollectiveOp::reduce_scatter,
                                  CollectiveOp::all_to_all};
    if (!torus) {
      ops.push_back(CollectiveOp::broadcast);
      ops.push_back(CollectiveOp::send_recv);
    }
    const CollectiveOp op = rng.pick(ops);
    const double bytes = std::round(rng.log_uniform(1e3, 1e9));
    ExecutionBackendSpec exec;
    exec.preferred_dataset_splits = rng.uniform_int(1, 4);
    exec.active_chunks_per_dimension = rng.uniform_int(1, exec.preferred_dataset_splits);
    SCOPED_TRACE(fmt::format("case {}: {} of {} bytes on {}, {} chunks, {} active", i, to_string(op), bytes, text,
                             exec.preferred_dataset_splits, exec.active_chunks_per_dimension));

    std::vector<GroupSpan> spans;
    for (std::size_t l = 0; l < dims.size(); ++l) spans.push_back({&dims[l], ranks[l]});
    const network::Topology topology(spans, {});
    network::FlowPlan plan;
    network::add_collective(plan, topology, op, bytes, exec);
    const network::SimulationResult r = network::FlowSimulator(topology).run(plan, {.track_node_bytes = true});

    // The simulator's own books: every byte injected is delivered, and sent = received.
    EXPECT_NEAR(r.bytes_delivered, r.bytes_injected, 1e-9 * r.bytes_injected);
    const double sent = std::accumulate(r.node_bytes_sent.begin(), r.node_bytes_sent.end(), 0.0);
    const double received = std::accumulate(r.node_bytes_received.begin(), r.node_bytes_received.end(), 0.0);
    EXPECT_NEAR(sent, r.bytes_injected, 1e-12 * sent);
    EXPECT_NEAR(received, sent, 1e-12 * sent);

    // And the algorithm's: each GPU's share.
    std::vector<std::vector<int>> axes;
    for (const auto& d : dims) {
      if (d.topology == TopologyType::torus2d) {
        axes.push_back(d.size);
      } else {
        axes.push_back({ranks[axes.size()]});
      }
    }
    const Expected want = expected_bytes(op, bytes, ranks, axes);
    ASSERT_EQ(static_cast<std::size_t>(topology.num_gpus()), want.sent.size());
    const double total_received = std::accumulate(want.received.begin(), want.received.end(), 0.0);
    EXPECT_NEAR(received, total_received, 1e-12 * total_received);
    for (std::size_t g = 0; g < want.sent.size(); ++g) {
      if (op != CollectiveOp::broadcast) {
        EXPECT_NEAR(r.node_bytes_sent[g], want.sent[g], 1e-12 * bytes) << "GPU " << g << " sent";
      }
      EXPECT_NEAR(r.node_bytes_received[g], want.received[g], 1e-12 * bytes) << "GPU " << g << " received";
    }
  }
}

// The single-dimension algorithms other than ring on switched fabrics: direct and
// halving-doubling move what ring moves; the double binary tree moves S/2 up and S/2 down
// every edge of each of its two trees, 2 (n-1) S in all; NVLS sends S (n+1)/n into the
// switch from every GPU and the same back out.
TEST(BytesConserved, OtherAlgorithmsOnASwitch) {
  Rng rng(0x5eed0006);
  constexpr int kCases = 60;
  for (int i = 0; i < kCases; ++i) {
    NetworkDimension d;
    d.id = "sw";
    d.topology = rng.coin() ? TopologyType::switch_ : TopologyType::fully_connected;
    d.bandwidth_bytes_per_s = {rng.log_uniform(1e9, 1e12)};
    d.latency_s = rng.log_uniform(1e-7, 1e-5);
    const int n = rng.uniform_int(2, 16);
    std::vector<CollectiveAlgorithm> algorithms{CollectiveAlgorithm::direct, CollectiveAlgorithm::double_binary_tree};
    if ((n & (n - 1)) == 0) algorithms.push_back(CollectiveAlgorithm::halving_doubling);
    if (d.topology == TopologyType::switch_) algorithms.push_back(CollectiveAlgorithm::nvls);
    const CollectiveAlgorithm algorithm = rng.pick(algorithms);
    d.in_network_reduction = algorithm == CollectiveAlgorithm::nvls;
    const CollectiveOp op = algorithm == CollectiveAlgorithm::nvls || algorithm == CollectiveAlgorithm::double_binary_tree
                                ? CollectiveOp::all_reduce
                                : rng.pick(std::vector<CollectiveOp>{CollectiveOp::all_reduce, CollectiveOp::all_gather,
                                                                     CollectiveOp::reduce_scatter});
    const double bytes = std::round(rng.log_uniform(1e3, 1e9));
    ExecutionBackendSpec exec;
    exec.collectives[op] = algorithm;
    SCOPED_TRACE(fmt::format("case {}: {} {} of {} bytes on {} x{}", i, to_string(op), to_string(algorithm), bytes,
                             to_string(d.topology), n));

    const network::Topology topology({{&d, n}}, {});
    network::FlowPlan plan;
    network::add_collective(plan, topology, op, bytes, exec);
    const network::SimulationResult r = network::FlowSimulator(topology).run(plan, {.track_node_bytes = true});
    EXPECT_NEAR(r.bytes_delivered, r.bytes_injected, 1e-9 * r.bytes_injected);
    const double sent = std::accumulate(r.node_bytes_sent.begin(), r.node_bytes_sent.end(), 0.0);
    const double received = std::accumulate(r.node_bytes_received.begin(), r.node_bytes_received.end(), 0.0);
    EXPECT_NEAR(received, sent, 1e-12 * sent);

    const double nd = n;
    if (algorithm == CollectiveAlgorithm::double_binary_tree) {
      EXPECT_NEAR(sent, 2.0 * (nd - 1.0) * bytes, 1e-12 * sent);
      continue;
    }
    const double each = algorithm == CollectiveAlgorithm::nvls ? bytes * (nd + 1.0) / nd
                        : op == CollectiveOp::all_reduce      ? 2.0 * (nd - 1.0) / nd * bytes
                                                              : (nd - 1.0) / nd * bytes;
    for (std::size_t g = 0; g < static_cast<std::size_t>(n); ++g) {
      EXPECT_NEAR(r.node_bytes_sent[g], each, 1e-12 * bytes) << "GPU " << g;
      EXPECT_NEAR(r.node_bytes_received[g], each, 1e-12 * bytes) << "GPU " << g;
    }
  }
}

// The case that found the FullyConnected broadcast sending into its root: the root
// received S (n S on the wire in all) where it holds the data already.
TEST(BytesConserved, FullyConnectedBroadcastFoundCase) {
  NetworkDimension d;
  d.id = std::string("fc");
  d.topology = TopologyType::fully_connected;
  d.bandwidth_bytes_per_s = {100e9};
  d.latency_s = 1e-6;
  const network::Topology topology({{&d, 5}}, {});
  network::FlowPlan plan;
  network::add_collective(plan, topology, CollectiveOp::broadcast, 2252000.0, {});
  const network::SimulationResult r = network::FlowSimulator(topology).run(plan, {.track_node_bytes = true});
  EXPECT_EQ(r.node_bytes_received[0], 0.0);
  for (std::size_t g = 1; g < 5; ++g) EXPECT_NEAR(r.node_bytes_received[g], 2252000.0, 1e-6) << "GPU " << g;
  EXPECT_NEAR(r.bytes_injected, 4 * 2252000.0, 1e-6);
}

}  // namespace
}  // namespace rapidllm::property
