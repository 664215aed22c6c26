#include <gtest/gtest.h>

#include "parallel/pipeline_schedule.hpp"
#include "rapidllm/error.hpp"

namespace rapidllm::parallel {
namespace {

std::vector<StageTime> equal(int p, double f, double b, double w) { return std::vector<StageTime>(p, StageTime{f, b, w}); }

TEST(PipelineSchedule, GpipeAnd1F1BBubbleFraction) {
  for (PipelineSchedule schedule : {PipelineSchedule::gpipe, PipelineSchedule::one_f_one_b}) {
    for (auto [p, m] : {std::pair{4, 8}, {8, 32}, {1, 4}}) {
      const PipelineTime t = pipeline_time(schedule, equal(p, 1.0, 2.0, 1.0), m, 1);
      // (p-1)/(m+p-1) of the flush is bubble.
      EXPECT_DOUBLE_EQ(t.bubble_s / t.total_s, (p - 1.0) / (m + p - 1.0)) << to_string(schedule) << p << m;
      EXPECT_DOUBLE_EQ(t.total_s, (m + p - 1) * 3.0);
    }
  }
}

TEST(PipelineSchedule, InterleavedDividesTheBubbleByV) {
  const int p = 4, m = 8, v = 2;
  const PipelineTime t = pipeline_time(PipelineSchedule::interleaved_1f1b, equal(p, 1.0, 2.0, 1.0), m, v);
  EXPECT_DOUBLE_EQ(t.bubble_s / t.total_s, (p - 1.0) / (v * m + p - 1.0));
}

TEST(PipelineSchedule, ZeroBubbleRemovesTwoWeightPassesPerStage) {
  // ZB-H1: bubble (p-1)(f + b - 2w) with b including w: (4-1)(1 + 2 - 2) = 3.
  const PipelineTime t = pipeline_time(PipelineSchedule::zero_bubble, equal(4, 1.0, 2.0, 1.0), 8, 1);
  EXPECT_DOUBLE_EQ(t.bubble_s, 3.0);
  EXPECT_DOUBLE_EQ(t.busy_s, 24.0);
}

TEST(PipelineSchedule, TransferStallsCountOncePerHopOnTheFillPath) {
  // A blocking engine stalls h per transfer: 4h per micro-batch on a middle stage, 2h on
  // the two ends (f and b below include them). The busy part keeps the critical stage's
  // 4h per micro-batch; on the fill and drain path a hop's two ends stall together, so the
  // other stages' 4h + 2h + 2h count half: 4h.
  const double h = 0.5;
  std::vector<StageTime> stages(4, StageTime{1.0 + 2 * h, 2.0 + 2 * h, 1.0, 4 * h});
  stages.front() = stages.back() = StageTime{1.0 + h, 2.0 + h, 1.0, 2 * h};
  const int m = 8;
  const PipelineTime t = pipeline_time(PipelineSchedule::one_f_one_b, stages, m, 1);
  EXPECT_DOUBLE_EQ(t.busy_s, m * (3.0 + 4 * h));
  EXPECT_DOUBLE_EQ(t.bubble_s, 3 * 3.0 + 4 * h);
  // Zero bubble takes the same half out of each other stage.
  const PipelineTime zb = pipeline_time(PipelineSchedule::zero_bubble, stages, m, 1);
  EXPECT_DOUBLE_EQ(zb.bubble_s, 3 * (3.0 - 2.0) + 4 * h);
}

TEST(PipelineSchedule, DualPipeNeedsEvenStages) {
  // (p/2 - 1)(F&B + B - 3W) with F&B = f + b = 3 and B = b - w = 1 (input gradients
  // alone, as DeepSeek-V3's table 2 counts it): (4 - 1)(3 + 1 - 3) = 3.
  EXPECT_DOUBLE_EQ(pipeline_time(PipelineSchedule::dualpipe, equal(8, 1.0, 2.0, 1.0), 16, 1).bubble_s, 3.0);
  EXPECT_THROW((void)pipeline_time(PipelineSchedule::dualpipe, equal(3, 1.0, 2.0, 1.0), 6, 1), InfeasibleError);
}

TEST(PipelineSchedule, TheSlowestStageSetsTheSteadyState) {
  std::vector<StageTime> s = equal(3, 1.0, 2.0, 1.0);
  s[1] = StageTime{2.0, 4.0, 2.0};
  const PipelineTime t = pipeline_time(PipelineSchedule::one_f_one_b, s, 10, 1);
  EXPECT_DOUBLE_EQ(t.busy_s, 60.0);    // 10 x 6
  EXPECT_DOUBLE_EQ(t.bubble_s, 6.0);   // the other two stages once: 3 + 3
}

}  // namespace
}  // namespace rapidllm::parallel
