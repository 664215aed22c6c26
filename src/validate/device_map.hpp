// Which shipped device config a ground-truth row's GPU is, with the variant's memory.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "rapidllm/hardware_spec.hpp"
#include "rapidllm/model_spec.hpp"

namespace rapidllm::validate {

// The shipped config for a `gpu` column (A100 and H100 variants), loaded with `overrides`
// (`rapidllm validate --set`) and adjusted for the variant's HBM size and bandwidth; nullopt
// (with `reason`) for GPUs without a config.
[[nodiscard]] std::optional<HardwareSpec> device_for(const std::string& gpu, const std::string& config_dir,
                                                     const std::vector<std::string>& overrides, std::string& reason);

// The software-stack profile a row's framework or engine column names (software_stack.hpp),
// applied to hw for run_type; a stack without a profile keeps "auto".
void use_row_stack(HardwareSpec& hw, const std::string& framework, RunType run_type);

}  // namespace rapidllm::validate
