// The per-topology routes of a healthy topology and the dispatch between them and the
// whole-graph routes used once anything is faulty (routing_faults.cpp).
#include "network/routing.hpp"

#include <algorithm>
#include <cstddef>

#include <fmt/format.h>

#include "rapidllm/error.hpp"

namespace rapidllm::network {

Router::Router(const Topology& topology) : topo_(topology) {
  any_fault_ = topo_.has_faults();
  for (const auto& d : topo_.dimensions()) any_degraded_ = any_degraded_ || d.has_degraded_link;
  healthy_.avoid_degraded = true;
}

double Router::walk(const std::vector<int>& nodes, double fraction, std::vector<LinkShare>& out) {
  double latency = 0.0;
  for (std::size_t i = 0; i + 1 < nodes.size(); ++i) {
    const auto id = topo_.link_between(nodes[i], nodes[i + 1]);
    if (!id) throw InfeasibleError(fmt::format("internal routing error: no link {} -> {}", nodes[i], nodes[i + 1]));
    out.push_back(LinkShare{*id, fraction});
    latency += topo_.links()[static_cast<std::size_t>(*id)].latency_s;
  }
  return latency;
}

double Router::route(int src, int dst, std::vector<LinkShare>& out) {
  if (src == dst) return 0.0;
  // A healthy direct cable is the one shortest path, faults or not. A degraded one is not
  // taken for granted: its flow may be split with a detour (route_around_degraded).
  if (auto direct = topo_.link_between(src, dst)) {
    const Link& l = topo_.links()[static_cast<std::size_t>(*direct)];
    if (l.capacity_bytes_per_s > 0.0 && !l.degraded()) {
      out.push_back(LinkShare{*direct, 1.0});
      return l.latency_s;
    }
  }
  if (any_fault_) return route_faulted(src, dst, out);
  if (src >= topo_.num_gpus() || dst >= topo_.num_gpus()) return route_shortest(up_, src, dst, out);
  // Dimension order, innermost first: fix one coordinate at a time.
  double latency = 0.0;
  int at = src;
  const auto& dims = topo_.dimensions();
  for (std::size_t d = 0; d < dims.size(); ++d) {
    const int stride = dims[d].stride;
    const int ranks = dims[d].ranks;
    const int have = (at / stride) % ranks;
    const int want = (dst / stride) % ranks;
    if (have == want) continue;
    const int next = at + (want - have) * stride;
    latency += route_in_dimension(d, at, next, 1.0, out);
    at = next;
  }
  return latency;
}

double Router::route_faulted(int src, int dst, std::vector<LinkShare>& out) {
  constexpr std::size_t kMaxCachedShares = 1u << 22;  // 64 MiB of link shares
  const std::uint64_t key = (static_cast<std::uint64_t>(static_cast<std::uint32_t>(src)) << 32) |
                            static_cast<std::uint32_t>(dst);
  if (const auto it = cached_routes_.find(key); it != cached_routes_.end()) {
    out.insert(out.end(), cached_shares_.begin() + it->second.begin, cached_shares_.begin() + it->second.end);
    return it->second.latency_s;
  }
  const std::size_t first = out.size();
  const double latency = any_degraded_ ? route_around_degraded(src, dst, out) : route_shortest(up_, src, dst, out);
  if (cached_shares_.size() + (out.size() - first) > kMaxCachedShares) {
    cached_routes_.clear();
    cached_shares_.clear();
  }
  CachedRoute r;
  r.begin = static_cast<std::uint32_t>(cached_shares_.size());
  cached_shares_.insert(cached_shares_.end(), out.begin() + static_cast<std::ptrdiff_t>(first), out.end());
  r.end = static_cast<std::uint32_t>(cached_shares_.size());
  r.latency_s = latency;
  cached_routes_.emplace(key, r);
  return latency;
}

double Router::route_in_dimension(std::size_t d, int src, int dst, double fraction, std::vector<LinkShare>& out) {
  const TopologyDimension& dim = topo_.dimensions()[d];
  const int n = dim.ranks;
  const int stride = dim.stride;
  const int ks = (src / stride) % n;
  const int kd = (dst / stride) % n;
  const int base = src - ks * stride;
  auto gpu = [&](int k) { return base + k * stride; };
  switch (dim.spec->topology) {
    case TopologyType::fully_connected: return walk({src, dst}, fraction, out);
    case TopologyType::switch_: {
      const int sw = topo_.switch_of(d, src);
      return walk({src, sw, dst}, fraction, out);
    }
    case TopologyType::superpod: {
      const int first = topo_.switch_of(d, src);
      const int leaf_s = first + ks / dim.leaf_size;
      const int leaf_d = first + kd / dim.leaf_size;
      if (leaf_s == leaf_d) return walk({src, leaf_s, dst}, fraction, out);
      const int spines = dim.switches_per_slice - dim.leaves_per_slice;
      double latency = 0.0;
      for (int s = 0; s < spines; ++s) {
        const int spine = first + dim.leaves_per_slice + s;
        latency = std::max(latency, walk({src, leaf_s, spine, leaf_d, dst}, fraction / spines, out));
      }
      return latency;
    }
    case TopologyType::ring: {
      const int fwd = (kd - ks + n) % n;
      const int bwd = n - fwd;
      auto path = [&](int step, int hops) {
        std::vector<int> nodes;
        nodes.reserve(static_cast<std::size_t>(hops) + 1);
        for (int h = 0; h <= hops; ++h) nodes.push_back(gpu(((ks + step * h) % n + n) % n));
        return nodes;
      };
      if (fwd < bwd) return walk(path(1, fwd), fraction, out);
      if (bwd < fwd) return walk(path(-1, bwd), fraction, out);
      return std::max(walk(path(1, fwd), fraction / 2.0, out), walk(path(-1, bwd), fraction / 2.0, out));
    }
    case TopologyType::torus2d:
    case TopologyType::mesh2d: {
      const bool torus = dim.spec->topology == TopologyType::torus2d;
      const int a = dim.axis_a;
      const int b = dim.axis_b;
      int x = ks % a, y = ks / a;
      const int tx = kd % a, ty = kd / a;
      double latency = 0.0;
      // One axis: from coordinate c to t along an axis of `len` ranks; `node(c)` is the GPU.
      auto axis = [&](int c, int t, int len, auto node) {
        if (c == t) return 0.0;
        auto line = [&](int step, int hops) {
          std::vector<int> nodes;
          for (int h = 0; h <= hops; ++h) nodes.push_back(node(((c + step * h) % len + len) % len));
          return nodes;
        };
        if (!torus || len == 2) return walk(line(t > c ? 1 : -1, std::abs(t - c)), fraction, out);
        const int fwd = (t - c + len) % len;
        const int bwd = len - fwd;
        if (fwd < bwd) return walk(line(1, fwd), fraction, out);
        if (bwd < fwd) return walk(line(-1, bwd), fraction, out);
        return std::max(walk(line(1, fwd), fraction / 2.0, out), walk(line(-1, bwd), fraction / 2.0, out));
      };
      latency += axis(x, tx, a, [&](int cx) { return gpu(y * a + cx); });
      x = tx;
      latency += axis(y, ty, b, [&](int cy) { return gpu(cy * a + x); });
      return latency;
    }
  }
  return 0.0;
}

}  // namespace rapidllm::network
