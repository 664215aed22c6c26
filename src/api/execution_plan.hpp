// RAPID-LLM's execution modes (execution_backend.model / astra.mode) mapped onto rapidllm's
// executors and networks (docs/execution-modes.md), with a warning wherever a config asks
// for something the chosen mode cannot show (a fault the analytical network has no links
// for): never silent.
#pragma once

#include "exec/training_predictor.hpp"
#include "rapidllm/hardware_spec.hpp"
#include "rapidllm/model_spec.hpp"

namespace rapidllm::detail {

// Logs that mb does not divide the batch (training) or moe_dp the sequences (MoE inference),
// so micro-batches or expert-parallel ranks carry padding (RAPID-LLM's rule), and that the
// layers do not split evenly over the pipeline chunks.
void note_batching(const HardwareSpec& hardware, const LlmModelSpec& model);
// Logs what the mode cannot show (faults the analytical network has no links for).
void note_execution_mode(const HardwareSpec& hardware);
// Logs the astra sys_options the network cannot honour: collective_arbitration on a
// simulated network (`simulated`), every one set away from its default on the analytical one.
void note_network_settings(const HardwareSpec& hardware, bool simulated);

}  // namespace rapidllm::detail
