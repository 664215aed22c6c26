// Whole-graph routing once a topology has a fault (docs/network-simulator.md, "Routing").
// Failed links are gone; the rest is routed over the cheapest paths, a link costing the
// inverse of its healthy bandwidth (seconds per byte), with equal-cost splitting (GPUs may
// relay, as NCCL's PXN does). Hop count would make GPU -> NVSwitch -> GPU and GPU -> IB
// switch -> GPU equal and spill NVLink traffic onto InfiniBand. A flow whose shortest paths cross a
// degraded link is split between them and the shortest paths that avoid every degraded
// link, in proportion to the rate each route carries alone: what an adaptive router
// converges to for one flow, and continuous in the fault weight w. At w -> 0 the degraded
// route carries nothing and the result is exactly the failed-link routing; so a degraded
// link can only add capacity to what the failed link leaves, never cost more.
#include <algorithm>
#include <cmath>
#include <cstddef>
#include <limits>
#include <queue>
#include <utility>

#include <fmt/format.h>

#include "network/routing.hpp"
#include "rapidllm/error.hpp"

namespace rapidllm::network {

namespace {
constexpr double kUnreachable = std::numeric_limits<double>::infinity();
constexpr std::size_t kMaxCachedDistances = 1u << 23;  // doubles kept in one graph's distance cache

// Path costs are sums of the same few link costs in different orders: equal within rounding.
bool same_cost(double a, double b) {
  if (std::isinf(a) || std::isinf(b)) return a == b;
  return std::abs(a - b) <= 1e-9 * std::max(std::abs(a), std::abs(b));
}
}  // namespace

double Router::cost(const Link& l) {
  // The healthy bandwidth: a degraded link is handled by the split below, not by its cost,
  // so that as its weight falls to 0 the routes become exactly the failed-link routes.
  const double healthy = l.degraded() ? l.capacity_bytes_per_s / l.fault_weight : l.capacity_bytes_per_s;
  return 1.0 / healthy;
}

bool Router::usable(const Link& l, const Graph& g) const {
  return l.capacity_bytes_per_s > 0.0 && !(g.avoid_degraded && l.degraded());
}

// Cost of the cheapest path to dst over g's links (Dijkstra from dst over reversed links),
// settled as far as `src` needs: the search stops once src is settled (or nothing is left)
// and is kept per destination, to be resumed for a farther source. A collective routes many
// sources to each destination; with a fault anywhere every pair is routed here, and most of
// them (a ring's neighbours) need only the few nodes around dst, where a search over the
// whole graph per destination cost 100x the healthy run at 16k GPUs.
// Exact: route_shortest reads dist[] only at src and at nodes cheaper than src (a shortest
// path's nodes), all settled by then with the values the full search gives (the pops up to
// that point are the same); a node not yet settled has a tentative cost >= src's, as it
// would have in the full search, so it fails the same `dist < dist[u]` test.
const std::vector<double>& Router::distances_to(Graph& g, int dst, int src) {
  auto it = g.dist_cache.find(dst);
  if (it == g.dist_cache.end()) {
    if (g.in_links.empty()) {
      g.in_links.resize(static_cast<std::size_t>(topo_.num_nodes()));
      const auto& links = topo_.links();
      for (std::size_t i = 0; i < links.size(); ++i) {
        if (usable(links[i], g)) g.in_links[static_cast<std::size_t>(links[i].dst)].push_back(static_cast<int>(i));
      }
    }
    if (g.dist_cache.size() * static_cast<std::size_t>(topo_.num_nodes()) > kMaxCachedDistances) g.dist_cache.clear();
    Search fresh;
    fresh.dist.assign(static_cast<std::size_t>(topo_.num_nodes()), kUnreachable);
    fresh.dist[static_cast<std::size_t>(dst)] = 0.0;
    fresh.frontier.emplace_back(0.0, dst);
    it = g.dist_cache.emplace(dst, std::move(fresh)).first;
  }
  Search& s = it->second;
  std::vector<double>& dist = s.dist;
  auto& queue = s.frontier;
  const std::greater<> later;
  // src is settled once every frontier entry costs more than it (its own entry popped).
  while (!queue.empty() && !(queue.front().first > dist[static_cast<std::size_t>(src)])) {
    std::pop_heap(queue.begin(), queue.end(), later);
    const auto [d, v] = queue.back();
    queue.pop_back();
    if (d > dist[static_cast<std::size_t>(v)]) continue;
    for (int id : g.in_links[static_cast<std::size_t>(v)]) {
      const Link& l = topo_.links()[static_cast<std::size_t>(id)];
      // Any node forwards, GPUs included (NCCL's PXN / host forwarding), so a fault can be
      // bypassed on any topology, through another dimension if need be.
      const double via = d + cost(l);
      if (via < dist[static_cast<std::size_t>(l.src)] && !same_cost(via, dist[static_cast<std::size_t>(l.src)])) {
        dist[static_cast<std::size_t>(l.src)] = via;
        queue.emplace_back(via, l.src);
        std::push_heap(queue.begin(), queue.end(), later);
      }
    }
  }
  return dist;
}

double Router::route_shortest(Graph& g, int src, int dst, std::vector<LinkShare>& out) {
  const std::vector<double>& dist = distances_to(g, dst, src);
  if (dist[static_cast<std::size_t>(src)] == kUnreachable) {
    throw InfeasibleError(fmt::format("no path from {} to {}: the failed links in network.faulty_links disconnect them",
                                      topo_.node_name(src), topo_.node_name(dst)));
  }
  // Equal-cost multipath: at each node, split what arrives evenly over the usable links on a
  // cheapest path to dst. Nodes are visited in falling cost order, each once all its share
  // has arrived, so each link appears once in the route.
  const auto nn = static_cast<std::size_t>(topo_.num_nodes());
  if (frac_scratch_.size() != nn) {
    frac_scratch_.assign(nn, 0.0);
    lat_scratch_.assign(nn, 0.0);
  }
  using Entry = std::pair<double, int>;
  std::priority_queue<Entry> level;  // highest remaining cost first
  level.emplace(dist[static_cast<std::size_t>(src)], src);
  frac_scratch_[static_cast<std::size_t>(src)] = 1.0;
  lat_scratch_[static_cast<std::size_t>(src)] = 0.0;
  double latency = 0.0;
  while (!level.empty()) {
    const int u = level.top().second;
    level.pop();
    const double f = frac_scratch_[static_cast<std::size_t>(u)];
    const double lat = lat_scratch_[static_cast<std::size_t>(u)];
    frac_scratch_[static_cast<std::size_t>(u)] = 0.0;
    if (u == dst) {
      latency = std::max(latency, lat);
      continue;
    }
    std::vector<int> hops;
    for (int id : topo_.out_links(u)) {
      const Link& l = topo_.links()[static_cast<std::size_t>(id)];
      if (usable(l, g) && same_cost(dist[static_cast<std::size_t>(l.dst)] + cost(l), dist[static_cast<std::size_t>(u)]) &&
          dist[static_cast<std::size_t>(l.dst)] < dist[static_cast<std::size_t>(u)]) {
        hops.push_back(id);
      }
    }
    const double share = f / static_cast<double>(hops.size());
    for (int id : hops) {
      const Link& l = topo_.links()[static_cast<std::size_t>(id)];
      out.push_back(LinkShare{id, share});
      auto& fv = frac_scratch_[static_cast<std::size_t>(l.dst)];
      auto& lv = lat_scratch_[static_cast<std::size_t>(l.dst)];
      if (fv == 0.0) {
        level.emplace(dist[static_cast<std::size_t>(l.dst)], l.dst);
        lv = lat + l.latency_s;
      } else {
        lv = std::max(lv, lat + l.latency_s);
      }
      fv += share;
    }
  }
  return latency;
}

// The rate one flow reaches on route[first..] with nothing else on the network: the link
// whose capacity per unit of the flow's fraction on it is least.
double Router::solo_rate(const std::vector<LinkShare>& route, std::size_t first) const {
  double rate = std::numeric_limits<double>::infinity();
  for (std::size_t i = first; i < route.size(); ++i) {
    const double cap = topo_.links()[static_cast<std::size_t>(route[i].link)].capacity_bytes_per_s;
    rate = std::min(rate, cap / route[i].fraction);
  }
  return rate;
}

double Router::route_around_degraded(int src, int dst, std::vector<LinkShare>& out) {
  const std::size_t first = out.size();
  const double latency = route_shortest(up_, src, dst, out);
  const bool crosses = std::any_of(out.begin() + static_cast<std::ptrdiff_t>(first), out.end(), [&](const LinkShare& s) {
    return topo_.links()[static_cast<std::size_t>(s.link)].degraded();
  });
  if (!crosses) return latency;
  // No route without degraded links: the flow has nowhere else to go.
  if (distances_to(healthy_, dst, src)[static_cast<std::size_t>(src)] == kUnreachable) return latency;
  detour_scratch_.clear();
  const double detour_latency = route_shortest(healthy_, src, dst, detour_scratch_);
  // Split in proportion to what each route carries alone: both then finish together, so the
  // flow alone takes bytes / (direct + detour rate) <= bytes / detour rate (the failed case).
  const double direct_rate = solo_rate(out, first);
  const double detour_rate = solo_rate(detour_scratch_, 0);
  const double on_direct = direct_rate / (direct_rate + detour_rate);
  for (std::size_t i = first; i < out.size(); ++i) out[i].fraction *= on_direct;
  for (const LinkShare& s : detour_scratch_) out.push_back(LinkShare{s.link, s.fraction * (1.0 - on_direct)});
  return std::max(latency, detour_latency);
}

}  // namespace rapidllm::network
