// The plans a sweep enumerates for a model on a fixed number of GPUs, and the cheap rules
// that reject a plan before it is predicted (each named in the point's reason).
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "rapidllm/sweep.hpp"

namespace rapidllm::search {

// The axes with every empty one filled with its default for this model and GPU count:
// tp, cp, pp, vpp and micro-batch sizes powers of two (tp up to 8, a NVLink domain; cp up
// to 4 for sequences of 16k tokens or more, else 1; pp up to min(layers, 64); vpp 2 and 4
// for the interleaved schedule; micro-batches 1-8), ep the powers of two dividing the
// experts up to 64 (MoE models, else 1), SP on with TP, schedules 1F1B, interleaved 1F1B
// and ZB-H1, ZeRO-1, the three recompute levels, and the hardware file's placement (rank
// order). Inference: tp, cp, pp, ep and placement only.
[[nodiscard]] SweepAxes complete_axes(const SweepAxes& axes, const LlmModelSpec& model, int gpus);

// Every plan whose degrees multiply to `gpus` (dp or replicas takes the rest), in a fixed
// order: tp, sp, cp, ep, pp, schedule, vpp, micro-batch size, ZeRO, recompute, placement.
[[nodiscard]] std::vector<Plan> enumerate_plans(const SweepAxes& axes, int gpus);

// The first divisibility rule the plan breaks, named ("num_heads % tp != 0 (...)"), or
// nothing. Rules the prediction checks anyway are repeated here only when they are cheap.
[[nodiscard]] std::optional<std::string> broken_rule(const Plan& plan, const LlmModelSpec& model);

// Writes the plan into the hardware's parallelism and software settings.
void apply_plan(const Plan& plan, RunType run, HardwareSpec& hardware);

}  // namespace rapidllm::search
