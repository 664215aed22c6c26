#include <algorithm>
#include <numeric>

#include "exec/executor.hpp"

namespace rapidllm::exec {

namespace {

constexpr auto kAttention = static_cast<std::size_t>(model::OpClass::attention);

}  // namespace

double exposed_comm_s(double comm_s, double window_s, double fraction) {
  return comm_s - fraction * std::min(comm_s, window_s);
}

GraphCost AnalyticalExecutor::run(const model::OpGraph& g) {
  CommSums all;
  GraphCost out = schedule_free_cost(g, coster_, comms_, &all);
  for (const model::Pass pass : {model::Pass::forward, model::Pass::backward}) {
    const bool forward = pass == model::Pass::forward;
    auto& shown = forward ? out.forward_comm_s : out.backward_comm_s;
    const CommSums::Table& sums = all.time_s[static_cast<std::size_t>(pass)];
    const CommSums::Table& fraction = all.fraction[static_cast<std::size_t>(pass)];
    const double compute = forward ? out.compute.forward_total() : out.compute.backward_total();
    const double attention = (forward ? out.compute.forward_s : out.compute.backward_s)[kAttention];
    const auto nothing = static_cast<std::size_t>(model::HiddenUnder::nothing);
    const auto under_compute = static_cast<std::size_t>(model::HiddenUnder::pass_compute);
    const auto under_attention = static_cast<std::size_t>(model::HiddenUnder::attention);
    for (std::size_t p = 0; p < model::kCommPurposes; ++p) {
      shown[p] += sums[nothing][p];
      shown[p] += exposed_comm_s(sums[under_compute][p], compute, fraction[under_compute][p]);
      shown[p] += exposed_comm_s(sums[under_attention][p], attention, fraction[under_attention][p]);
    }
    if (forward && g.recompute == model::Recompute::full) {
      out.recompute_s = out.compute.forward_total() + std::accumulate(shown.begin(), shown.end(), 0.0);
    }
    // Prefetched ops run beside everything else the pass does.
    const auto& prefetched = sums[static_cast<std::size_t>(model::HiddenUnder::pass_time)];
    const double total = std::accumulate(prefetched.begin(), prefetched.end(), 0.0);
    if (total > 0.0) {
      const double rest = forward ? out.forward_s() : out.backward_s();
      const double beyond = std::max(0.0, total - rest);
      for (std::size_t p = 0; p < model::kCommPurposes; ++p) {
        shown[p] += prefetched[p] == total ? beyond : beyond * prefetched[p] / total;
      }
      if (!forward) {
        // The pass lasts max(rest, total); without its weight gradients it would last
        // max(rest - w, total). Only the difference can be deferred into pipeline bubbles.
        const double w = out.compute.weight_grad_s;
        const double deferrable = std::max(rest, total) - std::max(rest - w, total);
        out.weight_grad_under_prefetch_s = std::max(0.0, w - deferrable);
      }
    }
  }
  return out;
}

}  // namespace rapidllm::exec
