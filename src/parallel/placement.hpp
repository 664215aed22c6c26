// Where each parallelism's communicators lie in the network. Ranks are numbered in the
// order the dimensions list their parallelisms (innermost dimension first: tp, cp, ep,
// pp, dp with the shipped configs) and fill the dimensions innermost first, so
// a group spans each dimension according to its stride. With RAPID-LLM's `size: auto`
// dimensions this reproduces that tool's mapping (a parallelism's groups lie in the
// dimension that lists it); with fixed physical sizes (8 GPUs per NVSwitch) groups that
// fit in a node stay in it and larger ones span nodes hierarchically.
#pragma once

#include <array>
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
};

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
  // Ranks each dimension holds (auto sizes resolved).
  [[nodiscard]] const std::vector<long long>& capacities() const { return capacity_; }

 private:
  std::vector<long long> capacity_;
  std::array<std::vector<GroupSpan>, 5> groups_;
  std::array<const NetworkDimension*, 5> neighbour_{};
};

}  // namespace rapidllm::parallel
