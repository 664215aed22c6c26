// ZB-H1 (Qi et al. 2023): 1F1B with each backward split into B (input gradients, which travel
// back at once) and W (weight gradients, filler work): two W passes a stage come out of the
// bubble, at 1F1B's memory.
#include <algorithm>

#include "parallel/schedules/schedules.hpp"

namespace rapidllm::parallel::detail {

namespace {

class ZeroBubble final : public Schedule {
 public:
  [[nodiscard]] bool weight_grads_fill_bubbles() const override { return true; }
  [[nodiscard]] double in_flight_micro_batches(int stage, int pp, int m, int vpp) const override {
    return one_f_one_b().in_flight_micro_batches(stage, pp, m, vpp);
  }

 protected:
  // 1F1B's order of F and B (input gradients only); each W is listed after its B but is
  // filler work: the simulator runs a stage's W passes only when its next F or B is not
  // ready, which puts them into 1F1B's cool-down bubbles.
  [[nodiscard]] std::vector<PassTask> issue_order(int stage, int pp, int m, int vpp) const override {
    std::vector<PassTask> out;
    for (PassTask t : one_f_one_b().stage_order(stage, pp, m, vpp)) {
      if (t.kind != PassKind::backward) {
        out.push_back(t);
        continue;
      }
      t.defers_weight_grads = true;
      out.push_back(t);
      out.push_back({PassKind::weight_grad, t.micro_batch, t.chunk, false});
    }
    return out;
  }
  [[nodiscard]] double bubble_s(const std::vector<StageTime>& stages, const FlushPath& path,
                                int /*vpp*/) const override {
    double bubble = 0.0;
    for (std::size_t i = 0; i < stages.size(); ++i) {
      if (i != path.critical) {
        bubble += stages[i].forward_s + stages[i].backward_s - 2.0 * stages[i].weight_grad_s -
                  0.5 * stages[i].transfer_stall_s;
      }
    }
    return std::max(0.0, bubble);
  }
};

}  // namespace

const Schedule& zero_bubble() {
  static const ZeroBubble instance;
  return instance;
}

}  // namespace rapidllm::parallel::detail
