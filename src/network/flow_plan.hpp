// What the flow and ns-3 backends simulate: a DAG of transfers on a Topology. A transfer is
// one algorithm step: every member pair (src -> dst node) sends `bytes` at the same time;
// the step completes when its last byte has arrived (plus the path latency and any extra
// latency), and only then may the transfers that depend on it start.
#pragma once

#include <cstddef>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "rapidllm/collective.hpp"

namespace rapidllm::network {

// The member pairs of a transfer, generated rather than stored (an all-to-all over 16k
// ranks has 2.7e8 pairs). Pairs lie within a group; groups are node-id lists.
struct PairSet {
  enum class Kind {
    shift,      // group[i] -> group[(i + shift) mod n] for every i
    all_pairs,  // group[i] -> group[j] for every i != j
    indexed     // (i, j) in `index_pairs` -> group[i] -> group[j], in every group
  };
  Kind kind = Kind::indexed;
  std::vector<std::vector<int>> groups;
  int shift = 1;
  std::vector<std::pair<int, int>> index_pairs;

  [[nodiscard]] std::size_t size() const;
  template <class F>
  void for_each(F&& f) const {
    for (const auto& g : groups) {
      const int n = static_cast<int>(g.size());
      switch (kind) {
        case Kind::shift:
          if (n < 2 || ((shift % n) + n) % n == 0) break;
          for (int i = 0; i < n; ++i) f(g[static_cast<std::size_t>(i)], g[static_cast<std::size_t>((((i + shift) % n) + n) % n)]);
          break;
        case Kind::all_pairs:
          for (int i = 0; i < n; ++i) {
            for (int j = 0; j < n; ++j) {
              if (i != j) f(g[static_cast<std::size_t>(i)], g[static_cast<std::size_t>(j)]);
            }
          }
          break;
        case Kind::indexed:
          for (const auto& [i, j] : index_pairs) f(g[static_cast<std::size_t>(i)], g[static_cast<std::size_t>(j)]);
          break;
      }
    }
  }
};

struct Transfer {
  std::shared_ptr<const PairSet> pairs;
  double bytes = 0.0;            // sent by every member pair
  double extra_latency_s = 0.0;  // added after the last byte arrives (pipelined tree depth)
  std::vector<int> deps;         // transfers that must complete before this one starts
  int job = 0;                   // which collective it belongs to (concurrent jobs)
  int phase = 0;                 // index into FlowPlan::phases
};

// One phase of a collective (an op on one dimension), for reporting.
struct PlanPhase {
  int job = 0;
  CollectivePhase info;  // time_s filled in by the simulator from its transfers
};

struct FlowPlan {
  std::vector<Transfer> transfers;
  std::vector<PlanPhase> phases;
  int jobs = 0;

  int add(Transfer t) {
    transfers.push_back(std::move(t));
    return static_cast<int>(transfers.size()) - 1;
  }
};

}  // namespace rapidllm::network
