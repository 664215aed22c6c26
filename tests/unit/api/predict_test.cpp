// predict(): dispatch by workload, the same numbers as the predictors it calls, infeasible
// points as a status, and the kernel-cost cache.
#include <algorithm>
#include <memory>
#include <sstream>
#include <utility>

#include <gmock/gmock.h>
#include <fmt/format.h>
#include <fmt/ranges.h>
#include <gtest/gtest.h>
#include <spdlog/sinks/ostream_sink.h>
#include <spdlog/spdlog.h>

#include "api_fixtures.hpp"
#include "exec/gemm_predictor.hpp"
#include "exec/inference_predictor.hpp"
#include "exec/training_predictor.hpp"
#include "rapidllm/error.hpp"
#include "rapidllm/predict.hpp"

namespace rapidllm {
namespace {

using ::testing::HasSubstr;
using testing::shipped_scenario;
using testing::source_path;

const LlmModelSpec& llm_of(const Scenario& s) { return std::get<LlmModelSpec>(s.model.workload); }

// What predict() logs, with and without its plan's notes.
std::string logged(const Scenario& s, bool plan_notes) {
  std::ostringstream text;
  const auto previous = spdlog::default_logger();
  spdlog::set_default_logger(
      std::make_shared<spdlog::logger>("capture", std::make_shared<spdlog::sinks::ostream_sink_mt>(text)));
  const Result r = predict(s, {.cache = nullptr, .exports = {}, .plan_notes = plan_notes});
  spdlog::set_default_logger(previous);
  EXPECT_TRUE(r.ok()) << r.message;
  return text.str();
}

TEST(Predict, APlanSearchCanLeaveThePlansNotesUnsaid) {
  // 32 layers over 3 stages: 11, 11, 10.
  const Scenario s = shipped_scenario("H100_SXM5_80GB", "llama3.1-8b", {"parallelism.pp=3"});
  EXPECT_THAT(logged(s, true), HasSubstr("32 layers do not split evenly over pp x vpp = 3 pipeline chunks"));
  EXPECT_EQ(logged(s, false), "");
}

TEST(Predict, TrainingEqualsTheTrainingPredictor) {
  const Scenario s = shipped_scenario("H100_SXM5_80GB", "llama3.1-8b");
  const Result r = predict(s);
  ASSERT_TRUE(r.ok()) << r.message;
  EXPECT_EQ(r.status, PredictStatus::ok);
  EXPECT_TRUE(r.message.empty());
  const auto* p = std::get_if<TrainingPrediction>(&r.prediction);
  ASSERT_NE(p, nullptr);
  const TrainingPrediction direct = exec::predict_training(s.hardware, llm_of(s), s.model_file);
  EXPECT_EQ(p->step_time_s, direct.step_time_s);
  EXPECT_EQ(p->energy.energy_j, direct.energy.energy_j);
  EXPECT_EQ(p->memory.total_bytes, direct.memory.total_bytes);
}

TEST(Predict, InferenceEqualsTheInferencePredictor) {
  const Scenario s = load_scenario(source_path("tests/data/rapid-llm-reference/hardware/a100_80GB.yaml"),
                                   source_path("tests/data/rapid-llm-reference/model/Llama2-7B_inf.yaml"));
  const Result r = predict(s);
  ASSERT_TRUE(r.ok()) << r.message;
  const auto* p = std::get_if<InferencePrediction>(&r.prediction);
  ASSERT_NE(p, nullptr);
  const InferencePrediction direct = exec::predict_inference(s.hardware, llm_of(s), s.model_file);
  EXPECT_EQ(p->prefill_time_s, direct.prefill_time_s);
  EXPECT_EQ(p->total_time_s, direct.total_time_s);
}

TEST(Predict, GemmRunsInTheScenarioDtypeElseTheTensorFormat) {
  Scenario s{shipped_scenario("H100_SXM5_80GB", "llama3.1-8b").hardware,
             ModelSpec{"test", GemmModelSpec{4096, 4096, 4096, false, ShardAxis::row}}, "", std::nullopt, {}};
  const Result by_default = predict(s);
  ASSERT_TRUE(by_default.ok()) << by_default.message;
  const auto& p = std::get<GemmPrediction>(by_default.prediction);
  EXPECT_EQ(p.dtype, s.hardware.sw.precision.tensor_format.dtype);
  EXPECT_EQ(p.time_s, exec::predict_gemm(s.hardware, std::get<GemmModelSpec>(s.model.workload), p.dtype).time_s);

  s.gemm_dtype = DType::fp8;
  const Result fp8 = predict(s);
  ASSERT_TRUE(fp8.ok()) << fp8.message;
  EXPECT_EQ(std::get<GemmPrediction>(fp8.prediction).dtype, DType::fp8);
  EXPECT_LT(std::get<GemmPrediction>(fp8.prediction).time_s, p.time_s);
}

TEST(Predict, AnInfeasiblePointIsAStatusNotAnException) {
  // llama2-7b has 32 attention heads: tensor parallelism over 3 ranks cannot split them.
  const Scenario s = shipped_scenario("H100_SXM5_80GB", "llama2-7b", {"parallelism.tp=3"});
  Result r;
  EXPECT_NO_THROW(r = predict(s));
  EXPECT_FALSE(r.ok());
  EXPECT_EQ(r.status, PredictStatus::infeasible);
  EXPECT_THAT(r.message, HasSubstr("tp = 3"));
  EXPECT_TRUE(std::holds_alternative<std::monostate>(r.prediction));
}

TEST(Predict, ExpertParallelismMultipliesTheGpus) {
  // RAPID-LLM's MoE file: tp 1 x ep 8 x pp 23 (ep GPUs beside the others).
  const Scenario s = load_scenario(source_path("tests/data/rapid-llm-reference/hardware/H100_SXM5_80GB_moe.yaml"),
                                   source_path("tests/data/rapid-llm-reference/model/GLM_4.5_AIR_106B.yaml"));
  const Result r = predict(s);
  ASSERT_TRUE(r.ok()) << r.message;
  const auto& p = std::get<TrainingPrediction>(r.prediction);
  EXPECT_EQ(p.num_gpus, 8 * 23);
  const auto ep = std::find_if(p.breakdown.begin(), p.breakdown.end(),
                               [](const auto& e) { return e.first == "communication.ep"; });
  ASSERT_NE(ep, p.breakdown.end());
  EXPECT_GT(ep->second, 0.0);
}

TEST(Predict, ExpertParallelismOnADenseModelIsInfeasible) {
  Scenario s = load_scenario(source_path("tests/data/rapid-llm-reference/hardware/H100_SXM5_80GB_moe.yaml"),
                             source_path("configs/models/llama3.1-8b.yaml"));
  const Result r = predict(s);
  EXPECT_FALSE(r.ok());
  EXPECT_THAT(r.message, ::testing::HasSubstr("the model is dense"));
}

TEST(Predict, AReusedCacheGivesIdenticalResults) {
  const Scenario a = shipped_scenario("H100_SXM5_80GB", "llama3.1-8b");
  const Scenario b = shipped_scenario("H100_SXM5_80GB", "llama3.1-8b", {"parallelism.tp=2"});
  PredictionCache cache;
  const Result a_cached = predict(a, {.cache = &cache, .exports = {}});
  const Result b_cached = predict(b, {.cache = &cache, .exports = {}});  // the same device: costs reused
  const Result a_again = predict(a, {.cache = &cache, .exports = {}});
  ASSERT_TRUE(a_cached.ok() && b_cached.ok() && a_again.ok());
  const double a_step = std::get<TrainingPrediction>(predict(a).prediction).step_time_s;
  const double b_step = std::get<TrainingPrediction>(predict(b).prediction).step_time_s;
  EXPECT_EQ(std::get<TrainingPrediction>(a_cached.prediction).step_time_s, a_step);
  EXPECT_EQ(std::get<TrainingPrediction>(b_cached.prediction).step_time_s, b_step);
  EXPECT_EQ(std::get<TrainingPrediction>(a_again.prediction).step_time_s, a_step);

  // The cache moves with its contents (one per worker thread, handed over).
  PredictionCache moved = std::move(cache);
  const Result after_move = predict(b, {.cache = &moved, .exports = {}});
  ASSERT_TRUE(after_move.ok());
  EXPECT_EQ(std::get<TrainingPrediction>(after_move.prediction).step_time_s, b_step);
}

// One cache through plans and devices that share some layers (the pipeline depth and the
// data-parallel degree do not reach a layer's graph) and not others (ZeRO-3 gathers over
// dp, overlap, bandwidth, energy): each prediction equals the one made with a cache of its
// own, to the bit.
TEST(Predict, ACacheSharedAcrossPlansAndDevicesGivesEachItsOwnPrediction) {
  const std::vector<std::vector<std::string>> variants = {
      {"parallelism.train.dp=4"},
      {"parallelism.pp=2", "parallelism.train.dp=2"},
      {"parallelism.pp=4"},
      {"parallelism.train.dp=2", "sw_param.dp_zero_stage=3"},
      {"parallelism.train.dp=4", "sw_param.dp_zero_stage=3"},
      {"parallelism.tp=2", "parallelism.tp_sp=true", "parallelism.pp=8"},
      {"parallelism.tp=2", "parallelism.tp_sp=true", "parallelism.pp=8", "network.dimensions[0].parallelisms=[pp]",
       "network.dimensions[1].parallelisms=[tp, cp, ep, dp]"},  // the 8 stages fill a node: TP over InfiniBand
      {"parallelism.tp=2", "parallelism.tp_sp=true", "parallelism.pp=2", "network.overlap.tp_sp_overlap=0.5"},
      {"parallelism.tp=2", "parallelism.tp_sp=true", "parallelism.pp=2", "tech_param.DRAM.bandwidth=2.0e12"},
      {"parallelism.train.dp=4", "tech_param.core.nominal_energy_per_flop=2.0e-12"},
      {"parallelism.train.dp=4", "tech_param.core.nominal_energy_per_flop=4.0e-12"},
  };
  PredictionCache cache;
  std::vector<double> energies;
  std::vector<double> steps;
  for (const auto& overrides : variants) {
    SCOPED_TRACE(fmt::format("{}", fmt::join(overrides, " ")));
    const Scenario s = shipped_scenario("H100_SXM5_80GB", "llama3.1-8b", overrides);
    const Result shared = predict(s, {.cache = &cache, .exports = {}});
    const Result own = predict(s);
    ASSERT_TRUE(shared.ok() && own.ok()) << shared.message << own.message;
    const auto& a = std::get<TrainingPrediction>(shared.prediction);
    const auto& b = std::get<TrainingPrediction>(own.prediction);
    EXPECT_EQ(a.step_time_s, b.step_time_s);
    EXPECT_EQ(a.energy.energy_j, b.energy.energy_j);
    EXPECT_EQ(a.memory.total_bytes, b.memory.total_bytes);
    ASSERT_EQ(a.breakdown.size(), b.breakdown.size());
    for (std::size_t i = 0; i < a.breakdown.size(); ++i) EXPECT_EQ(a.breakdown[i].second, b.breakdown[i].second);
    energies.push_back(a.energy.energy_j);
    steps.push_back(a.step_time_s);
  }
  EXPECT_GT(steps[6], steps[5]);  // TP over InfiniBand is slower than over NVLink: not reused
  // Twice the energy per FLOP costs more energy (the kernel costs were not reused).
  EXPECT_GT(energies[10], energies[9]);
}

}  // namespace
}  // namespace rapidllm

