// What the pipeline-schedule tests share: equal stage times, and an order written out as
// text ("F0 B0 W0", chunk after a dot when not 0, * for a backward that defers its W) so a
// hand-written order reads as the paper draws it.
#pragma once

#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "parallel/pipeline_schedule.hpp"

namespace rapidllm::parallel::testing {

inline std::vector<StageTime> equal_stages(int p, double f, double b, double w) {
  return std::vector<StageTime>(static_cast<std::size_t>(p), StageTime{f, b, w});
}

inline std::string order_text(const std::vector<PassTask>& order) {
  std::string out;
  for (const PassTask& t : order) {
    if (!out.empty()) out += ' ';
    out += t.kind == PassKind::forward ? 'F' : t.kind == PassKind::backward ? 'B' : 'W';
    out += std::to_string(t.micro_batch);
    if (t.chunk != 0) out += '.' + std::to_string(t.chunk);
    if (t.defers_weight_grads) out += '*';
  }
  return out;
}

inline std::string order_text(PipelineSchedule schedule, int stage, int pp, int m, int vpp) {
  return order_text(schedule_of(schedule).stage_order(stage, pp, m, vpp));
}

// A schedule without a rule runs any stage and micro-batch count.
inline void expect_no_rule(PipelineSchedule schedule) {
  for (int pp = 1; pp <= 8; ++pp) {
    for (int m = 1; m <= 9; ++m) {
      EXPECT_FALSE(schedule_of(schedule).broken_rule(pp, m)) << to_string(schedule) << " pp " << pp << " m " << m;
    }
  }
}

}  // namespace rapidllm::parallel::testing
