// DeepSeek's DualPipe (DeepSeek-V3 report; github.com/deepseek-ai/DualPipe): every rank holds
// two chunks, stage r of the pipeline fed from rank 0 (chunk 0) and stage pp-1-r of the one
// fed from rank pp-1 (chunk 1); half the micro-batches take each, and one micro-batch's
// forward overlaps another's backward.
#include <algorithm>
#include <array>
#include <deque>
#include <utility>

#include <fmt/format.h>

#include "parallel/schedules/schedules.hpp"
#include "rapidllm/error.hpp"

namespace rapidllm::parallel::detail {

namespace {

// The two pipelines mirror each other rank for rank: the closed form needs this much alone.
std::optional<std::string> odd_stages(int pp) {
  if (pp % 2 == 0) return std::nullopt;
  return fmt::format("dualpipe needs an even number of pipeline stages (pp = {})", pp);
}

class DualPipe final : public Schedule {
 public:
  [[nodiscard]] bool mirrored() const override { return true; }
  // DeepSeek's rule: each half of the micro-batches fills one pipeline.
  [[nodiscard]] std::optional<std::string> broken_rule(int pp, int m) const override {
    if (auto rule = odd_stages(pp)) return rule;
    if (m % 2 == 0 && m >= 2 * pp) return std::nullopt;
    return fmt::format(
        "dualpipe needs an even number of micro-batches, at least 2 x pp = {} (DeepSeek's rule); got {}", 2 * pp, m);
  }

  // DeepSeek-V3 report: pp + 1.
  [[nodiscard]] double in_flight_micro_batches(int /*stage*/, int pp, int m, int /*vpp*/) const override {
    return std::min(m, pp + 1);
  }

 protected:
  [[nodiscard]] std::vector<PassTask> issue_order(int rank, int pp, int m, int vpp) const override;

  [[nodiscard]] double bubble_s(const std::vector<StageTime>& stages, const FlushPath& path,
                                int /*vpp*/) const override {
    const int p = static_cast<int>(stages.size());
    if (auto rule = odd_stages(p)) throw InfeasibleError(*rule);
    const StageTime& crit = stages[path.critical];
    const double half = p / 2.0 - 1.0;
    // The table's B is the input-gradient backward alone: b - w.
    return std::max(0.0, half * (crit.forward_s + crit.backward_s + (crit.backward_s - crit.weight_grad_s) -
                                 3.0 * crit.weight_grad_s));
  }
};

// dualpipe.py's `step`: a rank's eight phases, in its own terms: phase 0 is chunk 0 on the
// first half of the ranks and chunk 1 on the second. Backward passes marked zero-bubble
// defer their weight gradients to a FIFO that explicit W steps drain.
std::vector<PassTask> DualPipe::issue_order(int rank, int pp, int m, int /*vpp*/) const {
  const int half_ranks = pp / 2;
  const int half_rank = std::min(rank, pp - 1 - rank);
  const int second_half = rank >= half_ranks ? 1 : 0;
  const int half_m = m / 2;
  std::vector<PassTask> out;
  std::array<int, 2> next_f{}, next_b{};
  std::deque<std::pair<int, int>> deferred;  // (chunk, micro-batch) whose W is still due
  auto forward = [&](int phase) {
    const int c = phase ^ second_half;
    out.push_back({PassKind::forward, c * half_m + next_f[static_cast<std::size_t>(c)]++, c, false});
  };
  auto backward = [&](int phase, bool zero_bubble) {
    const int c = phase ^ second_half;
    const int mb = c * half_m + next_b[static_cast<std::size_t>(c)]++;
    out.push_back({PassKind::backward, mb, c, zero_bubble});
    if (zero_bubble) deferred.emplace_back(c, mb);
  };
  auto weight = [&] {
    out.push_back({PassKind::weight_grad, deferred.front().second, deferred.front().first, false});
    deferred.pop_front();
  };
  for (int i = 0; i < (half_ranks - half_rank - 1) * 2; ++i) forward(0);  // 1: nF0
  for (int i = 0; i < half_rank + 1; ++i) {                                // 2: nF0F1
    forward(0);
    forward(1);
  }
  for (int i = 0; i < half_ranks - half_rank - 1; ++i) {  // 3: nB1W1F1
    backward(1, true);
    weight();
    forward(1);
  }
  // 4: nF0B1F1B0 (the middle ranks do not overlap their first F0 and B1: the same order)
  for (int i = 0; i < half_m - pp + half_rank + 1; ++i) {
    forward(0);
    backward(1, false);
    forward(1);
    backward(0, false);
  }
  for (int i = 0; i < half_ranks - half_rank - 1; ++i) {  // 5: nB1F1B0
    backward(1, false);
    forward(1);
    backward(0, false);
  }
  bool zero_bubble = false;  // 6: nB1B0, the second half with deferred W
  for (int i = 0, n = half_rank + 1; i < n; ++i) {
    if (i == n / 2 && half_rank % 2 == 1) zero_bubble = true;
    backward(1, zero_bubble);
    if (i == n / 2 && half_rank % 2 == 0) zero_bubble = true;
    backward(0, zero_bubble);
  }
  for (int i = 0; i < half_ranks - half_rank - 1; ++i) {  // 7: nWB0
    weight();
    backward(0, true);
  }
  while (!deferred.empty()) weight();  // 8: nW
  return out;
}

}  // namespace

const Schedule& dualpipe() {
  static const DualPipe instance;
  return instance;
}

}  // namespace rapidllm::parallel::detail
