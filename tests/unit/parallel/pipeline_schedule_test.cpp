// What every pipeline schedule must do, asked through parallel::Schedule: the properties the
// step builder, the memory model and the sweep rely on. Each schedule's own rule, order,
// in-flight count and bubble are tested by hand in schedules/<name>_test.cpp.
#include <algorithm>
#include <map>
#include <optional>
#include <utility>

#include <gtest/gtest.h>

#include "parallel/pipeline_schedule.hpp"
#include "rapidllm/error.hpp"
#include "schedule_fixtures.hpp"

namespace rapidllm::parallel {
namespace {

using testing::equal_stages;

constexpr PipelineSchedule kAll[] = {PipelineSchedule::gpipe, PipelineSchedule::one_f_one_b,
                                     PipelineSchedule::interleaved_1f1b, PipelineSchedule::zero_bubble,
                                     PipelineSchedule::dualpipe};

int vpp_of(PipelineSchedule s) { return s == PipelineSchedule::interleaved_1f1b ? 2 : 1; }

// The traits the step builder, the predictor and the sweep read instead of naming a
// schedule: only Megatron's interleaving holds several chunks of one pipeline per rank,
// only ZB-H1 runs its weight gradients as filler, only DualPipe mirrors two pipelines; and a
// rank's chunk count is what each order visits.
TEST(PipelineSchedule, EachTraitBelongsToItsScheduleAlone) {
  for (PipelineSchedule s : kAll) {
    const Schedule& sch = schedule_of(s);
    EXPECT_EQ(sch.interleaves(), s == PipelineSchedule::interleaved_1f1b) << to_string(s);
    EXPECT_EQ(sch.weight_grads_fill_bubbles(), s == PipelineSchedule::zero_bubble) << to_string(s);
    EXPECT_EQ(sch.mirrored(), s == PipelineSchedule::dualpipe) << to_string(s);
    EXPECT_EQ(sch.virtual_stages(3), s == PipelineSchedule::interleaved_1f1b ? 3 : 1) << to_string(s);
    int chunks = 0;
    for (const PassTask& t : sch.stage_order(0, 4, 16, sch.virtual_stages(2))) chunks = std::max(chunks, t.chunk + 1);
    EXPECT_EQ(chunks, sch.mirrored() ? 2 : sch.virtual_stages(2)) << to_string(s);
  }
}

// The step builder lays out whatever the order lists: every micro-batch goes forward and
// backward exactly once through each chunk it visits, backward after forward, and a deferred
// weight-gradient pass after its backward.
TEST(PipelineSchedule, EveryOrderRunsEachMicroBatchOnceThroughEachChunk) {
  for (PipelineSchedule s : kAll) {
    for (int pp : {2, 4, 8}) {
      for (int m : {2 * pp, 4 * pp}) {
        for (int stage = 0; stage < pp; ++stage) {
          std::map<std::pair<int, int>, int> step;  // (mb, chunk) -> 1 after F, 2 after B, 3 after W
          std::map<int, int> chunks_of;             // mb -> chunks it went forward through
          for (const PassTask& t : schedule_of(s).stage_order(stage, pp, m, vpp_of(s))) {
            int& at = step[{t.micro_batch, t.chunk}];
            const std::string where = std::string(to_string(s)) + " pp " + std::to_string(pp) + " m " +
                                      std::to_string(m) + " stage " + std::to_string(stage) + " mb " +
                                      std::to_string(t.micro_batch) + " chunk " + std::to_string(t.chunk);
            switch (t.kind) {
              case PassKind::forward:
                EXPECT_EQ(at, 0) << where;
                ++chunks_of[t.micro_batch];
                at = 1;
                break;
              case PassKind::backward:
                EXPECT_EQ(at, 1) << where;
                at = t.defers_weight_grads ? 2 : 3;
                break;
              case PassKind::weight_grad:
                EXPECT_EQ(at, 2) << where;
                at = 3;
                break;
            }
          }
          for (const auto& [key, at] : step) EXPECT_EQ(at, 3) << to_string(s) << " mb " << key.first << " unfinished";
          ASSERT_EQ(chunks_of.size(), static_cast<std::size_t>(m)) << to_string(s);
          for (const auto& [mb, n] : chunks_of) {
            EXPECT_EQ(n, s == PipelineSchedule::interleaved_1f1b ? vpp_of(s) : 1) << to_string(s) << " mb " << mb;
          }
        }
      }
    }
  }
}

// One rule a schedule: the throwing check and the order refuse exactly what the rule names,
// with its reason.
TEST(PipelineSchedule, CheckAndOrderRefuseExactlyWhatTheRuleNames) {
  for (PipelineSchedule s : kAll) {
    const Schedule& schedule = schedule_of(s);
    for (int pp = 1; pp <= 8; ++pp) {
      for (int m = 1; m <= 20; ++m) {
        const std::optional<std::string> rule = schedule.broken_rule(pp, m);
        if (!rule) {
          EXPECT_NO_THROW(schedule.check(pp, m)) << to_string(s) << " pp " << pp << " m " << m;
          EXPECT_NO_THROW((void)schedule.stage_order(0, pp, m, vpp_of(s)));
          continue;
        }
        try {
          schedule.check(pp, m);
          ADD_FAILURE() << to_string(s) << " pp " << pp << " m " << m << " passed its check";
        } catch (const InfeasibleError& e) {
          EXPECT_EQ(e.what(), *rule);
        }
        EXPECT_THROW((void)schedule.stage_order(0, pp, m, vpp_of(s)), InfeasibleError);
      }
    }
  }
}

// exec/stage_memory sizes only the earliest of ranks holding alike: it relies on this.
TEST(PipelineSchedule, NoLaterStageHoldsMoreMicroBatches) {
  for (PipelineSchedule s : kAll) {
    for (int pp : {2, 4, 7, 16}) {
      for (int m : {1, 3, 8, 64}) {
        for (int stage = 0; stage < pp; ++stage) {
          const double here = schedule_of(s).in_flight_micro_batches(stage, pp, m, 2);
          EXPECT_LE(here, m) << to_string(s);
          if (stage > 0) {
            EXPECT_LE(here, schedule_of(s).in_flight_micro_batches(stage - 1, pp, m, 2))
                << to_string(s) << " pp=" << pp << " m=" << m << " stage " << stage;
          }
        }
      }
    }
  }
}

TEST(PipelineSchedule, AFlushIsTheSteadyStatePlusTheBubble) {
  for (PipelineSchedule s : kAll) {
    const PipelineTime t = schedule_of(s).flush_time(equal_stages(4, 1.0, 2.0, 1.0), 8, vpp_of(s));
    EXPECT_DOUBLE_EQ(t.busy_s, 8 * 3.0) << to_string(s);
    EXPECT_GE(t.bubble_s, 0.0) << to_string(s);
    EXPECT_DOUBLE_EQ(t.total_s, t.busy_s + t.bubble_s) << to_string(s);
  }
}

// The bubble's fill and drain path: a blocking engine stalls h per transfer, 4h per
// micro-batch on a middle stage, 2h on the two ends (f and b below include them). The busy
// part keeps the critical stage's 4h per micro-batch; on the path a hop's two ends stall
// together, so the other stages' 4h + 2h + 2h count half: 4h.
TEST(PipelineSchedule, TransferStallsCountOncePerHopOnTheFillPath) {
  const double h = 0.5;
  std::vector<StageTime> stages(4, StageTime{1.0 + 2 * h, 2.0 + 2 * h, 1.0, 4 * h});
  stages.front() = stages.back() = StageTime{1.0 + h, 2.0 + h, 1.0, 2 * h};
  const int m = 8;
  const PipelineTime t = schedule_of(PipelineSchedule::one_f_one_b).flush_time(stages, m, 1);
  EXPECT_DOUBLE_EQ(t.busy_s, m * (3.0 + 4 * h));
  EXPECT_DOUBLE_EQ(t.bubble_s, 3 * 3.0 + 4 * h);
  // Zero bubble takes the same half out of each other stage.
  EXPECT_DOUBLE_EQ(schedule_of(PipelineSchedule::zero_bubble).flush_time(stages, m, 1).bubble_s,
                   3 * (3.0 - 2.0) + 4 * h);
}

TEST(PipelineSchedule, TheSlowestStageSetsTheSteadyState) {
  std::vector<StageTime> s = equal_stages(3, 1.0, 2.0, 1.0);
  s[1] = StageTime{2.0, 4.0, 2.0};
  const PipelineTime t = schedule_of(PipelineSchedule::one_f_one_b).flush_time(s, 10, 1);
  EXPECT_DOUBLE_EQ(t.busy_s, 60.0);    // 10 x 6
  EXPECT_DOUBLE_EQ(t.bubble_s, 6.0);   // the other two stages once: 3 + 3
}

}  // namespace
}  // namespace rapidllm::parallel
