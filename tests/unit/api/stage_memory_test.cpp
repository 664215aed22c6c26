// Sizing only the ranks that can be the peak (PredictOptions::stage_memory = false, and
// predict_memory) gives the same peak as sizing every rank: the same rank, the same bytes
// in every category. Checked over every schedule, even and uneven layer splits, interleaving,
// and DeepSeek-V3, whose dense first layers make its ranks differ in more than their count.
// predict() given predict_memory's figure (PredictOptions::known_memory) reports it unchanged.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "api_fixtures.hpp"
#include "rapidllm/predict.hpp"

namespace rapidllm {
namespace {

// The earliest rank of the largest need, as the peak is reported.
const MemoryBreakdown& largest(const std::vector<MemoryBreakdown>& stages) {
  std::size_t peak = 0;
  for (std::size_t i = 1; i < stages.size(); ++i) {
    if (stages[i].total_bytes > stages[peak].total_bytes) peak = i;
  }
  return stages[peak];
}

void expect_same(const MemoryBreakdown& a, const MemoryBreakdown& b, const std::string& what) {
  EXPECT_EQ(a.stage, b.stage) << what;
  EXPECT_EQ(a.total_bytes, b.total_bytes) << what;
  ASSERT_EQ(a.bytes.size(), b.bytes.size()) << what;
  for (std::size_t k = 0; k < a.bytes.size(); ++k) {
    EXPECT_EQ(a.bytes[k].first, b.bytes[k].first) << what;
    EXPECT_EQ(a.bytes[k].second, b.bytes[k].second) << what << " " << a.bytes[k].first;
  }
}

void check(const Scenario& s, const std::string& what) {
  const Result all = predict(s);
  ASSERT_TRUE(all.ok()) << what << ": " << all.message;
  const auto& every = std::get<TrainingPrediction>(all.prediction);
  ASSERT_EQ(static_cast<int>(every.stage_memory.size()), s.hardware.parallelism.pp) << what;
  expect_same(every.memory, largest(every.stage_memory), what + " (reported peak)");

  const Result peak_only = predict(s, {.cache = nullptr, .exports = {}, .stage_memory = false});
  const auto& lean = std::get<TrainingPrediction>(peak_only.prediction);
  EXPECT_TRUE(lean.stage_memory.empty()) << what;
  expect_same(lean.memory, every.memory, what + " (peak ranks only)");
  // Nothing else moves: the step, its energy and its breakdown are the same.
  EXPECT_EQ(lean.step_time_s, every.step_time_s) << what;
  EXPECT_EQ(lean.energy.energy_j, every.energy.energy_j) << what;
  EXPECT_EQ(lean.breakdown, every.breakdown) << what;

  const Result memory = predict_memory(s);
  const MemoryBreakdown& sized = std::get<TrainingPrediction>(memory.prediction).memory;
  expect_same(sized, every.memory, what + " (predict_memory)");

  // A plan search hands predict_memory's figure on (known_memory): taken as is, the rest alike.
  const Result handed = predict(s, {.cache = nullptr, .exports = {}, .stage_memory = false, .known_memory = &sized});
  const auto& known = std::get<TrainingPrediction>(handed.prediction);
  EXPECT_TRUE(known.stage_memory.empty()) << what;
  expect_same(known.memory, every.memory, what + " (known_memory)");
  EXPECT_EQ(known.step_time_s, every.step_time_s) << what;
  EXPECT_EQ(known.energy.energy_j, every.energy.energy_j) << what;
}

TEST(StageMemory, ThePeakRanksAloneGiveTheSamePeakOnEverySchedule) {
  for (const std::string schedule : {"gpipe", "1f1b", "interleaved_1f1b", "zero_bubble", "dualpipe"}) {
    for (const std::string pp : {"4", "6", "16"}) {  // 80 layers: even, uneven (14/14/13...), 5 each
      const std::vector<std::string> sets = {"parallelism.pp=" + pp, "parallelism.tp=8", "parallelism.pp_schedule=" + schedule,
                                             "parallelism.vpp=" + std::string(schedule == "interleaved_1f1b" ? "2" : "1"),
                                             "model_param.global_batch_size=256",
                                             "parallelism.micro_batch_size=1", "sw_param.dp_zero_stage=1"};
      if (schedule == "interleaved_1f1b" && pp == "6") continue;  // 80 layers do not split into 12 chunks
      check(testing::shipped_scenario("H100_SXM5_80GB", "llama3.1-70b", sets), schedule + " pp=" + pp);
    }
  }
}

TEST(StageMemory, RanksDifferingInLayerKindsAreEachSized) {
  // DeepSeek-V3: 3 dense layers then 58 MoE layers, over 8 ranks (8/8/8/8/8/7/7/7): the
  // first rank holds the dense layers, the later ranks one layer fewer.
  const Scenario s = load_scenario(
      testing::source_path("configs/hardware/H100_SXM5_80GB.yaml"),
      testing::source_path("tests/data/rapid-llm-reference/model/DeepSeekV3.yaml"),
      {"model_param.seq_len=4096", "model_param.global_batch_size=1024", "parallelism.tp=2", "parallelism.tp_sp=true",
       "parallelism.pp=8", "parallelism.train.ep=32", "parallelism.train.dp=2", "parallelism.micro_batch_size=1",
       "parallelism.pp_schedule=1f1b", "sw_param.dp_zero_stage=1"});
  check(s, "DeepSeek-V3 pp=8 ep=32");
}

}  // namespace
}  // namespace rapidllm
