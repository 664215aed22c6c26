// The host wait a stack holds each tensor-parallel collective for while the pipeline's
// stages sit on different nodes (sw_param.pipelined_tp_wait, docs/software-stacks.md,
// "Pipelined TP waits"). Observed in nanotron's engine after its pipeline fix: a layer's
// pass then lasts at least a fixed time plus a time per TP rank for each of its TP
// collectives, whatever the micro-batch, while runs on one node, or without a pipeline,
// show nothing of it.
#pragma once

#include "parallel/placement.hpp"
#include "rapidllm/hardware_spec.hpp"

namespace rapidllm::exec {

// Whether a pipeline stage's neighbour can be on another node: the pp group spans a
// network dimension beyond the innermost one.
[[nodiscard]] bool pipeline_spans_nodes(const parallel::Placement& placement, const NetworkSpec& network);

// sw.pipelined_tp_wait_s + sw.pipelined_tp_wait_per_rank_s x (tp - 1) when tp > 1 and the
// pipeline spans nodes; 0 otherwise.
[[nodiscard]] double pipelined_tp_wait_s(const SoftwareSpec& sw, const parallel::Placement& placement,
                                         const NetworkSpec& network);

}  // namespace rapidllm::exec
