#include "network/flow_simulator.hpp"

#include <algorithm>
#include <cmath>
#include <limits>

#include "network/flow_engine.hpp"

namespace rapidllm::network {

FlowSimulator::FlowSimulator(const Topology& topology) : topo_(topology), router_(std::make_shared<Router>(topology)) {}

SimulationResult FlowSimulator::run(const FlowPlan& plan, const SimulationOptions& options) {
  const std::size_t nt = plan.transfers.size();
  SimulationResult res;
  res.transfer_start_s.assign(nt, 0.0);
  res.transfer_end_s.assign(nt, 0.0);
  res.job_time_s.assign(static_cast<std::size_t>(std::max(plan.jobs, 0)), 0.0);
  if (options.track_node_bytes) {
    res.node_bytes_sent.assign(static_cast<std::size_t>(topo_.num_nodes()), 0.0);
    res.node_bytes_received.assign(static_cast<std::size_t>(topo_.num_nodes()), 0.0);
  }

  FlowEngine engine(topo_, router_);
  engine.set_meter(options.meter);
  engine.submit(0.0, plan, nullptr, [&](int transfer, double start_s, double end_s) {
    const auto ti = static_cast<std::size_t>(transfer);
    res.transfer_start_s[ti] = start_s;
    res.transfer_end_s[ti] = end_s;
    const int job = plan.transfers[ti].job;
    if (job >= 0 && static_cast<std::size_t>(job) < res.job_time_s.size()) {
      res.job_time_s[static_cast<std::size_t>(job)] = std::max(res.job_time_s[static_cast<std::size_t>(job)], end_s);
    }
    res.time_s = std::max(res.time_s, end_s);
  });
  while (std::isfinite(engine.next_event_s())) engine.advance();
  res.events = engine.events();
  res.rate_computations = engine.rate_computations();
  res.bytes_injected = engine.bytes_injected();
  res.bytes_delivered = engine.bytes_delivered();

  res.phase_time_s.assign(plan.phases.size(), 0.0);
  std::vector<double> first(plan.phases.size(), std::numeric_limits<double>::infinity());
  std::vector<double> last(plan.phases.size(), 0.0);
  for (std::size_t i = 0; i < nt; ++i) {
    const int p = plan.transfers[i].phase;
    if (p < 0 || static_cast<std::size_t>(p) >= plan.phases.size()) continue;
    first[static_cast<std::size_t>(p)] = std::min(first[static_cast<std::size_t>(p)], res.transfer_start_s[i]);
    last[static_cast<std::size_t>(p)] = std::max(last[static_cast<std::size_t>(p)], res.transfer_end_s[i]);
  }
  for (std::size_t p = 0; p < plan.phases.size(); ++p) {
    if (std::isfinite(first[p])) res.phase_time_s[p] = last[p] - first[p];
  }
  if (options.track_node_bytes) {
    for (const auto& t : plan.transfers) {
      if (!t.pairs) continue;
      t.pairs->for_each([&](int src, int dst) {
        res.node_bytes_sent[static_cast<std::size_t>(src)] += t.bytes;
        res.node_bytes_received[static_cast<std::size_t>(dst)] += t.bytes;
      });
    }
  }
  return res;
}

}  // namespace rapidllm::network
