#include "exec/comm_costs.hpp"

namespace rapidllm::exec {

CommCosts::Cost CommCosts::cost(const model::CommOp& op) {
  for (const Known& k : known_) {
    if (k.op == op.op && k.group == op.group && k.bytes == op.bytes) return k.cost;
  }
  const Cost c = compute_cost(op);
  known_.push_back(Known{op.op, op.group, op.bytes, c});
  return c;
}

CommCosts::Cost CommCosts::compute_cost(const model::CommOp& op) const {
  if (op.bytes <= 0.0) return {};
  if (is_message(op)) {  // one message to the neighbouring rank (pipeline stages)
    const NetworkDimension* d = placement_.neighbour_dimension(op.group);
    if (d == nullptr) return {};
    return {network_.message_s(*d, op.bytes), network::message_energy_j(*d, op.bytes)};
  }
  const auto& group = placement_.group(op.group);
  if (group.empty()) return {};
  // Rank 0's communicator: on a cluster network its GPUs are where faults and detours lie.
  const CollectiveEstimate e =
      network_.sees_instances()
          ? network_.collective_on(op.op, op.bytes, network::GroupInstance{group, {placement_.members(op.group, 0)}})
          : network_.collective(op.op, op.bytes, group);
  return {e.time_s, network::collective_energy_j(e, group) / placement_.degree(op.group)};
}

void CommCosts::submit(double start_s, const model::CommOp& op, network::NetworkApi::Done done) const {
  if (op.bytes > 0.0) {
    if (is_message(op)) {
      if (const NetworkDimension* d = placement_.neighbour_dimension(op.group)) {
        network_.submit_message(start_s, *d, op.bytes, std::move(done));
        return;
      }
    } else if (const auto& group = placement_.group(op.group); !group.empty()) {
      if (network_.sees_instances()) {
        network_.submit_collective_on(start_s, op.op, op.bytes,
                                      network::GroupInstance{group, {placement_.members(op.group, 0)}}, std::move(done));
      } else {
        network_.submit_collective(start_s, op.op, op.bytes, group, std::move(done));
      }
      return;
    }
  }
  done(start_s);
}

}  // namespace rapidllm::exec
