// Property: a faster device or network never makes a prediction slower. Every kernel,
// collective and pipeline formula is non-increasing in FLOP/s and bandwidth, and every
// choice the model makes (GEMM tiles, NCCL protocol, ring vs NVLS) is a minimum over
// candidates that are each non-increasing, so the whole prediction must be too. A
// violation means a choice or an overlap rule that rewards a slower resource.
#include <string>

#include <gtest/gtest.h>

#include "property_support.hpp"
#include "rapidllm/predict.hpp"

namespace rapidllm::property {
namespace {

enum class Knob { tensor_flops, clock, hbm_bandwidth, network_bandwidth };

// Scales one resource of `hw` by `factor` > 1 and says which.
std::string speed_up(HardwareSpec& hw, Knob knob, double factor, Rng& rng) {
  switch (knob) {
    case Knob::tensor_flops:
      hw.core.flop_per_cycle_per_tensor_core *= factor;
      return fmt::format("tensor-core FLOP/s x {}", factor);
    case Knob::clock:
      // The clock scales every on-core rate at once (tensor cores, SFU, FP32 pipes).
      hw.core.frequency_hz *= factor;
      return fmt::format("clock x {}", factor);
    case Knob::hbm_bandwidth:
      hw.memory.back().bandwidth_bytes_per_s *= factor;
      return fmt::format("HBM bandwidth x {}", factor);
    case Knob::network_bandwidth: {
      auto& dims = hw.network.dimensions;
      NetworkDimension& d = dims[static_cast<std::size_t>(rng.uniform_int(0, static_cast<int>(dims.size()) - 1))];
      for (double& b : d.bandwidth_bytes_per_s) b *= factor;
      return fmt::format("network '{}' bandwidth x {}", d.id, factor);
    }
  }
  return "?";
}

Knob random_knob(Rng& rng) {
  return static_cast<Knob>(rng.uniform_int(0, static_cast<int>(Knob::network_bandwidth)));
}

// Factors from barely above 1 (where a discrete choice flips) to 4x.
double random_factor(Rng& rng) { return rng.coin(0.3) ? 1.0 + rng.log_uniform(1e-6, 1e-2) : rng.uniform(1.01, 4.0); }

TEST(FasterHardware, NeverSlowsATrainingStep) {
  Rng rng(0x5eed0001);
  PredictionCache cache;
  int checked = 0;
  constexpr int kCases = 120;
  for (int i = 0; i < kCases; ++i) {
    DrawnScenario base = random_training(rng, rng.pick(std::vector<int>{1, 2, 4}));
    Scenario faster = base.scenario;
    const Knob knob = random_knob(rng);  // drawn in sequence: argument order is unspecified
    const double factor = random_factor(rng);
    const std::string change = speed_up(faster.hardware, knob, factor, rng);
    SCOPED_TRACE(fmt::format("case {}: {}; {}", i, base.text, change));
    const Result slow = predict(base.scenario, {.cache = &cache, .exports = {}});
    if (!slow.ok()) continue;  // a plan the model refuses (e.g. more stages than it can split)
    const Result fast = predict(faster, {.cache = &cache, .exports = {}});
    ASSERT_TRUE(fast.ok()) << fast.message;
    const auto& s = std::get<TrainingPrediction>(slow.prediction);
    const auto& f = std::get<TrainingPrediction>(fast.prediction);
    EXPECT_TRUE(not_above(f.step_time_s, s.step_time_s)) << "step " << s.step_time_s << " s -> " << f.step_time_s << " s";
    ++checked;
  }
  report_checked(checked, kCases);
  EXPECT_GE(checked, kCases / 2) << "too many draws refused: the property checked too little";
}

TEST(FasterHardware, NeverSlowsInference) {
  Rng rng(0x5eed0002);
  PredictionCache cache;
  int checked = 0;
  constexpr int kCases = 120;
  for (int i = 0; i < kCases; ++i) {
    DrawnScenario base = random_inference(rng);
    Scenario faster = base.scenario;
    const Knob knob = random_knob(rng);  // drawn in sequence: argument order is unspecified
    const double factor = random_factor(rng);
    const std::string change = speed_up(faster.hardware, knob, factor, rng);
    SCOPED_TRACE(fmt::format("case {}: {}; {}", i, base.text, change));
    const Result slow = predict(base.scenario, {.cache = &cache, .exports = {}});
    if (!slow.ok()) continue;
    const Result fast = predict(faster, {.cache = &cache, .exports = {}});
    ASSERT_TRUE(fast.ok()) << fast.message;
    const auto& s = std::get<InferencePrediction>(slow.prediction);
    const auto& f = std::get<InferencePrediction>(fast.prediction);
    // Time to first token, the decode phase and the whole run, each on its own: a faster
    // decode must not be bought with a slower prefill.
    EXPECT_TRUE(not_above(f.prefill_time_s, s.prefill_time_s)) << "TTFT " << s.prefill_time_s << " -> " << f.prefill_time_s;
    EXPECT_TRUE(not_above(f.decode_time_s, s.decode_time_s)) << "decode " << s.decode_time_s << " -> " << f.decode_time_s;
    EXPECT_TRUE(not_above(f.total_time_s, s.total_time_s)) << "total " << s.total_time_s << " -> " << f.total_time_s;
    ++checked;
  }
  report_checked(checked, kCases);
  EXPECT_GE(checked, kCases / 2) << "too many draws refused: the property checked too little";
}

// The draw that found the zero-bubble bug: a ZeRO-3 backward pass bound by its prefetched
// communication. The bubble formula took the weight gradients out of it in full, so a
// faster clock (smaller weight gradients) lengthened the bubble: 0.3091 s -> 0.3145 s.
TEST(FasterHardware, ZeroBubbleUnderZero3CommunicationFoundCase) {
  Scenario s = shipped("A100_SXM4_80GB", "llama3.1-8b");
  ParallelismSpec& p = s.hardware.parallelism;
  p.tp = 8;
  p.pp = 2;
  p.pp_schedule = PipelineSchedule::zero_bubble;
  p.dp = 4;
  p.mb = 2;
  p.micro_batch_size = 2;
  llm(s).global_batch_size = 16;
  llm(s).seq_len = 1024;
  s.hardware.sw.dp_zero_stage = 3;
  s.hardware.sw.recompute = ActivationRecompute::full;
  s.hardware.sw.dp_microbatch = DpMicrobatchSync::every_mb;
  Scenario faster = s;
  faster.hardware.core.frequency_hz *= 2.193727536344989;
  const Result slow = predict(s);
  const Result fast = predict(faster);
  ASSERT_TRUE(slow.ok()) << slow.message;
  ASSERT_TRUE(fast.ok()) << fast.message;
  const auto& a = std::get<TrainingPrediction>(slow.prediction);
  const auto& b = std::get<TrainingPrediction>(fast.prediction);
  EXPECT_TRUE(not_above(b.step_time_s, a.step_time_s)) << a.step_time_s << " s -> " << b.step_time_s << " s";
}

}  // namespace
}  // namespace rapidllm::property
