// The training step's memory per pipeline rank: what each rank's layers, parameters and
// in-flight micro-batches need (memory/training_memory.hpp sizes one rank).
#pragma once

#include "exec/model_partition.hpp"
#include "exec/stage_groups.hpp"
#include "parallel/batching.hpp"
#include "rapidllm/llm_prediction.hpp"

namespace rapidllm::exec {

// The peak rank's memory in `out.memory`; with `every_stage` also each rank's in
// `out.stage_memory`. Without it only one rank per group is sized, the one with the most
// micro-batches in flight: the other ranks of its group hold the same parameters and
// layers with fewer activations, so they cannot be the peak.
void add_stage_memory(const ModelPartition& ctx, const model::LocalShape& shape, const StageGroups& stages,
                      const parallel::Batching& batching, int vpp, bool every_stage, TrainingPrediction& out);

}  // namespace rapidllm::exec
