// What a transfer asks of the network: the directed links its member pairs cross and how
// many member paths cross each (its "usage"). Every transfer built on one PairSet has the
// same usage, so it is routed once per PairSet and rates are worked out per usage, not per
// link: a usage that shares no link with any other active one needs no per-link work at all.
#pragma once

#include <cstdint>
#include <memory>
#include <unordered_map>
#include <vector>

#include "network/flow_plan.hpp"
#include "network/routing.hpp"
#include "network/topology.hpp"
#include "network/work_meter.hpp"

namespace rapidllm::network {

struct Usage {
  std::vector<int> links;       // sorted link ids
  std::vector<double> weights;  // member paths crossing the link (ECMP fractions summed)
  double latency_s = 0.0;       // longest member path
  double solo_rate = 0.0;       // per-member rate when alone on its links: min capacity / weight
  double members = 0.0;         // member pairs (PairSet::size, counted once)
  // The other usages in the table that share a link with this one, found once when it is
  // routed, so that an event never has to look at links (or at unrelated usages).
  std::vector<Usage*> neighbors;

  // Engine state: the active transfers ("slots") running on this usage. They always get
  // equal rates, so the usage counts as one entity of weight slots.size() x weight per link.
  std::vector<int> slots;
  bool dirty = false;       // its slot count changed since rates were last computed
  std::uint32_t visit = 0;  // component-search epoch
};

class UsageTable {
 public:
  // `router`: shared with other tables on the same topology so its route searches are kept
  // across simulations (nullptr: a private one).
  explicit UsageTable(const Topology& topology, std::shared_ptr<Router> router = nullptr);

  // The usage of `pairs`, routed and linked to its neighbors on first sight. The table
  // keeps `pairs` alive while the entry exists, so its address cannot be reused by another
  // PairSet meanwhile; usages stay at one address until released.
  Usage& of(const std::shared_ptr<const PairSet>& pairs);
  // Forgets the usage of `pairs` once nobody but the table holds it (no plan, no slot).
  void release(const PairSet* pairs);
  // Counts every member path routed and neighbor found (nullptr: nothing counted).
  void set_meter(WorkMeter* meter) { meter_ = meter; }

 private:
  struct Entry {
    std::shared_ptr<const PairSet> pairs;
    Usage usage;
  };

  const Topology& topo_;
  std::shared_ptr<Router> router_;
  std::unordered_map<const PairSet*, Entry> entries_;
  std::vector<std::vector<Usage*>> users_;  // per link: the usages in the table crossing it
  std::vector<double> acc_;                 // per link, while routing one PairSet
  WorkMeter* meter_ = nullptr;
};

}  // namespace rapidllm::network
