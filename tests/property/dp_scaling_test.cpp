// Property: doubling the data-parallel replicas at a fixed per-GPU batch changes the step
// only through data-parallel communication. Each replica runs the same micro-batches on
// the same stage, so compute, TP/CP/PP communication and the bubble are the same; the
// gradient synchronisation grows with the group; the optimizer pass can only shrink (ZeRO
// shards it over more replicas). So step(2k) - step(k) <= the growth of the exposed DP
// communication the breakdown reports, and every other category stays put. ZeRO-3 also
// gathers parameters over the DP group inside every micro-batch (communication.zero3):
// what of it is exposed lengthens the stages and so the pipeline bubble, which then counts
// as DP communication too.
#include <map>
#include <string>
#include <string_view>

#include <gtest/gtest.h>

#include "property_support.hpp"
#include "rapidllm/predict.hpp"

namespace rapidllm::property {
namespace {

constexpr std::string_view kDpComm = "communication.dp";
constexpr std::string_view kZero3Comm = "communication.zero3";
constexpr std::string_view kBubble = "pipeline_bubble";
constexpr std::string_view kOptimizer = "optimizer";

std::map<std::string_view, double> by_category(const Breakdown& b) {
  std::map<std::string_view, double> m;
  for (const auto& [name, s] : b) m[name] += s;
  return m;
}

double category(const std::map<std::string_view, double>& m, std::string_view name) {
  const auto it = m.find(name);
  return it == m.end() ? 0.0 : it->second;
}

// The same plan with `factor` times the replicas and the global batch.
Scenario with_more_replicas(Scenario s, int factor) {
  s.hardware.parallelism.dp *= factor;
  llm(s).global_batch_size *= factor;
  return s;
}

TEST(DataParallelScaling, StepGrowsOnlyByTheExposedGradientCommunication) {
  Rng rng(0x5eed0003);
  PredictionCache cache;
  int checked = 0;
  int dp_grew = 0;
  constexpr int kCases = 120;
  for (int i = 0; i < kCases; ++i) {
    const int k = rng.pick(std::vector<int>{1, 2, 4});
    const DrawnScenario base = random_training(rng, k);
    SCOPED_TRACE(fmt::format("case {}: {} vs dp={}", i, base.text, 2 * k));
    const Result small = predict(base.scenario, {.cache = &cache, .exports = {}});
    if (!small.ok()) continue;
    const Result large = predict(with_more_replicas(base.scenario, 2), {.cache = &cache, .exports = {}});
    ASSERT_TRUE(large.ok()) << large.message;
    const auto& a = std::get<TrainingPrediction>(small.prediction);
    const auto& b = std::get<TrainingPrediction>(large.prediction);
    ASSERT_EQ(b.num_gpus, 2 * a.num_gpus);
    ASSERT_EQ(b.micro_batches, a.micro_batches);  // the per-GPU batch really is fixed
    ASSERT_EQ(b.micro_batch_size, a.micro_batch_size);

    const auto ca = by_category(a.breakdown);
    const auto cb = by_category(b.breakdown);
    const auto delta = [&](std::string_view name) { return category(cb, name) - category(ca, name); };
    const bool zero3 = base.scenario.hardware.sw.dp_zero_stage == 3;
    // The DP-driven categories; the breakdown leaves out a category that is zero.
    const auto dp_driven = [&](std::string_view name) {
      return name == kDpComm || name == kOptimizer || (zero3 && (name == kZero3Comm || name == kBubble));
    };
    const double dp_delta = delta(kDpComm) + (zero3 ? delta(kZero3Comm) + delta(kBubble) : 0.0);
    // Tolerance relative to the step: the sides are differences of sums of the same terms.
    EXPECT_LE(b.step_time_s - a.step_time_s, std::max(0.0, dp_delta) + 1e-9 * b.step_time_s)
        << "step " << a.step_time_s << " -> " << b.step_time_s << " s, exposed DP comm grew " << dp_delta << " s";
    EXPECT_TRUE(not_above(category(cb, kOptimizer), category(ca, kOptimizer)));
    // Everything else is a per-replica cost: the same to the last digits.
    for (const auto& [name, seconds] : ca) {
      if (dp_driven(name)) continue;
      EXPECT_NEAR(category(cb, name), seconds, 1e-9 * a.step_time_s) << name;
    }
    for (const auto& [name, seconds] : cb) {
      if (!dp_driven(name) && ca.count(name) == 0) {
        EXPECT_NEAR(seconds, 0.0, 1e-9 * b.step_time_s) << name << " appeared";
      }
    }
    if (dp_delta > 0.0) ++dp_grew;
    ++checked;
  }
  report_checked(checked, kCases);
  EXPECT_GE(checked, kCases / 2) << "too many draws refused: the property checked too little";
  EXPECT_GT(dp_grew, 0) << "no draw exposed more DP communication: the bound was never tested";
}

}  // namespace
}  // namespace rapidllm::property
