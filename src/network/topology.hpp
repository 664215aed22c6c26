// The physical network of one communicator as a graph: GPUs, switches and directed links,
// built from the network dimensions it spans (innermost first, stacked). Conventions (what
// a dimension's bandwidth means on each topology, node numbering, faults) are written out
// in docs/network-simulator.md.
#pragma once

#include <cstdint>
#include <optional>
#include <unordered_map>
#include <string>
#include <vector>

#include "rapidllm/collective.hpp"
#include "rapidllm/hardware_spec.hpp"

namespace rapidllm::network {

// One direction of a cable. Capacities already include the dimension's util and any soft
// fault; a failed link has capacity 0 and is never routed over.
struct Link {
  int src = 0;
  int dst = 0;
  double capacity_bytes_per_s = 0.0;
  double latency_s = 0.0;
  int dimension = 0;  // index into Topology::dimensions()
  // The product of the weights network.faulty_links gives this cable: 1 = healthy,
  // (0, 1) = degraded (soft fault), 0 = failed. Routing reads it (routing.hpp).
  double fault_weight = 1.0;

  [[nodiscard]] bool degraded() const { return fault_weight > 0.0 && fault_weight < 1.0; }
};

// One stacked dimension of the topology: `ranks` GPUs per slice, GPU coordinate on it
// = (gpu / stride) % ranks.
struct TopologyDimension {
  const NetworkDimension* spec = nullptr;
  int ranks = 1;
  int stride = 1;
  int axis_a = 0;  // Torus2D / Mesh2D: the two axes (a x b = ranks), x varies fastest
  int axis_b = 0;
  int first_switch = -1;        // node id of this dimension's first switch (-1: none)
  int switches_per_slice = 0;   // Switch: 1; SuperPOD: leaves + spines
  int leaves_per_slice = 0;     // SuperPOD only
  int leaf_size = 0;            // SuperPOD only: GPUs per leaf switch
  bool has_failed_link = false;
  bool has_degraded_link = false;  // a soft fault (0 < weight < 1) on one of its links
  double latency_s = 0.0;       // the dimension's per-step latency (alpha)
};

class Topology {
 public:
  // GPUs are nodes 0..gpus-1 (the communicator's ranks, innermost dimension fastest);
  // switches follow, dimension by dimension, slice by slice. Spans with one rank add no
  // links. Faulty links whose endpoints lie outside this topology are ignored; ones between
  // two nodes of it that no link joins are an InfeasibleError.
  Topology(const std::vector<GroupSpan>& spans, const std::vector<FaultyLink>& faults);

  [[nodiscard]] int num_gpus() const { return gpus_; }
  [[nodiscard]] int num_nodes() const { return nodes_; }
  [[nodiscard]] const std::vector<Link>& links() const { return links_; }
  [[nodiscard]] const std::vector<int>& out_links(int node) const { return out_[static_cast<std::size_t>(node)]; }
  [[nodiscard]] const std::vector<TopologyDimension>& dimensions() const { return dims_; }
  // Whether any link is failed or degraded: routing then leaves the per-topology rules.
  [[nodiscard]] bool has_faults() const;
  // The link from a to b, if one exists (failed or not).
  [[nodiscard]] std::optional<int> link_between(int a, int b) const;
  // A readable name of a node: "GPU 5" or "switch 9 (dimension 'ib')".
  [[nodiscard]] std::string node_name(int node) const;
  // GPUs of the slice of dimension d that holds `gpu`, in coordinate order.
  [[nodiscard]] std::vector<int> slice_of(std::size_t d, int gpu) const;
  // Every slice of dimension d (each in coordinate order).
  [[nodiscard]] std::vector<std::vector<int>> slices(std::size_t d) const;
  // Switch node of a Switch dimension's slice holding `gpu`.
  [[nodiscard]] int switch_of(std::size_t d, int gpu) const;

 private:
  int add_link(int a, int b, double capacity, double latency, int dim);
  void add_cable(int a, int b, double capacity, double latency, int dim);
  void build_dimension(std::size_t d);
  void apply_faults(const std::vector<FaultyLink>& faults);

  int gpus_ = 0;
  int nodes_ = 0;
  std::vector<TopologyDimension> dims_;
  std::vector<Link> links_;
  std::vector<std::vector<int>> out_;
  std::unordered_map<std::uint64_t, int> link_index_;  // (src << 32 | dst) -> link id
};

// Rejects faults that do not name a cable of `cluster`: a node id outside 0..num_nodes()-1,
// or two nodes that no cable joins. The Topology constructor ignores the first (a
// communicator's topology is a part of the cluster, and the config names cluster nodes), so
// a caller that builds the whole cluster's topology uses this to catch a mistyped id. Throws
// ConfigError on the key `network.faulty_links[i]`, naming the valid node-id range.
void check_faults_exist(const Topology& cluster, const std::vector<FaultyLink>& faults,
                        const SourceLocation& where = {});

// The two axes of a 2-D dimension holding n ranks: its configured [a, b] when that holds
// exactly n, else the most square factorization a <= b (the analytical backend's rule).
[[nodiscard]] std::pair<int, int> torus_axes_of(const NetworkDimension& dim, int n);

}  // namespace rapidllm::network
