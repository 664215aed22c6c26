#include "config/suggest.hpp"

#include <algorithm>
#include <cctype>

#include <fmt/format.h>

namespace rapidllm {

namespace {
std::size_t edit_distance(std::string_view a, std::string_view b) {
  std::vector<std::size_t> row(b.size() + 1);
  for (std::size_t j = 0; j <= b.size(); ++j) row[j] = j;
  for (std::size_t i = 1; i <= a.size(); ++i) {
    std::size_t diagonal = row[0];
    row[0] = i;
    for (std::size_t j = 1; j <= b.size(); ++j) {
      std::size_t above = row[j];
      bool same = std::tolower(static_cast<unsigned char>(a[i - 1])) ==
                  std::tolower(static_cast<unsigned char>(b[j - 1]));
      row[j] = std::min({row[j] + 1, row[j - 1] + 1, diagonal + (same ? 0 : 1)});
      diagonal = above;
    }
  }
  return row[b.size()];
}
}  // namespace

std::optional<std::string> closest_match(std::string_view word,
                                         const std::vector<std::string_view>& candidates) {
  std::optional<std::string> best;
  std::size_t best_distance = std::max<std::size_t>(2, word.size() / 3) + 1;
  for (auto c : candidates) {
    std::size_t d = edit_distance(word, c);
    if (d < best_distance) {
      best_distance = d;
      best = std::string(c);
    }
  }
  return best;
}

}  // namespace rapidllm

namespace rapidllm::config {

std::string suggestion_hint(std::string_view word, const std::vector<std::string_view>& candidates,
                            std::string_view what) {
  if (auto best = closest_match(word, candidates)) return fmt::format("did you mean '{}'?", *best);
  if (candidates.empty()) return fmt::format("no {} are declared here", what);
  return fmt::format("valid {} here: {}", what, fmt::join(candidates, ", "));
}

}  // namespace rapidllm::config

namespace rapidllm {

std::optional<UnknownDimension> unknown_dimension(const HardwareSpec& hardware, std::string_view id) {
  std::vector<std::string_view> ids;
  for (const NetworkDimension& d : hardware.network.dimensions) {
    if (d.id == id) return std::nullopt;
    ids.push_back(d.id);
  }
  const auto best = closest_match(id, ids);
  return UnknownDimension{fmt::format("'{}' is not a network dimension of {}", id, hardware.source),
                          best ? fmt::format("did you mean '{}'?", *best)
                               : fmt::format("the dimensions are {}", fmt::join(ids, ", "))};
}

}  // namespace rapidllm
