#include "network/backend.hpp"

#include <fmt/format.h>

#include "network/analytical_collectives.hpp"
#include "network/collective_flows.hpp"
#include "network/flow_simulator.hpp"
#include "network/ns3_backend.hpp"
#include "network/topology.hpp"
#include "rapidllm/error.hpp"

namespace rapidllm::network {

std::optional<NetworkBackend> parse_backend(std::string_view name) {
  if (name == "analytical") return NetworkBackend::analytical;
  if (name == "flow") return NetworkBackend::flow;
  if (name == "ns3") return NetworkBackend::ns3;
  return std::nullopt;
}

std::string_view to_string(NetworkBackend backend) {
  switch (backend) {
    case NetworkBackend::analytical: return "analytical";
    case NetworkBackend::flow: return "flow";
    case NetworkBackend::ns3: return "ns3";
  }
  return "?";
}

namespace {

// The estimate a simulated plan gives: total time, nccl-tests bandwidths, per-phase spans.
CollectiveEstimate estimate_from(CollectiveOp op, double bytes, int ranks, const FlowPlan& plan, double time_s,
                                 const std::vector<double>& phase_times) {
  CollectiveEstimate e;
  e.op = op;
  e.bytes = bytes;
  e.ranks = ranks;
  e.time_s = time_s;
  for (std::size_t p = 0; p < plan.phases.size(); ++p) {
    CollectivePhase phase = plan.phases[p].info;
    phase.time_s = p < phase_times.size() ? phase_times[p] : 0.0;
    e.phases.push_back(phase);
  }
  if (e.time_s > 0.0) {
    e.algbw_bytes_per_s = bytes / e.time_s;
    e.busbw_bytes_per_s = e.algbw_bytes_per_s * bus_bandwidth_factor(op, ranks);
  }
  return e;
}

}  // namespace

CollectiveEstimate run_collective(NetworkBackend backend, CollectiveOp op, double bytes,
                                  const std::vector<GroupSpan>& group, const NetworkSpec& network,
                                  const ExecutionBackendSpec& exec, const BackendOptions& options) {
  if (backend == NetworkBackend::analytical) return estimate_collective(op, bytes, group, exec);
  if (group.empty()) throw InfeasibleError("collective group spans no network dimension");
  if (!(bytes >= 0.0)) throw InfeasibleError(fmt::format("collective size must be finite and >= 0 (got {})", bytes));
  const Topology topology(group, network.faulty_links);
  FlowPlan plan;
  add_collective(plan, topology, op, bytes, exec);
  if (backend == NetworkBackend::flow) {
    FlowSimulator sim(topology);
    const SimulationResult r = sim.run(plan);
    return estimate_from(op, bytes, topology.num_gpus(), plan, r.time_s, r.phase_time_s);
  }
  const Ns3Result r = run_ns3(topology, plan, options.ns3_executable);
  return estimate_from(op, bytes, topology.num_gpus(), plan, r.time_s, r.phase_time_s);
}

}  // namespace rapidllm::network
