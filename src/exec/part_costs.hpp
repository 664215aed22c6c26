// What one micro-batch costs through each part of the model on one rank: a layer of each
// kind the model has (LlmDims::layer_kind: full or windowed attention, dense or MoE MLP),
// the embedding and the head.
#pragma once

#include <array>

#include "exec/graph_cost.hpp"
#include "model/llm_dims.hpp"

namespace rapidllm::exec {

struct PartCosts {
  std::array<GraphCost, model::kLayerKinds> layers;
  GraphCost embedding;
  GraphCost head;
  int single_kind = 0;  // the one kind every layer is, or -1 when they differ

  [[nodiscard]] const GraphCost& layer(int kind) const { return layers[static_cast<std::size_t>(kind)]; }
};

}  // namespace rapidllm::exec
