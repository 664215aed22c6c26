// The plan an LLM prediction ran with, resolved from the hardware file and its overrides:
// what JSON reports echo under "plan" and CSV rows carry as their plan columns, under the
// names the sweep's CSV uses for the same quantities (docs/output-schema.md).
#pragma once

#include <array>
#include <string_view>

#include <nlohmann/json.hpp>

#include "rapidllm/hardware_spec.hpp"
#include "rapidllm/model_spec.hpp"

namespace rapidllm::io {

inline constexpr std::array<std::string_view, 13> kPlanFields{
    "tp", "sp", "cp", "ep", "pp", "dp", "schedule", "vpp", "micro_batch_size", "zero_stage", "recompute",
    "precision", "execution_mode"};

// kPlanFields' values in order. Inference has no pipeline schedule, micro-batching, ZeRO or
// recompute: those are null. dp is training's data-parallel degree or inference's
// replica count, ep training's expert parallelism or inference's moe_dp (as in a sweep's
// Plan). micro_batch_size is the one the prediction resolved (the config may leave it to
// parallelism.mb). precision is the GEMM operands' dtype.
[[nodiscard]] std::array<nlohmann::json, kPlanFields.size()> plan_values(const HardwareSpec& hw, RunType run,
                                                                         int micro_batch_size);
// The same as one JSON object, without the nulls.
[[nodiscard]] nlohmann::json plan_json(const HardwareSpec& hw, RunType run, int micro_batch_size);

}  // namespace rapidllm::io
