// JSON as every report prints it: indented by two, with a trailing newline.
#pragma once

#include <string>

#include <nlohmann/json.hpp>

namespace rapidllm::detail {

[[nodiscard]] inline std::string json_text(const nlohmann::json& j) { return j.dump(2) + "\n"; }

}  // namespace rapidllm::detail
