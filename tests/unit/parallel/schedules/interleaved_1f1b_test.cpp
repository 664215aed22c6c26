// Megatron-LM's interleaved 1F1B through parallel::Schedule: m a multiple of pp, Megatron's
// order over v chunks, 1F1B's micro-batches plus (p-1)/v, the bubble over v.
#include <gtest/gtest.h>

#include "schedule_fixtures.hpp"

namespace rapidllm::parallel {
namespace {

const Schedule& interleaved() { return schedule_of(PipelineSchedule::interleaved_1f1b); }

TEST(InterleavedSchedule, NeedsMicroBatchesInWholeGroupsOfPp) {
  EXPECT_FALSE(interleaved().broken_rule(4, 8));
  EXPECT_FALSE(interleaved().broken_rule(1, 3));
  // The sweep's reason for the point (docs/sweep/llama70b_512_h100.csv shows it).
  EXPECT_EQ(interleaved().broken_rule(4, 6).value_or(""),
            "interleaved 1F1B needs micro-batches % pp == 0 (6 micro-batches, pp 4)");
}

TEST(InterleavedSchedule, FollowsMegatronsOrder) {
  // pp 2, v 2: the first stage warms up through both chunks (2 (pp-1) + (v-1) pp = 4 passes)
  // and its backward walks the chunks in reverse; the last stage warms up pp = 2 forwards.
  EXPECT_EQ(testing::order_text(PipelineSchedule::interleaved_1f1b, 0, 2, 2, 2), "F0 F1 F0.1 F1.1 B0.1 B1.1 B0 B1");
  EXPECT_EQ(testing::order_text(PipelineSchedule::interleaved_1f1b, 1, 2, 2, 2), "F0 F1 F0.1 B0.1 F1.1 B1.1 B0 B1");
  // Micro-batches 2 and 3 start once 0 and 1 have been through both chunks.
  EXPECT_EQ(testing::order_text(PipelineSchedule::interleaved_1f1b, 1, 2, 4, 2),
            "F0 F1 F0.1 B0.1 F1.1 B1.1 F2 B0 F3 B1 F2.1 B2.1 F3.1 B3.1 B2 B3");
}

TEST(InterleavedSchedule, HoldsWhatMegatronsWarmUpRuns) {
  // pp 4, v 2, stage 0: 2 x 3 + 4 = 10 warm-up chunks and one more, 11 halves = 4 + 3/2.
  EXPECT_DOUBLE_EQ(interleaved().in_flight_micro_batches(0, 4, 16, 2), 4.0 + 1.5);
  EXPECT_DOUBLE_EQ(interleaved().in_flight_micro_batches(3, 4, 16, 2), 2.5);  // 0 + 4 + 1 halves
  // v 4, last stage: 3 x 4 warm-up chunks + 1 = 13 quarters.
  EXPECT_DOUBLE_EQ(interleaved().in_flight_micro_batches(3, 4, 16, 4), 13.0 / 4.0);
  EXPECT_DOUBLE_EQ(interleaved().in_flight_micro_batches(0, 4, 2, 2), 2.0);
}

TEST(InterleavedSchedule, DividesTheBubbleByV) {
  const int p = 4, m = 8, v = 2;
  const PipelineTime t = interleaved().flush_time(testing::equal_stages(p, 1.0, 2.0, 1.0), m, v);
  EXPECT_DOUBLE_EQ(t.bubble_s / t.total_s, (p - 1.0) / (v * m + p - 1.0));
}

}  // namespace
}  // namespace rapidllm::parallel
