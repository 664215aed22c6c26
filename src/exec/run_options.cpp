#include "exec/run_options.hpp"

#include "exec/model_partition.hpp"
#include "network/cluster_network.hpp"

namespace rapidllm::exec {

StepRunOptions step_run_options(const HardwareSpec& hw, RunType run) {
  StepRunOptions o;
  o.mode = std::string(to_string(hw.execution.mode));
  switch (hw.execution.mode) {
    case ExecutionMode::analytical: break;
    case ExecutionMode::hybrid:
      // The closed-form step composition; each communicator's collectives simulated alone.
      o.network = NetworkKind::cluster_isolated;
      break;
    case ExecutionMode::full_astrasim_hierarchical: {
      o.network = NetworkKind::cluster_isolated;
      o.simulate_step = true;
      // Collectives run alone here, so a fault on a GPU's link changes only the replica
      // holding that GPU (and whoever waits for it): simulate those replicas one by one. A
      // fault between two switches can lie on anyone's path: drop symmetry altogether.
      const long long gpus = degrees_of(hw.parallelism, run).total();
      for (const FaultyLink& f : hw.network.faulty_links) {
        const bool src = f.src < gpus;
        const bool dst = f.dst < gpus;
        if (!src && !dst) o.symmetric = false;
        if (src) o.distinct_gpus.push_back(f.src);
        if (dst) o.distinct_gpus.push_back(f.dst);
      }
      o.symmetry_note = o.symmetric ? "the GPUs network.faulty_links names make their replicas differ"
                                    : "a fault between two switches can lie on any replica's path";
      break;
    }
    case ExecutionMode::full_astrasim_flattened:
      o.network = NetworkKind::cluster_shared;
      o.simulate_step = true;
      o.symmetric = false;
      o.symmetry_note = "flattened: every GPU's traffic shares the network";
      break;
  }
  return o;
}

ExecutionSummary execution_summary(const StepRunOptions& options) {
  ExecutionSummary e;
  e.mode = options.mode;
  e.network = options.network == NetworkKind::analytical         ? "analytical"
              : options.network == NetworkKind::cluster_isolated ? "flow_isolated"
                                                                 : "flow_shared";
  return e;
}

std::size_t network_simulations(const network::NetworkApi& network) {
  const auto* cluster = dynamic_cast<const network::ClusterNetwork*>(&network);
  return cluster == nullptr ? 0 : cluster->isolated_runs() + cluster->shared_submissions();
}

}  // namespace rapidllm::exec
