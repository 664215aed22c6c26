// check_faults_exist: a whole-cluster check of network.faulty_links. A per-communicator
// Topology ignores faults outside itself (the config names cluster nodes); only a caller
// holding the whole cluster's topology can tell a mistyped node id from a remote one.
#include <cstddef>
#include <string>

#include <fmt/format.h>

#include "network/topology.hpp"
#include "rapidllm/error.hpp"

namespace rapidllm::network {

namespace {
std::string node_range(const Topology& cluster) {
  if (cluster.num_nodes() > cluster.num_gpus()) {
    return fmt::format("node ids are 0..{} (GPUs 0..{}, switches {}..{})", cluster.num_nodes() - 1,
                       cluster.num_gpus() - 1, cluster.num_gpus(), cluster.num_nodes() - 1);
  }
  return fmt::format("node ids are 0..{} (GPUs only, no switches)", cluster.num_nodes() - 1);
}
}  // namespace

void check_faults_exist(const Topology& cluster, const std::vector<FaultyLink>& faults, const SourceLocation& where) {
  const std::string hint = "GPUs are nodes 0..N-1, switches follow dimension by dimension (docs/network-simulator.md, "
                           "'Node numbering')";
  for (std::size_t i = 0; i < faults.size(); ++i) {
    const FaultyLink& f = faults[i];
    const std::string key = fmt::format("network.faulty_links[{}]", i);
    for (int node : {f.src, f.dst}) {
      if (node < 0 || node >= cluster.num_nodes()) {
        throw ConfigError(where, key,
                          fmt::format("node {} is not in the cluster's topology: {}", node, node_range(cluster)), hint);
      }
    }
    if (!cluster.link_between(f.src, f.dst)) {
      throw ConfigError(where, key,
                        fmt::format("no cable joins node {} ({}) and node {} ({}); {}", f.src,
                                    cluster.node_name(f.src), f.dst, cluster.node_name(f.dst), node_range(cluster)),
                        hint);
    }
  }
}

}  // namespace rapidllm::network
