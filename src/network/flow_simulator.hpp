// One FlowPlan on its own, start to finish: runs it as the single submission of a
// FlowEngine (flow_engine.hpp) and reports per-transfer, per-phase and per-job times.
#pragma once

#include <cstddef>
#include <memory>
#include <vector>

#include "network/flow_plan.hpp"
#include "network/routing.hpp"
#include "network/topology.hpp"
#include "network/work_meter.hpp"

namespace rapidllm::network {

struct SimulationOptions {
  // Count the bytes every node sends and receives (costs one pass over every member pair).
  bool track_node_bytes = false;
  // Counts the run's work (events, member paths routed) for a progress bar; nullptr: none.
  WorkMeter* meter = nullptr;
};

struct SimulationResult {
  double time_s = 0.0;                 // when the last transfer completed
  std::vector<double> job_time_s;      // per job: when its last transfer completed
  std::vector<double> transfer_start_s;
  std::vector<double> transfer_end_s;  // completion (last byte + latency)
  std::vector<double> phase_time_s;    // per plan phase: first start to last completion
  double bytes_injected = 0.0;         // sum over transfers of bytes x member pairs
  double bytes_delivered = 0.0;        // integral of rate x members over time, per transfer
  std::vector<double> node_bytes_sent;      // with track_node_bytes
  std::vector<double> node_bytes_received;  // with track_node_bytes
  std::size_t events = 0;
  std::size_t rate_computations = 0;   // transfers whose rate was (re)computed, summed
};

class FlowSimulator {
 public:
  explicit FlowSimulator(const Topology& topology);
  [[nodiscard]] SimulationResult run(const FlowPlan& plan, const SimulationOptions& options = {});

 private:
  const Topology& topo_;
  // Every run routes on the same topology: its route searches (a Dijkstra per destination
  // once a link is faulty) are kept from run to run.
  std::shared_ptr<Router> router_;
};

}  // namespace rapidllm::network
