// "Did you mean": the closest of some names to a mistyped one (keys, values, subcommands).
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace rapidllm {

// The candidate closest to `word` by case-insensitive edit distance, if it is close enough
// to be a plausible typo (at most a third of the word's length, and at least 2 edits).
[[nodiscard]] std::optional<std::string> closest_match(std::string_view word,
                                                       const std::vector<std::string_view>& candidates);

}  // namespace rapidllm
