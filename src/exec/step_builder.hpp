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

// The order one stage issues its micro-batch passes in, per schedule: kind (0 forward,
// 1 backward, 2 weight gradients), micro-batch, chunk (interleaved: virtual stage;
// DualPipe: 0 = the pipeline fed from rank 0, 1 = the one fed from the last rank), and
// whether a backward leaves its weight gradients to a later W pass. Exposed for tests.
struct PassTask {
  int kind = 0;
  int micro_batch = 0;
  int chunk = 0;
  bool defers_weight_grads = false;
};
[[nodiscard]] std::vector<PassTask> stage_order(PipelineSchedule schedule, int stage, int pp, int micro_batches,
                                                int vpp);

}  // namespace rapidllm::exec
