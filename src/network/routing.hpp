// Routes between nodes of a Topology.
// - No fault anywhere: per-topology rules (ring: shorter way round; torus/mesh: dimension
//   order, x then y; fat-tree: ECMP split evenly over the spines; several dimensions:
//   innermost first).
// - Any fault (a link failed, weight 0, or degraded, 0 < weight < 1): every pair is routed
//   over the whole graph (routing_faults.cpp): shortest paths by transfer cost (each link
//   costs the inverse of its healthy bandwidth, so an NVLink hop is cheaper than an
//   InfiniBand one and traffic never strays onto a slower dimension) with equal-cost
//   splitting over the links still up; a flow whose paths cross a degraded link is split
//   between those paths and the shortest paths avoiding every degraded link, in proportion
//   to the rate each route can carry alone. Rationale in docs/network-simulator.md, "Routing".
#pragma once

#include <cstdint>
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
  double walk(const std::vector<int>& nodes, double fraction, std::vector<LinkShare>& out);

  // routing_faults.cpp. A graph is the set of links routing may use: every link still up,
  // or (avoid_degraded) only the links with no fault at all.
  // A Dijkstra search from one destination over reversed links, run only as far as the
  // sources asked about need (see distances_to) and resumed when a farther one is asked.
  struct Search {
    std::vector<double> dist;                     // final for every settled node
    std::vector<std::pair<double, int>> frontier;  // min-heap of (cost, node) still to settle
  };
  struct Graph {
    bool avoid_degraded = false;
    std::unordered_map<int, Search> dist_cache;  // dst -> its search
    std::vector<std::vector<int>> in_links;      // reverse adjacency, built on first need
  };
  [[nodiscard]] bool usable(const Link& l, const Graph& g) const;
  const std::vector<double>& distances_to(Graph& g, int dst, int src);
  [[nodiscard]] static double cost(const Link& l);
  double route_shortest(Graph& g, int src, int dst, std::vector<LinkShare>& out);
  double route_around_degraded(int src, int dst, std::vector<LinkShare>& out);
  [[nodiscard]] double solo_rate(const std::vector<LinkShare>& route, std::size_t first) const;

  // With a fault every pair is routed over the whole graph; a collective's steps route the
  // same pairs again and again (a 128-rank ring: 127 steps over one set of pairs), so each
  // pair's route is kept (bounded: cleared past kMaxCachedShares link shares).
  struct CachedRoute {
    std::uint32_t begin = 0;  // [begin, end) in cached_shares_
    std::uint32_t end = 0;
    double latency_s = 0.0;
  };
  std::unordered_map<std::uint64_t, CachedRoute> cached_routes_;
  std::vector<LinkShare> cached_shares_;
  double route_faulted(int src, int dst, std::vector<LinkShare>& out);

  const Topology& topo_;
  bool any_fault_ = false;
  bool any_degraded_ = false;
  Graph up_;       // links with capacity > 0
  Graph healthy_;  // links with no fault
  std::vector<double> frac_scratch_;
  std::vector<double> lat_scratch_;
  std::vector<LinkShare> detour_scratch_;
};

}  // namespace rapidllm::network
