#include "exec/op_list_cost.hpp"

#include <numeric>

namespace rapidllm::exec {

double OpListCost::forward_total() const { return std::accumulate(forward_s.begin(), forward_s.end(), 0.0); }
double OpListCost::backward_total() const { return std::accumulate(backward_s.begin(), backward_s.end(), 0.0); }

OpListCost& OpListCost::operator+=(const OpListCost& o) {
  for (std::size_t i = 0; i < kOpClasses; ++i) {
    forward_s[i] += o.forward_s[i];
    backward_s[i] += o.backward_s[i];
  }
  weight_grad_s += o.weight_grad_s;
  attention_forward_s += o.attention_forward_s;
  forward_energy += o.forward_energy;
  backward_energy += o.backward_energy;
  attention_forward_energy += o.attention_forward_energy;
  return *this;
}

OpListCost OpListCost::scaled(double factor) const {
  OpListCost out = *this;
  for (std::size_t i = 0; i < kOpClasses; ++i) {
    out.forward_s[i] *= factor;
    out.backward_s[i] *= factor;
  }
  out.weight_grad_s *= factor;
  out.attention_forward_s *= factor;
  out.forward_energy = forward_energy.scaled(factor);
  out.backward_energy = backward_energy.scaled(factor);
  out.attention_forward_energy = attention_forward_energy.scaled(factor);
  return out;
}

OpListCost cost_ops(compute::OpCoster& coster, const std::vector<model::Op>& ops) {
  OpListCost out;
  for (const auto& op : ops) {
    const compute::OpTime t = coster.time(op);
    const auto c = static_cast<std::size_t>(op.cls);
    out.forward_s[c] += t.forward_s;
    out.backward_s[c] += t.backward_s;
    out.weight_grad_s += t.weight_grad_s;
    out.forward_energy += t.forward_energy;
    out.backward_energy += t.backward_energy;
    if (op.kind == model::OpKind::attention) {
      out.attention_forward_s += t.forward_s;
      out.attention_forward_energy += t.forward_energy;
    }
  }
  return out;
}

}  // namespace rapidllm::exec
