// Cross-check of the flow backend against the packet-level ns-3 backend on the same
// transfer plans: ring and double-binary-tree all-reduce and all-to-all on a switch, and a
// congested pattern (two jobs on one oversubscribed fat-tree), at 8-256 ranks. Prints a
// markdown table (the one in validation/network/flow_vs_ns3.md) and, with --csv FILE, a CSV.
//
//   rapidllm_network_crosscheck [--quick] [--csv FILE]
#include <chrono>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <functional>
#include <string>
#include <vector>

#include <fmt/format.h>

#include "network/collective_flows.hpp"
#include "network/flow_simulator.hpp"
#include "network/ns3_backend.hpp"
#include "network/topology.hpp"

namespace {

using namespace rapidllm;
using namespace rapidllm::network;

constexpr double kMiB = 1048576.0;

NetworkDimension make_dim(const std::string& id, TopologyType t, std::vector<double> bw, double latency) {
  NetworkDimension d;
  d.id = id;
  d.topology = t;
  d.bandwidth_bytes_per_s = std::move(bw);
  d.latency_s = latency;
  return d;
}

struct Scenario {
  std::string name;
  int ranks;
  double bytes;
  NetworkDimension dim;
  std::function<void(FlowPlan&, const Topology&)> build;
};

double seconds_since(std::chrono::steady_clock::time_point t0) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
}

}  // namespace

int main(int argc, char** argv) {
  bool quick = false;
  std::string csv_path;
  for (int i = 1; i < argc; ++i) {
    if (std::strcmp(argv[i], "--quick") == 0) quick = true;
    if (std::strcmp(argv[i], "--csv") == 0 && i + 1 < argc) csv_path = argv[++i];
  }
  if (ns3_executable().empty()) {
    std::fprintf(stderr, "rapidllm-ns3 was not built (install libns3-dev libgsl-dev and rebuild)\n");
    return 1;
  }
  // 100 Gb/s per GPU, 1 us per step: packet counts stay small enough for ns-3.
  const double b = 12.5e9;
  const double alpha = 1e-6;
  std::vector<Scenario> scenarios;
  const std::vector<int> ring_sizes = quick ? std::vector<int>{8} : std::vector<int>{8, 64, 256};
  for (int n : ring_sizes) {
    const double bytes = n <= 8 ? 16 * kMiB : 64 * kMiB;
    scenarios.push_back({"ring all-reduce, switch", n, bytes, make_dim("sw", TopologyType::switch_, {b}, alpha),
                         [bytes](FlowPlan& p, const Topology& t) {
                           ExecutionBackendSpec e;
                           e.collectives[CollectiveOp::all_reduce] = CollectiveAlgorithm::ring;
                           add_collective(p, t, CollectiveOp::all_reduce, bytes, e);
                         }});
  }
  for (int n : ring_sizes) {
    const double bytes = 16 * kMiB;
    scenarios.push_back({"tree all-reduce, switch", n, bytes, make_dim("sw", TopologyType::switch_, {b}, alpha),
                         [bytes](FlowPlan& p, const Topology& t) {
                           ExecutionBackendSpec e;
                           e.collectives[CollectiveOp::all_reduce] = CollectiveAlgorithm::double_binary_tree;
                           add_collective(p, t, CollectiveOp::all_reduce, bytes, e);
                         }});
  }
  const std::vector<int> a2a_sizes = quick ? std::vector<int>{8} : std::vector<int>{8, 32, 64};
  for (int n : a2a_sizes) {
    const double bytes = 16 * kMiB;
    scenarios.push_back({"all-to-all (direct), switch", n, bytes, make_dim("sw", TopologyType::switch_, {b}, alpha),
                         [bytes](FlowPlan& p, const Topology& t) {
                           add_collective(p, t, CollectiveOp::all_to_all, bytes, {});
                         }});
  }
  // Two jobs on one fat-tree (leaves of 8 GPUs, one spine, 2:1 oversubscribed): job A = the
  // even GPUs, job B = the odd ones, each a ring all-reduce whose ring visits the leaves in
  // turn, so every ring hop crosses the spine and the two jobs share every leaf uplink.
  const std::vector<int> pod_sizes = quick ? std::vector<int>{16} : std::vector<int>{16, 64, 256};
  for (int n : pod_sizes) {
    const double bytes = n <= 16 ? 16 * kMiB : 32 * kMiB;
    NetworkDimension pod = make_dim("pod", TopologyType::superpod, {b, b / 2}, alpha);
    pod.superpod = SuperPodSpec{"test", 8, 1, 1};
    scenarios.push_back({"two jobs, fat-tree 2:1 (congested)", n, bytes, pod, [n, bytes](FlowPlan& p, const Topology& t) {
                           const int leaves = n / 8;
                           for (int job = 0; job < 2; ++job) {
                             std::vector<int> ring;
                             for (int slot = job; slot < 8; slot += 2) {
                               for (int leaf = 0; leaf < leaves; ++leaf) ring.push_back(leaf * 8 + slot);
                             }
                             add_group_collective(p, t, 0, ring, CollectiveOp::all_reduce, CollectiveAlgorithm::ring, bytes);
                           }
                         }});
  }

  std::string table =
      "| pattern | ranks | size | flow time | ns-3 time | error | flow wall | ns-3 wall | wall ratio ns3/flow |\n"
      "|---|---:|---:|---:|---:|---:|---:|---:|---:|\n";
  std::string csv = "pattern,ranks,bytes,flow_time_s,ns3_time_s,error,flow_wall_s,ns3_wall_s\n";
  double worst = 0.0;
  for (const auto& s : scenarios) {
    const Topology topo({{&s.dim, s.ranks}}, {});
    FlowPlan plan;
    s.build(plan, topo);
    const auto t0 = std::chrono::steady_clock::now();
    FlowSimulator sim(topo);
    const SimulationResult fr = sim.run(plan);
    const double flow_wall = seconds_since(t0);
    const Ns3Result nr = run_ns3(topo, plan);
    // The congested pattern reports the slower job; both jobs are compared.
    double err = (fr.time_s - nr.time_s) / nr.time_s;
    for (std::size_t j = 0; j < fr.job_time_s.size() && j < nr.job_time_s.size(); ++j) {
      const double e = (fr.job_time_s[j] - nr.job_time_s[j]) / nr.job_time_s[j];
      if (std::abs(e) > std::abs(err)) err = e;
    }
    worst = std::max(worst, std::abs(err));
    const std::string row = fmt::format("| {} | {} | {} MiB | {:.1f} us | {:.1f} us | {:+.1f}% | {:.4f} s | {:.1f} s | {:.0f}x |\n",
                                        s.name, s.ranks, s.bytes / kMiB, fr.time_s * 1e6, nr.time_s * 1e6, err * 100.0,
                                        flow_wall, nr.wall_s, nr.wall_s / std::max(flow_wall, 1e-6));
    std::fputs(row.c_str(), stderr);
    table += row;
    csv += fmt::format("{},{},{},{:.9e},{:.9e},{:.5f},{:.6f},{:.3f}\n", s.name, s.ranks, s.bytes, fr.time_s, nr.time_s, err,
                       flow_wall, nr.wall_s);
  }
  std::fputs(table.c_str(), stdout);
  std::printf("\nworst |error| = %.1f%%\n", worst * 100.0);
  if (!csv_path.empty()) std::ofstream(csv_path) << csv;
  return 0;
}
