// "Did you mean" suggestions for mistyped keys and values.
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "rapidllm/suggest.hpp"

namespace rapidllm::config {

using rapidllm::closest_match;

// "did you mean 'x'?" or "valid keys here: a, b, c" (or "no keys are declared here").
[[nodiscard]] std::string suggestion_hint(std::string_view word,
                                          const std::vector<std::string_view>& candidates,
                                          std::string_view what = "keys");

}  // namespace rapidllm::config
