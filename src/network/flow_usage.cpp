#include "network/flow_usage.hpp"

#include <algorithm>
#include <limits>

namespace rapidllm::network {

UsageTable::UsageTable(const Topology& topology)
    : topo_(topology),
      router_(topology),
      acc_(topology.links().size(), 0.0),
      mark_(topology.links().size(), std::numeric_limits<std::uint64_t>::max()) {}

Usage& UsageTable::of(const std::shared_ptr<const PairSet>& pairs) {
  if (auto it = entries_.find(pairs.get()); it != entries_.end()) return it->second.usage;
  const auto& links = topo_.links();
  std::vector<int> touched;
  std::vector<LinkShare> path;
  Usage u;
  pairs->for_each([&](int src, int dst) {
    path.clear();
    const double lat = router_.route(src, dst, path);
    u.latency_s = std::max(u.latency_s, lat);
    for (const auto& ls : path) {
      if (acc_[static_cast<std::size_t>(ls.link)] == 0.0) touched.push_back(ls.link);
      acc_[static_cast<std::size_t>(ls.link)] += ls.fraction;
    }
  });
  std::sort(touched.begin(), touched.end());
  u.solo_rate = std::numeric_limits<double>::infinity();
  u.links.reserve(touched.size());
  u.weights.reserve(touched.size());
  for (int l : touched) {
    double& w = acc_[static_cast<std::size_t>(l)];
    u.links.push_back(l);
    u.weights.push_back(w);
    u.solo_rate = std::min(u.solo_rate, links[static_cast<std::size_t>(l)].capacity_bytes_per_s / w);
    w = 0.0;
  }
  u.members = static_cast<double>(pairs->size());
  u.id = next_id_++;
  by_id_.emplace(u.id, pairs.get());
  return entries_.emplace(pairs.get(), Entry{pairs, std::move(u), {}}).first->second.usage;
}

UsageTable::Entry& UsageTable::entry_of(const Usage& u) { return entries_.at(by_id_.at(u.id)); }

bool UsageTable::overlap(Usage& a, Usage& b) {
  Entry& ea = entry_of(a);
  if (auto it = ea.overlaps.find(b.id); it != ea.overlaps.end()) return it->second;
  // Mark a's links with its id (ids are unique, so no clearing is needed afterwards), then
  // look for one of them among b's.
  for (int l : a.links) mark_[static_cast<std::size_t>(l)] = a.id;
  bool shared = false;
  for (int l : b.links) {
    if (mark_[static_cast<std::size_t>(l)] == a.id) {
      shared = true;
      break;
    }
  }
  ea.overlaps.emplace(b.id, shared);
  entry_of(b).overlaps.emplace(a.id, shared);
  return shared;
}

void UsageTable::release(const PairSet* pairs) {
  auto it = entries_.find(pairs);
  if (it == entries_.end() || it->second.pairs.use_count() > 1 || !it->second.usage.slots.empty()) return;
  // Drop the answers other usages keep about this one, so no map grows without bound.
  for (const auto& [other, shared] : it->second.overlaps) {
    if (auto o = by_id_.find(other); o != by_id_.end()) entries_.at(o->second).overlaps.erase(it->second.usage.id);
  }
  by_id_.erase(it->second.usage.id);
  entries_.erase(it);
}

}  // namespace rapidllm::network
