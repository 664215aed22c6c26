// "Did you mean": the closest of some names to a mistyped one (keys, values, subcommands).
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "rapidllm/hardware_spec.hpp"

namespace rapidllm {

// The candidate closest to `word` by case-insensitive edit distance, if it is close enough
// to be a plausible typo (at most a third of the word's length, and at least 2 edits).
[[nodiscard]] std::optional<std::string> closest_match(std::string_view word,
                                                       const std::vector<std::string_view>& candidates);

// A name that is not one of the hardware's network dimensions: what is wrong ("'x' is not a
// network dimension of FILE") and the hint (a did-you-mean, else the dimensions it has).
struct UnknownDimension {
  std::string problem;
  std::string hint;
};
// nullopt when `id` names one of `hardware`'s network dimensions.
[[nodiscard]] std::optional<UnknownDimension> unknown_dimension(const HardwareSpec& hardware, std::string_view id);

}  // namespace rapidllm
