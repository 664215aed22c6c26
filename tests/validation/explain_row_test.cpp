// `rapidllm validate --explain ROW`: the scenario a training row's case is built from,
// through the facade (rapidllm/validation.hpp). Predicting it gives the case's own value.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <string>

#include "rapidllm/error.hpp"
#include "rapidllm/predict.hpp"
#include "rapidllm/validation.hpp"
#include "validate/cases.hpp"

namespace rapidllm {
namespace {

using ::testing::HasSubstr;

const std::string kData = RAPIDLLM_SOURCE_DIR "/validation/data";
const std::string kConfigs = RAPIDLLM_SOURCE_DIR "/configs";

TEST(ExplainRow, ATrainingRowPredictsWhatItsCaseDoes) {
  PredictionCache cache;
  const auto cases = validate::training_cases({kData, kConfigs, {}, "dgxc"}, cache);
  int checked = 0;
  for (const auto& c : cases) {
    if (c.status != validate::CaseStatus::compared || c.metric != "step_time_s") continue;
    if (++checked > 3) break;
    const Scenario s = validation_row_scenario(kData, kConfigs, c.row_id);
    EXPECT_THAT(s.model_file, HasSubstr(c.row_id));
    const Result r = predict(s);
    ASSERT_TRUE(r.ok()) << r.message;
    EXPECT_DOUBLE_EQ(std::get<TrainingPrediction>(r.prediction).step_time_s, c.predicted) << c.row_id;
  }
  EXPECT_EQ(checked, 4);
}

// NT0000: "1.34G dp8 tp1 pp1 mbs2 acc16 zero0" on the benchmark's cluster.
TEST(ExplainRow, ANanotronRunGetsItsPlan) {
  const Scenario s = validation_row_scenario(kData, kConfigs, "NT0000");
  EXPECT_THAT(s.model_file, HasSubstr("nanotron-1.34G"));
  EXPECT_EQ(s.hardware.parallelism.dp, 8);
  EXPECT_EQ(s.hardware.parallelism.tp, 1);
  EXPECT_EQ(s.hardware.parallelism.pp, 1);
  EXPECT_EQ(s.hardware.parallelism.micro_batch_size, 2);
  EXPECT_EQ(s.hardware.sw.stack, "nanotron");
}

TEST(ExplainRow, OtherIdsAreRefusedWithTheReason) {
  try {
    (void)validation_row_scenario(kData, kConfigs, "I0108");  // an inference row
    ADD_FAILURE() << "expected a ConfigError";
  } catch (const ConfigError& e) {
    EXPECT_EQ(e.key_path(), "--explain");
    EXPECT_THAT(e.problem(), HasSubstr("no training row 'I0108'"));
    EXPECT_THAT(e.hint(), HasSubstr("T..."));
  }
  // A row the models cannot take says why, as its skipped case does.
  EXPECT_THROW((void)validation_row_scenario(kData, kConfigs, "T0011"), InfeasibleError);  // a V100 row
}

}  // namespace
}  // namespace rapidllm
