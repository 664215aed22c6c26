// Flow-simulator wall time vs ranks for a ring all-reduce on one switch (64 ... --max-ranks,
// default 16,384; targets: < 1 s at 16,384 and < 10 s at 65,536 ranks on one core) and for an
// all-to-all on the DGX H100 layout (8 GPUs per NVSwitch x InfiniBand; 64 ... --max-a2a-ranks,
// default 16,384: it routes n^2 pairs, 2.7e8 at 16,384). Topology, plan, routing and
// simulation all included. Then the engine driven like a whole step: n / 64 concurrent
// 64-GPU all-reduces, each resubmitted from its done callback. Prints the curves and targets.
//
//   taskset -c 0 rapidllm_bench_network [--max-ranks N] [--max-a2a-ranks N]
#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <functional>
#include <string>
#include <vector>

#include "network/collective_flows.hpp"
#include "network/flow_engine.hpp"
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
  std::size_t rate_computations = 0;
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
  t.rate_computations = r.rate_computations;
  return t;
}

// A whole step's shape: n / 64 ring all-reduces of 64 GPUs each on one switch (disjoint
// groups, as data-parallel groups under tensor parallelism), each its own FlowEngine
// submission, all at once; each resubmits itself when done until it has run 4 times.
Timing run_concurrent(const NetworkDimension& sw, int n, double bytes) {
  const auto t0 = std::chrono::steady_clock::now();
  const Topology topo({{&sw, n}}, {});
  FlowEngine engine(topo);
  std::vector<FlowPlan> plans;
  for (int g = 0; g < n / 64; ++g) {
    std::vector<int> members;
    for (int i = 0; i < 64; ++i) members.push_back(g * 64 + i);
    FlowPlan plan;
    add_group_collective(plan, topo, 0, members, CollectiveOp::all_reduce, CollectiveAlgorithm::ring, bytes);
    plans.push_back(std::move(plan));
  }
  Timing t;
  std::function<void(std::size_t, int, double)> submit = [&](std::size_t g, int left, double now) {
    engine.submit(now, plans[g], [&, g, left](double end_s) {
      t.sim_s = std::max(t.sim_s, end_s);
      if (left > 1) submit(g, left - 1, end_s);
    });
  };
  for (std::size_t g = 0; g < plans.size(); ++g) submit(g, 4, 0.0);
  while (std::isfinite(engine.next_event_s())) engine.advance();
  t.wall_s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  t.events = engine.events();
  t.rate_computations = engine.rate_computations();
  return t;
}

void print(const char* pattern, int ranks, const Timing& t) {
  std::printf("%-36s %7d %12.4f %10.3f ms %10zu %12zu\n", pattern, ranks, t.wall_s, t.sim_s * 1e3, t.events,
              t.rate_computations);
  std::fflush(stdout);
}

}  // namespace

int main(int argc, char** argv) {
  int max_ranks = 16384;
  int max_a2a_ranks = 16384;
  for (int i = 1; i + 1 < argc; ++i) {
    if (std::strcmp(argv[i], "--max-ranks") == 0) max_ranks = std::atoi(argv[i + 1]);
    if (std::strcmp(argv[i], "--max-a2a-ranks") == 0) max_a2a_ranks = std::atoi(argv[i + 1]);
  }
  const auto sw = make_dim("ib", TopologyType::switch_, 50e9, 5e-6);
  const auto nv = make_dim("nvlink", TopologyType::switch_, 450e9, 0.93e-6);
  std::printf("%-36s %7s %12s %13s %10s %12s\n", "pattern", "ranks", "wall [s]", "simulated", "events", "rate comps");
  struct Target {
    int ranks;
    double limit_s;
  };
  const Target targets[] = {{16384, 1.0}, {65536, 10.0}};
  std::vector<std::string> verdicts;
  for (int n = 64; n <= max_ranks; n *= 2) {
    const Timing t = run({{&sw, n}}, CollectiveOp::all_reduce, 1073741824.0);
    print("ring all-reduce 1 GiB, one switch", n, t);
    for (const auto& target : targets) {
      if (target.ranks != n) continue;
      char line[160];
      std::snprintf(line, sizeof line, "target: ring all-reduce at %d ranks < %.0f s: %.4f s, %s", n, target.limit_s,
                    t.wall_s, t.wall_s < target.limit_s ? "met" : "MISSED");
      verdicts.emplace_back(line);
    }
  }
  for (int n = 64; n <= max_a2a_ranks; n *= 2) {
    const Timing t = run({{&nv, 8}, {&sw, n / 8}}, CollectiveOp::all_to_all, 1073741824.0);
    print("all-to-all 1 GiB, 8 x NVSwitch x IB", n, t);
  }
  for (int n = 1024; n <= max_ranks; n *= 4) {
    print("n/64 x 64-GPU all-reduce 256 MiB x 4", n, run_concurrent(sw, n, 268435456.0));
  }
  for (const auto& v : verdicts) std::printf("%s\n", v.c_str());
  return 0;
}
