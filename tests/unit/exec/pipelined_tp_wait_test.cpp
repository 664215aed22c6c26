// sw_param.pipelined_tp_wait: while the pipeline's stages sit on different nodes, each
// tensor-parallel collective holds its pass for wait + per_rank x (tp - 1) on the host, with
// the pass's kernels running under it: a pass lasts at least its TP collectives x that wait.
#include <gtest/gtest.h>

#include "exec/graph_cost.hpp"
#include "exec/pipelined_tp_wait.hpp"
#include "exec/training_predictor.hpp"
#include "llm_fixtures.hpp"

namespace rapidllm::exec {
namespace {

using testing::shipped_hardware;
using testing::shipped_model;

constexpr double kMs = 1e-3;
constexpr auto kTp = static_cast<std::size_t>(model::CommPurpose::tp);

// The shipped H100 file: 8 GPUs per NVSwitch node, InfiniBand between nodes; ranks
// numbered tp fastest, then pp, then dp.
bool spans_nodes(int tp, int dp, int pp) {
  const HardwareSpec hw = shipped_hardware("H100_SXM5_80GB");
  const parallel::Placement placement(hw.network, parallel::Degrees{tp, 1, 1, dp, pp});
  return pipeline_spans_nodes(placement, hw.network);
}

TEST(PipelinedTpWait, OnlyAPipelineAcrossNodesWaits) {
  EXPECT_FALSE(spans_nodes(4, 1, 2));  // 8 GPUs: both stages in one node
  EXPECT_FALSE(spans_nodes(4, 2, 2));  // each replica's two stages in one node, dp across
  EXPECT_TRUE(spans_nodes(4, 1, 4));   // stages 2 and 3 on the next node
  EXPECT_TRUE(spans_nodes(2, 1, 8));   // 16 GPUs: stages 0-3 on one node, 4-7 on the next
  EXPECT_FALSE(spans_nodes(8, 4, 1));  // no pipeline: data parallelism alone crosses nodes
}

TEST(PipelinedTpWait, FixedPartPlusAPartPerTpRank) {
  HardwareSpec hw = shipped_hardware("H100_SXM5_80GB");
  hw.sw.pipelined_tp_wait_s = 1.0 * kMs;
  hw.sw.pipelined_tp_wait_per_rank_s = 0.5 * kMs;
  const auto wait = [&](int tp, int dp, int pp) {
    return pipelined_tp_wait_s(hw.sw, parallel::Placement(hw.network, parallel::Degrees{tp, 1, 1, dp, pp}), hw.network);
  };
  EXPECT_DOUBLE_EQ(wait(4, 1, 4), 2.5 * kMs);
  EXPECT_DOUBLE_EQ(wait(8, 1, 4), 4.5 * kMs);
  EXPECT_DOUBLE_EQ(wait(1, 1, 16), 0.0);  // no TP collective to wait on
  EXPECT_DOUBLE_EQ(wait(4, 1, 2), 0.0);   // one node
}

TEST(PipelinedTpWait, APassLastsAtLeastItsCollectivesWaits) {
  GraphCost c;
  c.forward_tp_collectives = 4.0;
  c.backward_tp_collectives = 4.0;
  c.compute.forward_s[0] = 1.0 * kMs;
  c.compute.backward_s[0] = 9.0 * kMs;
  c.forward_comm_s[kTp] = 0.5 * kMs;  // exposed communication runs under the waits too
  hold_for_tp_waits(c, 2.0 * kMs);
  EXPECT_DOUBLE_EQ(c.forward_comm_s[kTp], 0.5 * kMs + (8.0 - 1.5) * kMs);
  EXPECT_DOUBLE_EQ(c.forward_s(), 8.0 * kMs);
  EXPECT_DOUBLE_EQ(c.backward_comm_s[kTp], 0.0);  // 9 ms of kernels cover 8 ms of waits
}

// Llama-2-7B, tp 4 with sequence parallelism, pp 4 (16 GPUs): each of a stage's 8 layers
// runs 4 TP collectives in forward (an all-gather and a reduce-scatter around attention and
// around the MLP). With waits far above its kernels' time, the slowest stage (the last:
// the head) grows its forward by (8 x 4 + 4) x the added wait: the head adds the all-gather
// of its input and the vocabulary-parallel cross-entropy's three all-reduces.
TEST(PipelinedTpWait, AStageForwardGrowsByItsLayersCollectives) {
  HardwareSpec hw = shipped_hardware("H100_SXM5_80GB");
  hw.parallelism.tp = 4;
  hw.parallelism.tp_sp = true;
  hw.parallelism.pp = 4;
  hw.parallelism.dp = 1;
  hw.parallelism.mb = 1;
  LlmModelSpec m = shipped_model("llama2-7b");
  m.global_batch_size = 8;  // 8 micro-batches
  const auto forward = [&](double wait_ms, bool simulate) {
    hw.sw.pipelined_tp_wait_s = wait_ms * kMs;
    TrainingRunOptions o;
    o.simulate_step = simulate;
    return predict_training(hw, m, "test", nullptr, o);
  };
  const TrainingPrediction at20 = forward(20.0, false);
  const TrainingPrediction at40 = forward(40.0, false);
  const double per_ms = (at40.stage_forward_s - at20.stage_forward_s) / (20.0 * kMs);
  EXPECT_NEAR(per_ms, 36.0, 1e-6);
  // The whole-step simulation waits the same.
  EXPECT_NEAR(forward(40.0, true).step_time_s / at40.step_time_s, 1.0, 0.02);
  EXPECT_GT(at40.step_time_s, 1.9 * forward(0.0, false).step_time_s);
}

}  // namespace
}  // namespace rapidllm::exec