namespace rapidllm {
namespace {

// The shipped devices give shared memory and registers per SM (per_sm: true): a chip with
// twice the SMs has twice of each, so a design sweep over the SM count never makes a step
// slower (with whole-chip figures each SM's share would halve and the tiles shrink).
TEST(Predict, MoreSmsNeverSlowAStepDown) {
  const std::vector<std::string> plan = {"parallelism.tp=8", "parallelism.mb=8", "model_param.seq_len=2048"};
  std::vector<std::string> doubled = plan;
  doubled.emplace_back("tech_param.core.num_bundles=264");
  const Scenario base = testing::shipped_scenario("H100_SXM5_80GB", "llama3.1-8b", plan);
  const Scenario wide = testing::shipped_scenario("H100_SXM5_80GB", "llama3.1-8b", doubled);
  EXPECT_DOUBLE_EQ(wide.hardware.memory[1].size_bytes, 2 * base.hardware.memory[1].size_bytes);
  EXPECT_DOUBLE_EQ(wide.hardware.memory[0].size_bytes, 2 * base.hardware.memory[0].size_bytes);
  EXPECT_DOUBLE_EQ(base.hardware.memory[1].size_bytes, 228.0 * 1024 * 132);  // 228 KiB per SM
  const Result a = predict(base);
  const Result b = predict(wide);
  ASSERT_TRUE(a.ok() && b.ok());
  EXPECT_LT(std::get<TrainingPrediction>(b.prediction).step_time_s,
            std::get<TrainingPrediction>(a.prediction).step_time_s);
}

}  // namespace
}  // namespace rapidllm
