#include "network/network_api.hpp"

#include <map>
#include <string>
#include <tuple>

#include <fmt/format.h>

#include "network/analytical_collectives.hpp"
#include "network/collective_flows.hpp"
#include "network/flow_simulator.hpp"
#include "network/ns3_backend.hpp"
#include "network/queued_network.hpp"
#include "network/topology.hpp"
#include "network/work_estimate.hpp"
#include "rapidllm/error.hpp"

namespace rapidllm::network {

namespace {

class AnalyticalNetwork final : public QueuedNetwork {
 public:
  explicit AnalyticalNetwork(const ExecutionBackendSpec& exec) : exec_(exec) {}
  CollectiveEstimate collective(CollectiveOp op, double bytes, const std::vector<GroupSpan>& group) override {
    return estimate_collective(op, bytes, group, exec_);
  }
  double message_s(const NetworkDimension& dimension, double bytes) override {
    return point_to_point_s(dimension, bytes);
  }

 private:
  const ExecutionBackendSpec& exec_;
};

// Flow-level or packet-level simulation of each collective on its group's topology.
class SimulatedNetwork final : public QueuedNetwork {
 public:
  SimulatedNetwork(const NetworkSpec& network, const ExecutionBackendSpec& exec, bool ns3, std::string executable,
                   ProgressFn progress)
      : network_(network),
        exec_(exec),
        ns3_(ns3),
        executable_(std::move(executable)),
        progress_(std::move(progress)) {}

  CollectiveEstimate collective(CollectiveOp op, double bytes, const std::vector<GroupSpan>& group) override {
    if (group.empty()) throw InfeasibleError("collective group spans no network dimension");
    if (!(bytes >= 0.0)) throw InfeasibleError(fmt::format("collective size must be finite and >= 0 (got {})", bytes));
    Key key{op, bytes, {}};
    for (const auto& s : group) key.group.emplace_back(s.dimension, s.ranks);
    if (auto it = cache_.find(key); it != cache_.end()) return it->second;
    const double work = check_before_building(op, bytes, group);
    const Topology topology(group, network_.faulty_links);
    FlowPlan plan;
    add_collective(plan, topology, op, bytes, exec_);
    double time_s = 0.0;
    std::vector<double> phase_times;
    if (ns3_) {
      const Ns3Result r = run_ns3(topology, plan, executable_, progress_);
      time_s = r.time_s;
      phase_times = r.phase_time_s;
    } else {
      FlowSimulator sim(topology);
      WorkMeter meter(progress_, work);
      SimulationOptions options;
      options.meter = &meter;
      const SimulationResult r = sim.run(plan, options);
      meter.finish();
      time_s = r.time_s;
      phase_times = r.phase_time_s;
    }
    CollectiveEstimate e;
    e.op = op;
    e.bytes = bytes;
    e.ranks = topology.num_gpus();
    e.time_s = time_s;
    for (std::size_t p = 0; p < plan.phases.size(); ++p) {
      e.phases.push_back(plan.phases[p].info);
      e.phases.back().time_s = p < phase_times.size() ? phase_times[p] : 0.0;
    }
    if (e.time_s > 0.0) {
      e.algbw_bytes_per_s = bytes / e.time_s;
      e.busbw_bytes_per_s = e.algbw_bytes_per_s * bus_bandwidth_factor(op, e.ranks);
    }
    return cache_.emplace(std::move(key), e).first->second;
  }

  // A message to a neighbour: the send/recv of a two-rank group on the dimension.
  double message_s(const NetworkDimension& dimension, double bytes) override {
    if (bytes <= 0.0) return 0.0;
    return collective(CollectiveOp::send_recv, bytes, {GroupSpan{&dimension, 2}}).time_s;
  }

 private:
  // Refuses (ConfigError) a simulation past exec.max_events or this machine's memory, from
  // the group's shape alone: nothing of it is allocated yet. Returns its estimated work.
  double check_before_building(CollectiveOp op, double bytes, const std::vector<GroupSpan>& group) const {
    // The topology leaves out one-rank spans, and the plan its dimensions.
    std::vector<SpanShape> shape;
    long long ranks = 1;
    for (const auto& s : group) {
      ranks *= s.ranks;
      if (s.ranks > 1) shape.push_back(SpanShape{s.dimension, s.ranks, true});
    }
    WorkEstimate w = estimate_collective_work(op, bytes, shape, 1, exec_);
    w += topology_work(group);
    const NetworkBackend backend = ns3_ ? NetworkBackend::ns3 : NetworkBackend::flow;
    check_work(w, backend, exec_.max_events, fmt::format("{} of {} B over {} ranks", to_string(op), bytes, ranks));
    return w.work(backend);
  }

  struct Key {
    CollectiveOp op;
    double bytes;
    std::vector<std::pair<const NetworkDimension*, int>> group;
    bool operator<(const Key& o) const { return std::tie(op, bytes, group) < std::tie(o.op, o.bytes, o.group); }
  };

  const NetworkSpec& network_;
  const ExecutionBackendSpec& exec_;
  bool ns3_;
  std::string executable_;
  ProgressFn progress_;
  std::map<Key, CollectiveEstimate> cache_;
};

}  // namespace

std::unique_ptr<NetworkApi> make_network(NetworkBackend backend, const NetworkSpec& network,
                                         const ExecutionBackendSpec& exec, std::string ns3_executable,
                                         ProgressFn progress) {
  switch (backend) {
    case NetworkBackend::analytical: break;
    case NetworkBackend::flow:
      return std::make_unique<SimulatedNetwork>(network, exec, false, "", std::move(progress));
    case NetworkBackend::ns3:
      return std::make_unique<SimulatedNetwork>(network, exec, true, std::move(ns3_executable), std::move(progress));
  }
  return std::make_unique<AnalyticalNetwork>(exec);
}

double collective_energy_j(const CollectiveEstimate& e, const std::vector<GroupSpan>& group) {
  double ranks = 1.0;
  for (const auto& span : group) ranks *= span.ranks;
  double joules = 0.0;
  for (const auto& phase : e.phases) {
    for (const auto& span : group) {
      if (span.dimension->id == phase.dimension_id) {
        joules += ranks * bus_bandwidth_factor(phase.op, phase.ranks) * phase.bytes * 8.0 *
                  span.dimension->energy_per_bit_j;
        break;
      }
    }
  }
  return joules;
}

double message_energy_j(const NetworkDimension& dimension, double bytes) {
  return bytes * 8.0 * dimension.energy_per_bit_j;
}

}  // namespace rapidllm::network
