// "Did you mean" suggestions for mistyped keys and values.
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace rapidllm::config {

// The candidate closest to `word` by case-insensitive edit distance, if it is close enough
// to be a plausible typo (at most a third of the word's length, and at least 2 edits).
[[nodiscard]] std::optional<std::string> closest_match(std::string_view word,
                                                       const std::vector<std::string_view>& candidates);

// "did you mean 'x'?" or "valid keys here: a, b, c".
[[nodiscard]] std::string suggestion_hint(std::string_view word,
                                          const std::vector<std::string_view>& candidates,
                                          std::string_view what = "keys");

}  // namespace rapidllm::config
