#include "network/flow_rates.hpp"

#include <algorithm>
#include <functional>
#include <queue>
#include <utility>

namespace rapidllm::network {

namespace {
constexpr double kTiny = 1e-12;
}

RateFiller::RateFiller(const std::vector<Link>& links)
    : links_(links),
      rem_(links.size(), 0.0),
      wsum_(links.size(), 0.0),
      on_link_(links.size()),
      mark_(links.size(), 0) {}

void RateFiller::fill(const std::vector<Usage*>& usages, std::vector<double>& rates) {
  rates.assign(usages.size(), 0.0);
  ++epoch_;
  comp_links_.clear();
  for (std::size_t i = 0; i < usages.size(); ++i) {
    const Usage& u = *usages[i];
    const double k = static_cast<double>(u.slots.size());
    for (std::size_t j = 0; j < u.links.size(); ++j) {
      const auto l = static_cast<std::size_t>(u.links[j]);
      if (mark_[l] != epoch_) {
        mark_[l] = epoch_;
        rem_[l] = links_[l].capacity_bytes_per_s;
        wsum_[l] = 0.0;
        on_link_[l].clear();
        comp_links_.push_back(u.links[j]);
      }
      wsum_[l] += k * u.weights[j];
      on_link_[l].push_back(static_cast<int>(i));
    }
  }
  using Entry = std::pair<double, int>;  // (share, link)
  std::priority_queue<Entry, std::vector<Entry>, std::greater<>> heap;
  for (int l : comp_links_) {
    const auto lu = static_cast<std::size_t>(l);
    if (wsum_[lu] > kTiny) heap.emplace(rem_[lu] / wsum_[lu], l);
  }
  frozen_.assign(usages.size(), 0);
  std::size_t left = usages.size();
  while (left > 0 && !heap.empty()) {
    const auto [share, l] = heap.top();
    heap.pop();
    const auto lu = static_cast<std::size_t>(l);
    if (wsum_[lu] <= kTiny) continue;
    const double current = std::max(0.0, rem_[lu]) / wsum_[lu];
    // Shares only grow as usages freeze, and every change queued a fresh entry: skip stale ones.
    if (current > share * (1.0 + 1e-9)) continue;
    for (int i : on_link_[lu]) {
      const auto iu = static_cast<std::size_t>(i);
      if (frozen_[iu]) continue;
      frozen_[iu] = 1;
      --left;
      rates[iu] = current;
      const Usage& u = *usages[iu];
      const double k = static_cast<double>(u.slots.size());
      for (std::size_t j = 0; j < u.links.size(); ++j) {
        const auto lk = static_cast<std::size_t>(u.links[j]);
        rem_[lk] -= current * k * u.weights[j];
        wsum_[lk] -= k * u.weights[j];
        if (wsum_[lk] > kTiny && lk != lu) heap.emplace(std::max(0.0, rem_[lk]) / wsum_[lk], u.links[j]);
      }
    }
  }
}

}  // namespace rapidllm::network
