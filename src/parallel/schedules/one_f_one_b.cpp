// 1F1B (PipeDream-flush, Narayanan et al. 2021): pp - stage - 1 warm-up forwards, then one
// forward and one backward alternately. GPipe's bubble, but a stage holds only the
// micro-batches still ahead of it.
#include <algorithm>

#include "parallel/schedules/schedules.hpp"

namespace rapidllm::parallel::detail {

std::vector<PassTask> warm_steady_cool(int passes, int warm, const std::function<PassTask(int)>& forward,
                                       const std::function<PassTask(int)>& backward) {
  std::vector<PassTask> out;
  out.reserve(2 * static_cast<std::size_t>(passes));
  for (int k = 0; k < warm; ++k) out.push_back(forward(k));
  for (int j = 0; j < passes - warm; ++j) {
    out.push_back(forward(warm + j));
    out.push_back(backward(j));
  }
  for (int j = passes - warm; j < passes; ++j) out.push_back(backward(j));
  return out;
}

namespace {

class OneFOneB final : public Schedule {
 public:
  [[nodiscard]] double in_flight_micro_batches(int stage, int pp, int m, int /*vpp*/) const override {
    return std::min(m, pp - stage);
  }

 protected:
  [[nodiscard]] std::vector<PassTask> issue_order(int stage, int pp, int m, int /*vpp*/) const override {
    return warm_steady_cool(
        m, std::min(pp - stage - 1, m), [](int k) { return PassTask{PassKind::forward, k, 0, false}; },
        [](int k) { return PassTask{PassKind::backward, k, 0, false}; });
  }
  [[nodiscard]] double bubble_s(const std::vector<StageTime>& /*stages*/, const FlushPath& path,
                                int /*vpp*/) const override {
    return path.others_s;
  }
};

}  // namespace

const Schedule& one_f_one_b() {
  static const OneFOneB instance;
  return instance;
}

}  // namespace rapidllm::parallel::detail
