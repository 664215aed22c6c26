#include "exec/graph_cost.hpp"

#include <algorithm>
#include <numeric>

#include "exec/comm_costs.hpp"
#include "model/op_recompute.hpp"

namespace rapidllm::exec {

namespace {
double sum(const std::array<double, model::kCommPurposes>& a) { return std::accumulate(a.begin(), a.end(), 0.0); }
}  // namespace

double GraphCost::forward_s() const { return compute.forward_total() + sum(forward_comm_s); }

double GraphCost::backward_s() const { return compute.backward_total() + sum(backward_comm_s) + recompute_s; }

double GraphCost::comm_s(model::CommPurpose p) const {
  const auto i = static_cast<std::size_t>(p);
  return forward_comm_s[i] + backward_comm_s[i];
}

energy::Energy GraphCost::energy() const {
  energy::Energy e = compute.forward_energy;
  e += compute.backward_energy;
  e += recompute_energy;
  e.network_j += network_j;
  return e;
}

GraphCost& GraphCost::operator+=(const GraphCost& o) {
  compute += o.compute;
  for (std::size_t i = 0; i < model::kCommPurposes; ++i) {
    forward_comm_s[i] += o.forward_comm_s[i];
    backward_comm_s[i] += o.backward_comm_s[i];
  }
  recompute_s += o.recompute_s;
  weight_grad_under_prefetch_s += o.weight_grad_under_prefetch_s;
  forward_tp_collectives += o.forward_tp_collectives;
  backward_tp_collectives += o.backward_tp_collectives;
  recompute_energy += o.recompute_energy;
  network_j += o.network_j;
  return *this;
}

GraphCost GraphCost::scaled(double f) const {
  GraphCost out = *this;
  out.compute = compute.scaled(f);
  for (std::size_t i = 0; i < model::kCommPurposes; ++i) {
    out.forward_comm_s[i] *= f;
    out.backward_comm_s[i] *= f;
  }
  out.recompute_s *= f;
  out.weight_grad_under_prefetch_s *= f;
  out.forward_tp_collectives *= f;
  out.backward_tp_collectives *= f;
  out.recompute_energy = recompute_energy.scaled(f);
  out.network_j *= f;
  return out;
}

void hold_for_tp_waits(GraphCost& cost, double wait_s) {
  if (wait_s <= 0.0) return;
  const auto tp = static_cast<std::size_t>(model::CommPurpose::tp);
  // What the pass does meanwhile covers the waits: its kernels, its exposed communication
  // and a recompute replay.
  const double forward_floor = cost.forward_tp_collectives * wait_s;
  cost.forward_comm_s[tp] += std::max(0.0, forward_floor - cost.forward_s());
  const double backward_floor = cost.backward_tp_collectives * wait_s;
  cost.backward_comm_s[tp] += std::max(0.0, backward_floor - cost.backward_s());
}

GraphCost schedule_free_cost(const model::OpGraph& graph, compute::OpCoster& coster, CommCosts& comms,
                             CommSums* sums) {
  GraphCost out;
  out.compute = cost_ops(coster, graph.ops());
  bool backward = false;
  double forward_comm_j = 0.0;  // what full recompute repeats: the forward's comm but prefetched gathers
  for (const auto& n : graph.nodes()) {
    backward = backward || n.pass == model::Pass::backward;
    if (n.kind != model::NodeKind::communication) continue;
    const model::CommOp& op = graph.comms()[n.index];
    const CommCosts::Cost c = comms.cost(op);
    if (sums != nullptr) {
      const auto pass = static_cast<std::size_t>(n.pass);
      const auto rule = static_cast<std::size_t>(op.hidden_under);
      const auto purpose = static_cast<std::size_t>(op.purpose);
      sums->time_s[pass][rule][purpose] += c.time_s;
      sums->fraction[pass][rule][purpose] = op.overlap;
    }
    out.network_j += c.energy_j;
    if (n.pass == model::Pass::forward && op.hidden_under != model::HiddenUnder::pass_time) forward_comm_j += c.energy_j;
    if (op.group == Parallelism::tp) {
      (n.pass == model::Pass::forward ? out.forward_tp_collectives : out.backward_tp_collectives) += 1.0;
    }
  }
  if (!backward) {  // a forward-only graph (inference) runs no backward kernels
    out.compute.backward_s = {};
    out.compute.weight_grad_s = 0.0;
    out.compute.backward_energy = {};
  }
  if (graph.recompute == model::Recompute::full) {
    if (backward) out.backward_tp_collectives += out.forward_tp_collectives;  // the replay runs them again
    out.recompute_energy = out.compute.forward_energy;
    out.recompute_energy.network_j += forward_comm_j;
  } else if (graph.recompute == model::Recompute::attention_core) {
    out.recompute_s = out.compute.attention_forward_s;
    out.recompute_energy = out.compute.attention_forward_energy;
  } else if (graph.recompute == model::Recompute::op_level) {
    const std::vector<double> shares = model::op_recompute_shares(graph.ops());
    for (std::size_t i = 0; i < shares.size(); ++i) {
      if (shares[i] == 0.0) continue;
      const compute::OpTime t = coster.time(graph.ops()[i]);
      out.recompute_s += shares[i] * t.forward_s;
      out.recompute_energy += t.forward_energy.scaled(shares[i]);
    }
  }
  return out;
}

}  // namespace rapidllm::exec
