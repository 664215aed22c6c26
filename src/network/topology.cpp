// Builds the link graph of a communicator from its network dimensions. Per-topology link
// capacities are chosen so that an uncongested collective on the flow backend takes what
// the analytical formulas say (docs/network-simulator.md, "Topologies").
#include "network/topology.hpp"

#include <algorithm>
#include <climits>
#include <cmath>
#include <cstddef>

#include <fmt/format.h>

#include "rapidllm/error.hpp"

namespace rapidllm::network {

std::pair<int, int> torus_axes_of(const NetworkDimension& dim, int n) {
  if (dim.size.size() == 2 && dim.size[0] >= 1 && dim.size[1] >= 1 &&
      static_cast<long long>(dim.size[0]) * dim.size[1] == n) {
    return {dim.size[0], dim.size[1]};
  }
  int a = static_cast<int>(std::sqrt(static_cast<double>(n)));
  while (a > 1 && n % a != 0) --a;
  return {a, n / a};
}

namespace {

double level_bandwidth(const NetworkDimension& dim, std::size_t level) {
  if (dim.bandwidth_bytes_per_s.empty() || !(dim.bandwidth_bytes_per_s[0] > 0.0)) {
    throw InfeasibleError(fmt::format("network dimension '{}': bandwidth must be positive", dim.id));
  }
  if (!(dim.util > 0.0)) {
    throw InfeasibleError(fmt::format("network dimension '{}': util must be positive (got {})", dim.id, dim.util));
  }
  const double b = level < dim.bandwidth_bytes_per_s.size() ? dim.bandwidth_bytes_per_s[level]
                                                              : dim.bandwidth_bytes_per_s.back();
  if (!(b > 0.0)) {
    throw InfeasibleError(fmt::format("network dimension '{}': bandwidth level {} must be positive", dim.id, level));
  }
  return b * dim.util / std::max(1, dim.gpus_per_nic);  // each GPU's share of its NIC port
}

}  // namespace

Topology::Topology(const std::vector<GroupSpan>& spans, const std::vector<FaultyLink>& faults) {
  long long total = 1;
  for (std::size_t i = 0; i < spans.size(); ++i) {
    const GroupSpan& s = spans[i];
    if (s.dimension == nullptr) throw InfeasibleError(fmt::format("collective group span {} has no network dimension", i));
    if (s.ranks < 1) {
      throw InfeasibleError(
          fmt::format("network dimension '{}': a group needs at least 1 rank (got {})", s.dimension->id, s.ranks));
    }
    if (s.ranks == 1) continue;
    TopologyDimension d;
    d.spec = s.dimension;
    d.ranks = s.ranks;
    d.stride = static_cast<int>(total);
    d.latency_s = s.dimension->latency_s;
    if (!(d.latency_s >= 0.0)) {
      throw InfeasibleError(
          fmt::format("network dimension '{}': latency must be >= 0 (got {})", s.dimension->id, d.latency_s));
    }
    total *= s.ranks;
    if (total > INT_MAX / 4) throw InfeasibleError("the topology has too many GPUs");
    dims_.push_back(d);
  }
  gpus_ = static_cast<int>(total);
  nodes_ = gpus_;
  for (std::size_t d = 0; d < dims_.size(); ++d) build_dimension(d);
  apply_faults(faults);
}

int Topology::add_link(int a, int b, double capacity, double latency, int dim) {
  const int id = static_cast<int>(links_.size());
  links_.push_back(Link{a, b, capacity, latency, dim, 1.0});
  link_index_.emplace((static_cast<std::uint64_t>(a) << 32) | static_cast<std::uint32_t>(b), id);
  if (out_.size() < static_cast<std::size_t>(nodes_)) out_.resize(static_cast<std::size_t>(nodes_));
  out_[static_cast<std::size_t>(a)].push_back(id);
  return id;
}

void Topology::add_cable(int a, int b, double capacity, double latency, int dim) {
  // Parallel cables between the same two nodes merge into one link of summed capacity.
  if (auto existing = link_between(a, b)) {
    links_[static_cast<std::size_t>(*existing)].capacity_bytes_per_s += capacity;
    links_[static_cast<std::size_t>(*link_between(b, a))].capacity_bytes_per_s += capacity;
    return;
  }
  add_link(a, b, capacity, latency, dim);
  add_link(b, a, capacity, latency, dim);
}

std::optional<int> Topology::link_between(int a, int b) const {
  if (a < 0 || b < 0) return std::nullopt;
  const auto it = link_index_.find((static_cast<std::uint64_t>(a) << 32) | static_cast<std::uint32_t>(b));
  if (it == link_index_.end()) return std::nullopt;
  return it->second;
}

std::vector<std::vector<int>> Topology::slices(std::size_t d) const {
  const TopologyDimension& dim = dims_[d];
  std::vector<std::vector<int>> out;
  const int block = dim.stride * dim.ranks;
  for (int base_outer = 0; base_outer < gpus_; base_outer += block) {
    for (int inner = 0; inner < dim.stride; ++inner) {
      std::vector<int> s(static_cast<std::size_t>(dim.ranks));
      for (int k = 0; k < dim.ranks; ++k) s[static_cast<std::size_t>(k)] = base_outer + inner + k * dim.stride;
      out.push_back(std::move(s));
    }
  }
  return out;
}

std::vector<int> Topology::slice_of(std::size_t d, int gpu) const {
  const TopologyDimension& dim = dims_[d];
  const int coord = (gpu / dim.stride) % dim.ranks;
  const int base = gpu - coord * dim.stride;
  std::vector<int> s(static_cast<std::size_t>(dim.ranks));
  for (int k = 0; k < dim.ranks; ++k) s[static_cast<std::size_t>(k)] = base + k * dim.stride;
  return s;
}

// Slices are numbered in the order slices() lists them.
namespace {
int slice_index(const TopologyDimension& dim, int gpu) {
  const int block = dim.stride * dim.ranks;
  return (gpu / block) * dim.stride + gpu % dim.stride;
}
}  // namespace

int Topology::switch_of(std::size_t d, int gpu) const {
  const TopologyDimension& dim = dims_[d];
  return dim.first_switch + slice_index(dim, gpu) * dim.switches_per_slice;
}

void Topology::build_dimension(std::size_t d) {
  TopologyDimension& dim = dims_[d];
  const NetworkDimension& spec = *dim.spec;
  const int n = dim.ranks;
  const int di = static_cast<int>(d);
  const double alpha = dim.latency_s;
  const auto all = slices(d);
  switch (spec.topology) {
    case TopologyType::ring: {
      // Each neighbour link carries B per direction (a unidirectional ring runs at B).
      const double b = level_bandwidth(spec, 0);
      for (const auto& s : all) {
        for (int k = 0; k < n; ++k) {
          const int a = s[static_cast<std::size_t>(k)];
          const int c = s[static_cast<std::size_t>((k + 1) % n)];
          if (n == 2 && k == 1) break;  // two ranks: one cable
          add_cable(a, c, b, alpha, di);
        }
      }
      break;
    }
    case TopologyType::fully_connected: {
      // The per-GPU bandwidth B is split evenly over the n-1 peer links.
      const double b = level_bandwidth(spec, 0) / static_cast<double>(n - 1);
      for (const auto& s : all) {
        for (int i = 0; i < n; ++i) {
          for (int j = i + 1; j < n; ++j) add_cable(s[static_cast<std::size_t>(i)], s[static_cast<std::size_t>(j)], b, alpha, di);
        }
      }
      break;
    }
    case TopologyType::switch_: {
      // One switch per slice; each GPU has an up and a down link of B. A GPU-to-GPU path
      // (up + down) costs alpha: alpha/2 per link.
      const double b = level_bandwidth(spec, 0);
      dim.first_switch = nodes_;
      dim.switches_per_slice = 1;
      nodes_ += static_cast<int>(all.size());
      out_.resize(static_cast<std::size_t>(nodes_));
      for (std::size_t si = 0; si < all.size(); ++si) {
        const int sw = dim.first_switch + static_cast<int>(si);
        for (int g : all[si]) add_cable(g, sw, b, alpha / 2.0, di);
      }
      break;
    }
    case TopologyType::torus2d:
    case TopologyType::mesh2d: {
      // Four links per GPU (+x, -x, +y, -y), B/4 each per direction. A torus axis of two
      // ranks has its two cables between the same pair: one link of B/2.
      const auto [a, b_axis] = torus_axes_of(spec, n);
      dim.axis_a = a;
      dim.axis_b = b_axis;
      const bool torus = spec.topology == TopologyType::torus2d;
      const double b = level_bandwidth(spec, 0) / 4.0;
      for (const auto& s : all) {
        auto at = [&](int x, int y) { return s[static_cast<std::size_t>(y * a + x)]; };
        for (int y = 0; y < b_axis; ++y) {
          for (int x = 0; x < a; ++x) {
            if (a > 1 && (x + 1 < a || (torus && a > 1))) add_cable(at(x, y), at((x + 1) % a, y), b, alpha, di);
            if (b_axis > 1 && (y + 1 < b_axis || (torus && b_axis > 1))) {
              add_cable(at(x, y), at(x, (y + 1) % b_axis), b, alpha, di);
            }
          }
        }
      }
      break;
    }
    case TopologyType::superpod: {
      // Two-level fat-tree: leaf_size GPUs per leaf switch (bandwidth[0] per GPU), every
      // leaf linked to every spine; a leaf's uplinks together carry leaf_size x bandwidth[1]
      // (bandwidth[1] is the per-GPU share of the spine level; < bandwidth[0] = oversubscribed).
      const int leaf = spec.superpod && spec.superpod->leaf_size > 0 ? spec.superpod->leaf_size : n;
      const int leaves = (n + leaf - 1) / leaf;
      // A scalable unit (SU) holds leaf_switches_per_su leaves and brings spine_switches_per_su
      // spines; leaf_switches_per_su = 0 counts the whole dimension as one SU.
      const int leaves_per_su = spec.superpod && spec.superpod->leaf_switches_per_su > 0
                                    ? spec.superpod->leaf_switches_per_su
                                    : leaves;
      const int units = (leaves + leaves_per_su - 1) / leaves_per_su;
      const int spines_per_su = spec.superpod ? spec.superpod->spine_switches_per_su : 1;
      const int spines = leaves > 1 ? std::max(1, spines_per_su * units) : 0;
      const double b0 = level_bandwidth(spec, 0);
      const double b1 = level_bandwidth(spec, 1);
      dim.leaf_size = leaf;
      dim.leaves_per_slice = leaves;
      dim.first_switch = nodes_;
      dim.switches_per_slice = leaves + spines;
      nodes_ += static_cast<int>(all.size()) * dim.switches_per_slice;
      out_.resize(static_cast<std::size_t>(nodes_));
      for (std::size_t si = 0; si < all.size(); ++si) {
        const int base = dim.first_switch + static_cast<int>(si) * dim.switches_per_slice;
        for (int k = 0; k < n; ++k) add_cable(all[si][static_cast<std::size_t>(k)], base + k / leaf, b0, alpha / 2.0, di);
        for (int l = 0; l < leaves; ++l) {
          const int members = std::min(leaf, n - l * leaf);
          const double up = static_cast<double>(members) * b1 / static_cast<double>(spines);
          for (int sp = 0; sp < spines; ++sp) add_cable(base + l, base + leaves + sp, up, alpha / 2.0, di);
        }
      }
      break;
    }
  }
  out_.resize(static_cast<std::size_t>(nodes_));
}

void Topology::apply_faults(const std::vector<FaultyLink>& faults) {
  for (const FaultyLink& f : faults) {
    if (f.src < 0 || f.dst < 0 || f.src >= nodes_ || f.dst >= nodes_) continue;
    const auto ab = link_between(f.src, f.dst);
    const auto ba = link_between(f.dst, f.src);
    if (!ab || !ba) {
      throw InfeasibleError(fmt::format(
          "network.faulty_links: no link joins node {} and node {} ({} and {}); GPUs are nodes 0..{}, switches "
          "follow (see docs/network-simulator.md)",
          f.src, f.dst, node_name(f.src), node_name(f.dst), gpus_ - 1));
    }
    for (int id : {*ab, *ba}) {
      Link& l = links_[static_cast<std::size_t>(id)];
      l.capacity_bytes_per_s *= f.weight;
      l.fault_weight = std::max(0.0, l.fault_weight * f.weight);
      if (f.weight <= 0.0) {
        l.capacity_bytes_per_s = 0.0;
        l.fault_weight = 0.0;
        dims_[static_cast<std::size_t>(l.dimension)].has_failed_link = true;
      }
    }
  }
  // After all faults: two entries for one cable multiply, and may cancel out to healthy.
  for (const Link& l : links_) {
    if (l.degraded()) dims_[static_cast<std::size_t>(l.dimension)].has_degraded_link = true;
  }
}

bool Topology::has_faults() const {
  return std::any_of(dims_.begin(), dims_.end(),
                     [](const TopologyDimension& d) { return d.has_failed_link || d.has_degraded_link; });
}

std::string Topology::node_name(int node) const {
  if (node < gpus_) return fmt::format("GPU {}", node);
  for (const auto& d : dims_) {
    if (d.first_switch < 0) continue;
    const int count = static_cast<int>(gpus_ / d.ranks) * d.switches_per_slice;
    if (node >= d.first_switch && node < d.first_switch + count) {
      return fmt::format("switch {} (dimension '{}')", node, d.spec->id);
    }
  }
  return fmt::format("node {}", node);
}

}  // namespace rapidllm::network
