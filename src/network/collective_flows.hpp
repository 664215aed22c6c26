// Collectives -> transfer DAGs (FlowPlan) per algorithm: ring (and its Torus2D/Mesh2D
// decomposition and the FullyConnected multi-channel form), direct, halving-doubling,
// double binary tree, in-switch reduction (NVLS), hierarchical composition across
// dimensions, and chunked pipelining. docs/network-simulator.md describes each.
#pragma once

#include <cstddef>
#include <utility>
#include <vector>

#include "network/flow_plan.hpp"
#include "network/topology.hpp"
#include "rapidllm/hardware_spec.hpp"

namespace rapidllm::network {

// One collective over every GPU of `topology`, composed over its dimensions innermost
// first exactly as the analytical backend composes it (estimate_collective), each phase
// with the algorithm resolve_algorithm picks. `exec` gives the algorithm defaults and the
// chunking: preferred_dataset_splits chunks, at most active_chunks_per_dimension of them in
// one phase at a time. Returns the job id of the new transfers.
int add_collective(FlowPlan& plan, const Topology& topology, CollectiveOp op, double bytes,
                   const ExecutionBackendSpec& exec);

// A communicator instance in a bigger (cluster) topology: the topology dimensions it spans
// with the ranks it uses on each (innermost first), and its lanes: same-shaped member lists
// (GPU ids; member k's coordinate on span j is (k / ranks of the spans before j) % ranks_j)
// that run the collective side by side, e.g. the TP lanes of a pipeline stage reducing
// their gradients over their data-parallel groups at once.
struct ClusterSpan {
  std::size_t dimension = 0;
  int ranks = 1;
};
struct ClusterGroup {
  std::vector<ClusterSpan> spans;
  std::vector<std::vector<int>> lanes;
};

// The collective of add_collective on a ClusterGroup: the same phases, each phase's groups
// the lanes' members that differ only on that span. A span covering its dimension runs the
// dimension's own algorithms (Torus2D decomposition); a partial one runs over its members.
int add_cluster_collective(FlowPlan& plan, const Topology& topology, const ClusterGroup& group, CollectiveOp op,
                           double bytes, const ExecutionBackendSpec& exec);

// Point-to-point messages src -> dst (one way, all at once, `bytes` each) over paths that
// start on topology dimension `dimension`, with the protocol the analytical model picks for
// a send/recv of that size there. Returns the job id.
int add_messages(FlowPlan& plan, const Topology& topology, std::size_t dimension,
                 const std::vector<std::pair<int, int>>& pairs, double bytes, const ExecutionBackendSpec& exec);

// One single-level collective among `members` (GPU ids, in ring order) using the rules of
// topology dimension `dimension` (which decides what `auto` means and which algorithms
// are possible); members may be any GPUs, e.g. one job's share of a shared fat-tree.
int add_group_collective(FlowPlan& plan, const Topology& topology, std::size_t dimension,
                         const std::vector<int>& members, CollectiveOp op, CollectiveAlgorithm algorithm,
                         double bytes);

}  // namespace rapidllm::network
