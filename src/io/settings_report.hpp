// `rapidllm config list`: the declared settings as a table, JSON or CSV.
#pragma once

#include <string>
#include <vector>

#include "rapidllm/config.hpp"
#include "rapidllm/output_format.hpp"

namespace rapidllm::io {

[[nodiscard]] std::string settings_report(const std::vector<SettingInfo>& settings, OutputFormat format);

}  // namespace rapidllm::io
