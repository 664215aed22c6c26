// GPipe (Huang et al. 2019): every forward, then every backward. Its bubble is 1F1B's; what
// it costs is memory: a stage holds every micro-batch's activations until its backward.
#include "parallel/schedules/schedules.hpp"

namespace rapidllm::parallel::detail {

namespace {

class GPipe final : public Schedule {
 public:
  [[nodiscard]] double in_flight_micro_batches(int /*stage*/, int /*pp*/, int m, int /*vpp*/) const override {
    return m;
  }

 protected:
  [[nodiscard]] std::vector<PassTask> issue_order(int /*stage*/, int /*pp*/, int m, int /*vpp*/) const override {
    std::vector<PassTask> out;
    for (int k = 0; k < m; ++k) out.push_back({PassKind::forward, k, 0, false});
    for (int k = 0; k < m; ++k) out.push_back({PassKind::backward, k, 0, false});
    return out;
  }
  [[nodiscard]] double bubble_s(const std::vector<StageTime>& /*stages*/, const FlushPath& path,
                                int /*vpp*/) const override {
    return path.others_s;
  }
};

}  // namespace

const Schedule& gpipe() {
  static const GPipe instance;
  return instance;
}

}  // namespace rapidllm::parallel::detail
