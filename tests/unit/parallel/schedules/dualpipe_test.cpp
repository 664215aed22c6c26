// DeepSeek's DualPipe through parallel::Schedule: even pp and an even m >= 2 pp, the
// reference's eight phases, pp + 1 micro-batches held, table 2's bubble.
#include <gtest/gtest.h>

#include "rapidllm/error.hpp"
#include "schedule_fixtures.hpp"

namespace rapidllm::parallel {
namespace {

const Schedule& dualpipe() { return schedule_of(PipelineSchedule::dualpipe); }

TEST(DualPipeSchedule, NeedsEvenStagesAndTwoMicroBatchesPerStage) {
  EXPECT_FALSE(dualpipe().broken_rule(4, 8));
  EXPECT_FALSE(dualpipe().broken_rule(2, 6));
  EXPECT_EQ(dualpipe().broken_rule(3, 6).value_or(""), "dualpipe needs an even number of pipeline stages (pp = 3)");
  const std::string few = "dualpipe needs an even number of micro-batches, at least 2 x pp = 8 (DeepSeek's rule); got ";
  EXPECT_EQ(dualpipe().broken_rule(4, 6).value_or(""), few + "6");
  EXPECT_EQ(dualpipe().broken_rule(4, 9).value_or(""), few + "9");
}

TEST(DualPipeSchedule, PlaysTheReferencesPhases) {
  // pp 2, m 4: micro-batches 0-1 take the pipeline fed from rank 0 (chunk 0), 2-3 the one
  // fed from rank 1 (chunk 1). Rank 0: F0 F1 (phase 2), the F&B pairs (phase 4), then
  // B1 B0 with the last backward's W deferred and drained (phases 6 and 8). Rank 1 mirrors it.
  EXPECT_EQ(testing::order_text(PipelineSchedule::dualpipe, 0, 2, 4, 1), "F0 F2.1 F1 B2.1 F3.1 B0 B3.1 B1* W1");
  EXPECT_EQ(testing::order_text(PipelineSchedule::dualpipe, 1, 2, 4, 1), "F2.1 F0 F3.1 B0 F1 B2.1 B1 B3.1* W3.1");
}

TEST(DualPipeSchedule, HoldsPpPlusOneMicroBatches) {
  for (int stage = 0; stage < 4; ++stage) EXPECT_DOUBLE_EQ(dualpipe().in_flight_micro_batches(stage, 4, 16, 1), 5.0);
  EXPECT_DOUBLE_EQ(dualpipe().in_flight_micro_batches(0, 4, 3, 1), 3.0);
}

TEST(DualPipeSchedule, BubbleOfDeepSeekV3sTable) {
  // (p/2 - 1)(F&B + B - 3W) with F&B = f + b = 3 and B = b - w = 1 (input gradients
  // alone, as DeepSeek-V3's table 2 counts it): (4 - 1)(3 + 1 - 3) = 3.
  EXPECT_DOUBLE_EQ(dualpipe().flush_time(testing::equal_stages(8, 1.0, 2.0, 1.0), 16, 1).bubble_s, 3.0);
  // The formula needs mirrored stages, not the order's micro-batch count.
  EXPECT_THROW((void)dualpipe().flush_time(testing::equal_stages(3, 1.0, 2.0, 1.0), 6, 1), InfeasibleError);
  EXPECT_NO_THROW((void)dualpipe().flush_time(testing::equal_stages(4, 1.0, 2.0, 1.0), 2, 1));
}

}  // namespace
}  // namespace rapidllm::parallel
