// A model split over a plan's degrees, validated: the architecture, the degrees, each
// kind of layer's parameters per rank and the per-rank shapes and graph settings. What
// memory needs, without the network, the kernels or an executor (a sweep checks memory
// for every plan before timing the ones that fit).
#pragma once

#include <array>
#include <string>
#include <vector>

#include "model/llm_dims.hpp"
#include "parallel/layer_graph.hpp"
#include "parallel/placement.hpp"
#include "rapidllm/hardware_spec.hpp"
#include "rapidllm/model_spec.hpp"

namespace rapidllm::exec {

// RAPID-LLM's degrees of a plan: training multiplies the GPUs by ep, inference by moe_dp
// (its expert-parallel degree) and its replicas.
[[nodiscard]] parallel::Degrees degrees_of(const ParallelismSpec& parallelism, RunType run);

class ModelPartition {
 public:
  // Validates that the degrees divide the model (InfeasibleError otherwise).
  ModelPartition(const HardwareSpec& hardware, const LlmModelSpec& model, const std::string& model_source);

  [[nodiscard]] const HardwareSpec& hardware() const { return hw_; }
  [[nodiscard]] const LlmModelSpec& spec() const { return spec_; }
  [[nodiscard]] const model::LlmDims& dims() const { return dims_; }
  [[nodiscard]] const parallel::Degrees& degrees() const { return degrees_; }
  [[nodiscard]] DType matmul_dtype() const { return hw_.sw.precision.matmul.dtype; }
  [[nodiscard]] double element_bytes() const { return hw_.sw.precision.tensor_format.bytes; }

  // One micro-batch's per-rank extents and the graph-building settings of this scenario.
  [[nodiscard]] model::LocalShape local_shape(std::int64_t micro_batch, std::int64_t seq) const;
  [[nodiscard]] parallel::PartSettings part_settings() const;
  // The kinds of layer the model has (kind_present[k]) and the first layer of each.
  [[nodiscard]] const std::array<int, model::kLayerKinds>& first_layer_of_kind() const { return first_of_kind_; }
  // Parameters one rank holds of layer `layer`: the dense part split over tp, the routed
  // experts over ep x tp.
  [[nodiscard]] const model::LayerParameters& rank_layer_parameters(int layer) const {
    return rank_params_[static_cast<std::size_t>(dims_.layer_kind(layer))];
  }
  // The graph settings of layer `layer` (its ZeRO-3 gathers are its own parameters').
  [[nodiscard]] parallel::PartSettings layer_settings(int layer) const;
  // The one kind every layer is, or -1 when they differ.
  [[nodiscard]] int single_kind() const { return single_kind_; }
  // How many layers of each kind pipeline rank `stage` holds. The L layers are cut into
  // pp x vpp chunks as even as possible, the first chunks taking the remainder; rank i
  // holds chunks i, i + pp, ...
  [[nodiscard]] std::array<int, model::kLayerKinds> stage_layer_kinds(int stage, int vpp) const;
  // The layers of pipeline chunk `chunk` of `chunks`: the L layers cut as even as possible,
  // the first chunks taking the remainder, or (layer_split: compute_balanced) one chunk per
  // rank as balanced_stage_layers says. Every builder and memory rule splits layers here.
  struct LayerRange {
    int first = 0;
    int count = 0;
  };
  [[nodiscard]] LayerRange chunk_layers(int chunk, int chunks) const;
  // Layers on each pipeline rank under parallelism.layer_split: compute_balanced (one chunk
  // per rank); empty under the even split, which stage_layer_kinds and rank_split describe.
  [[nodiscard]] const std::vector<int>& balanced_stage_layers() const { return balanced_layers_; }
  // The even split as counts alone: rank i holds `layers` layers, plus one when i < `fuller`
  // (vpp chunks of L / (pp x vpp) layers each, the first L mod (pp x vpp) chunks one more).
  struct RankSplit {
    int layers = 0;
    int fuller = 0;
  };
  [[nodiscard]] RankSplit rank_split(int vpp) const {
    const int chunks = degrees_.pp * vpp;
    const int longer = dims_.layers % chunks;
    return {dims_.layers / chunks * vpp + longer / degrees_.pp, longer % degrees_.pp};
  }

 protected:
  const HardwareSpec& hw_;
  const LlmModelSpec& spec_;
  model::LlmDims dims_;
  parallel::Degrees degrees_;
  bool sequence_parallel_ = false;

 private:
  std::array<int, model::kLayerKinds> first_of_kind_{};  // -1: no layer of that kind
  int single_kind_ = -1;
  // Per rank, by layer kind (a layer's parameters depend on its MLP, not its window).
  std::array<model::LayerParameters, model::kLayerKinds> rank_params_{};
  std::vector<int> balanced_layers_;  // per rank; empty = the even split
  std::vector<int> balanced_first_;   // each rank's first layer
};

}  // namespace rapidllm::exec
