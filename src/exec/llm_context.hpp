// What both LLM predictors share: the validated model partition, the rank placement, the
// op coster, the network its communicators run on, and the executor that runs the op
// graphs parallel/ builds.
#pragma once

#include <array>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "compute/op_coster.hpp"
#include "exec/cost_cache.hpp"
#include "exec/executor.hpp"
#include "exec/model_partition.hpp"
#include "exec/part_costs.hpp"
#include "model/llm_dims.hpp"
#include "parallel/layer_graph.hpp"
#include "parallel/placement.hpp"
#include "rapidllm/hardware_spec.hpp"
#include "rapidllm/model_spec.hpp"

namespace rapidllm::exec {

enum class ExecutorKind { analytical, event };

// Which network the communicators run on: the analytical formulas, or the whole cluster's
// topology flow by flow with each collective alone (faults reach the instances they lie
// on) or with everything in flight sharing the links.
enum class NetworkKind { analytical, cluster_isolated, cluster_shared };

class LlmContext : public ModelPartition {
 public:
  // Validates that the degrees divide the model (InfeasibleError otherwise). Communication
  // runs on the analytical network unless `network` is given.
  LlmContext(const HardwareSpec& hardware, const LlmModelSpec& model, const std::string& model_source,
             CostCache& costs, ExecutorKind executor = ExecutorKind::analytical,
             NetworkKind network = NetworkKind::analytical);

  [[nodiscard]] compute::OpCoster& coster() { return coster_; }
  [[nodiscard]] Executor& executor() { return *executor_; }
  [[nodiscard]] const parallel::Placement& placement() const { return *placement_; }
  [[nodiscard]] network::NetworkApi& network() { return *network_; }
  // The host wait on each TP collective of this plan (pipelined_tp_wait_s).
  [[nodiscard]] double tp_wait_s() const { return tp_wait_s_; }

  // One micro-batch through a layer of each kind the model has, the embedding and the
  // head: the graphs parallel/ builds for them, run by the executor (or, on the analytical
  // executor and network, found in the cost cache's PartsMemo).
  using PartCosts = exec::PartCosts;
  [[nodiscard]] PartCosts run_parts(const model::LocalShape& shape);
  // `count` layers from layer `first` on, each at its kind's cost.
  [[nodiscard]] GraphCost layers_cost(const PartCosts& parts, int first, int count) const;
  // n[k] layers of each kind k.
  [[nodiscard]] static GraphCost kinds_cost(const PartCosts& parts, const std::array<int, model::kLayerKinds>& n);

 private:
  std::shared_ptr<const parallel::Placement> placement_;  // shared through the CostCache
  compute::OpCoster& coster_;
  std::unique_ptr<network::NetworkApi> network_;
  CommCosts comms_;
  std::unique_ptr<Executor> executor_;
  PartsMemo* memo_ = nullptr;  // analytical executor and network only
  double tp_wait_s_ = 0.0;     // pipelined_tp_wait_s for this placement
};

}  // namespace rapidllm::exec
