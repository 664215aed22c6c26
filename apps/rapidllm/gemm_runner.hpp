// Runs a GEMM prediction and renders it; shared by `predict` (GEMM model files) and `gemm`.
#pragma once

#include <string>

#include "cli_common.hpp"
#include "rapidllm/hardware_spec.hpp"
#include "rapidllm/model_spec.hpp"

namespace rapidllm::cli {

[[nodiscard]] std::string run_gemm(const HardwareSpec& hardware, const ModelSpec& model, DType dtype,
                                   const std::string& model_file, const OutputOptions& output);

// The network backends other than the analytical one arrive with the network simulator;
// until then a config that asks for one is told which model it gets.
void note_execution_backend(const HardwareSpec& hardware);

}  // namespace rapidllm::cli
