// The declared settings of each config file (tables in hardware_settings.cpp and
// model_settings.cpp); settings_registry.cpp joins them.
#pragma once

#include <vector>

#include "config/settings_registry.hpp"

namespace rapidllm::config {

[[nodiscard]] std::vector<Setting> hardware_settings();
[[nodiscard]] std::vector<Setting> model_settings();

}  // namespace rapidllm::config
