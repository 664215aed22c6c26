// A pipeline's ranks grouped by what they hold. Ranks with the same layers of each kind,
// and alike in being the first or the last, hold the same parameters and run the same
// part, so a prediction costs each group once and works per rank only on what differs
// between ranks (the micro-batches in flight, the schedule's order). A plan with pp = 64
// has at most a handful of groups: first, last, and the middle ranks with the longer and
// the shorter share of an uneven split (more with layers of several kinds).
#pragma once

#include <array>
#include <vector>

#include "exec/model_partition.hpp"
#include "model/llm_dims.hpp"

namespace rapidllm::exec {

struct StageGroup {
  std::array<int, model::kLayerKinds> kinds{};  // layers of each kind on one rank
  bool first = false;                           // holds the embedding
  bool last = false;                            // holds the final norm and the head
  model::LayerParameters params;                // per rank, embedding and head tables included
  int first_stage = 0;                          // the group's earliest rank
};

struct StageGroups {
  std::vector<StageGroup> groups;  // in the order of their earliest rank
  std::vector<int> of_stage;       // each pipeline rank's group

  [[nodiscard]] const StageGroup& of(int stage) const {
    return groups[static_cast<std::size_t>(of_stage[static_cast<std::size_t>(stage)])];
  }
};

[[nodiscard]] StageGroups stage_groups(const ModelPartition& ctx, int vpp);

[[nodiscard]] int layer_count(const std::array<int, model::kLayerKinds>& kinds);

}  // namespace rapidllm::exec
