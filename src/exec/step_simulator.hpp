// Plays a StepGraph on the cluster: simulated units (a TP group of GPUs in lockstep: one
// per pipeline stage under symmetry, every (stage, DP replica, CP rank) group without it),
// each with a compute stream and one channel per communicator (pipeline sends one per
// direction); collectives start when every unit of their group has reached them and run on
// the network interface, so on a shared network TP, PP and DP traffic that meet on a link
// slow each other down. Compute-stream idle time is charged to what it waited for.
#pragma once

#include <array>
#include <cstddef>
#include <vector>

#include "exec/step_graph.hpp"
#include "exec/op_list_cost.hpp"
#include "exec/timeline.hpp"
#include "model/layer_ops.hpp"
#include "network/network_api.hpp"
#include "parallel/placement.hpp"

namespace rapidllm::exec {

struct StepSimOptions {
  // One unit per stage stands for its DP replicas and CP ranks, except the replicas holding
  // one of `distinct_gpus` (a fault's endpoints): those are simulated stage by stage.
  bool symmetric = true;
  std::vector<int> distinct_gpus;
  bool record_timeline = false;
};

struct StepSimResult {
  double step_s = 0.0;           // last node of the step (next-step parameter gathers aside)
  double next_step_gather_s = 0.0;   // the post-optimizer parameter all-gather, all buckets
  double last_gather_bucket_s = 0.0;
  int units = 0;
  std::size_t nodes_run = 0;
  // The critical unit (most compute) over [0, step_s]: its compute by op class, its
  // recomputation, compute-stream idle by what it waited for, and the pipeline bubble.
  int critical_stage = 0;
  std::array<double, kOpClasses> compute_s{};
  double recompute_s = 0.0;
  double optimizer_s = 0.0;
  std::array<double, model::kCommPurposes> exposed_comm_s{};
  double bubble_s = 0.0;
  // Per pipeline stage, its busiest unit over its own work (before the critical unit's tail
  // is charged): compute by op class and compute-stream idle by the communication it waited
  // for. A batch that crosses the stages one after another (inference) spends the sum of
  // these along the pipeline; the rest of each stage's idle time is the other stages' work.
  struct StageSummary {
    std::array<double, kOpClasses> compute_s{};
    std::array<double, model::kCommPurposes> exposed_comm_s{};
  };
  std::vector<StageSummary> stages;
  // Per stage: the most micro-batches (chunk activations / vpp) live at once.
  std::vector<double> peak_in_flight;
  Timeline timeline;  // with record_timeline
};

[[nodiscard]] StepSimResult simulate_step(const StepGraph& graph, const parallel::Placement& placement,
                                          network::NetworkApi& network, const StepSimOptions& options, int vpp);

}  // namespace rapidllm::exec
