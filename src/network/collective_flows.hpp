// Collectives -> transfer DAGs (FlowPlan) per algorithm: ring (and its Torus2D/Mesh2D
// decomposition and the FullyConnected multi-channel form), direct, halving-doubling,
// double binary tree, in-switch reduction (NVLS), hierarchical composition across
// dimensions, and chunked pipelining. docs/network-simulator.md describes each.
#pragma once

#include <cstddef>
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

// One single-level collective among `members` (GPU ids, in ring order) using the rules of
// topology dimension `dimension` (which decides what `auto` means and which algorithms
// are possible); members may be any GPUs, e.g. one job's share of a shared fat-tree.
int add_group_collective(FlowPlan& plan, const Topology& topology, std::size_t dimension,
                         const std::vector<int>& members, CollectiveOp op, CollectiveAlgorithm algorithm,
                         double bytes);

}  // namespace rapidllm::network
