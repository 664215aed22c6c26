// Scenarios from the shipped and reference configs for the facade tests.
#pragma once

#include <string>
#include <vector>

#include "rapidllm/scenario.hpp"

namespace rapidllm::testing {

inline std::string source_path(const std::string& rel) { return std::string(RAPIDLLM_SOURCE_DIR) + "/" + rel; }

// configs/hardware/<hardware>.yaml with configs/models/<model>.yaml.
inline Scenario shipped_scenario(const std::string& hardware, const std::string& model,
                                 const std::vector<std::string>& overrides = {}) {
  return load_scenario(source_path("configs/hardware/" + hardware + ".yaml"),
                       source_path("configs/models/" + model + ".yaml"), overrides);
}

}  // namespace rapidllm::testing
