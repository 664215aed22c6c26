// Part costs of earlier predictions, found again by everything they depend on. A plan
// search asks for the same layer under every pipeline schedule, vpp, ZeRO stage and (for
// the dense layers) pipeline depth that leaves the per-rank shapes and groups unchanged;
// building and costing the op graphs is most of a prediction's time.
//
// An entry matches only when every input is equal (defaulted ==), so a field added to one
// of them is compared without anyone remembering to: the hash only picks the bucket.
// Not thread-safe: one per worker (it lives in CostCache).
#pragma once

#include <array>
#include <cstdint>
#include <unordered_map>

#include "compute/op_coster.hpp"
#include "exec/part_costs.hpp"
#include "model/layer_ops.hpp"
#include "parallel/layer_graph.hpp"
#include "parallel/placement.hpp"
#include "rapidllm/hardware_spec.hpp"

namespace rapidllm::exec {

// The graph settings of each layer kind; the last entry is the embedding's and head's.
using PartSettingsByKind = std::array<parallel::PartSettings, model::kLayerKinds + 1>;

// Everything run_parts on the analytical executor and network reads: the kernels (the
// coster stands for its kernel fingerprint), the model, the per-rank shape, the graph
// settings, the network and, of the placement, the groups the graphs communicate over
// (their degrees and the dimensions they span). The pipeline depth and, without ZeRO-3,
// the data-parallel degree do not reach a layer: plans differing only there share it.
struct PartsInputs {
  const compute::OpCoster& coster;
  const model::LlmDims& dims;
  const model::LocalShape& shape;
  const PartSettingsByKind& settings;
  const NetworkSpec& network;
  const ExecutionBackendSpec& execution;
  const parallel::Placement& placement;
};

// The parallelisms (Parallelism as index) a set of graphs communicates over.
using GroupsUsed = std::array<bool, 5>;

class PartsMemo {
 public:
  [[nodiscard]] const PartCosts* find(const PartsInputs& in) const;
  // `used`: the groups the graphs behind `costs` communicate over.
  void add(const PartsInputs& in, const GroupsUsed& used, const PartCosts& costs);
  [[nodiscard]] std::size_t size() const { return entries_.size(); }

 private:
  // Where a group lies: its degree, its spans as (dimension index, ranks) and the
  // dimension a message to its neighbour crosses (-1: none).
  struct GroupLayout {
    int degree = 1;
    std::vector<std::pair<std::ptrdiff_t, int>> spans;
    std::ptrdiff_t neighbour = -1;

    [[nodiscard]] bool describes(const PartsInputs& in, Parallelism p) const;
  };
  [[nodiscard]] static GroupLayout layout(const PartsInputs& in, Parallelism p);

  struct Entry {
    const compute::OpCoster* coster;
    model::LlmDims dims;
    model::LocalShape shape;
    PartSettingsByKind settings;
    NetworkSpec network;
    ExecutionBackendSpec execution;
    GroupsUsed used;
    std::array<GroupLayout, 5> groups;  // those used
    PartCosts costs;

    [[nodiscard]] bool matches(const PartsInputs& in) const;
  };
  // Bounds the memory a long sweep holds (an entry is about 10 kB).
  static constexpr std::size_t kMaxEntries = 1024;
  std::unordered_multimap<std::uint64_t, Entry> entries_;
};

}  // namespace rapidllm::exec
