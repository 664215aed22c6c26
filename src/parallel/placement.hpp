// Where each parallelism's communicators lie in the network. Ranks are numbered in the
// order the dimensions list their parallelisms (innermost dimension first: tp, cp, ep,
// pp, dp with the shipped configs) and fill the dimensions innermost first, so
// a group spans each dimension according to its stride. With RAPID-LLM's `size: auto`
// dimensions this reproduces that tool's mapping (a parallelism's groups lie in the
// dimension that lists it); with fixed physical sizes (8 GPUs per NVSwitch) groups that
// fit in a node stay in it and larger ones span nodes hierarchically.
#pragma once

#include <array>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "rapidllm/collective.hpp"
#include "rapidllm/hardware_spec.hpp"

namespace rapidllm::parallel {

struct Degrees {
  int tp = 1;
  int cp = 1;
  int ep = 1;
  int dp = 1;
  int pp = 1;

  [[nodiscard]] int of(Parallelism p) const;
  [[nodiscard]] long long total() const { return 1LL * tp * cp * ep * dp * pp; }

  friend bool operator==(const Degrees&, const Degrees&) = default;
};

// Ranks each dimension holds for a cluster of `ranks` GPUs: a fixed dimension its size, an
// `auto` one whatever ranks the inner ones leave.
[[nodiscard]] std::vector<long long> cluster_capacities(const NetworkSpec& network, long long ranks);

// Ranks a dimension with a fixed size holds (the product of its sizes); 0 for `auto`.
[[nodiscard]] long long fixed_capacity(const NetworkDimension& d);

// The spans of a group of n ranks whose members lie `stride` apart in rank order, over
// dimensions that hold `capacity[j]` ranks each (innermost first). Throws InfeasibleError,
// naming `what`, when the group does not align with the dimensions or does not fit them.
[[nodiscard]] std::vector<GroupSpan> group_spans(const NetworkSpec& network, const std::vector<long long>& capacity,
                                                 long long stride, long long n, std::string_view what);

// A communicator of `ranks` consecutive GPUs (rank 0 up), filling the dimensions innermost
// first: a fixed-size dimension holds its size, an `auto` one the ranks that remain (64
// ranks on [NVSwitch size 8, InfiniBand auto] = 8 x 8). With `dimension_id`, all ranks lie
// in that one dimension. Throws InfeasibleError when they do not fit or divide evenly.
[[nodiscard]] std::vector<GroupSpan> lay_out_ranks(const NetworkSpec& network, int ranks,
                                                   const std::optional<std::string>& dimension_id = std::nullopt);

// Refills the dimensions' parallelism lists with `order` (innermost first), each list
// keeping its length; the last dimension that lists any takes those left over. The rank
// order a framework lays its groups out in (Megatron-Core's tp-cp-ep-dp-pp) on the
// dimensions a file gives.
void order_parallelisms(NetworkSpec& network, const std::array<Parallelism, 5>& order);

class Placement {
 public:
  // Throws InfeasibleError when a parallelism of degree > 1 is on no dimension, when the
  // ranks exceed the fixed dimension sizes, or when a group does not align with them.
  Placement(const NetworkSpec& network, const Degrees& degrees);

  // The communicator of `p` as spans over dimensions, innermost first; empty for degree 1.
  [[nodiscard]] const std::vector<GroupSpan>& group(Parallelism p) const;
  // The dimension a message between neighbouring ranks of `p` (pipeline stages) crosses;
  // nullptr for degree 1.
  [[nodiscard]] const NetworkDimension* neighbour_dimension(Parallelism p) const;
  // The degree of `p` (the size of each of its groups).
  [[nodiscard]] int degree(Parallelism p) const { return degrees_.of(p); }
  // Ranks each dimension holds (auto sizes resolved).
  [[nodiscard]] const std::vector<long long>& capacities() const { return capacity_; }
  // Rank distance between neighbouring members of a `p` group (cluster GPU id = rank).
  [[nodiscard]] long long stride(Parallelism p) const { return stride_[static_cast<std::size_t>(p)]; }
  // The members (cluster GPU ids, in group order) of the `p` group that holds `rank`.
  [[nodiscard]] std::vector<int> members(Parallelism p, long long rank) const;

 private:
  Degrees degrees_;
  std::vector<long long> capacity_;
  std::array<std::vector<GroupSpan>, 5> groups_;
  std::array<const NetworkDimension*, 5> neighbour_{};
  std::array<long long, 5> stride_{};
};

}  // namespace rapidllm::parallel
