// What both LLM predictors share: the validated scenario (architecture, degrees, rank
// placement), the op coster, the network its communicators run on, and the executor that
// runs the op graphs parallel/ builds.
#pragma once

#include <array>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "compute/op_coster.hpp"
#include "exec/cost_cache.hpp"
#include "exec/executor.hpp"
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

class LlmContext {
 public:
  // Validates that the degrees divide the model (InfeasibleError otherwise). Communication
  // runs on the analytical network unless `network` is given.
  LlmContext(const HardwareSpec& hardware, const LlmModelSpec& model, const std::string& model_source,
             CostCache& costs, ExecutorKind executor = ExecutorKind::analytical,
             NetworkKind network = NetworkKind::analytical);

  [[nodiscard]] const HardwareSpec& hardware() const { return hw_; }
  [[nodiscard]] const LlmModelSpec& spec() const { return spec_; }
  [[nodiscard]] const model::LlmDims& dims() const { return dims_; }
  [[nodiscard]] const parallel::Degrees& degrees() const { return degrees_; }
  [[nodiscard]] DType matmul_dtype() const { return hw_.sw.precision.matmul.dtype; }
  [[nodiscard]] double element_bytes() const { return hw_.sw.precision.tensor_format.bytes; }
  [[nodiscard]] compute::OpCoster& coster() { return coster_; }
  [[nodiscard]] Executor& executor() { return *executor_; }
  [[nodiscard]] const parallel::Placement& placement() const { return placement_; }
  [[nodiscard]] network::NetworkApi& network() { return *network_; }

  // One micro-batch's per-rank extents and the graph-building settings of this scenario.
  [[nodiscard]] model::LocalShape local_shape(std::int64_t micro_batch, std::int64_t seq) const;
  [[nodiscard]] parallel::PartSettings part_settings() const;

  // One micro-batch through a layer of each kind the model has (LlmDims::layer_kind:
  // full or windowed attention, dense or MoE MLP), the embedding and the head: the graphs
  // parallel/ builds for them, run by the executor.
  struct PartCosts {
    std::array<GraphCost, model::kLayerKinds> layers;
    GraphCost embedding;
    GraphCost head;
    int single_kind = 0;  // the one kind every layer is, or -1 when they differ

    [[nodiscard]] const GraphCost& layer(int kind) const { return layers[static_cast<std::size_t>(kind)]; }
  };
  [[nodiscard]] PartCosts run_parts(const model::LocalShape& shape);
  // `count` layers from layer `first` on, each at its kind's cost.
  [[nodiscard]] GraphCost layers_cost(const PartCosts& parts, int first, int count) const;
  // The kinds of layer the model has (kind_present[k]) and the first layer of each.
  [[nodiscard]] const std::array<int, model::kLayerKinds>& first_layer_of_kind() const { return first_of_kind_; }
  // Parameters one rank holds of layer `layer`: the dense part split over tp, the routed
  // experts over ep x tp.
  [[nodiscard]] model::LayerParameters rank_layer_parameters(int layer) const;
  // The graph settings of layer `layer` (its ZeRO-3 gathers are its own parameters').
  [[nodiscard]] parallel::PartSettings layer_settings(int layer) const;

 private:
  const HardwareSpec& hw_;
  const LlmModelSpec& spec_;
  model::LlmDims dims_;
  parallel::Degrees degrees_;
  bool sequence_parallel_ = false;
  parallel::Placement placement_;
  compute::OpCoster& coster_;
  std::unique_ptr<network::NetworkApi> network_;
  CommCosts comms_;
  std::unique_ptr<Executor> executor_;
  std::array<int, model::kLayerKinds> first_of_kind_{};  // -1: no layer of that kind
};

// The layers on each pipeline rank: L layers in pp x vpp chunks as even as possible,
// the first chunks taking the remainder; rank i holds chunks i, i+pp, ...
[[nodiscard]] std::vector<int> layers_per_stage(int layers, int pp, int vpp);
// The layers of each pipeline rank as (first layer, count) runs, one per chunk it holds,
// in the same split as layers_per_stage.
[[nodiscard]] std::vector<std::vector<std::pair<int, int>>> stage_layer_runs(int layers, int pp, int vpp);

}  // namespace rapidllm::exec
