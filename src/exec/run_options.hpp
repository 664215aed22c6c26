// How to evaluate a step of any workload (a training step, an inference prefill and decode):
// the per-micro-batch op graphs' executor, the network the communicators run on, and whether
// the step graph is simulated event by event on the cluster network instead of composed
// with the closed forms.
#pragma once

#include <string>
#include <vector>

#include "exec/llm_context.hpp"
#include "exec/step_graph.hpp"
#include "exec/timeline.hpp"
#include "rapidllm/hardware_spec.hpp"
#include "rapidllm/llm_prediction.hpp"
#include "rapidllm/model_spec.hpp"

namespace rapidllm::exec {

struct StepRunOptions {
  ExecutorKind executor = ExecutorKind::analytical;
  NetworkKind network = NetworkKind::analytical;
  bool simulate_step = false;
  bool symmetric = true;           // simulate one unit per stage for the replicas alike
  std::vector<int> distinct_gpus;  // their replicas differ (a fault's GPU endpoints): simulated one by one
  std::string symmetry_note;       // reported: why symmetry is dropped or narrowed
  std::string mode = "analytical";  // reported: the execution mode asked for
  Timeline* timeline = nullptr;    // simulate_step: receives the timeline when given
  StepGraph* graph = nullptr;      // receives the step graph when given (Chakra export)
};

// How the hardware file's execution mode (execution_backend) evaluates a step of `run`
// (docs/execution-modes.md): analytical, the formulas on the analytical network; hybrid,
// the formulas with each collective flow-simulated alone; full_astrasim_hierarchical, the
// step graph simulated with collectives alone (symmetry narrowed around faulty GPUs);
// full_astrasim_flattened, the step graph simulated with all traffic sharing the links.
[[nodiscard]] StepRunOptions step_run_options(const HardwareSpec& hardware, RunType run);

// What a report says of how it was evaluated before anything is simulated: the mode and
// the network (pipeline "formula").
[[nodiscard]] ExecutionSummary execution_summary(const StepRunOptions& options);
// The network simulations the step's network ran (collectives alone plus shared
// submissions; 0 on the analytical network).
[[nodiscard]] std::size_t network_simulations(const network::NetworkApi& network);

}  // namespace rapidllm::exec
