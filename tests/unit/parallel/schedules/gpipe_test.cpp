// GPipe through parallel::Schedule: no rule, every forward then every backward, all m
// micro-batches held, 1F1B's bubble.
#include <gtest/gtest.h>

#include "schedule_fixtures.hpp"

namespace rapidllm::parallel {
namespace {

const Schedule& gpipe() { return schedule_of(PipelineSchedule::gpipe); }

TEST(GPipeSchedule, RunsAnyStagesAndMicroBatches) { testing::expect_no_rule(PipelineSchedule::gpipe); }

TEST(GPipeSchedule, IssuesEveryForwardThenEveryBackward) {
  for (int stage : {0, 3}) EXPECT_EQ(testing::order_text(PipelineSchedule::gpipe, stage, 4, 3, 1), "F0 F1 F2 B0 B1 B2");
}

TEST(GPipeSchedule, HoldsEveryMicroBatch) {
  EXPECT_DOUBLE_EQ(gpipe().in_flight_micro_batches(0, 4, 16, 1), 16.0);
  EXPECT_DOUBLE_EQ(gpipe().in_flight_micro_batches(3, 4, 16, 1), 16.0);
}

TEST(GPipeSchedule, BubbleFractionIsPMinusOneOverMPlusPMinusOne) {
  for (auto [p, m] : {std::pair{4, 8}, {8, 32}, {1, 4}}) {
    const PipelineTime t = gpipe().flush_time(testing::equal_stages(p, 1.0, 2.0, 1.0), m, 1);
    EXPECT_DOUBLE_EQ(t.bubble_s / t.total_s, (p - 1.0) / (m + p - 1.0)) << p << " " << m;
    EXPECT_DOUBLE_EQ(t.total_s, (m + p - 1) * 3.0);
  }
}

}  // namespace
}  // namespace rapidllm::parallel
