#include "parallel/placement.hpp"

#include <algorithm>
#include <cmath>
#include <string>

#include <fmt/ranges.h>

#include <fmt/format.h>

#include "rapidllm/error.hpp"

namespace rapidllm::parallel {

namespace {
constexpr std::array<Parallelism, 5> kAll{Parallelism::tp, Parallelism::cp, Parallelism::ep, Parallelism::dp,
                                          Parallelism::pp};
std::size_t index_of(Parallelism p) { return static_cast<std::size_t>(p); }

// The dimension in which ranks `stride` apart are neighbours: the outermost one whose
// inner dimensions together hold at most `stride` ranks.
const NetworkDimension* neighbour_of(const NetworkSpec& network, const std::vector<long long>& capacity,
                                     long long stride) {
  const NetworkDimension* out = nullptr;
  long long prefix = 1;
  for (std::size_t j = 0; j < network.dimensions.size(); ++j) {
    if (prefix <= stride) out = &network.dimensions[j];
    prefix *= capacity[j];
  }
  return out;
}
}  // namespace

std::vector<GroupSpan> group_spans(const NetworkSpec& network, const std::vector<long long>& capacity,
                                   long long stride, long long n, std::string_view what) {
  std::vector<GroupSpan> spans;
  long long prefix = 1;
  long long covered = 1;
  for (std::size_t j = 0; j < network.dimensions.size(); ++j) {
    const long long c = capacity[j];
    // In dimension j the group's coordinates run from stride/prefix to stride*n/prefix
    // (in units of this dimension), clipped to its capacity.
    const double lo = std::max(1.0, static_cast<double>(stride) / static_cast<double>(prefix));
    const double hi = std::min(static_cast<double>(c), static_cast<double>(stride * n) / static_cast<double>(prefix));
    if (hi > lo) {
      const double span = hi / lo;
      if (span != std::floor(span) || lo != std::floor(lo) || hi != std::floor(hi)) {
        throw InfeasibleError(fmt::format("the {} groups ({} ranks, stride {}) do not align with network dimension "
                                          "'{}' of {} ranks; choose degrees that divide the dimension sizes",
                                          what, n, stride, network.dimensions[j].id, c));
      }
      spans.push_back(GroupSpan{&network.dimensions[j], static_cast<int>(span)});
      covered *= static_cast<long long>(span);
    }
    prefix *= c;
  }
  if (covered != n) {
    throw InfeasibleError(fmt::format("the {} groups ({} ranks) do not fit the network dimensions (they hold {})", what,
                                      n, covered));
  }
  return spans;
}

std::vector<GroupSpan> lay_out_ranks(const NetworkSpec& network, int ranks, const std::optional<std::string>& dimension_id) {
  if (ranks < 1) throw InfeasibleError(fmt::format("the number of ranks must be >= 1 (got {})", ranks));
  if (network.dimensions.empty()) throw InfeasibleError("the hardware config has no network.dimensions");
  if (dimension_id) {
    for (const auto& d : network.dimensions) {
      if (d.id != *dimension_id) continue;
      const long long size = fixed_capacity(d);
      if (size > 0 && ranks > size) {
        throw InfeasibleError(fmt::format("{} ranks do not fit in dimension '{}' of size {}", ranks, d.id, size));
      }
      return {GroupSpan{&d, ranks}};
    }
    std::vector<std::string> ids;
    for (const auto& d : network.dimensions) ids.push_back(d.id);
    throw InfeasibleError(fmt::format("no network dimension '{}'; the config has: {}", *dimension_id, fmt::join(ids, ", ")));
  }
  if (ranks == 1) return {GroupSpan{&network.dimensions.front(), 1}};
  return group_spans(network, cluster_capacities(network, ranks), 1, ranks, "collective");
}

std::vector<long long> cluster_capacities(const NetworkSpec& network, long long ranks) {
  // Fixed dimensions hold their size; the first `auto` one takes whatever ranks remain.
  std::vector<long long> capacity;
  long long held = 1;
  for (const auto& d : network.dimensions) {
    const long long size = fixed_capacity(d);
    capacity.push_back(size > 0 ? size : std::max(1LL, (ranks + held - 1) / held));
    held *= capacity.back();
  }
  return capacity;
}

long long fixed_capacity(const NetworkDimension& d) {
  if (d.size.empty()) return 0;
  long long c = 1;
  for (int s : d.size) c *= s;
  return c;
}

int Degrees::of(Parallelism p) const {
  switch (p) {
    case Parallelism::tp: return tp;
    case Parallelism::cp: return cp;
    case Parallelism::ep: return ep;
    case Parallelism::dp: return dp;
    case Parallelism::pp: return pp;
  }
  return 1;
}

Placement::Placement(const NetworkSpec& network, const Degrees& degrees) : degrees_(degrees) {
  const long long total = degrees.total();
  // Rank order: the parallelisms as the dimensions list them, innermost dimension first.
  std::vector<Parallelism> order;
  for (const auto& d : network.dimensions) {
    for (auto p : d.parallelisms) order.push_back(p);
  }
  for (auto p : kAll) {
    if (degrees.of(p) > 1 && std::find(order.begin(), order.end(), p) == order.end()) {
      throw InfeasibleError(fmt::format("parallelism {} = {} but no network dimension lists '{}' in its parallelisms",
                                        to_string(p), degrees.of(p), to_string(p)));
    }
  }
  // Capacities: fixed sizes as given; an auto size holds the parallelisms it lists, and
  // the outermost auto dimension with parallelisms absorbs whatever ranks remain.
  long long product = 1;
  int last_auto = -1;
  for (std::size_t j = 0; j < network.dimensions.size(); ++j) {
    const auto& d = network.dimensions[j];
    long long c = fixed_capacity(d);
    if (c == 0) {
      c = 1;
      for (auto p : d.parallelisms) c *= degrees.of(p);
      if (!d.parallelisms.empty()) last_auto = static_cast<int>(j);
    }
    capacity_.push_back(c);
    product *= c;
  }
  if (product < total) {
    if (last_auto < 0 || total % product != 0) {
      throw InfeasibleError(fmt::format("{} GPUs do not fit the network dimensions (they hold {})", total, product));
    }
    capacity_[static_cast<std::size_t>(last_auto)] *= total / product;
  }

  long long stride = 1;
  for (auto p : order) {
    const long long n = degrees.of(p);
    stride_[index_of(p)] = stride;
    if (n > 1) {
      groups_[index_of(p)] = group_spans(network, capacity_, stride, n, to_string(p));
      neighbour_[index_of(p)] = neighbour_of(network, capacity_, stride);
    }
    stride *= n;
  }
}

std::vector<int> Placement::members(Parallelism p, long long rank) const {
  const long long s = std::max(1LL, stride_[index_of(p)]);
  const int n = degrees_.of(p);
  const long long base = rank - ((rank / s) % n) * s;
  std::vector<int> out;
  out.reserve(static_cast<std::size_t>(n));
  for (int k = 0; k < n; ++k) out.push_back(static_cast<int>(base + k * s));
  return out;
}

const std::vector<GroupSpan>& Placement::group(Parallelism p) const { return groups_[index_of(p)]; }

const NetworkDimension* Placement::neighbour_dimension(Parallelism p) const { return neighbour_[index_of(p)]; }

void order_parallelisms(NetworkSpec& network, const std::array<Parallelism, 5>& order) {
  auto& dims = network.dimensions;
  std::size_t next = 0;
  int last = -1;
  for (std::size_t j = 0; j < dims.size(); ++j) {
    const std::size_t n = dims[j].parallelisms.size();
    if (n > 0) last = static_cast<int>(j);
    for (std::size_t k = 0; k < n && next < order.size(); ++k) dims[j].parallelisms[k] = order[next++];
  }
  for (; last >= 0 && next < order.size(); ++next) dims[static_cast<std::size_t>(last)].parallelisms.push_back(order[next]);
}

}  // namespace rapidllm::parallel
