// `rapidllm config list`: the declared settings as a table, JSON or CSV.
#pragma once

#include <string>
#include <vector>

#include "io/output.hpp"
#include "rapidllm/config.hpp"

namespace rapidllm::io {

[[nodiscard]] std::string settings_report(const std::vector<SettingInfo>& settings, Format format);

}  // namespace rapidllm::io
