// Routes between nodes of a Topology: per-topology rules when a dimension is healthy
// (ring: shorter way round; torus/mesh: dimension order, x then y; fat-tree: ECMP split
// evenly over the spines; several dimensions: innermost first), and shortest paths with
// equal-cost splitting over the surviving links when a dimension has a failed link.
#pragma once

#include <unordered_map>
#include <vector>

#include "network/topology.hpp"

namespace rapidllm::network {

// A link and the fraction of a flow's bytes that crosses it (< 1 where ECMP splits).
struct LinkShare {
  int link = 0;
  double fraction = 1.0;
};

class Router {
 public:
  explicit Router(const Topology& topology);

  // Appends the links from src to dst (with their fractions) to `out` and returns the
  // path latency (the longest of the split paths). Throws InfeasibleError naming the pair
  // when failed links leave no path.
  double route(int src, int dst, std::vector<LinkShare>& out);

 private:
  double route_in_dimension(std::size_t d, int src, int dst, double fraction, std::vector<LinkShare>& out);
  double route_shortest(int src, int dst, std::vector<LinkShare>& out);
  double walk(const std::vector<int>& nodes, double fraction, std::vector<LinkShare>& out);
  const std::vector<int>& distances_to(int dst);

  const Topology& topo_;
  bool any_failed_ = false;
  std::unordered_map<int, std::vector<int>> dist_cache_;
  std::vector<std::vector<int>> in_links_;  // reverse adjacency, built on first need
  std::vector<double> frac_scratch_;
  std::vector<double> lat_scratch_;
};

}  // namespace rapidllm::network
