// Shipped configs as typed specs for the predictor tests.
#pragma once

#include <string>

#include "rapidllm/config.hpp"

namespace rapidllm::testing {

inline std::string source_path(const std::string& rel) { return std::string(RAPIDLLM_SOURCE_DIR) + "/" + rel; }

inline HardwareSpec shipped_hardware(const std::string& name) {
  return load_hardware(source_path("configs/hardware/" + name + ".yaml"));
}

inline LlmModelSpec shipped_model(const std::string& name) {
  return std::get<LlmModelSpec>(load_model(source_path("configs/models/" + name + ".yaml")).workload);
}

}  // namespace rapidllm::testing
