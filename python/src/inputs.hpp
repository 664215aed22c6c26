// Where a config comes from, as the Python layer hands it over: a file path, or text (a
// dict dumped as JSON, an imported HF model's YAML) with the name its errors carry.
#pragma once

#include <string>
#include <tuple>
#include <vector>

#include "rapidllm/hardware_spec.hpp"
#include "rapidllm/scenario.hpp"

namespace rapidllm::python {

// (kind, value, name): kind "file" (value = path) or "text" (value = YAML/JSON text).
using Source = std::tuple<std::string, std::string, std::string>;

// As load_scenario (scenario.hpp) for two files; with text, each override is routed to the
// config whose schema owns its first key, so it is checked and reported as the CLI does.
[[nodiscard]] Scenario load_scenario_from(const Source& hardware, const Source& model,
                                          const std::vector<std::string>& overrides);
[[nodiscard]] HardwareSpec load_hardware_from(const Source& hardware, const std::vector<std::string>& overrides);

}  // namespace rapidllm::python
