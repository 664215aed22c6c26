// The two executors on the same op graphs: on an idle network, with overlap coming from
// dependencies alone (no overlap fractions), the event-driven executor reproduces the
// analytical evaluator; with a fraction configured, only the analytical one hides it.
#include <gtest/gtest.h>

#include "exec/inference_predictor.hpp"
#include "exec/training_predictor.hpp"
#include "llm_fixtures.hpp"

namespace rapidllm::exec {
namespace {

using testing::shipped_hardware;
using testing::shipped_model;

void expect_same(const TrainingPrediction& a, const TrainingPrediction& e) {
  EXPECT_NEAR(e.step_time_s, a.step_time_s, 1e-9 * a.step_time_s);
  EXPECT_NEAR(e.energy.energy_j, a.energy.energy_j, 1e-9 * a.energy.energy_j);
  ASSERT_EQ(e.breakdown.size(), a.breakdown.size());
  for (std::size_t i = 0; i < a.breakdown.size(); ++i) {
    EXPECT_EQ(e.breakdown[i].first, a.breakdown[i].first);
    EXPECT_NEAR(e.breakdown[i].second, a.breakdown[i].second, 1e-9 * a.step_time_s) << a.breakdown[i].first;
  }
}

HardwareSpec cluster(int tp, bool sp, int cp, int pp, int dp) {
  HardwareSpec hw = shipped_hardware("H100_SXM5_80GB");
  hw.network.overlap = {};  // overlap from dependencies only
  hw.parallelism.tp = tp;
  hw.parallelism.tp_sp = sp;
  hw.parallelism.cp = cp;
  hw.parallelism.pp = pp;
  hw.parallelism.dp = dp;
  hw.parallelism.micro_batch_size = 1;
  return hw;
}

TEST(Executors, AgreeOnTensorSequenceAndContextParallelLayers) {
  const LlmModelSpec m = shipped_model("llama3.1-8b");
  for (bool sp : {false, true}) {
    const HardwareSpec hw = cluster(4, sp, 2, 2, 2);
    const TrainingPrediction a = predict_training(hw, m, "test", nullptr, ExecutorKind::analytical);
    const TrainingPrediction e = predict_training(hw, m, "test", nullptr, ExecutorKind::event);
    expect_same(a, e);
    double tp = 0.0;
    for (const auto& [name, s] : a.breakdown) tp += name == "communication.tp" ? s : 0.0;
    EXPECT_GT(tp, 0.0);  // the cross-check covers real communication
  }
}

TEST(Executors, AgreeOnPrefetchedZero3GathersAndFullRecompute) {
  // The ZeRO-3 gathers have no dependants: the event executor runs them beside the pass and
  // exposes only what outlasts it, as the analytical max(0, gather - pass) does.
  const LlmModelSpec m = shipped_model("llama3.1-8b");
  HardwareSpec hw = cluster(2, true, 1, 1, 8);
  hw.sw.dp_zero_stage = 3;
  for (auto r : {ActivationRecompute::none, ActivationRecompute::full}) {
    hw.sw.recompute = r;
    expect_same(predict_training(hw, m, "test", nullptr, ExecutorKind::analytical),
                predict_training(hw, m, "test", nullptr, ExecutorKind::event));
  }
}

TEST(Executors, AgreeOnInference) {
  const HardwareSpec hw = cluster(8, false, 1, 1, 1);
  LlmModelSpec m = shipped_model("llama3.1-70b");
  m.run_type = RunType::inference;
  m.global_batch_size = 16;
  m.seq_len = 2048 + 128;
  m.decode_len = 128;
  const InferencePrediction a = predict_inference(hw, m, "test", nullptr, ExecutorKind::analytical);
  const InferencePrediction e = predict_inference(hw, m, "test", nullptr, ExecutorKind::event);
  EXPECT_NEAR(e.prefill_time_s, a.prefill_time_s, 1e-9 * a.prefill_time_s);
  EXPECT_NEAR(e.decode_time_s, a.decode_time_s, 1e-9 * a.decode_time_s);
}

TEST(Executors, OnlyTheAnalyticalEvaluatorAppliesOverlapFractions) {
  const LlmModelSpec m = shipped_model("llama3.1-8b");
  HardwareSpec hw = cluster(8, true, 1, 1, 1);
  const double serial = predict_training(hw, m, "test").step_time_s;
  hw.network.overlap.tp_sp_overlap = 0.5;
  const double analytical = predict_training(hw, m, "test", nullptr, ExecutorKind::analytical).step_time_s;
  const double event = predict_training(hw, m, "test", nullptr, ExecutorKind::event).step_time_s;
  EXPECT_LT(analytical, serial);
  EXPECT_NEAR(event, serial, 1e-9 * serial);  // the layer's collectives stay on its dependency chain
}

}  // namespace
}  // namespace rapidllm::exec
