// Which shipped device config a ground-truth row's GPU is, with the variant's memory.
#pragma once

#include <optional>
#include <string>

#include "rapidllm/hardware_spec.hpp"

namespace rapidllm::validate {

// The shipped config for a `gpu` column (A100 and H100 variants), adjusted for the
// variant's HBM size and bandwidth; nullopt (with `reason`) for GPUs without a config.
[[nodiscard]] std::optional<HardwareSpec> device_for(const std::string& gpu, const std::string& config_dir,
                                                     std::string& reason);

}  // namespace rapidllm::validate
