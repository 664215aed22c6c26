// 1F1B through parallel::Schedule: no rule, pp - stage - 1 warm-up forwards then F and B
// alternately, pp - stage micro-batches held, GPipe's bubble.
#include <gtest/gtest.h>

#include "schedule_fixtures.hpp"

namespace rapidllm::parallel {
namespace {

const Schedule& one_f_one_b() { return schedule_of(PipelineSchedule::one_f_one_b); }

TEST(OneFOneBSchedule, RunsAnyStagesAndMicroBatches) { testing::expect_no_rule(PipelineSchedule::one_f_one_b); }

TEST(OneFOneBSchedule, WarmsUpThenAlternates) {
  EXPECT_EQ(testing::order_text(PipelineSchedule::one_f_one_b, 0, 4, 6, 1), "F0 F1 F2 F3 B0 F4 B1 F5 B2 B3 B4 B5");
  EXPECT_EQ(testing::order_text(PipelineSchedule::one_f_one_b, 2, 4, 6, 1), "F0 F1 B0 F2 B1 F3 B2 F4 B3 F5 B4 B5");
  EXPECT_EQ(testing::order_text(PipelineSchedule::one_f_one_b, 3, 4, 3, 1), "F0 B0 F1 B1 F2 B2");
  // Fewer micro-batches than the warm-up: every forward, then every backward.
  EXPECT_EQ(testing::order_text(PipelineSchedule::one_f_one_b, 0, 8, 2, 1), "F0 F1 B0 B1");
}

TEST(OneFOneBSchedule, HoldsTheMicroBatchesStillAhead) {
  EXPECT_DOUBLE_EQ(one_f_one_b().in_flight_micro_batches(0, 4, 16, 1), 4.0);
  EXPECT_DOUBLE_EQ(one_f_one_b().in_flight_micro_batches(3, 4, 16, 1), 1.0);
  EXPECT_DOUBLE_EQ(one_f_one_b().in_flight_micro_batches(0, 8, 2, 1), 2.0);
}

TEST(OneFOneBSchedule, HasGPipesBubble) {
  for (auto [p, m] : {std::pair{4, 8}, {8, 32}, {1, 4}}) {
    const auto stages = testing::equal_stages(p, 1.0, 2.0, 1.0);
    const PipelineTime t = one_f_one_b().flush_time(stages, m, 1);
    EXPECT_DOUBLE_EQ(t.bubble_s / t.total_s, (p - 1.0) / (m + p - 1.0)) << p << " " << m;
    EXPECT_DOUBLE_EQ(t.total_s, schedule_of(PipelineSchedule::gpipe).flush_time(stages, m, 1).total_s);
  }
}

}  // namespace
}  // namespace rapidllm::parallel
