// Forward/backward time of an op list (one micro-batch through a layer, the embedding or
// the head), kept per op class for the breakdown.
#pragma once

#include <array>
#include <vector>

#include "compute/op_coster.hpp"
#include "model/layer_ops.hpp"

namespace rapidllm::exec {

inline constexpr std::size_t kOpClasses = 10;

struct OpListCost {
  std::array<double, kOpClasses> forward_s{};
  std::array<double, kOpClasses> backward_s{};
  double weight_grad_s = 0.0;
  double attention_forward_s = 0.0;  // the attention core alone (selective recompute)
  energy::Energy forward_energy;
  energy::Energy backward_energy;
  energy::Energy attention_forward_energy;

  [[nodiscard]] double forward_total() const;
  [[nodiscard]] double backward_total() const;
  OpListCost& operator+=(const OpListCost& other);
  [[nodiscard]] OpListCost scaled(double factor) const;
};

[[nodiscard]] OpListCost cost_ops(compute::OpCoster& coster, const std::vector<model::Op>& ops);

}  // namespace rapidllm::exec
