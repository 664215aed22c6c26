// Flow-simulator wall time vs ranks (64 ... 16,384) for a ring all-reduce on one switch and
// for an all-to-all on the DGX H100 layout (8 GPUs per NVSwitch x InfiniBand): topology,
// plan, routing and simulation all included. Prints the curve.
//
//   rapidllm_bench_network [--max-ranks N]
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

#include "network/collective_flows.hpp"
#include "network/flow_simulator.hpp"
#include "network/topology.hpp"

namespace {

using namespace rapidllm;
using namespace rapidllm::network;

NetworkDimension make_dim(const std::string& id, TopologyType t, double bw, double latency) {
  NetworkDimension d;
  d.id = id;
  d.topology = t;
  d.bandwidth_bytes_per_s = {bw};
  d.latency_s = latency;
  return d;
}

struct Timing {
  double wall_s = 0.0;
  double sim_s = 0.0;
  std::size_t events = 0;
};

Timing run(const std::vector<GroupSpan>& group, CollectiveOp op, double bytes) {
  const auto t0 = std::chrono::steady_clock::now();
  const Topology topo(group, {});
  FlowPlan plan;
  add_collective(plan, topo, op, bytes, {});
  FlowSimulator sim(topo);
  const SimulationResult r = sim.run(plan);
  Timing t;
  t.wall_s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  t.sim_s = r.time_s;
  t.events = r.events;
  return t;
}

}  // namespace

int main(int argc, char** argv) {
  int max_ranks = 16384;
  for (int i = 1; i + 1 < argc; ++i) {
    if (std::strcmp(argv[i], "--max-ranks") == 0) max_ranks = std::atoi(argv[i + 1]);
  }
  const auto sw = make_dim("ib", TopologyType::switch_, 50e9, 5e-6);
  const auto nv = make_dim("nvlink", TopologyType::switch_, 450e9, 0.93e-6);
  std::printf("%-34s %7s %12s %12s %10s\n", "pattern", "ranks", "wall [s]", "simulated", "events");
  for (int n = 64; n <= max_ranks; n *= 2) {
    const Timing t = run({{&sw, n}}, CollectiveOp::all_reduce, 1073741824.0);
    std::printf("%-34s %7d %12.4f %10.3f ms %10zu\n", "ring all-reduce 1 GiB, one switch", n, t.wall_s, t.sim_s * 1e3,
                t.events);
    std::fflush(stdout);
  }
  for (int n = 64; n <= max_ranks; n *= 2) {
    const Timing t = run({{&nv, 8}, {&sw, n / 8}}, CollectiveOp::all_to_all, 1073741824.0);
    std::printf("%-34s %7d %12.4f %10.3f ms %10zu\n", "all-to-all 1 GiB, 8 x NVSwitch x IB", n, t.wall_s, t.sim_s * 1e3,
                t.events);
    std::fflush(stdout);
  }
  return 0;
}
