#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "rapidllm/config.hpp"
#include "rapidllm/error.hpp"

namespace rapidllm {
namespace {

using ::testing::HasSubstr;

const std::string kA100 = std::string(RAPIDLLM_SOURCE_DIR) + "/tests/data/rapid-llm-reference/hardware/a100_80GB.yaml";
const std::string kGemm = std::string(RAPIDLLM_SOURCE_DIR) + "/tests/data/rapid-llm-reference/model/GEMM.yaml";

ConfigError override_error(const std::vector<std::string>& sets) {
  try {
    (void)load_inputs(kA100, kGemm, sets);
  } catch (const ConfigError& e) {
    return e;
  }
  ADD_FAILURE() << "expected a ConfigError";
  return ConfigError({}, "", "", "");
}

TEST(Overrides, RoutedToTheFileThatOwnsTheKey) {
  LoadedInputs in = load_inputs(kA100, kGemm,
                                {"parallelism.tp=8", "model_param.M=1024", "tech_param.DRAM.bandwidth=2 TB/s",
                                 "network.dimensions[1].topology.bandwidth=[100 GB/s]"});
  EXPECT_EQ(in.hardware.parallelism.tp, 8);
  EXPECT_EQ(std::get<GemmModelSpec>(in.model.workload).m, 1024);
  EXPECT_DOUBLE_EQ(in.hardware.dram().bandwidth_bytes_per_s, 2e12);
  EXPECT_DOUBLE_EQ(in.hardware.network.dimensions[1].bandwidth_bytes_per_s[0], 100e9);
}

TEST(Overrides, CanAddDeclaredKeysTheFileLacks) {
  LoadedInputs in = load_inputs(kA100, kGemm,
                                {"parallelism.pp_schedule=interleaved_1f1b", "parallelism.vpp=2",
                                 "tech_param.core.dtype_flop_scale.fp32=0.5"});
  EXPECT_EQ(in.hardware.parallelism.pp_schedule, PipelineSchedule::interleaved_1f1b);
  EXPECT_EQ(in.hardware.parallelism.vpp, 2);
  EXPECT_DOUBLE_EQ(in.hardware.core.dtype_flop_scale.at(DType::fp32), 0.5);
}

TEST(Overrides, UnknownKeySuggests) {
  ConfigError e = override_error({"parallelism.tpp=8"});
  EXPECT_EQ(e.key_path(), "parallelism.tpp");
  EXPECT_THAT(e.hint(), HasSubstr("did you mean 'tp'?"));
  EXPECT_EQ(e.where().override, "parallelism.tpp=8");
}

TEST(Overrides, BadValueIsBlamedOnTheOverride) {
  ConfigError e = override_error({"parallelism.tp=eight"});
  EXPECT_EQ(e.key_path(), "parallelism.tp");
  EXPECT_THAT(std::string(e.what()), HasSubstr("--set parallelism.tp=eight"));
}

TEST(Overrides, MalformedOverrides) {
  EXPECT_THAT(override_error({"parallelism.tp"}).problem(), HasSubstr("key.path=value"));
  EXPECT_THAT(override_error({"parallelism.tp="}).problem(), HasSubstr("empty"));
  EXPECT_THAT(override_error({"network.dimensions[7].topology.util=0.5"}).problem(), HasSubstr("out of range"));
  EXPECT_THAT(override_error({"parallelism=3"}).problem(), HasSubstr("section"));
  EXPECT_THAT(override_error({"parallelism.tp[0]=3"}).problem(), HasSubstr("not a list"));
}

TEST(Overrides, ForeignKeyWithOnlyOneFile) {
  try {
    (void)load_hardware(kA100, {"model_param.M=4"});
    FAIL();
  } catch (const ConfigError& e) {
    EXPECT_THAT(e.problem(), HasSubstr("belongs in a model file"));
  }
}

}  // namespace
// A zero-byte format is refused (it made memory and traffic vanish with exit 0, issue 16);
// master_parameters alone takes 0, meaning no master copy.
TEST(Overrides, ZeroBytePrecisionsAreRefused) {
  for (const char* key : {"kv_cache", "parameters", "gradients", "grad_microbatch", "grad_communication",
                          "optimizer_states", "stats", "matmul"}) {
    const ConfigError e = override_error({std::string("sw_param.precision.") + key + "=0"});
    EXPECT_EQ(e.key_path(), std::string("sw_param.precision.") + key);
    EXPECT_THAT(e.problem(), HasSubstr("between 0.5 and 8"));
  }
}

}  // namespace rapidllm
