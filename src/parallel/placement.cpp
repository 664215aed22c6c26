#include "parallel/placement.hpp"

#include <algorithm>
#include <cmath>

#include <fmt/format.h>

#include "rapidllm/error.hpp"

namespace rapidllm::parallel {

namespace {
constexpr std::array<Parallelism, 5> kAll{Parallelism::tp, Parallelism::cp, Parallelism::ep, Parallelism::dp,
                                          Parallelism::pp};
std::size_t index_of(Parallelism p) { return static_cast<std::size_t>(p); }
}  // namespace

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

Placement::Placement(const NetworkSpec& network, const Degrees& degrees) {
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
    long long c = 1;
    if (!d.size.empty()) {
      for (int s : d.size) c *= s;
    } else {
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
    if (n > 1) {
      auto& spans = groups_[index_of(p)];
      long long prefix = 1;
      long long covered = 1;
      for (std::size_t j = 0; j < network.dimensions.size(); ++j) {
        const long long c = capacity_[j];
        // In dimension j the group's coordinates run from stride/prefix to stride*n/prefix
        // (in units of this dimension), clipped to its capacity.
        const double lo = std::max(1.0, static_cast<double>(stride) / static_cast<double>(prefix));
        const double hi = std::min(static_cast<double>(c), static_cast<double>(stride * n) / static_cast<double>(prefix));
        if (hi > lo) {
          const double span = hi / lo;
          if (span != std::floor(span) || lo != std::floor(lo) || hi != std::floor(hi)) {
            throw InfeasibleError(fmt::format("the {} groups ({} ranks, stride {}) do not align with network dimension "
                                              "'{}' of {} ranks; choose degrees that divide the dimension sizes",
                                              to_string(p), n, stride, network.dimensions[j].id, c));
          }
          spans.push_back(GroupSpan{&network.dimensions[j], static_cast<int>(span)});
          covered *= static_cast<long long>(span);
        }
        if (prefix <= stride) neighbour_[index_of(p)] = &network.dimensions[j];
        prefix *= c;
      }
      if (covered != n) {
        throw InfeasibleError(fmt::format("the {} groups ({} ranks) do not align with the network dimensions",
                                          to_string(p), n));
      }
    }
    stride *= n;
  }
}

const std::vector<GroupSpan>& Placement::group(Parallelism p) const { return groups_[index_of(p)]; }

const NetworkDimension* Placement::neighbour_dimension(Parallelism p) const { return neighbour_[index_of(p)]; }

}  // namespace rapidllm::parallel
