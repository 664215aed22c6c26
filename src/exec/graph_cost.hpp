// What one op graph (one micro-batch through one part of the model) costs one rank: compute
// by op class and pass, exposed communication by purpose and pass, what backward recomputes,
// and energy. Both executors produce it.
#pragma once

#include <array>
#include <vector>

#include "exec/op_list_cost.hpp"
#include "model/op_graph.hpp"

namespace rapidllm::exec {

struct GraphCost {
  OpListCost compute;
  std::array<double, model::kCommPurposes> forward_comm_s{};  // exposed
  std::array<double, model::kCommPurposes> backward_comm_s{};
  double recompute_s = 0.0;  // forward work repeated in backward
  // Weight-gradient compute that runs under the backward pass's prefetched communication
  // (ZeRO-3 gradient scatters and gathers, HiddenUnder::pass_time): deferring it out of the
  // backward pass (zero-bubble schedules) does not shorten that pass, which the
  // communication keeps as long. The pipeline may only move weight_grad_s minus this.
  double weight_grad_under_prefetch_s = 0.0;
  energy::Energy recompute_energy;
  double network_j = 0.0;    // every communication op of both passes, this rank's share
  // Tensor-parallel collectives the forward and the backward pass run (full recompute's
  // replay counted in backward): what sw_param.pipelined_tp_wait holds the passes for.
  double forward_tp_collectives = 0.0;
  double backward_tp_collectives = 0.0;

  [[nodiscard]] double forward_s() const;
  [[nodiscard]] double backward_s() const;  // recompute included
  [[nodiscard]] double comm_s(model::CommPurpose p) const;  // both passes
  [[nodiscard]] energy::Energy energy() const;
  GraphCost& operator+=(const GraphCost& other);
  [[nodiscard]] GraphCost scaled(double factor) const;
};

// A pass lasts at least its TP collectives x `wait_s` (the host waits on each while the
// pass's kernels and communication run under it): what they do not cover is charged as
// exposed TP communication. A no-op for wait_s = 0.
void hold_for_tp_waits(GraphCost& cost, double wait_s);

// Communication time alone on the network, summed by pass, overlap rule and purpose, with
// the overlap fraction of each group (the ops of one group share it).
struct CommSums {
  static constexpr std::size_t kRules = 4;  // model::HiddenUnder values
  using Table = std::array<std::array<double, model::kCommPurposes>, kRules>;
  std::array<Table, 2> time_s{};  // [pass][rule][purpose]
  std::array<Table, 2> fraction{};
};

// The parts of a GraphCost that do not depend on how the passes are scheduled: compute
// costs (cost_ops), network energy, and what recompute costs in compute and energy;
// `sums` (when given) receives the communication times.
class CommCosts;
[[nodiscard]] GraphCost schedule_free_cost(const model::OpGraph& graph, compute::OpCoster& coster, CommCosts& comms,
                                           CommSums* sums);

}  // namespace rapidllm::exec
