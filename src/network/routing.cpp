#include "network/routing.hpp"

#include <algorithm>
#include <climits>
#include <cstddef>
#include <deque>

#include <fmt/format.h>

#include "rapidllm/error.hpp"

namespace rapidllm::network {

namespace {
constexpr int kUnreachable = INT_MAX;
constexpr std::size_t kMaxCachedDistances = 1u << 24;  // ints kept in the distance cache
}  // namespace

Router::Router(const Topology& topology) : topo_(topology) {
  for (const auto& d : topo_.dimensions()) any_failed_ = any_failed_ || d.has_failed_link;
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
  if (auto direct = topo_.link_between(src, dst)) {
    const Link& l = topo_.links()[static_cast<std::size_t>(*direct)];
    if (l.capacity_bytes_per_s > 0.0) {
      out.push_back(LinkShare{*direct, 1.0});
      return l.latency_s;
    }
  }
  if (any_failed_ || src >= topo_.num_gpus() || dst >= topo_.num_gpus()) return route_shortest(src, dst, out);
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

const std::vector<int>& Router::distances_to(int dst) {
  if (auto it = dist_cache_.find(dst); it != dist_cache_.end()) return it->second;
  if (in_links_.empty()) {
    in_links_.resize(static_cast<std::size_t>(topo_.num_nodes()));
    const auto& links = topo_.links();
    for (std::size_t i = 0; i < links.size(); ++i) {
      if (links[i].capacity_bytes_per_s > 0.0) in_links_[static_cast<std::size_t>(links[i].dst)].push_back(static_cast<int>(i));
    }
  }
  if (dist_cache_.size() * static_cast<std::size_t>(topo_.num_nodes()) > kMaxCachedDistances) dist_cache_.clear();
  std::vector<int> dist(static_cast<std::size_t>(topo_.num_nodes()), kUnreachable);
  std::deque<int> queue{dst};
  dist[static_cast<std::size_t>(dst)] = 0;
  while (!queue.empty()) {
    const int v = queue.front();
    queue.pop_front();
    for (int id : in_links_[static_cast<std::size_t>(v)]) {
      const int u = topo_.links()[static_cast<std::size_t>(id)].src;
      // Switches forward; GPUs relay only for themselves (a path may not pass through a GPU
      // of another dimension's slice unless it is an endpoint): allow GPU relays, as NCCL's
      // PXN / host forwarding would, so a failed link can be bypassed on any topology.
      if (dist[static_cast<std::size_t>(u)] == kUnreachable) {
        dist[static_cast<std::size_t>(u)] = dist[static_cast<std::size_t>(v)] + 1;
        queue.push_back(u);
      }
    }
  }
  return dist_cache_.emplace(dst, std::move(dist)).first->second;
}

double Router::route_shortest(int src, int dst, std::vector<LinkShare>& out) {
  const std::vector<int>& dist = distances_to(dst);
  if (dist[static_cast<std::size_t>(src)] == kUnreachable) {
    throw InfeasibleError(fmt::format("no path from {} to {}: the failed links in network.faulty_links disconnect them",
                                      topo_.node_name(src), topo_.node_name(dst)));
  }
  // Equal-cost multipath: at each node, split what arrives evenly over the surviving links
  // that lead one hop closer to dst. Nodes are visited level by level (distance falls by 1).
  const auto nn = static_cast<std::size_t>(topo_.num_nodes());
  if (frac_scratch_.size() != nn) {
    frac_scratch_.assign(nn, 0.0);
    lat_scratch_.assign(nn, 0.0);
  }
  std::vector<int> level{src};
  frac_scratch_[static_cast<std::size_t>(src)] = 1.0;
  lat_scratch_[static_cast<std::size_t>(src)] = 0.0;
  double latency = 0.0;
  while (!level.empty()) {
    std::vector<int> next;
    for (int u : level) {
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
        if (l.capacity_bytes_per_s > 0.0 && dist[static_cast<std::size_t>(l.dst)] == dist[static_cast<std::size_t>(u)] - 1) {
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
          next.push_back(l.dst);
          lv = lat + l.latency_s;
        } else {
          lv = std::max(lv, lat + l.latency_s);
        }
        fv += share;
      }
    }
    level = std::move(next);
  }
  return latency;
}

}  // namespace rapidllm::network
