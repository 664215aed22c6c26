// Megatron-LM's interleaved 1F1B (Narayanan et al. 2021): each rank holds v chunks (virtual
// stages), so the fill and drain path is 1/v as long, at the cost of v times the pipeline
// messages and a longer warm-up.
#include <algorithm>

#include <fmt/format.h>

#include "parallel/schedules/schedules.hpp"

namespace rapidllm::parallel::detail {

namespace {

class Interleaved1F1B final : public Schedule {
 public:
  [[nodiscard]] bool interleaves() const override { return true; }
  // Megatron-LM refuses other counts: its order walks the micro-batches in groups of pp.
  [[nodiscard]] std::optional<std::string> broken_rule(int pp, int m) const override {
    if (m % pp == 0) return std::nullopt;
    return fmt::format("interleaved 1F1B needs micro-batches % pp == 0 ({} micro-batches, pp {})", m, pp);
  }

  // What the issue order below holds: a stage's warm-up runs 2 (pp - stage - 1) + (v - 1) pp
  // chunk forwards and one more before its first backward, each chunk 1/v of the stage's
  // layers: pp + (pp - 2 stage - 1) / v micro-batches (at most all m). On the first stage
  // this is Narayanan et al. 2021's pp + (pp - 1)/v; later stages hold more than 1F1B's
  // pp - stage shifted by (pp - 1)/v, since their warm-up still covers v - 1 rounds of pp.
  [[nodiscard]] double in_flight_micro_batches(int stage, int pp, int m, int vpp) const override {
    return std::min<double>(m, (2.0 * (pp - stage - 1) + (vpp - 1.0) * pp + 1.0) / vpp);
  }

 protected:
  // Megatron-LM's order: virtual micro-batch k is micro-batch (k / (pp v)) pp + k % pp of
  // chunk (k / pp) % v (backward: chunks in reverse).
  [[nodiscard]] std::vector<PassTask> issue_order(int stage, int pp, int m, int v) const override {
    const int total = m * v;
    auto mb = [pp, v](int k) { return (k / (pp * v)) * pp + k % pp; };
    return warm_steady_cool(
        total, std::min(total, (pp - stage - 1) * 2 + (v - 1) * pp),
        [&](int k) { return PassTask{PassKind::forward, mb(k), (k / pp) % v, false}; },
        [&](int k) { return PassTask{PassKind::backward, mb(k), v - 1 - (k / pp) % v, false}; });
  }
  [[nodiscard]] double bubble_s(const std::vector<StageTime>& /*stages*/, const FlushPath& path,
                                int vpp) const override {
    return path.others_s / vpp;
  }
};

}  // namespace

const Schedule& interleaved_1f1b() {
  static const Interleaved1F1B instance;
  return instance;
}

}  // namespace rapidllm::parallel::detail
