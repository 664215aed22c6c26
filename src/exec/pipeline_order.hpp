// The order in which one pipeline stage issues its micro-batch passes under each schedule
// (GPipe, 1F1B, Megatron's interleaved 1F1B, ZB-H1, DeepSeek's DualPipe): the step builder
// lays the stage's program out in this order, and the pipeline's shape comes out of it.
#pragma once

#include <vector>

#include "rapidllm/hardware_spec.hpp"

namespace rapidllm::exec {

// The order one stage issues its micro-batch passes in, per schedule: kind (0 forward,
// 1 backward, 2 weight gradients), micro-batch, chunk (interleaved: virtual stage;
// DualPipe: 0 = the pipeline fed from rank 0, 1 = the one fed from the last rank), and
// whether a backward leaves its weight gradients to a later W pass.
struct PassTask {
  int kind = 0;
  int micro_batch = 0;
  int chunk = 0;
  bool defers_weight_grads = false;
};
// Throws InfeasibleError when the micro-batches cannot fill the schedule (interleaved: a
// multiple of pp; DualPipe: even pp, an even m >= 2 pp).
[[nodiscard]] std::vector<PassTask> stage_order(PipelineSchedule schedule, int stage, int pp, int micro_batches,
                                                int vpp);

}  // namespace rapidllm::exec
