#include "network/rank_layout.hpp"

#include <numeric>

#include <fmt/format.h>

#include "rapidllm/error.hpp"

namespace rapidllm::network {

namespace {
int capacity(const NetworkDimension& d) {
  return std::accumulate(d.size.begin(), d.size.end(), 1, std::multiplies<>());
}
}  // namespace

std::vector<GroupSpan> lay_out_ranks(const NetworkSpec& network, int ranks, const std::optional<std::string>& dimension_id) {
  if (ranks < 1) throw InfeasibleError(fmt::format("the number of ranks must be >= 1 (got {})", ranks));
  if (network.dimensions.empty()) throw InfeasibleError("the hardware config has no network.dimensions");
  if (dimension_id) {
    for (const auto& d : network.dimensions) {
      if (d.id != *dimension_id) continue;
      if (!d.size.empty() && ranks > capacity(d)) {
        throw InfeasibleError(fmt::format("{} ranks do not fit in dimension '{}' of size {}", ranks, d.id, capacity(d)));
      }
      return {GroupSpan{&d, ranks}};
    }
    std::vector<std::string> ids;
    for (const auto& d : network.dimensions) ids.push_back(d.id);
    throw InfeasibleError(fmt::format("no network dimension '{}'; the config has: {}", *dimension_id, fmt::join(ids, ", ")));
  }
  if (ranks == 1) return {GroupSpan{&network.dimensions.front(), 1}};
  std::vector<GroupSpan> spans;
  int remaining = ranks;
  for (const auto& d : network.dimensions) {
    if (remaining == 1) break;
    int take = remaining;
    if (!d.size.empty()) {
      const int size = capacity(d);
      if (remaining > size) {
        if (remaining % size != 0) {
          throw InfeasibleError(fmt::format("{} ranks cannot fill whole groups of dimension '{}' (size {}); use a multiple of {}",
                                            ranks, d.id, size, size));
        }
        take = size;
      }
    }
    spans.push_back(GroupSpan{&d, take});
    remaining /= take;
  }
  if (remaining > 1) {
    throw InfeasibleError(fmt::format("{} ranks exceed what the network dimensions hold (the last has a fixed size)", ranks));
  }
  return spans;
}

}  // namespace rapidllm::network
