// The files an LLM prediction (training step, or inference prefill and decode) can write
// beside its report: the simulated step's Perfetto timeline and the per-rank Chakra execution traces (rapidllm/predict.hpp).
#pragma once

#include "exec/step_graph.hpp"
#include "exec/timeline.hpp"
#include "rapidllm/hardware_spec.hpp"
#include "rapidllm/model_spec.hpp"
#include "rapidllm/predict.hpp"

namespace rapidllm::detail {

// Before predicting: ConfigError naming the option when the workload or the execution mode
// cannot give what is asked (a trace needs a simulated step).
void check_exports(const StepExports& exports, const HardwareSpec& hardware);

// After predicting: writes each file whole or not at all (a temporary file renamed).
void write_exports(const StepExports& exports, const exec::Timeline& timeline, const exec::StepGraph& graph);

}  // namespace rapidllm::detail
