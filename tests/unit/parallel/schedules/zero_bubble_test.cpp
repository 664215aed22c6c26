// ZB-H1 through parallel::Schedule: no rule, 1F1B's order with each B deferring its W, 1F1B's
// memory, two W passes a stage out of the bubble.
#include <gtest/gtest.h>

#include "schedule_fixtures.hpp"

namespace rapidllm::parallel {
namespace {

const Schedule& zero_bubble() { return schedule_of(PipelineSchedule::zero_bubble); }

TEST(ZeroBubbleSchedule, RunsAnyStagesAndMicroBatches) { testing::expect_no_rule(PipelineSchedule::zero_bubble); }

TEST(ZeroBubbleSchedule, Lists1F1BsOrderWithEachWeightPassAfterItsBackward) {
  EXPECT_EQ(testing::order_text(PipelineSchedule::zero_bubble, 0, 2, 3, 1), "F0 F1 B0* W0 F2 B1* W1 B2* W2");
  EXPECT_EQ(testing::order_text(PipelineSchedule::zero_bubble, 1, 2, 2, 1), "F0 B0* W0 F1 B1* W1");
}

TEST(ZeroBubbleSchedule, Keeps1F1BsMemory) {
  for (int stage = 0; stage < 4; ++stage) {
    EXPECT_DOUBLE_EQ(zero_bubble().in_flight_micro_batches(stage, 4, 16, 1), 4.0 - stage);
  }
}

TEST(ZeroBubbleSchedule, RemovesTwoWeightPassesPerStage) {
  // ZB-H1: bubble (p-1)(f + b - 2w) with b including w: (4-1)(1 + 2 - 2) = 3.
  const PipelineTime t = zero_bubble().flush_time(testing::equal_stages(4, 1.0, 2.0, 1.0), 8, 1);
  EXPECT_DOUBLE_EQ(t.bubble_s, 3.0);
  EXPECT_DOUBLE_EQ(t.busy_s, 24.0);
  // Never below none: weight passes larger than the rest leave no bubble.
  EXPECT_DOUBLE_EQ(zero_bubble().flush_time(testing::equal_stages(4, 0.5, 2.0, 2.0), 8, 1).bubble_s, 0.0);
}

}  // namespace
}  // namespace rapidllm::parallel
