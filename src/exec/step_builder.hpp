// Builds the StepGraph of one training step: each pipeline stage's program in the order its
// schedule issues work (GPipe, 1F1B, interleaved 1F1B, ZB-H1), every layer's op graph
// (parallel/layer_graph) expanded per micro-batch with its collectives, pipeline sends and
// receives between stages, data-parallel gradient buckets reduced as the last micro-batch's
// backward produces them, the tied-embedding exchange, the optimizer and the parameter
// all-gather that overlaps the next step.
#pragma once

#include "exec/llm_context.hpp"
#include "exec/step_graph.hpp"
#include "parallel/batching.hpp"

namespace rapidllm::exec {

struct TrainingStepInputs {
  model::LocalShape shape;
  parallel::Batching batching;
  int vpp = 1;
  parallel::StepComms comms;  // boundary message, embedding exchange (bytes 0 = none)
  int zero_stage = 0;         // 0 when dp = 1
  double gradient_bytes = 0.0;   // per parameter, as communicated
  double parameter_bytes = 0.0;  // per parameter
  double optimizer_bytes_per_parameter = 0.0;  // HBM traffic of the fused Adam pass
};

// Throws InfeasibleError for a schedule the micro-batches cannot fill (interleaved: m a
// multiple of pp; DualPipe: even pp, even m >= 2 pp).
[[nodiscard]] StepGraph build_training_step(LlmContext& ctx, const TrainingStepInputs& in);

}  // namespace rapidllm::exec
