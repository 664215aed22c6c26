// The resolved (typed, SI) inputs as JSON, and the hash every report embeds so a result
// can be traced to exactly the configuration that produced it.
#pragma once

#include <string>

#include <nlohmann/json.hpp>

#include "rapidllm/hardware_spec.hpp"
#include "rapidllm/model_spec.hpp"

namespace rapidllm::io {

[[nodiscard]] nlohmann::json hardware_json(const HardwareSpec& hw);
[[nodiscard]] nlohmann::json model_json(const ModelSpec& model);

// FNV-1a 64-bit over the canonical JSON dump, as 16 hex digits.
[[nodiscard]] std::string config_hash(const nlohmann::json& resolved);

}  // namespace rapidllm::io
