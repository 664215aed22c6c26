// Rendering: the CLI's reports, and nothing to render for an infeasible point.
#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "api_fixtures.hpp"
#include "rapidllm/error.hpp"
#include "rapidllm/report.hpp"

namespace rapidllm {
namespace {

using ::testing::HasSubstr;
using testing::shipped_scenario;

TEST(RenderPrediction, JsonCarriesTheHeaderAndTheNumbers) {
  const Scenario s = shipped_scenario("H100_SXM5_80GB", "llama3.1-8b");
  const Result r = predict(s);
  ASSERT_TRUE(r.ok()) << r.message;
  const std::string text = render_prediction(r, s, OutputFormat::json);
  ASSERT_FALSE(text.empty());
  EXPECT_EQ(text.back(), '\n');
  const auto j = nlohmann::json::parse(text);
  EXPECT_EQ(j["step_time_s"].get<double>(), std::get<TrainingPrediction>(r.prediction).step_time_s);
  EXPECT_EQ(j["model_file"], s.model_file);
  EXPECT_EQ(j["config_hash"].get<std::string>().size(), 16u);
  // The hash names the resolved configuration: another parallelism is another config.
  const Scenario tp2 = shipped_scenario("H100_SXM5_80GB", "llama3.1-8b", {"parallelism.tp=2"});
  const auto j2 = nlohmann::json::parse(render_prediction(predict(tp2), tp2, OutputFormat::json));
  EXPECT_NE(j2["config_hash"], j["config_hash"]);
}

TEST(RenderPrediction, AnInfeasibleResultThrowsItsReason) {
  const Scenario s = shipped_scenario("H100_SXM5_80GB", "llama2-7b", {"parallelism.tp=3"});
  const Result r = predict(s);
  ASSERT_FALSE(r.ok());
  try {
    (void)render_prediction(r, s, OutputFormat::table);
    FAIL() << "rendered an infeasible result";
  } catch (const InfeasibleError& e) {
    EXPECT_EQ(std::string(e.what()), r.message);
  }
}

TEST(RenderCollective, TableCsvAndJsonNameTheBackend) {
  const HardwareSpec hw = shipped_scenario("H100_SXM5_80GB", "llama3.1-8b").hardware;
  const CollectiveRequest request{.op = CollectiveOp::all_reduce,
                                  .bytes = 1e9,
                                  .ranks = 8,
                                  .dimension = std::nullopt,
                                  .backend = NetworkBackend::analytical};
  const CollectiveEstimate e = run_collective(hw, request);
  const auto j = nlohmann::json::parse(render_collective(e, request, hw, OutputFormat::json));
  EXPECT_EQ(j["backend"], "analytical");
  EXPECT_EQ(j["time_s"].get<double>(), e.time_s);
  EXPECT_THAT(render_collective(e, request, hw, OutputFormat::csv), HasSubstr("analytical"));
  EXPECT_THAT(render_collective(e, request, hw, OutputFormat::table), HasSubstr("busbw"));
}

}  // namespace
}  // namespace rapidllm
