#include "network/flow_usage.hpp"

#include <algorithm>
#include <limits>

namespace rapidllm::network {

namespace {
void erase_one(std::vector<Usage*>& v, const Usage* u) {
  if (auto it = std::find(v.begin(), v.end(), u); it != v.end()) {
    *it = v.back();
    v.pop_back();
  }
}
}  // namespace

UsageTable::UsageTable(const Topology& topology, std::shared_ptr<Router> router)
    : topo_(topology),
      router_(router ? std::move(router) : std::make_shared<Router>(topology)),
      users_(topology.links().size()),
      acc_(topology.links().size(), 0.0) {}

Usage& UsageTable::of(const std::shared_ptr<const PairSet>& pairs) {
  if (auto it = entries_.find(pairs.get()); it != entries_.end()) return it->second.usage;
  const auto& links = topo_.links();
  std::vector<int> touched;
  std::vector<LinkShare> path;
  double latency = 0.0;
  try {
    pairs->for_each([&](int src, int dst) {
      path.clear();
      if (meter_ != nullptr) meter_->add(1.0);
      latency = std::max(latency, router_->route(src, dst, path));
      for (const auto& ls : path) {
        if (acc_[static_cast<std::size_t>(ls.link)] == 0.0) touched.push_back(ls.link);
        acc_[static_cast<std::size_t>(ls.link)] += ls.fraction;
      }
    });
  } catch (...) {  // an unroutable pair: leave the scratch clean and the table unchanged
    for (int l : touched) acc_[static_cast<std::size_t>(l)] = 0.0;
    throw;
  }
  Usage& u = entries_.emplace(pairs.get(), Entry{pairs, Usage{}}).first->second.usage;
  u.latency_s = latency;
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
    auto& users = users_[static_cast<std::size_t>(l)];
    u.neighbors.insert(u.neighbors.end(), users.begin(), users.end());
    users.push_back(&u);
  }
  std::sort(u.neighbors.begin(), u.neighbors.end());
  u.neighbors.erase(std::unique(u.neighbors.begin(), u.neighbors.end()), u.neighbors.end());
  for (Usage* v : u.neighbors) v->neighbors.push_back(&u);
  if (meter_ != nullptr) meter_->add(static_cast<double>(u.neighbors.size() * std::max<std::size_t>(1, touched.size())));
  u.members = static_cast<double>(pairs->size());
  return u;
}

void UsageTable::release(const PairSet* pairs) {
  auto it = entries_.find(pairs);
  if (it == entries_.end() || it->second.pairs.use_count() > 1 || !it->second.usage.slots.empty()) return;
  const Usage& u = it->second.usage;
  for (Usage* v : u.neighbors) erase_one(v->neighbors, &u);
  for (int l : u.links) erase_one(users_[static_cast<std::size_t>(l)], &u);
  entries_.erase(it);
}

}  // namespace rapidllm::network
